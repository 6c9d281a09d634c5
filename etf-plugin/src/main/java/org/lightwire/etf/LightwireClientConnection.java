package org.lightwire.etf;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

import org.jacorb.orb.dsi.ServerRequest;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.SystemExceptionReply;
import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.ConnectionPool;
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
 *       straight back to the pool.</li>
 *   <li>Every other message is an exactly-once call. The caller's thread sends it and returns
 *       (JacORB holds the write lock during flush); a reply waiter receives the transport reply
 *       and queues it for {@link #read}. Requests and LocateRequests are answered with the GIOP
 *       reply; other messages with an empty transport reply, which presents nothing.</li>
 *   <li>A call that fails (zombie connection, transport call timeout) is answered with a GIOP
 *       Reply carrying the system exception {@link CorbaExceptions} chose, for that request id
 *       only: the other calls on this connection go on.</li>
 *   <li>Fragmented messages are joined before they are sent ({@link FragmentJoiner}).</li>
 * </ul>
 */
final class LightwireClientConnection extends MessageConnection
{
    private final ClientRuntime runtime;
    private volatile ConnectionPool pool;
    private volatile String server = "(not connected)";
    private volatile long generation;
    /** Non-null when JacORB's reader drives the in-flight calls (the default). */
    private final InFlightCalls inFlight;

    LightwireClientConnection(final ClientRuntime runtime)
    {
        this.runtime = runtime;
        this.inFlight = runtime.config().clientReaderDriven() ?
            new InFlightCalls(new Completion(), runtime.config().link().receiveSpinNs()) : null;
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
        }

        @Override
        public void failed(final InFlightCalls.Call call, final IOException cause)
        {
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
        profile = lw;
        server = "lw:" + lw.address();
        final InetSocketAddress address;
        try
        {
            address = lw.address().resolve();
        }
        catch (final UnknownHostException e)
        {
            throw CorbaExceptions.connectFailed(server, e);
        }
        final ConnectionPool p = runtime.client().pool(address);
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
    protected void onMessage(final byte[] message)
    {
        final ConnectionPool p = pool;
        if (!connected || p == null)
        {
            throw CorbaExceptions.closed(server);
        }
        final boolean isGiop = GiopMessage.isGiop(message, message.length);
        final boolean oneway = isGiop && GiopMessage.type(message) == GiopMessage.REQUEST &&
            GiopMessage.responseExpected(message, message.length) == 0;
        final ClientConnection c = acquire(p);
        if (oneway)
        {
            try
            {
                c.send(ByteBuffer.wrap(message));
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
        final long gen = generation;
        try
        {
            c.startCall(ByteBuffer.wrap(message));
        }
        catch (final IOException e)
        {
            p.release(c);
            callFailed(p, gen, message, e);
            return;
        }
        runtime.callsStarted.incrementAndGet();
        if (inFlight != null && c.selectableChannel() != null)
        {
            final long timeoutNs = runtime.config().clientCallTimeoutNs();
            inFlight.submit(new InFlightCalls.Call(p, c, gen, message, System.nanoTime(), timeoutNs == 0 ? Long.MAX_VALUE / 4 : timeoutNs));
            return;
        }
        runtime.replyWaiters().execute(() -> awaitReply(p, c, gen, message));
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

    private void awaitReply(final ConnectionPool p, final ClientConnection c, final long gen, final byte[] request)
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
            callFailed(p, gen, request, e);
            return;
        }
        catch (final RuntimeException e)
        {
            p.release(c);
            callFailed(p, gen, request, new IOException(e.toString(), e));
            return;
        }
        p.release(c);
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
        synchronized (this)
        {
            connected = false;
        }
        final String name = server;
        inbound.close(() -> CorbaExceptions.closed(name));
        if (inFlight != null)
        {
            inFlight.close();
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
