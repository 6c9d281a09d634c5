package org.lightwire.transport.channel;

import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;

import org.lightwire.transport.engine.BufferReleaser;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.engine.MessageHandler;
import org.lightwire.transport.engine.MessageWriter;
import org.lightwire.transport.engine.PacketSender;
import org.lightwire.transport.engine.ProtocolEngine;
import org.lightwire.transport.engine.ServerEngine;
import org.lightwire.transport.engine.ZombieConnectionException;
import org.lightwire.transport.protocol.CloseCause;

/**
 * The server's driver of one connection: a {@link ServerEngine} fed by whatever thread receives
 * the connection's packets, requests handed whole to a {@link RequestHandler}, replies fed back
 * through the buffer pool. The engine is guarded by a lock, since a reply may come from a worker
 * thread while the receiving thread handles the next packet.
 *
 * <p>A request of several packets is put together in an {@link AssemblyBuffer} charged to the
 * server's {@link RequestMemoryBudget}. Whatever becomes of a request, its client learns it: a
 * request larger than {@code maxRequestBytes}, one the budget has no room for, and one whose
 * handler throws before replying fail the connection with the {@link CloseCause} that says so,
 * which the client's next packet gets back in a REJECT.
 */
public final class ServerSession
{
    /** Room before a request's first byte for a link's framing ({@link #receiveBuffer}). */
    static final int RECEIVE_HEADROOM = 32;

    private final String name;
    private final ServerEngine engine;
    private final MessageWriter replyWriter;
    private final AssemblyBuffer request;
    private final RequestHandler handler;
    private final Executor executor;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile Runnable replyListener = () -> { };
    /** Set under the lock when the connection is closed (as idle, or for good): no packet acts after it. */
    private boolean closed;
    private long requestsTooLarge;
    private long requestsOverBudget;
    private final java.util.concurrent.atomic.LongAdder handlerFailures = new java.util.concurrent.atomic.LongAdder();

    /**
     * @param executor where the handler runs; null runs it on the receiving thread, inside
     *                 {@link #onPacket}, with no hand-off.
     * @param budget where the memory of requests being put together is charged; null for no limit.
     */
    public ServerSession(
        final String name,
        final EngineConfig config,
        final PacketSender sender,
        final RequestHandler handler,
        final Executor executor,
        final int maxRequestBytes,
        final RequestMemoryBudget budget)
    {
        this.name = name;
        this.handler = handler;
        this.executor = executor;
        this.request = new AssemblyBuffer(0, maxRequestBytes, true, RECEIVE_HEADROOM, budget);
        this.engine = new ServerEngine(config, sender, new RequestAssembler(), BufferReleaser.NONE);
        this.replyWriter = MessageWriter.forServer(engine);
    }

    public String name()
    {
        return name;
    }

    /** Feeds one received packet (header first) to the engine. Never throws for what the network sent. */
    public void onPacket(final ByteBuffer packet, final long nowNs)
    {
        lock.lock();
        try
        {
            if (closed)
            {
                // Lost the race with a close (the idle one, say): the client's next packet gets
                // the REJECT that names its cause, and nothing is charged to a closed connection.
                return;
            }
            engine.onPacket(packet, nowNs);
            pumpReply(nowNs);
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Where the thread that reads this connection ({@link ConnectionReader}) should read the
     * next datagram: in the request's assembly buffer, so that the payload of a request's next
     * packet lands where the request goes on and is not copied (see {@link AssemblyBuffer}).
     * {@link #afterReceive()} must follow once the datagram was handled. A connection with no
     * request in progress uses its buffer only while it still has the room (a steady stream of
     * large requests), so that an idle connection holds no memory for a datagram that may never
     * come.
     *
     * @return the window, or null when the reader should use a buffer of its own (the engine's
     *     payload is then copied if a request of several packets begins with it).
     */
    ByteBuffer receiveBuffer(final int datagramBytes, final int payloadOffset)
    {
        lock.lock();
        try
        {
            return request.isEmpty() && !request.hasRoomFor(datagramBytes, payloadOffset) ? null :
                request.receiveWindow(datagramBytes, payloadOffset);
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Ends what {@link #receiveBuffer} began: the request's bytes under the datagram's framing go back. */
    void afterReceive()
    {
        lock.lock();
        try
        {
            request.restoreAfterReceive();
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Fires the engine's timer if it is due.
     *
     * @return false when the connection has become a zombie and should be removed.
     */
    public boolean onTick(final long nowNs)
    {
        lock.lock();
        try
        {
            final long due = engine.nextDeadlineNs();
            if (due != ProtocolEngine.NO_DEADLINE && due - nowNs <= 0)
            {
                engine.onTimer(nowNs);
            }
            pumpReply(nowNs);
            return !engine.isZombie();
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Marks the connection closed if nothing is in progress on it: its engine is IDLE with no
     * reply held and no timer armed. Atomic with {@link #onPacket}: once this returned true, no
     * packet reaches the engine, so the client's next call provably did not begin here.
     *
     * @return true when the connection was idle and is now closed to packets.
     */
    boolean closeIfIdle()
    {
        lock.lock();
        try
        {
            if (!closed && engine.state() == ServerEngine.State.IDLE && engine.nextDeadlineNs() == ProtocolEngine.NO_DEADLINE &&
                !replyWriter.isActive())
            {
                closed = true;
            }
            return closed;
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Gives the assembly buffer's memory back to the budget, unless a request is being put together. */
    void trim()
    {
        lock.lock();
        try
        {
            request.trim();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** The connection is closed: its memory goes back to the budget, and no later packet is handled. */
    void close()
    {
        lock.lock();
        try
        {
            closed = true;
            request.reset();
            request.release();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Reports a hard error on the connection's link. */
    public void onHardError(final String reason)
    {
        lock.lock();
        try
        {
            engine.onHardError(reason);
        }
        finally
        {
            lock.unlock();
        }
    }

    void reply(final ByteBuffer reply)
    {
        lock.lock();
        try
        {
            if (engine.isZombie() || closed)
            {
                // The connection is gone: a late reply has no one to go to.
                return;
            }
            replyWriter.start(reply, true);
            pumpReply(System.nanoTime());
        }
        finally
        {
            lock.unlock();
        }
        replyListener.run();
    }

    /**
     * Called after each reply is handed to the engine, on the replying thread: a reply arms the
     * engine's retransmission timer, which the driver may need to learn of when the reply comes
     * from a worker thread rather than from inside {@link #onPacket}.
     */
    public void replyListener(final Runnable listener)
    {
        this.replyListener = listener;
    }

    private void pumpReply(final long nowNs)
    {
        if (replyWriter.isActive() && !engine.isZombie())
        {
            try
            {
                replyWriter.pump(nowNs);
            }
            catch (final ZombieConnectionException e)
            {
                // The connection died while the reply was being sent: nobody is left to tell.
            }
        }
    }

    public ServerEngine.State state()
    {
        lock.lock();
        try
        {
            return engine.state();
        }
        finally
        {
            lock.unlock();
        }
    }

    public boolean isZombie()
    {
        return engine.isZombie();
    }

    public String zombieReason()
    {
        return engine.zombieReason();
    }

    /** @return why the connection became a zombie, or null while it lives. */
    public CloseCause zombieCause()
    {
        return engine.zombieCause();
    }

    public long nextDeadlineNs()
    {
        return engine.nextDeadlineNs();
    }

    public org.lightwire.transport.engine.ConnectionCounters counters()
    {
        return engine.counters();
    }

    /** Requests refused because they exceeded the largest request size. */
    public long requestsTooLarge()
    {
        return requestsTooLarge;
    }

    /** Requests refused because the server's request memory budget had no room for them. */
    public long requestsOverBudget()
    {
        return requestsOverBudget;
    }

    /** @return request bytes put together by copying them from where the link received them. */
    public long requestBytesCopied()
    {
        return requestFigure(AssemblyBuffer::bytesCopied);
    }

    /** @return request bytes put together where the link had read them, with no copy. */
    public long requestBytesInPlace()
    {
        return requestFigure(AssemblyBuffer::bytesInPlace);
    }

    /** @return bytes of the request memory budget this connection holds now. */
    public long requestMemoryBytes()
    {
        return requestFigure(AssemblyBuffer::chargedBytes);
    }

    private long requestFigure(final java.util.function.ToLongFunction<AssemblyBuffer> figure)
    {
        lock.lock();
        try
        {
            return figure.applyAsLong(request);
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Requests whose handler threw; an exactly-once one among them failed its connection. */
    public long handlerFailures()
    {
        return handlerFailures.sum();
    }

    /** An exactly-once call that will get no reply ends the connection, so that its client hears why. */
    private void failUnanswered(final ServerCall call, final Throwable e)
    {
        handlerFailures.increment();
        if (call.exactlyOnce() && !call.replied())
        {
            lock.lock();
            try
            {
                engine.fail(CloseCause.HANDLER_FAILED, "the request handler failed: " + e);
            }
            finally
            {
                lock.unlock();
            }
            replyListener.run();
        }
    }

    private final class RequestAssembler implements MessageHandler
    {
        /** True while the rest of a one-way that could not be put together goes by. */
        private boolean discarding;

        @Override
        public void onMessageData(final ByteBuffer payload, final boolean endOfMessage, final boolean exactlyOnce)
        {
            if (discarding)
            {
                discarding = !endOfMessage;
                return;
            }
            if (endOfMessage && executor == null && request.isEmpty() && payload.remaining() <= request.maxMessageBytes())
            {
                // A request in one packet, handled on this thread: handed over where the link
                // received it, without a copy (see ServerCall#request for how long it lasts).
                handle(new ServerCall(ServerSession.this, payload, exactlyOnce));
                return;
            }
            request.append(payload, endOfMessage);
            if (request.overflowed() || request.refused())
            {
                refuse(exactlyOnce, endOfMessage);
                return;
            }
            if (!endOfMessage)
            {
                return;
            }
            final ByteBuffer bytes;
            if (executor == null)
            {
                bytes = request.flipInPlace();
            }
            else
            {
                final ByteBuffer view = request.flipInPlace();
                bytes = ByteBuffer.allocate(view.remaining()).put(view).flip();
            }
            final ServerCall call = new ServerCall(ServerSession.this, bytes, exactlyOnce);
            if (executor == null)
            {
                try
                {
                    handle(call);
                }
                finally
                {
                    request.reset();
                }
            }
            else
            {
                request.reset();
                try
                {
                    executor.execute(() -> handle(call));
                }
                catch (final java.util.concurrent.RejectedExecutionException e)
                {
                    // A bounded pool under load: the call is ended now rather than left executing.
                    failUnanswered(call, e);
                }
            }
        }

        /**
         * The request cannot be put together: too large, or no room in the budget. An
         * exactly-once call fails its connection at once, which frees the memory and tells the
         * client why; a one-way is dropped (at most once allows it) and its remaining packets
         * are ignored.
         */
        private void refuse(final boolean exactlyOnce, final boolean endOfMessage)
        {
            final boolean tooLarge = request.overflowed();
            if (tooLarge)
            {
                requestsTooLarge++;
            }
            else
            {
                requestsOverBudget++;
            }
            request.reset();
            request.trim();
            if (exactlyOnce)
            {
                engine.fail(tooLarge ? CloseCause.REQUEST_TOO_LARGE : CloseCause.MEMORY_BUDGET, tooLarge ?
                    "request larger than maxMessageBytes = " + request.maxMessageBytes() :
                    "no room for the request in the server's request memory budget");
            }
            else
            {
                discarding = !endOfMessage;
            }
        }

        private void handle(final ServerCall call)
        {
            try
            {
                handler.onRequest(call);
            }
            catch (final RuntimeException | Error e)
            {
                // The application's fault, an Error included, must not stop the receiving
                // thread; an exactly-once call it left unanswered ends its connection, so the
                // client learns of it.
                failUnanswered(call, e);
            }
        }

        @Override
        public void onMessageAborted(final String reason)
        {
            discarding = false;
            // A one-way given up: its memory goes back now, not at the next quiet trim.
            request.reset();
            request.trim();
        }
    }
}
