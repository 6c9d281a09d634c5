package org.lightwire.etf;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.jacorb.orb.dsi.ServerRequest;
import org.lightwire.etf.giop.ServiceContexts;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.SystemExceptionReply;
import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.ConnectionFailedException;
import org.lightwire.transport.channel.ConnectionPool;
import org.lightwire.transport.protocol.CloseCause;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.SystemException;
import org.omg.ETF.BufferHolder;
import org.omg.ETF.Profile;

/**
 * The client side of one JacORB connection to a Lightwire server (paper, section 5: the ORB's
 * strand becomes a Lightwire call). JacORB writes each GIOP message in one to three
 * {@link #write}s and ends it with {@link #flush}; each flushed message is one transport call on a
 * transport connection of its own, taken from the server's pool, so calls of many threads run at
 * once.
 *
 * <ul>
 *   <li>A Request that asks for no reply (a oneway) is sent at-most-once and the connection goes
 *       straight back to the pool, within a window ({@link OnewayWindow}): the one-way that would
 *       overfill it goes exactly-once, after the previous window's such confirmation was answered,
 *       so a sender faster than its server waits for it instead of overrunning its socket.</li>
 *   <li>Every other message is an exactly-once call. The caller's thread sends it and returns
 *       (JacORB holds the write lock during flush); JacORB's reader thread, in {@link #read}, drives
 *       the calls in flight ({@link InFlightCalls}) and presents each reply (over a link without
 *       a selectable channel, a reply waiter receives it and queues it for {@link #read}).
 *       Requests and LocateRequests are answered with the GIOP reply; other messages with an
 *       empty transport reply, which presents nothing.</li>
 *   <li>A call that fails (zombie connection, transport call timeout) is answered with a GIOP
 *       Reply carrying the system exception {@link CorbaExceptions} chose, for that request id
 *       only: the other calls on this connection go on.</li>
 *   <li>Fragmented messages are joined before they are sent ({@link FragmentJoiner}).</li>
 *   <li>A GIOP 1.2 Request of at least {@value #DIRECT_REQUEST_MIN_BYTES} bytes, up to
 *       {@code jacorb.lightwire.client.direct_request_max_bytes}, is written by
 *       JacORB straight into a direct buffer that its transport connection keeps from call to
 *       call (taken from the pool when the message begins, see {@link #messageBuffer}): the
 *       engine sends its packets from there, so the request is copied once on its way to the
 *       socket, as over IIOP, instead of into an array of its own and again into the JDK's
 *       temporary direct buffer.</li>
 * </ul>
 */
final class LightwireClientConnection extends MessageConnection
{
    /**
     * One-way requests sent at-most-once in a row on a transport connection before the next one
     * goes exactly-once: a call that the server answers proves it has caught up, which is what
     * flow-controls one-ways ({@link OnewayWindow}). Costs one round trip, made by JacORB's
     * reader, per this many one-ways.
     */
    static final int ONEWAYS_PER_CONFIRMATION = 64;
    /** The smallest Request written into its transport connection's direct buffer; a smaller one costs less to copy. */
    static final int DIRECT_REQUEST_MIN_BYTES = 8 * 1024;

    /** What this plug-in keeps with each transport connection (its attachment). */
    private static final class TransportState
    {
        boolean codeSetsSent;
        int unconfirmedOneways;
        /** Where large requests on this connection are written (see {@link #messageBuffer}); made at the first. */
        ByteBuffer requestBuffer;
    }

    private final ClientRuntime runtime;
    private volatile ConnectionPool pool;
    private volatile String server = "(not connected)";
    private volatile long generation;
    /** The code-set context JacORB sent on this ORB connection's first request, once seen. */
    private byte[] codeSetContext;
    /** Non-null when JacORB's reader drives the in-flight calls (the default). */
    private final InFlightCalls inFlight;
    /** This connection's one-ways in flight; used under JacORB's write lock. */
    private final OnewayWindow oneways;
    /**
     * The transport connection whose buffer the message being written goes into. Whoever takes
     * it (the flush, an abandoned message, a close) gives it back, once.
     */
    private final AtomicReference<ClientConnection> writing = new AtomicReference<>();

    LightwireClientConnection(final ClientRuntime runtime)
    {
        this.runtime = runtime;
        this.inFlight = runtime.config().clientReaderDriven() ?
            new InFlightCalls(new Completion(), runtime.config().link().receiveSpinNs()) : null;
        this.oneways = new OnewayWindow(ONEWAYS_PER_CONFIRMATION, runtime.config().clientOnewayWindowBytes(),
            runtime.onewayWindowWaits);
    }

    /** A call that confirmed a window of one-ways has ended. */
    private static void ended(final CountDownLatch confirms)
    {
        if (confirms != null)
        {
            confirms.countDown();
        }
    }

    /** Completes calls on JacORB's reader thread (see {@link InFlightCalls}). */
    private final class Completion implements InFlightCalls.Completion
    {
        @Override
        public void replied(final InFlightCalls.Call call, final ByteBuffer r)
        {
            if (r.remaining() > 0)
            {
                final byte[] reply = new byte[r.remaining()];
                r.get(reply);
                inbound.offer(call.generation, reply);
            }
            ended(call.confirms);
        }

        @Override
        public void failed(final InFlightCalls.Call call, final IOException cause)
        {
            if (!call.resent && closedIdle(cause))
            {
                sendAgain(call.pool, call.generation, call.request, call.message, call.confirms);
                return;
            }
            ended(call.confirms);
            callFailed(call.pool, call.generation, call.request, cause);
        }
    }

    @Override
    public synchronized void connect(final Profile serverProfile, final long timeOut)
    {
        if (connected)
        {
            return;
        }
        if (!(serverProfile instanceof LightwireProfile))
        {
            throw CorbaExceptions.badAddress(String.valueOf(serverProfile), "not a Lightwire profile");
        }
        final LightwireProfile lw = (LightwireProfile)serverProfile;
        runtime.retain();
        try
        {
            connectTo(lw);
        }
        catch (final RuntimeException e)
        {
            runtime.release();
            throw e;
        }
    }

    private void connectTo(final LightwireProfile lw)
    {
        profile = lw;
        server = "lw:" + lw.address();
        final ConnectionPool p;
        if (runtime.config().aal5() != null)
        {
            if (!lw.address().isAal5())
            {
                throw CorbaExceptions.connectFailed(server, new IOException("this ORB reaches Lightwire servers over AAL5 (" +
                    LightwireConfig.LINK + "=aal5), and " + lw.address() + " is a UDP endpoint"));
            }
            p = runtime.aal5Pool();
        }
        else
        {
            if (lw.address().isAal5())
            {
                throw CorbaExceptions.connectFailed(server, new IOException(lw.address() + " is a server on an AAL5 circuit; set " +
                    LightwireConfig.LINK + "=aal5 and " + LightwireConfig.AAL5_PREFIX + "circuit (this end's PVC) to reach it"));
            }
            final InetSocketAddress address;
            try
            {
                address = lw.address().resolve();
            }
            catch (final UnknownHostException e)
            {
                throw CorbaExceptions.connectFailed(server, e);
            }
            p = runtime.client().pool(address);
        }
        // One set-up exchange proves a server is there, so that a client whose server lacks the
        // plug-in gets TRANSIENT now and JacORB moves on to the next profile (IIOP).
        final ClientConnection c;
        try
        {
            c = p.acquire();
        }
        catch (final IOException e)
        {
            p.discardIdle();
            throw CorbaExceptions.connectFailed(server, e);
        }
        p.release(c);
        pool = p;
        if (inFlight != null)
        {
            try
            {
                inFlight.open();
            }
            catch (final IOException e)
            {
                throw CorbaExceptions.connectFailed(server, e);
            }
        }
        generation = inbound.open();
        clearOutgoing();
        connected = true;
    }

    @Override
    protected void onMessage(final byte[] joined)
    {
        final ConnectionPool p = pool;
        if (!connected || p == null)
        {
            throw CorbaExceptions.closed(server);
        }
        final boolean isGiop = GiopMessage.isGiop(joined, joined.length);
        final boolean oneway = isGiop && GiopMessage.type(joined) == GiopMessage.REQUEST &&
            GiopMessage.responseExpected(joined, joined.length) == 0;
        final ClientConnection c = acquire(p);
        final TransportState state = stateOf(c);
        final byte[] message = isGiop && GiopMessage.type(joined) == GiopMessage.REQUEST ? withCodeSets(c, state, joined) : joined;
        send(p, c, state, ByteBuffer.wrap(message), message, oneway);
    }

    @Override
    protected int messageBufferMinBytes()
    {
        return DIRECT_REQUEST_MIN_BYTES;
    }

    /**
     * Takes the transport connection for the GIOP 1.2 Request JacORB begins to write and gives
     * its request buffer; not past {@code jacorb.lightwire.client.direct_request_max_bytes} (each pooled transport
     * connection keeps at most that much direct memory); and a pool that fails now, or direct
     * memory that runs out, leaves the request to {@link #onMessage(byte[])}, which reports the
     * pool's error where JacORB expects it.
     */
    @Override
    protected ByteBuffer messageBuffer(final int length)
    {
        final ConnectionPool p = pool;
        final int max = runtime.config().clientDirectRequestMaxBytes();
        if (length > max || !connected || p == null)
        {
            return null;
        }
        final ClientConnection c;
        try
        {
            c = p.acquire();
        }
        catch (final IOException e)
        {
            return null;
        }
        final TransportState state = stateOf(c);
        ByteBuffer b = state.requestBuffer;
        if (b == null || b.capacity() < length)
        {
            final int grown = b == null ? length : (int)Math.max(length, Math.min(max, b.capacity() * 2L));
            try
            {
                b = ByteBuffer.allocateDirect(grown);
            }
            catch (final OutOfMemoryError e)
            {
                // -XX:MaxDirectMemorySize reached: this request goes as an array.
                runtime.directRequestBuffersRefused.incrementAndGet();
                p.release(c);
                return null;
            }
            state.requestBuffer = b;
        }
        writing.set(c);
        return b.clear();
    }

    @Override
    protected void messageBufferAbandoned()
    {
        final ClientConnection c = writing.getAndSet(null);
        final ConnectionPool p = pool;
        if (c != null && p != null)
        {
            p.release(c);
        }
    }

    @Override
    protected void onMessage(final ByteBuffer message)
    {
        final ClientConnection c = writing.getAndSet(null);
        final ConnectionPool p = pool;
        if (c == null || !connected || p == null)
        {
            // Closed while JacORB wrote (the close took the connection), or about to be.
            if (c != null && p != null)
            {
                p.release(c);
            }
            throw CorbaExceptions.closed(server);
        }
        runtime.directRequests.incrementAndGet();
        final TransportState state = stateOf(c);
        if (!state.codeSetsSent)
        {
            // The connection's first request: the code sets may have to be added, in an array.
            final byte[] whole = new byte[message.remaining()];
            message.get(message.position(), whole, 0, whole.length);
            final byte[] m = withCodeSets(c, state, whole);
            send(p, c, state, ByteBuffer.wrap(m), m, GiopMessage.responseExpected(m, m.length) == 0);
            return;
        }
        // What a failed call's exception reply and the one-way test read: GIOP 1.2 keeps them
        // at fixed offsets near the start, so the rest of the request is never copied.
        final byte[] head = new byte[Math.min(message.remaining(), GiopMessage.REQUEST_1_2_FIXED_LENGTH)];
        message.get(message.position(), head, 0, head.length);
        send(p, c, state, message, head, GiopMessage.responseExpected(head, head.length) == 0);
    }

    /**
     * Sends one message on {@code c}, which this call now owns: a oneway at-most-once (unless
     * this transport connection's one-ways are due a confirmation), anything else as an
     * exactly-once call whose reply {@link #read} presents.
     *
     * @param request the message, or at least its GIOP headers: what a failed call is answered from.
     */
    private void send(final ConnectionPool p, final ClientConnection c, final TransportState state, final ByteBuffer payload,
        final byte[] request, final boolean oneway)
    {
        if (oneway && state.unconfirmedOneways < ONEWAYS_PER_CONFIRMATION && oneways.admit(payload.remaining()))
        {
            state.unconfirmedOneways++;
            try
            {
                c.send(payload);
                runtime.onewaysSent.incrementAndGet();
            }
            catch (final IOException e)
            {
                // At-most-once: a oneway that could not be sent is lost, as a lost datagram is.
                p.discardIdle();
            }
            finally
            {
                p.release(c);
            }
            return;
        }
        // Exactly-once: the connection returns to the pool only when the server has answered,
        // so the server has caught up with every earlier call on it. A one-way sent so confirms
        // a window of them, once the window before has been confirmed (OnewayWindow).
        state.unconfirmedOneways = 0;
        final CountDownLatch confirms = oneway ? oneways.startConfirmation() : null;
        if (oneway)
        {
            runtime.onewaysSent.incrementAndGet();
            runtime.onewaysConfirmed.incrementAndGet();
        }
        else
        {
            runtime.callsStarted.incrementAndGet();
        }
        startCall(p, c, generation, request, payload, false, confirms);
    }

    /**
     * Starts an exactly-once call on {@code c} and hands it to whoever awaits its reply.
     *
     * @param message the whole message; kept (its own view) in case the call must be sent again.
     */
    private void startCall(final ConnectionPool p, final ClientConnection c, final long gen, final byte[] request,
        final ByteBuffer message, final boolean resent, final CountDownLatch confirms)
    {
        // A view of its own: the engine moves the buffer's position and limit as it sends.
        final ByteBuffer kept = message.duplicate();
        try
        {
            c.startCall(message);
        }
        catch (final IOException e)
        {
            p.release(c);
            if (!resent && closedIdle(e))
            {
                sendAgain(p, gen, request, kept, confirms);
                return;
            }
            ended(confirms);
            callFailed(p, gen, request, e);
            return;
        }
        if (inFlight != null && c.selectableChannel() != null)
        {
            final long timeoutNs = runtime.config().clientCallTimeoutNs();
            inFlight.submit(new InFlightCalls.Call(p, c, gen, request, kept, resent, System.nanoTime(),
                timeoutNs == 0 ? Long.MAX_VALUE / 4 : timeoutNs, confirms));
            return;
        }
        runtime.replyWaiters().execute(() -> awaitReply(p, c, gen, request, kept, resent, confirms));
    }

    /**
     * @return true when the server closed the call's transport connection as idle: nothing sent
     *     on it since reached the server, so the call may go again on a new connection.
     */
    private static boolean closedIdle(final IOException cause)
    {
        return cause instanceof ConnectionFailedException && ((ConnectionFailedException)cause).closeCause() == CloseCause.IDLE;
    }

    /**
     * Sends a call again on a new transport connection, once: the server had closed the first as
     * idle before the call reached it (its REJECT said so), so exactly-once holds.
     */
    private void sendAgain(final ConnectionPool p, final long gen, final byte[] request, final ByteBuffer message,
        final CountDownLatch confirms)
    {
        runtime.callsSentAgain.incrementAndGet();
        final ClientConnection c;
        try
        {
            // On a new connection: the server closed the idle ones together, likely every one pooled.
            p.discardIdle();
            c = p.acquire();
        }
        catch (final IOException e)
        {
            ended(confirms);
            callFailed(p, gen, request, e);
            return;
        }
        ByteBuffer m = message;
        final TransportState state = stateOf(c);
        if (GiopMessage.isGiop(request, request.length) && GiopMessage.type(request) == GiopMessage.REQUEST && !state.codeSetsSent)
        {
            // The new connection's first request: the server must learn the code sets on it too.
            final byte[] whole = new byte[message.remaining()];
            message.get(message.position(), whole, 0, whole.length);
            m = ByteBuffer.wrap(withCodeSets(c, state, whole));
        }
        state.unconfirmedOneways = 0;
        startCall(p, c, gen, request, m, true, confirms);
    }

    /**
     * Makes sure the server's ORB connection of transport connection {@code c} learns the code
     * sets: JacORB sends the context once per ORB connection, but the server sees each transport
     * connection as an ORB connection of its own ({@link ServiceContexts}). Runs under JacORB's
     * write lock of this connection.
     */
    private byte[] withCodeSets(final ClientConnection c, final TransportState state, final byte[] message)
    {
        final byte[] found = ServiceContexts.find(message, message.length);
        if (found != null)
        {
            if (codeSetContext == null)
            {
                codeSetContext = found;
            }
            state.codeSetsSent = true;
            return message;
        }
        if (codeSetContext == null || state.codeSetsSent)
        {
            return message;
        }
        final byte[] withContext = ServiceContexts.insert(message, message.length, codeSetContext);
        if (withContext == null)
        {
            return message;
        }
        runtime.codeSetContextsAdded.incrementAndGet();
        state.codeSetsSent = true;
        return withContext;
    }

    /** @return this plug-in's state of {@code c}, made on first use (under JacORB's write lock; c is ours until released). */
    private static TransportState stateOf(final ClientConnection c)
    {
        final Object a = c.attachment();
        if (a instanceof TransportState)
        {
            return (TransportState)a;
        }
        final TransportState state = new TransportState();
        c.attach(state);
        return state;
    }

    @Override
    protected int maxMessageBytes()
    {
        return runtime.config().maxMessageBytes();
    }

    private ClientConnection acquire(final ConnectionPool p)
    {
        try
        {
            return p.acquire();
        }
        catch (final SocketException | UnknownHostException e)
        {
            p.discardIdle();
            throw CorbaExceptions.connectFailed(server, e);
        }
        catch (final IOException e)
        {
            throw CorbaExceptions.allBusy(server, e);
        }
    }

    private void awaitReply(final ConnectionPool p, final ClientConnection c, final long gen, final byte[] request,
        final ByteBuffer message, final boolean resent, final CountDownLatch confirms)
    {
        final long timeoutNs = runtime.config().clientCallTimeoutNs();
        final byte[] reply;
        try
        {
            final ByteBuffer r = c.awaitReply(timeoutNs == 0 ? Long.MAX_VALUE / 4 : timeoutNs);
            reply = new byte[r.remaining()];
            r.get(reply);
        }
        catch (final IOException e)
        {
            p.release(c);
            if (!resent && closedIdle(e))
            {
                sendAgain(p, gen, request, message, confirms);
                return;
            }
            ended(confirms);
            callFailed(p, gen, request, e);
            return;
        }
        catch (final RuntimeException e)
        {
            p.release(c);
            ended(confirms);
            callFailed(p, gen, request, new IOException(e.toString(), e));
            return;
        }
        p.release(c);
        ended(confirms);
        if (reply.length > 0)
        {
            inbound.offer(gen, reply);
            wakeReader();
        }
    }

    /** A message offered by a thread other than the reader: a reader waiting on its calls must look. */
    private void wakeReader()
    {
        if (inFlight != null)
        {
            inFlight.wakeup();
        }
    }

    /**
     * Fails one call: a Request gets a system exception reply of its own; a LocateRequest, which
     * has no such reply in every GIOP version, fails the connection; other messages had no
     * answer to wait for.
     */
    private void callFailed(final ConnectionPool p, final long gen, final byte[] request, final IOException cause)
    {
        runtime.callsFailed.incrementAndGet();
        // The server restarted or vanished: its other idle connections would fail the same way.
        p.discardIdle();
        final SystemException ex = CorbaExceptions.callFailed(server, cause);
        if (!GiopMessage.isGiop(request, request.length))
        {
            return;
        }
        final int type = GiopMessage.type(request);
        final long requestId = GiopMessage.requestId(request, request.length);
        if (type == GiopMessage.REQUEST && GiopMessage.responseExpected(request, request.length) == 0)
        {
            // A one-way sent exactly-once to confirm the ones before it: JacORB expects no
            // reply, and at-most-once allowed it to be lost.
            return;
        }
        if (type == GiopMessage.REQUEST && requestId != GiopMessage.UNKNOWN)
        {
            final byte[] detail = ServerRequest.createExceptionDetailMessage(ex.getMessage()).context_data;
            inbound.offer(gen, SystemExceptionReply.build(GiopMessage.minor(request), requestId,
                CorbaExceptions.repositoryId(ex), ex.minor, ex.completed.value(), detail));
            wakeReader();
        }
        else if (type == GiopMessage.LOCATE_REQUEST)
        {
            if (gen == generation)
            {
                inbound.close(() -> (COMM_FAILURE)new COMM_FAILURE(ex.getMessage(), ex.minor, ex.completed).initCause(cause));
                wakeReader();
            }
        }
    }

    @Override
    public int read(final BufferHolder data, final int offset, final int minLength, final int maxLength, final long timeOut)
    {
        if (inFlight == null)
        {
            return inbound.read(data.value, offset, minLength, maxLength);
        }
        while (true)
        {
            final int n = inbound.tryRead(data.value, offset, minLength, maxLength);
            if (n >= 0)
            {
                return n;
            }
            inFlight.drive();
        }
    }

    @Override
    public void close()
    {
        // A connected connection holds the runtime's transport connections open (see connect).
        final boolean release;
        synchronized (this)
        {
            release = connected;
            connected = false;
        }
        final String name = server;
        inbound.close(() -> CorbaExceptions.closed(name));
        oneways.close();
        if (inFlight != null)
        {
            inFlight.close();
        }
        final ClientConnection c = writing.getAndSet(null);
        final ConnectionPool p = pool;
        if (c != null && p != null)
        {
            // A message was being written into its buffer and may still be: never reused.
            c.close();
            p.release(c);
        }
        if (release)
        {
            runtime.release();
        }
    }

    @Override
    protected COMM_FAILURE handleCommFailure(final IOException exception)
    {
        return CorbaExceptions.sendFailed(server, exception);
    }

    @Override
    public String toString()
    {
        return "LightwireClientConnection{" + server + ", connected=" + connected + '}';
    }
}
