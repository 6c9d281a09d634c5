package org.lightwire.etf;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.lightwire.atm.Aal5Config;
import org.lightwire.atm.Aal5Link;
import org.lightwire.transport.channel.LinkServerDriver;
import org.lightwire.transport.channel.RequestHandler;
import org.lightwire.transport.engine.EngineConfig;

/**
 * A server's Lightwire endpoint under {@code jacorb.lightwire.link=aal5}: one PVC, one transport
 * connection on it ({@link LinkServerDriver}), as the paper's omniTransport ran one connection
 * per ATM circuit (section 5). When that connection ends (the client vanished and the engine
 * gave up on it, or the circuit was released) the endpoint tells the handler, closes the circuit
 * and opens it again for the next client, retrying every {@link #REOPEN_RETRY_MS} ms while the
 * circuit cannot be opened, so a PVC server outlives its clients.
 */
final class Aal5ServerEndpoint implements AutoCloseable
{
    static final long REOPEN_RETRY_MS = 1000;
    private static final long CHECK_MS = 100;

    private final Aal5Config config;
    private final EngineConfig engine;
    private final RequestHandler handler;
    private final int maxMessageBytes;
    private final Consumer<String> warn;
    private final Thread supervisor;
    private final AtomicLong restarts = new AtomicLong();
    private volatile LinkServerDriver driver;
    private volatile boolean closed;

    /**
     * Opens the circuit now, so that a wrong PVC or QoS fails the server's start.
     *
     * @throws IOException as {@link Aal5Link#open} does, naming the circuit and what to change.
     */
    Aal5ServerEndpoint(final Aal5Config config, final EngineConfig engine, final RequestHandler handler, final int maxMessageBytes,
        final Consumer<String> warn) throws IOException
    {
        this.config = config;
        this.engine = engine;
        this.handler = handler;
        this.maxMessageBytes = maxMessageBytes;
        this.warn = warn;
        this.driver = start(Aal5Link.open(config), 0);
        this.supervisor = new Thread(this::supervise, "lightwire-aal5-" + config.circuit());
        supervisor.setDaemon(true);
        supervisor.start();
    }

    private LinkServerDriver start(final Aal5Link link, final long generation)
    {
        return new LinkServerDriver(link, engine, handler, null, maxMessageBytes, name(generation)).start();
    }

    /** The connection's name, which {@code ServerCall.connection()} reports: the circuit and its generation. */
    private String name(final long generation)
    {
        return "aal5 " + config.circuit() + "#" + generation;
    }

    private void supervise()
    {
        long generation = 0;
        while (!closed)
        {
            final LinkServerDriver d = driver;
            final String failure = d.failure();
            if (failure == null)
            {
                sleep(CHECK_MS);
                continue;
            }
            handler.onConnectionClosed(name(generation), failure);
            closeQuietly(d);
            generation++;
            restarts.incrementAndGet();
            while (!closed)
            {
                try
                {
                    driver = start(Aal5Link.open(config), generation);
                    break;
                }
                catch (final IOException e)
                {
                    warn.accept("Lightwire: cannot reopen AAL5 " + config.circuit() + " after '" + failure + "': " + e.getMessage() +
                        "; retrying every " + REOPEN_RETRY_MS + " ms");
                    sleep(REOPEN_RETRY_MS);
                }
            }
        }
    }

    private static void sleep(final long ms)
    {
        try
        {
            TimeUnit.MILLISECONDS.sleep(ms);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(final LinkServerDriver d)
    {
        try
        {
            d.close();
        }
        catch (final IOException e)
        {
            // The circuit is being replaced; a failure to close it changes nothing.
        }
    }

    /** @return how many times the connection ended and the circuit was reopened. */
    long restarts()
    {
        return restarts.get();
    }

    @Override
    public void close()
    {
        closed = true;
        supervisor.interrupt();
        try
        {
            supervisor.join(5_000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        closeQuietly(driver);
    }
}
