package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpLinkConfig;

/** A call that meets REJECT(IDLE) is sent again, once, on a new connection, not on another pooled one. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdleRetryTest
{
    private static final long MS = 1_000_000L;

    /**
     * The hazard: UdpClient.call sends the call again on pool.acquire(), which hands out the next
     * pooled idle connection, not a new one. With an idle timeout under a second (the ACCEPT
     * announces 0, so the client never retires connections) every pooled connection was closed at
     * the same time; the call meets a second idle-closed connection and fails with IDLE although
     * a new connection would have served it. (The ETF plug-in's sendAgain does the same.)
     */
    @Test
    void aCallThatMeetsAnIdleClosedConnectionIsServedEvenWhenThePoolHoldsSeveral() throws Exception
    {
        final CountDownLatch both = new CountDownLatch(2);
        final RequestHandler meet = call ->
        {
            both.countDown();
            try
            {
                both.await(5, TimeUnit.SECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            UdpServerTest.ECHO.onRequest(call);
        };
        final ExecutorService workers = Executors.newFixedThreadPool(2);
        final ExecutorService callers = Executors.newFixedThreadPool(2);
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(),
                meet, workers, 1 << 20, 300 * MS);
             UdpClient client = UdpClient.withDefaults())
        {
            final InetSocketAddress address = server.localAddress();
            // Two concurrent calls: the pool now holds two connections.
            final Future<Byte> a = callers.submit(() -> client.call(address, ByteBuffer.wrap(new byte[] {1}), 10_000 * MS, r -> r.get()));
            final Future<Byte> b = callers.submit(() -> client.call(address, ByteBuffer.wrap(new byte[] {2}), 10_000 * MS, r -> r.get()));
            assertEquals(1, (byte)a.get());
            assertEquals(2, (byte)b.get());
            assertEquals(2, client.openConnections());
            // The server closes both as idle.
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (server.connections() > 0 && System.nanoTime() - deadline < 0)
            {
                Thread.sleep(10);
            }
            assertEquals(2, server.idleClosed());
            // Nothing of this call was executed anywhere; it must be served.
            assertEquals(3, (byte)client.call(address, ByteBuffer.wrap(new byte[] {3}), 10_000 * MS, r -> r.get()));
        }
        finally
        {
            workers.shutdownNow();
            callers.shutdownNow();
        }
    }
}
