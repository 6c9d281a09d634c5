package org.lightwire.etf.lane;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.lightwire.etf.CorbaExceptions;
import org.lightwire.etf.LightwireProfile;
import org.lightwire.etf.MessageConnection;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.GiopRequestCheck;
import org.lightwire.transport.channel.ConnectionReader;
import org.lightwire.transport.channel.ServerCall;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.NO_IMPLEMENT;
import org.omg.ETF.BufferHolder;
import org.omg.ETF.Profile;

/**
 * One JacORB server connection (one JacORB reader thread) that carries the requests of many
 * Lightwire transport connections: JacORB's reader thread, waiting in {@link #read} for a
 * message, reads the sockets of the lane's connections itself ({@link LaneReader}), one datagram
 * at a time, and returns as soon as a request is presented; so a request reaches JacORB with no
 * thread hand-off, as over a connection of its own, but a server holds a few such threads
 * whatever the number of its clients.
 *
 * <p>Sharing one JacORB connection among clients takes three rules:
 * <ol>
 *   <li>request ids: each presented request gets an id of the lane's ({@link RequestIdTable}),
 *       written into its bytes; JacORB's reply gets the client's id back before it is sent;</li>
 *   <li>only messages JacORB reads without failing the connection are presented
 *       ({@link GiopRequestCheck}); the others are answered here, and counted;</li>
 *   <li>code sets: JacORB negotiates them once per connection, so a lane carries only transport
 *       connections whose requests settle them the same way ({@link CodeSetKey}); a connection
 *       whose requests turn out to need other code sets moves to another lane
 *       ({@link LanePool#move}).</li>
 * </ol>
 *
 * <p>Requests read in place (from the lane's shared receive buffer or a connection's assembly
 * buffer) are valid until the lane reads its next datagram, which it does only once JacORB has
 * read the whole request (its header announced exactly its length): so they are not copied.
 * Requests handed over by another thread come copied.
 */
public final class Lane extends MessageConnection
{
    private static final int NONE = -1;

    private final LanePool pool;
    private final int index;
    private final String name;
    private final LaneCounters counters;
    private final RequestIdTable ids = new RequestIdTable();
    private final LaneReader reader;
    /** Reads each message on the reader thread; one instance, since one thread uses it. */
    private final GiopRequestCheck check = new GiopRequestCheck();
    private final long generation;
    private final AtomicReference<CodeSetKey> key = new AtomicReference<>();
    private final Set<Route> members = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Thread readerThread;
    /**
     * The connection the pool gave this lane to read alone (a solo lane), or null. Set by the pool
     * under its lock, only while null; cleared under the pool's lock once the lane's thread no
     * longer waits on that connection alone ({@link LanePool#soloEnded}).
     */
    private volatile Route solo;
    /** Set by the pool when new connections crowd the shared lanes: a solo lane turns shared at its next step. */
    private volatile boolean shareRequested;
    /**
     * The lane id of the request presented last, when a call awaits its reply (else {@link #NONE}):
     * a MessageError JacORB writes on its reader thread answers that request. Reader thread only.
     */
    private long lastPresented = NONE;

    Lane(final LanePool pool, final int index, final LightwireProfile profile, final LaneCounters counters) throws IOException
    {
        this.pool = pool;
        this.index = index;
        this.name = "lane " + index;
        this.counters = counters;
        this.profile = profile;
        this.reader = new LaneReader(this);
        this.generation = inbound.open();
    }

    /** Marks the connection ready for JacORB's reader, as an accepted socket is ({@code docs/notes/jacorb-etf.md} section 8). */
    public void markConnected()
    {
        synchronized (this)
        {
            connected = true;
        }
    }

    int index()
    {
        return index;
    }

    /** @return the code sets this lane's JacORB connection settled on; null before its first request. */
    CodeSetKey key()
    {
        return key.get();
    }

    /** Reserves the lane for {@code wanted} if it has no key yet. @return true when its key is now {@code wanted}. */
    boolean claim(final CodeSetKey wanted)
    {
        return key.compareAndSet(null, wanted) || wanted.equals(key.get());
    }

    /** The transport connections this lane carries; changed only through {@link Route}. */
    Set<Route> members()
    {
        return members;
    }

    /** @return the connection this lane reads alone (it is a solo lane), or null. */
    Route solo()
    {
        return solo;
    }

    /** Makes this lane solo for {@code r}, or ends that (null); the pool's, under its lock. */
    void solo(final Route r)
    {
        solo = r;
        shareRequested = false;
    }

    /** The pool asks this solo lane to turn shared: its thread does so at its next step (it cannot be woken while it waits alone). */
    void requestShare()
    {
        shareRequested = true;
    }

    boolean shareRequested()
    {
        return shareRequested;
    }

    /** The lane's thread no longer waits on its solo connection alone; {@code shared}: because it now selects it with others to come. */
    void soloEnded(final Route r, final boolean shared)
    {
        pool.soloEnded(this, r, shared);
    }

    /** @return calls presented and not yet answered by JacORB. */
    int pending()
    {
        return ids.size();
    }

    boolean isOpen()
    {
        return !closed.get();
    }

    /** @return true on this lane's reader thread (JacORB's, in {@link #read}). */
    boolean isReaderThread()
    {
        return Thread.currentThread() == readerThread;
    }

    /** Adds a connection with a socket of its own; its socket is registered by the lane's thread. */
    void register(final Route route)
    {
        reader.register(route);
    }

    /** Queues a request copied by another thread; answered at once (COMM_FAILURE) if the lane has closed. */
    void handOff(final LaneReader.HandOff h)
    {
        reader.handOff(h);
        failHandOffsIfClosed();
    }

    /** Queues a request without answering it should the lane be closed: for a caller that holds a lock ({@link Route#moveTo}). */
    void enqueue(final LaneReader.HandOff h)
    {
        reader.handOff(h);
    }

    /** Answers the queued requests of a closed lane; a lane that is open keeps them. */
    void failHandOffsIfClosed()
    {
        if (closed.get())
        {
            failHandOffs();
        }
    }

    @Override
    public int read(final BufferHolder data, final int offset, final int minLength, final int maxLength, final long timeOut)
    {
        readerThread = Thread.currentThread();
        int n;
        // JacORB asks for the 12-byte header, then for exactly the body it announced: while a
        // message is not fully read, tryRead finds it, and no datagram is read (see class doc).
        while ((n = inbound.tryRead(data.value, offset, minLength, maxLength)) < 0)
        {
            reader.step();
        }
        return n;
    }

    /** Reads one datagram of {@code r}'s socket (one of this lane's); on the reader thread. */
    void poll(final Route r)
    {
        if (closed.get())
        {
            return;
        }
        if (r.reader.poll() == ConnectionReader.Poll.CLOSED)
        {
            // The router learns of the close from the transport.
            reader.deregister(r);
        }
    }

    /**
     * Waits for one datagram of {@code r}, the connection this solo lane reads alone, and handles
     * it; on the reader thread. Only a datagram of {@code r} or the close of its socket (the
     * connection's close, or this lane's, which closes its connections) ends the wait.
     *
     * @return false once the connection is closed.
     */
    boolean receiveAlone(final Route r)
    {
        return !closed.get() && r.reader.readOnce();
    }

    /**
     * A request of one of this lane's connections, completed by the datagram {@link #poll} or {@link #receiveAlone} read:
     * on the reader thread, in place.
     */
    void onPolledRequest(final Route r, final ServerCall call)
    {
        process(r, call, call.request(), true);
    }

    /** A request another thread handed over; on the reader thread. */
    void onHandOff(final LaneReader.HandOff h)
    {
        final Route r = h.route;
        final Lane now = r.settledLane();
        if (now != this)
        {
            // The connection moved on (or its lane was closed) after the request was queued.
            if (now != null && now.isOpen())
            {
                now.handOff(h);
            }
            else
            {
                h.release();
                fail(h.call, h.request, false, "the server ORB closed the lane of " + r.name());
            }
            return;
        }
        if (h.moved)
        {
            reader.registerNow(r);
        }
        try
        {
            process(r, h.call, h.request, false);
        }
        catch (final RuntimeException e)
        {
            // Never let one request end the reader thread of a lane others share.
            fail(h.call, h.request, false, "the server failed to handle the request: " + e);
        }
        finally
        {
            // Presented (JacORB now reads it, before this lane reads anything else) or answered.
            h.release();
        }
    }

    private void process(final Route r, final ServerCall call, final ByteBuffer request, final boolean inPlace)
    {
        final GiopRequestCheck.Verdict verdict = check.check(request);
        if (verdict != GiopRequestCheck.Verdict.PRESENT)
        {
            answerNotPresented(r, call, verdict);
            return;
        }
        final CodeSetKey wanted = CodeSetKey.after(r.key, check);
        CodeSetKey mine = key.get();
        if (mine == null)
        {
            key.compareAndSet(null, wanted);
            mine = key.get();
        }
        if (mine != wanted && !mine.equals(wanted))
        {
            reader.deregister(r);
            pool.move(r, call, inPlace ? copyOf(request) : request, wanted, this, check);
            return;
        }
        r.key = wanted;
        present(r, call, request);
    }

    private void present(final Route r, final ServerCall call, final ByteBuffer request)
    {
        final boolean awaitsReply = call.exactlyOnce() && check.responseExpected();
        final int laneId;
        if (awaitsReply)
        {
            laneId = ids.add(call, (int)check.requestId(), check.type(), check.minor(), r);
        }
        else
        {
            // A one-way sent exactly-once (a window's confirmation) is answered at once; JacORB never replies to it.
            ErrorReplies.empty(call);
            laneId = ids.unrecordedId();
        }
        GiopMessage.writeULong(request, request.position() + check.requestIdOffset(), laneId, check.littleEndian());
        lastPresented = awaitsReply ? laneId & 0xFFFF_FFFFL : NONE;
        if (!inbound.offer(generation, request))
        {
            final PendingCall p = awaitsReply ? ids.take(laneId) : null;
            if (p != null)
            {
                ErrorReplies.laneClosed(call, p.minor, Integer.toUnsignedLong(p.originalId), true, false,
                    "Lightwire: the server ORB closed " + name + " (" + r.name() + ")");
            }
        }
    }

    private void answerNotPresented(final Route r, final ServerCall call, final GiopRequestCheck.Verdict verdict)
    {
        counters.countNotPresented(verdict);
        if (!verdict.malformed())
        {
            ErrorReplies.empty(call);
            return;
        }
        ErrorReplies.refused(call, check.minor(), check.requestId(), refusalAnswered(),
            "Lightwire: the server refused a message of " + r.name() + ": " + verdict.description());
    }

    /** @return true when a refused message gets a GIOP reply: its id is known and it is no one-way Request. */
    private boolean refusalAnswered()
    {
        return check.requestId() != GiopMessage.UNKNOWN && (check.type() != GiopMessage.REQUEST || check.responseExpected());
    }

    private static ByteBuffer copyOf(final ByteBuffer request)
    {
        final ByteBuffer copy = ByteBuffer.allocate(request.remaining());
        copy.put(request.duplicate()).flip();
        return copy;
    }

    /** A connection that no lane can carry: closed, so that its client hears of it. */
    void refuseConnection(final Route r)
    {
        counters.connectionsRefused.increment();
        reader.deregister(r);
        r.moveTo(null);
        if (r.reader != null)
        {
            r.reader.close();
        }
    }

    /**
     * A whole message JacORB flushed on this lane (a POA thread's reply; the reader thread's
     * MessageError or CloseConnection): a Reply or LocateReply goes to the call its lane id names,
     * with the client's id restored.
     */
    @Override
    protected void onMessage(final byte[] message)
    {
        if (!GiopMessage.isGiop(message, message.length))
        {
            counters.messagesWithoutCall.increment();
            return;
        }
        switch (GiopMessage.type(message))
        {
            case GiopMessage.REPLY:
            case GiopMessage.LOCATE_REPLY:
                reply(message);
                return;
            case GiopMessage.CLOSE_CONNECTION:
                // Only the client starts an exchange in Lightwire: a server's CloseConnection has no call to go in.
                counters.closeConnectionsDropped.increment();
                return;
            case GiopMessage.MESSAGE_ERROR:
                messageError(message);
                return;
            default:
                counters.messagesWithoutCall.increment();
        }
    }

    private void reply(final byte[] message)
    {
        final int offset = GiopMessage.requestIdOffset(message, message.length);
        final PendingCall p = offset < 0 ? null :
            ids.take(GiopMessage.readULong(message, offset, GiopMessage.littleEndian(message)));
        if (p == null)
        {
            counters.messagesWithoutCall.increment();
            return;
        }
        GiopMessage.writeULong(message, offset, p.originalId, GiopMessage.littleEndian(message));
        p.call.reply(ByteBuffer.wrap(message));
    }

    /** JacORB's reader thread answers the message it was just given with a MessageError: it goes to that message's call. */
    private void messageError(final byte[] message)
    {
        final long last = lastPresented;
        final PendingCall p = isReaderThread() && last != NONE ? ids.take((int)last) : null;
        if (p == null)
        {
            counters.messageErrorsDropped.increment();
            return;
        }
        lastPresented = NONE;
        p.call.reply(ByteBuffer.wrap(message));
    }

    @Override
    public void connect(final Profile serverProfile, final long timeOut)
    {
        throw new NO_IMPLEMENT("a Lightwire lane is made by its listener, never connected");
    }

    /** JacORB closes the lane (ORB shutdown, a failed delivery, its own policy): see {@link #shutdown}. */
    @Override
    public void close()
    {
        synchronized (this)
        {
            connected = false;
        }
        shutdown("the server ORB closed " + name);
    }

    /**
     * Closes the lane once: JacORB's reader fails with COMM_FAILURE, calls JacORB had and did not
     * answer get a COMM_FAILURE reply (COMPLETED_MAYBE), requests not yet presented one with
     * COMPLETED_NO, and the lane's transport connections are closed (a client's next call gets
     * REJECT, not silence); connections without an own socket just leave the lane, and their
     * next request finds another. The pool makes a new lane when one is next needed.
     */
    void shutdown(final String why)
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        counters.lanesClosed.incrementAndGet();
        inbound.close(() -> new COMM_FAILURE("Lightwire: " + why, CorbaExceptions.MINOR_CLOSED,
            org.omg.CORBA.CompletionStatus.COMPLETED_MAYBE));
        pool.laneClosed(this);
        reader.close();
        failHandOffs();
        for (final PendingCall p : ids.takeAll())
        {
            counters.orphanedCalls.increment();
            ErrorReplies.laneClosed(p.call, p.minor, Integer.toUnsignedLong(p.originalId), true, true,
                "Lightwire: " + why + " before it replied (" + p.route.name() + ")");
        }
        for (final Route r : members.toArray(new Route[0]))
        {
            r.leave(this);
            if (r.reader != null)
            {
                r.reader.close();
            }
        }
    }

    /** Answers every queued hand-off of a closed lane: COMM_FAILURE, COMPLETED_NO (JacORB never had them). */
    void failHandOffs()
    {
        LaneReader.HandOff h;
        while ((h = reader.pollHandOff()) != null)
        {
            h.release();
            fail(h.call, h.request, false, "the server ORB closed " + name);
        }
    }

    /** Answers a call JacORB will not answer with COMM_FAILURE; reads the request's facts with a check of its own (any thread). */
    private void fail(final ServerCall call, final ByteBuffer request, final boolean presented, final String why)
    {
        counters.orphanedCalls.increment();
        final GiopRequestCheck facts = new GiopRequestCheck();
        facts.check(request);
        ErrorReplies.laneClosed(call, facts.minor(), facts.requestId(), facts.responseExpected() ||
            facts.type() == GiopMessage.LOCATE_REQUEST, presented, "Lightwire: " + why);
    }

    @Override
    protected COMM_FAILURE handleCommFailure(final IOException exception)
    {
        return CorbaExceptions.sendFailed(name, exception);
    }

    /** @return "lane 2 {char 0x05010001 wchar 0x00010109, 17 connections, 3 pending}". */
    String describe()
    {
        return name + " {" + key.get() + ", " + members.size() + " connections, " + ids.size() + " pending" + (isOpen() ? "" : ", closed") +
            '}';
    }

    @Override
    public String toString()
    {
        return "Lightwire " + name;
    }
}
