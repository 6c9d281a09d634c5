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

/**
 * The server's driver of one connection: a {@link ServerEngine} fed by whatever thread receives
 * the connection's packets, requests handed whole to a {@link RequestHandler}, replies fed back
 * through the buffer pool. The engine is guarded by a lock, since a reply may come from a worker
 * thread while the receiving thread handles the next packet.
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
    private long requestsTooLarge;
    private final java.util.concurrent.atomic.LongAdder handlerFailures = new java.util.concurrent.atomic.LongAdder();

    /**
     * @param executor where the handler runs; null runs it on the receiving thread, inside
     *                 {@link #onPacket}, with no hand-off.
     */
    public ServerSession(
        final String name,
        final EngineConfig config,
        final PacketSender sender,
        final RequestHandler handler,
        final Executor executor,
        final int maxRequestBytes)
    {
        this.name = name;
        this.handler = handler;
        this.executor = executor;
        this.request = new AssemblyBuffer(Math.min(16 * 1024, maxRequestBytes), maxRequestBytes, true, RECEIVE_HEADROOM);
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
     * {@link #afterReceive()} must follow once the datagram was handled. No lock: the request is
     * touched only inside {@link #onPacket}, and for a connection read this way that runs on the
     * reading thread alone (the shared socket drops its datagrams; timers never touch the request).
     */
    ByteBuffer receiveBuffer(final int datagramBytes, final int payloadOffset)
    {
        return request.receiveWindow(datagramBytes, payloadOffset);
    }

    /** Ends what {@link #receiveBuffer} began: the request's bytes under the datagram's framing go back. */
    void afterReceive()
    {
        request.restoreAfterReceive();
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
            if (engine.isZombie())
            {
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

    public long nextDeadlineNs()
    {
        return engine.nextDeadlineNs();
    }

    public org.lightwire.transport.engine.ConnectionCounters counters()
    {
        return engine.counters();
    }

    /** Requests dropped because they exceeded the largest request size. */
    public long requestsTooLarge()
    {
        return requestsTooLarge;
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

    /** Requests whose handler threw; an exactly-once one among them was never answered. */
    public long handlerFailures()
    {
        return handlerFailures.sum();
    }

    private final class RequestAssembler implements MessageHandler
    {
        @Override
        public void onMessageData(final ByteBuffer payload, final boolean endOfMessage, final boolean exactlyOnce)
        {
            if (endOfMessage && executor == null && request.isEmpty() && payload.remaining() <= request.maxMessageBytes())
            {
                // A request in one packet, handled on this thread: handed over where the link
                // received it, without a copy (see ServerCall#request for how long it lasts).
                handle(new ServerCall(ServerSession.this, payload, exactlyOnce));
                return;
            }
            request.append(payload, endOfMessage);
            if (!endOfMessage)
            {
                return;
            }
            if (request.overflowed())
            {
                requestsTooLarge++;
                request.reset();
                // The request cannot be served; the client learns it through its call timeout
                // or the zombie that follows (the connection is closed).
                engine.onHardError("request larger than maxMessageBytes = " + request.maxMessageBytes());
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
                executor.execute(() ->
                {
                    try
                    {
                        handler.onRequest(call);
                    }
                    catch (final RuntimeException e)
                    {
                        handlerFailures.increment();
                    }
                });
            }
        }

        /** Runs the handler on the receiving thread. */
        private void handle(final ServerCall call)
        {
            try
            {
                handler.onRequest(call);
            }
            catch (final RuntimeException e)
            {
                // The application's fault must not stop the receiving thread; the client
                // of an unanswered call learns of it through its own timeout.
                handlerFailures.increment();
            }
        }

        @Override
        public void onMessageAborted(final String reason)
        {
            request.reset();
        }
    }
}
