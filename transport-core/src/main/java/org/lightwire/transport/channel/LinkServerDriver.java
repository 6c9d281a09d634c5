package org.lightwire.transport.channel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.Executor;

import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.engine.ProtocolEngine;
import org.lightwire.transport.link.Link;

/**
 * Serves one point-to-point {@link Link} (an ATM virtual circuit, an in-memory link) with one
 * thread: it reads the link, feeds the {@link ServerSession}, and fires its timers. Over UDP,
 * where many connections share one socket, {@code UdpServer} plays this part instead.
 */
public final class LinkServerDriver implements AutoCloseable
{
    private final Link link;
    private final ServerSession session;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile String failure;

    public LinkServerDriver(
        final Link link,
        final EngineConfig config,
        final RequestHandler handler,
        final Executor executor,
        final int maxRequestBytes,
        final String name)
    {
        this.link = link;
        final EngineConfig effective = config.maxPacketBytes() <= link.maxPacketBytes() ? config :
            config.toBuilder().maxPacketBytes(link.maxPacketBytes()).build();
        this.session = new ServerSession(name, effective, this::send, handler, executor, maxRequestBytes,
            new RequestMemoryBudget(RequestMemoryBudget.defaultLimitBytes()));
        this.thread = new Thread(this::run, "lightwire-server-" + name);
        thread.setDaemon(true);
    }

    /** Starts the serving thread. */
    public LinkServerDriver start()
    {
        thread.start();
        return this;
    }

    private void send(final ByteBuffer header, final ByteBuffer payload)
    {
        try
        {
            link.send(header, payload);
        }
        catch (final IOException e)
        {
            if (failure == null)
            {
                failure = "send failed: " + e.getMessage();
            }
        }
    }

    private void run()
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(link.maxPacketBytes());
        while (running)
        {
            try
            {
                long nowNs = System.nanoTime();
                final long deadlineNs = session.nextDeadlineNs();
                final long waitNs = deadlineNs == ProtocolEngine.NO_DEADLINE ? 100_000_000L : Math.max(0, Math.min(100_000_000L, deadlineNs - nowNs));
                buffer.clear();
                final int length = link.receive(buffer, waitNs);
                nowNs = System.nanoTime();
                if (length >= 0)
                {
                    buffer.flip();
                    session.onPacket(buffer, nowNs);
                }
                if (failure != null)
                {
                    session.onHardError(failure);
                }
                if (!session.onTick(nowNs))
                {
                    failure = session.zombieReason();
                    return;
                }
            }
            catch (final ClosedChannelException e)
            {
                return;
            }
            catch (final IOException e)
            {
                // An I/O fault is reported at the loop that polls, and the connection is gone.
                failure = e.getMessage();
                session.onHardError(e.getMessage());
                return;
            }
        }
    }

    public ServerSession session()
    {
        return session;
    }

    /** @return why serving stopped, or null while it runs. */
    public String failure()
    {
        return failure;
    }

    @Override
    public void close() throws IOException
    {
        running = false;
        link.close();
        try
        {
            thread.join(5_000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
