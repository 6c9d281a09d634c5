package org.lightwire.transport.channel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.Executor;

import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.engine.ProtocolEngine;
import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.circuit.CircuitServerLink;
import org.lightwire.transport.link.circuit.PeerRestartedException;

/**
 * Serves one point-to-point {@link Link} (an ATM virtual circuit, an in-memory link) with one
 * thread: it reads the link, feeds the {@link ServerSession}, and fires its timers. Over UDP,
 * where many connections share one socket, {@code UdpServer} plays this part instead.
 *
 * <p>When the link says the client connected anew ({@link PeerRestartedException}, from a
 * {@code CircuitServerLink}), the session of the old incarnation is closed (the application hears
 * {@link RequestHandler#onConnectionClosed}) and a fresh one, with a fresh engine, serves the new.
 */
public final class LinkServerDriver implements AutoCloseable
{
    private final Link link;
    private final EngineConfig config;
    private final RequestHandler handler;
    private final Executor executor;
    private final int maxRequestBytes;
    private final String name;
    private final RequestMemoryBudget budget = new RequestMemoryBudget(RequestMemoryBudget.defaultLimitBytes());
    private volatile ServerSession session;
    private int incarnations;
    private final Thread thread;
    private volatile boolean running = true;
    /** Why serving stopped, or null while it runs. */
    private volatile String failure;
    /** A send that failed since the loop last looked: it fails the current session, once. */
    private volatile String sendFailure;

    public LinkServerDriver(
        final Link link,
        final EngineConfig config,
        final RequestHandler handler,
        final Executor executor,
        final int maxRequestBytes,
        final String name)
    {
        this.link = link;
        this.config = config.maxPacketBytes() <= link.maxPacketBytes() ? config :
            config.toBuilder().maxPacketBytes(link.maxPacketBytes()).build();
        this.handler = handler;
        this.executor = executor;
        this.maxRequestBytes = maxRequestBytes;
        this.name = name;
        this.session = newSession();
        this.thread = new Thread(this::run, "lightwire-server-" + name);
        thread.setDaemon(true);
    }

    private ServerSession newSession()
    {
        final String sessionName = incarnations == 0 ? name : name + "#" + incarnations;
        incarnations++;
        final org.lightwire.transport.engine.PacketSender sender;
        if (link instanceof CircuitServerLink)
        {
            // Bound to the connection it serves: once replaced, what it sends goes nowhere.
            final CircuitServerLink circuit = (CircuitServerLink)link;
            final int served = circuit.incarnation();
            sender = (header, payload) -> sendOn(circuit, served, header, payload);
        }
        else
        {
            sender = this::send;
        }
        return new ServerSession(sessionName, config, sender, handler, executor, maxRequestBytes, budget);
    }

    private void sendOn(final CircuitServerLink circuit, final int served, final ByteBuffer header, final ByteBuffer payload)
    {
        try
        {
            circuit.send(served, header, payload);
        }
        catch (final IOException e)
        {
            sendFailure = "send failed: " + e.getMessage();
        }
    }

    /** The client connected anew, or its connection died: the old session goes, a fresh one serves the next. */
    private void replaceSession(final String reason)
    {
        final ServerSession old = session;
        old.close();
        session = newSession();
        try
        {
            handler.onConnectionClosed(old.name(), reason);
        }
        catch (final RuntimeException ex)
        {
            // The application's fault must not stop serving the new client.
        }
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
            sendFailure = "send failed: " + e.getMessage();
        }
    }

    private void run()
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(link.maxPacketBytes());
        while (running)
        {
            final ServerSession session = this.session;
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
                final String failedSend = sendFailure;
                if (failedSend != null)
                {
                    sendFailure = null;
                    session.onHardError(failedSend);
                }
                if (!session.onTick(nowNs))
                {
                    if (link instanceof CircuitServerLink)
                    {
                        // Over a circuit the next client incarnation connects anew: this one is
                        // told why its connection ended, and serving goes on.
                        ((CircuitServerLink)link).forget(session.zombieCause());
                        replaceSession(session.zombieReason());
                        continue;
                    }
                    failure = session.zombieReason();
                    return;
                }
            }
            catch (final PeerRestartedException e)
            {
                replaceSession(e.getMessage());
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
