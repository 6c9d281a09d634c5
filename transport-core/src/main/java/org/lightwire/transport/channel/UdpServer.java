package org.lightwire.transport.channel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.engine.ProtocolEngine;
import org.lightwire.transport.link.udp.ServerPacketHandler;
import org.lightwire.transport.link.udp.UdpLinkConfig;
import org.lightwire.transport.link.udp.UdpServerConnection;
import org.lightwire.transport.link.udp.UdpServerEndpoint;
import org.lightwire.transport.protocol.CloseCause;

/**
 * A Lightwire server over UDP: one socket ({@link UdpServerEndpoint}), one {@link ServerSession}
 * per client connection, demultiplexed by connection id. Packets are handed to the engine on the
 * endpoint's receive thread; the {@link RequestHandler} runs there too unless an executor is
 * given. A timer thread fires the engines' retransmission timers, removes connections that became
 * zombies, and closes connections idle for longer than {@code idleTimeoutNs}. It sleeps until the
 * earliest deadline of any connection and is woken only when a packet arms an earlier one, so a
 * steady stream of calls (each of which pushes the last reply's deadline forward) costs it a few
 * wake-ups a second, not one per call.
 *
 * <p>When the handler reads its connections itself ({@link RequestHandler#readsConnections()})
 * and the link reads its socket with a thread of its own ({@code serverIo} BLOCKING), each
 * connection gets a socket of its own on the server's port (SO_REUSEPORT, connected to the
 * client): the kernel hands the client's datagrams to that socket, the application's thread
 * reads them ({@link ConnectionReader}), and a request reaches the application with no thread
 * hand-off. The shared socket then carries only the set-up exchange.
 */
public final class UdpServer implements AutoCloseable
{
    /** Default time a connection with nothing in progress is kept: a client may come back. */
    public static final long DEFAULT_IDLE_TIMEOUT_NS = TimeUnit.MINUTES.toNanos(10);
    /** Default largest request. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

    private final EngineConfig engineConfig;
    private final RequestHandler handler;
    private final Executor executor;
    private final int maxMessageBytes;
    private final long idleTimeoutNs;
    private final RequestMemoryBudget budget;
    private final boolean ownSockets;
    /** Every open connection: packets come on the receive thread and on connections' readers. */
    private final Map<UdpServerConnection, Entry> entries = new ConcurrentHashMap<>();
    private final Thread timer;
    private final UdpServerEndpoint endpoint;
    private volatile long plannedWakeNs;
    private volatile boolean closed;
    private volatile long zombiesRemoved;
    private volatile long idleClosed;

    /** A connection with no request in progress for this long gives its assembly memory back. */
    static final long TRIM_AFTER_NS = TimeUnit.SECONDS.toNanos(1);

    private static final class Entry
    {
        final ServerSession session;
        volatile long lastPacketNs;

        Entry(final ServerSession session, final long nowNs)
        {
            this.session = session;
            this.lastPacketNs = nowNs;
        }
    }

    /**
     * Binds and starts a server.
     *
     * @param bind where to listen (port 0 picks one).
     * @param engineConfig the engines' settings; their packet size is the link's.
     * @param linkConfig the socket's settings.
     * @param handler the application.
     * @param executor where the handler runs; null runs it on the receive thread (no hand-off:
     *                 right for short handlers, wrong for ones that block).
     * @param maxMessageBytes the largest request accepted.
     * @param idleTimeoutNs how long an idle connection is kept.
     */
    public UdpServer(
        final InetSocketAddress bind,
        final EngineConfig engineConfig,
        final UdpLinkConfig linkConfig,
        final RequestHandler handler,
        final Executor executor,
        final int maxMessageBytes,
        final long idleTimeoutNs) throws IOException
    {
        this(bind, engineConfig, linkConfig, handler, executor, maxMessageBytes, idleTimeoutNs,
            new RequestMemoryBudget(RequestMemoryBudget.defaultLimitBytes()));
    }

    /**
     * Binds and starts a server whose requests being put together share {@code budget}.
     *
     * @see #UdpServer(InetSocketAddress, EngineConfig, UdpLinkConfig, RequestHandler, Executor, int, long)
     */
    public UdpServer(
        final InetSocketAddress bind,
        final EngineConfig engineConfig,
        final UdpLinkConfig linkConfig,
        final RequestHandler handler,
        final Executor executor,
        final int maxMessageBytes,
        final long idleTimeoutNs,
        final RequestMemoryBudget budget) throws IOException
    {
        this.budget = budget;
        // Each connection's engine takes the packet size its set-up exchange agreed (onConnect).
        this.engineConfig = engineConfig;
        this.handler = handler;
        this.executor = executor;
        this.maxMessageBytes = maxMessageBytes;
        this.idleTimeoutNs = idleTimeoutNs;
        this.ownSockets = handler.readsConnections() && linkConfig.serverIo() == UdpLinkConfig.ServerIo.BLOCKING;
        this.timer = new Thread(this::timerLoop, "lightwire-server-timer");
        timer.setDaemon(true);
        this.endpoint = UdpServerEndpoint.bind(bind, ownSockets ? linkConfig.toBuilder().reusePort(true).build() : linkConfig,
            new Handler());
        timer.start();
    }

    /** A server with default settings and the handler on the receive thread. */
    public static UdpServer start(final InetSocketAddress bind, final RequestHandler handler) throws IOException
    {
        return new UdpServer(bind, EngineConfig.defaults(), UdpLinkConfig.defaults(), handler, null,
            DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_IDLE_TIMEOUT_NS);
    }

    public InetSocketAddress localAddress()
    {
        return endpoint.localAddress();
    }

    public UdpServerEndpoint endpoint()
    {
        return endpoint;
    }

    /** @return connections open now. */
    public int connections()
    {
        return entries.size();
    }

    public long zombiesRemoved()
    {
        return zombiesRemoved;
    }

    public long idleClosed()
    {
        return idleClosed;
    }

    /** @return the memory budget of the requests this server puts together. */
    public RequestMemoryBudget requestMemory()
    {
        return budget;
    }

    /** @return the sum of a counter over every open connection, for tests and reports. */
    public long sum(final java.util.function.ToLongFunction<org.lightwire.transport.engine.ConnectionCounters> counter)
    {
        long total = 0;
        for (final Entry e : entries.values())
        {
            total += counter.applyAsLong(e.session.counters());
        }
        return total;
    }

    /** @return the sum of a figure of each open connection's session, for tests and reports. */
    public long sumSessions(final java.util.function.ToLongFunction<ServerSession> figure)
    {
        long total = 0;
        for (final Entry e : entries.values())
        {
            total += figure.applyAsLong(e.session);
        }
        return total;
    }

    private void timerLoop()
    {
        while (!closed)
        {
            final long wakeNs = tick(System.nanoTime());
            plannedWakeNs = wakeNs;
            final long sleepNs = wakeNs - System.nanoTime();
            if (sleepNs > 0)
            {
                LockSupport.parkNanos(this, sleepNs);
            }
        }
    }

    /** Fires due timers and closes dead or idle connections; returns when to look again. */
    private long tick(final long nowNs)
    {
        long wakeNs = nowNs + Math.min(idleTimeoutNs, TimeUnit.SECONDS.toNanos(1));
        for (final Map.Entry<UdpServerConnection, Entry> e : entries.entrySet())
        {
            final Entry entry = e.getValue();
            final ServerSession session = entry.session;
            if (session.isZombie())
            {
                // Made a zombie from another thread (a failed handler on a worker).
                closeZombie(e.getKey(), session);
                continue;
            }
            if (nowNs - entry.lastPacketNs > TRIM_AFTER_NS)
            {
                // Every tick, not once: a request still in progress at the first is not trimmed.
                session.trim();
            }
            long deadlineNs = session.nextDeadlineNs();
            if (deadlineNs != ProtocolEngine.NO_DEADLINE && deadlineNs - nowNs <= 0)
            {
                if (!session.onTick(nowNs))
                {
                    closeZombie(e.getKey(), session);
                    continue;
                }
                deadlineNs = session.nextDeadlineNs();
            }
            if (deadlineNs == ProtocolEngine.NO_DEADLINE)
            {
                if (nowNs - entry.lastPacketNs > idleTimeoutNs && session.closeIfIdle())
                {
                    idleClosed++;
                    e.getKey().close(CloseCause.IDLE, "idle for " + TimeUnit.NANOSECONDS.toMillis(nowNs - entry.lastPacketNs) +
                        " ms (idleTimeoutNs = " + idleTimeoutNs + ")");
                }
            }
            else if (deadlineNs - wakeNs < 0)
            {
                wakeNs = deadlineNs;
            }
        }
        return wakeNs;
    }

    private void closeZombie(final UdpServerConnection connection, final ServerSession session)
    {
        zombiesRemoved++;
        connection.close(session.zombieCause(), session.zombieReason());
    }

    /** Wakes the timer thread if {@code session} now needs it before the thread planned to wake. */
    private void timerCheck(final ServerSession session)
    {
        final long deadlineNs = session.nextDeadlineNs();
        if (deadlineNs != ProtocolEngine.NO_DEADLINE && deadlineNs - plannedWakeNs < 0)
        {
            plannedWakeNs = deadlineNs;
            LockSupport.unpark(timer);
        }
    }

    @Override
    public void close()
    {
        closed = true;
        LockSupport.unpark(timer);
        endpoint.close();
    }

    private final class Handler implements ServerPacketHandler
    {
        @Override
        public void onConnect(final UdpServerConnection connection)
        {
            final String name = connection.remoteAddress() + "#" + Long.toHexString(connection.connectionId());
            // The connection's packets are the smaller of both sides' maximum (set-up exchange).
            final EngineConfig config = connection.maxPacketBytes() == engineConfig.maxPacketBytes() ? engineConfig :
                engineConfig.toBuilder().maxPacketBytes(connection.maxPacketBytes()).build();
            final ServerSession session = new ServerSession(name, config, connection::send, handler, executor, maxMessageBytes, budget);
            // A reply sent from another thread than the one that reads the connection arms the
            // engine's retransmission timer; the timer thread must learn of it.
            session.replyListener(() -> timerCheck(session));
            final Entry entry = new Entry(session, System.nanoTime());
            entries.put(connection, entry);
            if (ownSockets && connection.openOwnSocket())
            {
                try
                {
                    handler.onConnectionOpened(name, new ConnectionReader(name, connection, session));
                }
                catch (final RuntimeException e)
                {
                    // Nobody will read the connection's socket: it goes back to the shared one.
                    connection.closeOwnSocket();
                }
            }
        }

        @Override
        public void onPacket(final UdpServerConnection connection, final ByteBuffer packet, final long nowNs)
        {
            final Entry entry = entries.get(connection);
            if (entry == null)
            {
                return;
            }
            entry.lastPacketNs = nowNs;
            entry.session.onPacket(packet, nowNs);
            if (entry.session.isZombie())
            {
                closeZombie(connection, entry.session);
                return;
            }
            timerCheck(entry.session);
        }

        @Override
        public long idleTimeoutNs()
        {
            return idleTimeoutNs;
        }

        @Override
        public void onClose(final UdpServerConnection connection, final String reason)
        {
            final Entry entry = entries.remove(connection);
            if (entry != null)
            {
                entry.session.close();
                try
                {
                    handler.onConnectionClosed(entry.session.name(), reason);
                }
                catch (final RuntimeException e)
                {
                    // The application's fault must not stop the event loop.
                }
            }
        }
    }
}
