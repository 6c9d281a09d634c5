package org.lightwire.transport.channel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.lightwire.transport.engine.BufferReleaser;
import org.lightwire.transport.engine.ClientEngine;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.engine.MessageHandler;
import org.lightwire.transport.engine.MessageWriter;
import org.lightwire.transport.engine.PacketBatch;
import org.lightwire.transport.engine.ProtocolEngine;
import org.lightwire.transport.engine.ZombieConnectionException;
import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.PeerClosedException;
import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.HeaderFlyweight;
import org.lightwire.transport.protocol.MessageType;

/**
 * The client's driver of one connection: a {@link ClientEngine} over a {@link Link}, driven by
 * the calling thread itself. The caller sends its request and then reads the link until its
 * reply is whole, so no other thread and no queue sits on the call path (the paper's central
 * finding, section 1). Only an idle connection with an acknowledgement due is serviced by
 * another thread, through {@link #serviceIdle(long)}.
 *
 * <p>One call at a time: concurrent callers use separate connections ({@link ConnectionPool}).
 */
public final class ClientConnection implements AutoCloseable
{
    private volatile Object attachment;
    private static final int BATCH_PACKETS = 8;
    /** Idle this long, a connection's link is read before its next call ({@link #readWhatCameWhileIdle}). */
    static final long IDLE_READ_AFTER_NS = 1_000_000L;
    /** How long the read before a call waits for the idle servicer to finish reading the connection. */
    private static final long SERVICER_WAIT_NS = 50_000_000L;

    private final Link link;
    private final ClientEngine engine;
    private final MessageWriter writer;
    private final PacketBatch batch;
    private final AssemblyBuffer reply;
    /** Held for a whole call (and by the idle servicer), so a connection carries one call at a time. */
    private final ReentrantLock lock = new ReentrantLock();
    /**
     * Held for each use of the engine. The caller lets go of it while it waits on the link, so
     * that on a link without timed receive the {@link DeadlineService} can fire the engine's
     * timers meanwhile.
     */
    private final ReentrantLock engineLock = new ReentrantLock();
    private final boolean blockingWaits;
    private volatile boolean inCall;
    private volatile long callDeadlineNs;
    private volatile boolean callTimedOut;
    private final String peer;
    private final HeaderFlyweight peek = new HeaderFlyweight();
    private IOException sendFailure;
    private volatile String failure;
    private volatile CloseCause failureCause;
    private volatile boolean closed;
    private long callStartNs;
    /** When the last call on this connection ended (or it was opened): for {@link #isUsable()}. */
    private volatile long lastUsedNs = System.nanoTime();

    /**
     * @param link a connected link; this connection owns and closes it.
     * @param config engine settings; the packet size is lowered to the link's maximum.
     * @param peer how messages name the server, e.g. "127.0.0.1:4000 (connection 0x1f...)".
     * @param maxReplyBytes the largest reply accepted; a larger one fails the call.
     */
    public ClientConnection(final Link link, final EngineConfig config, final String peer, final int maxReplyBytes)
    {
        this.link = link;
        this.peer = peer;
        final EngineConfig effective = config.maxPacketBytes() <= link.maxPacketBytes() ? config :
            config.toBuilder().maxPacketBytes(link.maxPacketBytes()).build();
        this.reply = new AssemblyBuffer(Math.min(64 * 1024, maxReplyBytes), maxReplyBytes, false);
        this.engine = new ClientEngine(effective, this::sendPacket, new ReplyHandler(), BufferReleaser.NONE);
        this.writer = MessageWriter.forClient(engine);
        this.batch = new PacketBatch(BATCH_PACKETS, link.maxPacketBytes(), true);
        this.blockingWaits = !link.timedReceive();
        if (blockingWaits)
        {
            DeadlineService.instance().register(this);
        }
    }

    private void sendPacket(final ByteBuffer header, final ByteBuffer payload)
    {
        if (sendFailure != null)
        {
            return;
        }
        try
        {
            link.send(header, payload);
        }
        catch (final IOException e)
        {
            sendFailure = e;
        }
    }

    /** Feeds a round-trip sample measured by the link's set-up exchange to the engine. */
    public void onSetupRtt(final long rttNs)
    {
        if (rttNs > 0)
        {
            lock.lock();
            try
            {
                engine.onRttSample(rttNs);
            }
            finally
            {
                lock.unlock();
            }
        }
    }

    /**
     * Makes one exactly-once call and waits for its reply: {@link #startCall} then
     * {@link #awaitReply}.
     *
     * @param request the request bytes from position to limit; the bytes are not modified, but the
     *                buffer's position and limit are undefined when the call returns (the engine
     *                sends slices of it without copying).
     * @param timeoutNs how long to wait for the reply.
     * @return the reply, from position to limit, valid until the next call on this connection.
     * @throws CallTimeoutException no reply within {@code timeoutNs}; the connection is closed.
     * @throws ConnectionFailedException the connection failed; it is closed.
     */
    public ByteBuffer call(final ByteBuffer request, final long timeoutNs) throws IOException
    {
        lock.lock();
        try
        {
            startCall(request);
            return awaitReply(timeoutNs);
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Begins one exactly-once call: sends what the buffer pool takes of the request and returns
     * without waiting. The thread that then calls {@link #awaitReply} (it may be another one)
     * sends the rest and receives the reply. Until {@link #awaitReply} returns or throws, the
     * connection carries this call and nothing else, and {@code request} belongs to it.
     *
     * @throws ConnectionFailedException the connection failed; it is closed.
     */
    public void startCall(final ByteBuffer request) throws IOException
    {
        lock.lock();
        try
        {
            reply.reset();
            callStartNs = beginMessage(request, true);
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Waits for the reply of the call begun by {@link #startCall}.
     *
     * @param timeoutNs how long to wait, counted from {@link #startCall}.
     * @return the reply, from position to limit, valid until the next call on this connection.
     * @throws CallTimeoutException no reply within {@code timeoutNs}; the connection is closed.
     * @throws ConnectionFailedException the connection failed; it is closed.
     */
    public ByteBuffer awaitReply(final long timeoutNs) throws IOException
    {
        return progress(timeoutNs, true);
    }

    /**
     * Makes what progress it can on the call begun by {@link #startCall} without waiting: reads
     * every packet the link already holds, sends what the buffer pool now takes of a large
     * request, and fires the engine's timers when due. For a driver that waits on many
     * connections at once (on their {@link #selectableChannel()}s) and calls this when one is
     * readable or its {@link #nextDeadlineNs()} or call deadline has come; {@link #awaitReply}
     * remains the way for a thread that waits on one connection.
     *
     * @param timeoutNs the call's timeout, counted from {@link #startCall}.
     * @return the reply, from position to limit, valid until the next call on this connection;
     *     or null when it is not whole yet.
     * @throws CallTimeoutException no reply within {@code timeoutNs}; the connection is closed.
     * @throws ConnectionFailedException the connection failed; it is closed.
     */
    public ByteBuffer pollReply(final long timeoutNs) throws IOException
    {
        return progress(timeoutNs, false);
    }

    /**
     * @return the link's channel for readiness selection (see {@link Link#selectableChannel()}),
     *     or null when the link has none and the reply must be awaited with {@link #awaitReply}.
     */
    public java.nio.channels.SelectableChannel selectableChannel()
    {
        return link.selectableChannel();
    }

    /** Drives the call until its reply is whole or, unless {@code block}, until nothing is left to read. */
    private ByteBuffer progress(final long timeoutNs, final boolean block) throws IOException
    {
        lock.lock();
        try
        {
            final long startNs = callStartNs;
            callDeadlineNs = startNs + timeoutNs;
            callTimedOut = false;
            if (blockingWaits && block)
            {
                inCall = true;
                DeadlineService.instance().callStarted(earliestDeadlineNs());
            }
            while (!reply.isComplete())
            {
                if (!awaitEvent(startNs, block) && !block)
                {
                    return null;
                }
            }
            if (reply.overflowed())
            {
                throw fail(new ConnectionFailedException("the reply from " + peer + " is larger than maxMessageBytes = " +
                    reply.maxMessageBytes() + "; raise it"));
            }
            lastUsedNs = System.nanoTime();
            return reply.flipInPlace();
        }
        catch (final ZombieConnectionException e)
        {
            throw fail(zombieFailure(e));
        }
        finally
        {
            inCall = false;
            lock.unlock();
        }
    }

    /**
     * Sends one one-way (at-most-once) call. It returns once the request is on the network; no
     * reply comes, and a lost packet is never retransmitted. The buffer's position and limit are
     * undefined afterwards, as for {@link #call}.
     */
    public void send(final ByteBuffer request) throws IOException
    {
        lock.lock();
        try
        {
            beginMessage(request, false);
            lastUsedNs = System.nanoTime();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Hands a request to the engine, as much as the buffer pool takes; the caller holds the call lock. */
    private long beginMessage(final ByteBuffer request, final boolean exactlyOnce) throws IOException
    {
        checkUsable();
        final long nowNs = System.nanoTime();
        engineLock.lock();
        try
        {
            writer.start(request, exactlyOnce);
            writer.pump(nowNs);
            checkSendFailure();
            return nowNs;
        }
        catch (final ZombieConnectionException e)
        {
            throw fail(zombieFailure(e));
        }
        finally
        {
            engineLock.unlock();
        }
    }

    /**
     * Waits (when {@code block}) for one packet or the next timer, feeds what arrived to the
     * engine and fires due timers.
     *
     * @return true when a packet arrived.
     */
    private boolean awaitEvent(final long startNs, final boolean block) throws IOException
    {
        final ByteBuffer slot;
        final long waitNs;
        engineLock.lock();
        try
        {
            final long nowNs = System.nanoTime();
            if (writer.isActive())
            {
                writer.pump(nowNs);
                checkSendFailure();
            }
            if (!block)
            {
                waitNs = 0;
            }
            else if (blockingWaits)
            {
                waitNs = Link.FOREVER;
            }
            else
            {
                final long deadlineNs = engine.nextDeadlineNs();
                final long wakeNs = deadlineNs == ProtocolEngine.NO_DEADLINE || deadlineNs - callDeadlineNs > 0 ? callDeadlineNs : deadlineNs;
                waitNs = Math.max(0, wakeNs - nowNs);
            }
            slot = batch.nextSlot();
        }
        finally
        {
            engineLock.unlock();
        }

        int length;
        IOException linkFailure = null;
        try
        {
            length = link.receive(slot, waitNs);
        }
        catch (final IOException e)
        {
            length = Link.TIMEOUT;
            linkFailure = e;
        }

        engineLock.lock();
        try
        {
            if (linkFailure != null)
            {
                throw failFromLink(linkFailure, startNs);
            }
            long nowNs;
            if (length >= 0)
            {
                batch.commit();
                if (moreDataLikely(slot))
                {
                    drainInto();
                }
                nowNs = System.nanoTime();
                batch.dispatch(engine, nowNs);
            }
            else
            {
                nowNs = System.nanoTime();
            }
            final long due = engine.nextDeadlineNs();
            if (due != ProtocolEngine.NO_DEADLINE && due - nowNs <= 0)
            {
                engine.onTimer(nowNs);
            }
            checkSendFailure();
            if (engine.isZombie())
            {
                throw fail(zombieFailure(null));
            }
            if (!reply.isComplete() && callDeadlineNs - nowNs <= 0)
            {
                throw fail(callTimeout(nowNs, startNs));
            }
            return length >= 0;
        }
        finally
        {
            engineLock.unlock();
        }
    }

    private CallTimeoutException callTimeout(final long nowNs, final long startNs)
    {
        return new CallTimeoutException("no reply from " + peer + " within " + ((nowNs - startNs) / 1_000_000L) +
            " ms (the caller's timeout); the server is alive but has not answered call " + engine.callNumber());
    }

    /** A receive failed: the deadline service closed the link (zombie, call timeout), or the network did. */
    private ConnectionFailedException failFromLink(final IOException e, final long startNs)
    {
        if (callTimedOut)
        {
            return fail(callTimeout(System.nanoTime(), startNs));
        }
        if (!engine.isZombie())
        {
            onLinkError(e);
        }
        return fail(zombieFailure(e));
    }

    /** The link failed: the engine becomes a zombie, with the cause the peer gave if it gave one. */
    private void onLinkError(final IOException e)
    {
        if (e instanceof PeerClosedException)
        {
            engine.fail(((PeerClosedException)e).closeCause(), e.getMessage());
        }
        else
        {
            engine.onHardError(e.getMessage());
        }
    }

    private ConnectionFailedException zombieFailure(final Throwable cause)
    {
        final String reason = engine.zombieReason();
        return new ConnectionFailedException((reason != null ? reason : "the connection failed") + " (server " + peer + ")", cause,
            engine.zombieCause());
    }

    /** @return the earlier of the engine's next deadline and the call's. */
    private long earliestDeadlineNs()
    {
        final long engineDeadlineNs = engine.nextDeadlineNs();
        final long callNs = callDeadlineNs;
        return engineDeadlineNs == ProtocolEngine.NO_DEADLINE || engineDeadlineNs - callNs > 0 ? callNs : engineDeadlineNs;
    }

    /**
     * Called by the {@link DeadlineService} while a caller waits on a link without timed receive:
     * fires the engine's due timers (a NACK goes out from this thread, and the server's answer
     * wakes the caller), and ends the wait by closing the link when the engine became a zombie
     * or the call's deadline passed.
     *
     * @return when to look again, or {@link ProtocolEngine#NO_DEADLINE} when no call waits.
     */
    long serviceInCall(final long nowNs)
    {
        if (!inCall)
        {
            return ProtocolEngine.NO_DEADLINE;
        }
        engineLock.lock();
        try
        {
            if (!inCall || closed)
            {
                return ProtocolEngine.NO_DEADLINE;
            }
            if (callDeadlineNs - nowNs <= 0)
            {
                callTimedOut = true;
                closeLink();
                return ProtocolEngine.NO_DEADLINE;
            }
            final long due = engine.nextDeadlineNs();
            if (due != ProtocolEngine.NO_DEADLINE && due - nowNs <= 0)
            {
                engine.onTimer(nowNs);
            }
            if (sendFailure != null && !engine.isZombie())
            {
                onLinkError(sendFailure);
            }
            if (engine.isZombie())
            {
                closeLink();
                return ProtocolEngine.NO_DEADLINE;
            }
            return earliestDeadlineNs();
        }
        finally
        {
            engineLock.unlock();
        }
    }

    /**
     * A packet of a multi-packet message other than its last: more are probably queued behind
     * it, and reading them now lets control packets among them go first. For the common
     * one-packet reply this costs no extra system call.
     */
    private boolean moreDataLikely(final ByteBuffer slot)
    {
        if (slot.remaining() < HeaderFlyweight.HEADER_LENGTH)
        {
            return false;
        }
        peek.wrap(slot, slot.position());
        return peek.typeCode() == MessageType.PARTIAL.code();
    }

    private void drainInto() throws IOException
    {
        ByteBuffer slot;
        while ((slot = batch.nextSlot()) != null)
        {
            final int length;
            try
            {
                length = link.receive(slot, 0);
            }
            catch (final IOException e)
            {
                onLinkError(e);
                throw fail(zombieFailure(e));
            }
            if (length < 0)
            {
                return;
            }
            batch.commit();
        }
    }

    /**
     * Services an idle connection from a maintenance thread: reads what arrived, and fires the
     * acknowledgement timer when it is due. Does nothing if a call holds the connection.
     *
     * @return false when the connection failed and should be discarded.
     */
    public boolean serviceIdle(final long nowNs)
    {
        if (!lock.tryLock())
        {
            return true;
        }
        try
        {
            if (closed)
            {
                return false;
            }
            final ClientEngine.State callState = engine.state();
            if (callState == ClientEngine.State.REQUEST_IN_PROGRESS || callState == ClientEngine.State.WAITING_FOR_REPLY)
            {
                // Taken from the pool since the servicer looked (a driver that polls holds the
                // lock only while it works): the reply is its caller's to read.
                return true;
            }
            return readArrived(nowNs, true);
        }
        catch (final IOException e)
        {
            return false;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Reads what reached the idle connection and gives it to the engine; the caller holds the
     * connection's lock.
     *
     * @param fireDueTimer also fire the engine's timer if it is due (the CALL_ACK).
     * @return false when the connection failed (closed, with the cause recorded).
     */
    private boolean readArrived(final long nowNs, final boolean fireDueTimer) throws IOException
    {
        engineLock.lock();
        try
        {
            drainInto();
            batch.dispatch(engine, nowNs);
            final long due = engine.nextDeadlineNs();
            if (fireDueTimer && due != ProtocolEngine.NO_DEADLINE && due - nowNs <= 0)
            {
                engine.onTimer(nowNs);
            }
            checkSendFailure();
            if (engine.isZombie())
            {
                fail(zombieFailure(null));
                return false;
            }
            return true;
        }
        finally
        {
            engineLock.unlock();
        }
    }

    /**
     * Before a call on a connection that sat idle for {@value #IDLE_READ_AFTER_NS} ns or more:
     * reads what reached it meanwhile (without waiting), as the idle servicer would at its next
     * sweep. A closing server's REJECT or an ICMP error then fails the connection now, before a
     * call goes on it. Back-to-back calls skip the read.
     *
     * @return true when the connection can take the call.
     */
    boolean readWhatCameWhileIdle(final long nowNs)
    {
        if (nowNs - lastUsedNs < IDLE_READ_AFTER_NS)
        {
            return isUsable();
        }
        // Waits for the idle servicer if it reads the connection right now (a non-blocking read,
        // microseconds; it never takes the pool's lock): handed out meanwhile, the connection
        // could fail under a call of which nothing was sent, by what the servicer's read revealed.
        try
        {
            if (!lock.tryLock(SERVICER_WAIT_NS, TimeUnit.NANOSECONDS))
            {
                return isUsable();
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return isUsable();
        }
        try
        {
            if (closed)
            {
                return false;
            }
            // Its due timer is left to the call about to start (it acknowledges the last reply).
            return readArrived(nowNs, false) && isUsable();
        }
        catch (final IOException e)
        {
            return false;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** @return when {@link #serviceIdle} should next run, or {@link ProtocolEngine#NO_DEADLINE}. */
    public long nextDeadlineNs()
    {
        return engine.nextDeadlineNs();
    }

    /** @return how long after a one-packet call started now its first timer would fire: an estimate, read without the lock. */
    public long callLeadNs()
    {
        return engine.callLeadNs();
    }

    /**
     * @return true while calls can be made: not closed, not failed, and not idle for so long that
     *     the server may be about to close it (half the idle timeout its set-up announced).
     */
    public boolean isUsable()
    {
        if (closed || failure != null)
        {
            return false;
        }
        final long serverIdleNs = link.peerIdleTimeoutNs();
        return serverIdleNs <= 0 || System.nanoTime() - lastUsedNs < serverIdleNs / 2;
    }

    public String failure()
    {
        return failure;
    }

    public org.lightwire.transport.engine.ConnectionCounters counters()
    {
        return engine.counters();
    }

    /** @return what the application attached with {@link #attach}, or null. */
    public Object attachment()
    {
        return attachment;
    }

    /**
     * Keeps one object of the application's with the connection for as long as it lives (the
     * ETF plug-in notes there what the server has already been told on it).
     */
    public void attach(final Object value)
    {
        attachment = value;
    }

    public Link link()
    {
        return link;
    }

    private void checkUsable() throws IOException
    {
        if (failure != null)
        {
            throw new ConnectionFailedException("connection to " + peer + " failed earlier: " + failure, null, failureCause);
        }
        if (closed)
        {
            throw new ConnectionFailedException("connection to " + peer + " is closed");
        }
    }

    private void checkSendFailure() throws IOException
    {
        if (sendFailure != null)
        {
            final IOException e = sendFailure;
            if (!engine.isZombie())
            {
                onLinkError(e);
            }
            throw fail(zombieFailure(e));
        }
    }

    private ConnectionFailedException fail(final ConnectionFailedException e)
    {
        if (failure == null)
        {
            failureCause = e.closeCause();
            failure = e.getMessage();
        }
        closeQuietly();
        return e;
    }

    private void closeQuietly()
    {
        closed = true;
        closeLink();
        if (blockingWaits)
        {
            DeadlineService.instance().unregister(this);
        }
    }

    private void closeLink()
    {
        try
        {
            link.close();
        }
        catch (final IOException ignored)
        {
            // Closing a failed link: nothing more to report than the failure itself.
        }
    }

    @Override
    public void close()
    {
        lock.lock();
        try
        {
            closeQuietly();
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public String toString()
    {
        return "ClientConnection{peer=" + peer + ", engine=" + engine + ", failure=" + failure + '}';
    }

    private final class ReplyHandler implements MessageHandler
    {
        @Override
        public void onMessageData(final ByteBuffer payload, final boolean endOfMessage, final boolean exactlyOnce)
        {
            reply.append(payload, endOfMessage);
        }

        @Override
        public void onMessageAborted(final String reason)
        {
            // A client engine never aborts: only one-way requests, at the server, are aborted.
        }
    }
}
