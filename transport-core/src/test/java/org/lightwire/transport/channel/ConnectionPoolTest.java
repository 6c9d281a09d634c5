package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.memory.Faults;
import org.lightwire.transport.link.memory.MemoryLink;

/** The client's channels: created on demand, bounded, reused when idle, failed ones replaced. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionPoolTest
{
    static final long MS = 1_000_000L;
    final List<AutoCloseable> servers = new ArrayList<>();
    final AtomicInteger connects = new AtomicInteger();

    private ClientConnection connect() throws IOException
    {
        return new ClientConnection(echoServed(connects.incrementAndGet(), servers).a(), MemoryLinkChannelTest.CONFIG, "pool server", 1 << 20);
    }

    /** @return a fault-free memory link pair whose side b an echoing server drives (added to {@code servers}, for the caller to close). */
    static MemoryLink.Pair echoServed(final int seed, final List<AutoCloseable> servers)
    {
        final MemoryLink.Pair pair = MemoryLink.pair(seed, Faults.NONE, Faults.NONE, 1500);
        final RequestHandler echo = call ->
        {
            if (call.exactlyOnce())
            {
                call.reply(ByteBuffer.allocate(call.request().remaining()).put(call.request()).flip());
            }
        };
        servers.add(new LinkServerDriver(pair.b(), MemoryLinkChannelTest.CONFIG, echo, null, 1 << 20, "pool").start());
        return pair;
    }

    @AfterEach
    void closeServers() throws Exception
    {
        for (final AutoCloseable s : servers)
        {
            s.close();
        }
    }

    @Test
    void idleConnectionIsReusedMostRecentFirst() throws Exception
    {
        try (ConnectionPool pool = new ConnectionPool(this::connect, "test", 4, 100 * MS))
        {
            final ClientConnection a = pool.acquire();
            final ClientConnection b = pool.acquire();
            assertNotSame(a, b);
            pool.release(a);
            pool.release(b);
            assertSame(b, pool.acquire(), "the most recently used connection first");
            assertEquals(2, connects.get());
            assertEquals(2, pool.openConnections());
        }
    }

    @Test
    void atTheLimitACallerFailsAfterTheAcquireTimeoutWithAMessageNamingTheLimit() throws Exception
    {
        try (ConnectionPool pool = new ConnectionPool(this::connect, "test-server", 2, 50 * MS))
        {
            pool.acquire();
            pool.acquire();
            final IOException e = assertThrows(IOException.class, pool::acquire);
            assertTrue(e.getMessage().contains("all 2 connections to test-server") && e.getMessage().contains("maxConnections"), e.getMessage());
            assertEquals(2, connects.get());
        }
    }

    @Test
    void atTheLimitACallerWaitsForAReleasedConnection() throws Exception
    {
        try (ConnectionPool pool = new ConnectionPool(this::connect, "test-server", 1, 30_000 * MS))
        {
            final ClientConnection a = pool.acquire();
            final CompletableFuture<ClientConnection> waiter = CompletableFuture.supplyAsync(() -> acquireLong(pool));
            pool.release(a);
            assertSame(a, waiter.get(20, TimeUnit.SECONDS), "the released connection goes to the waiting caller");
            assertEquals(1, connects.get());
        }
    }

    private static ClientConnection acquireLong(final ConnectionPool pool)
    {
        try
        {
            return pool.acquire();
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void failedConnectionIsDiscardedAndReplacedOnDemand() throws Exception
    {
        try (ConnectionPool pool = new ConnectionPool(this::connect, "test", 1, 100 * MS))
        {
            final ClientConnection a = pool.acquire();
            a.call(ByteBuffer.wrap(new byte[] {1, 2, 3}), 10_000 * MS);
            a.link().close();
            assertThrows(ConnectionFailedException.class, () -> a.call(ByteBuffer.wrap(new byte[1]), 10_000 * MS));
            pool.release(a);
            assertEquals(0, pool.openConnections());
            assertEquals(1, pool.connectionsDiscarded());
            final ClientConnection b = pool.acquire();
            assertNotSame(a, b);
            final ByteBuffer reply = b.call(ByteBuffer.wrap(new byte[] {9}), 10_000 * MS);
            assertEquals(9, reply.get());
        }
    }

    @Test
    void idleConnectionSendsItsCallAckAfterTheAckDelay() throws Exception
    {
        try (ConnectionPool pool = new ConnectionPool(this::connect, "test", 1, 100 * MS))
        {
            final ClientConnection a = pool.acquire();
            a.call(ByteBuffer.wrap(new byte[] {1}), 10_000 * MS);
            assertEquals(0, a.counters().callAcksSent());
            pool.release(a);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (a.counters().callAcksSent() == 0 && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(1);
            }
            assertEquals(1, a.counters().callAcksSent(), "the pool's idle servicer fired the ack timer");
        }
    }

    /** Every pool of the JVM is serviced by one thread, which stops serving a pool once it is closed. */
    @Test
    void poolsShareOneIdleServicerThatForgetsAClosedPool() throws Exception
    {
        final int before = IdleServicer.shared().pools();
        final ConnectionPool first = new ConnectionPool(this::connect, "first", 1, 100 * MS);
        final ConnectionPool second = new ConnectionPool(this::connect, "second", 1, 100 * MS);
        assertEquals(before + 2, IdleServicer.shared().pools());
        assertEquals(1, Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("lightwire-idle-")).count());
        first.close();
        second.close();
        assertEquals(before, IdleServicer.shared().pools());
    }
}
