package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
        final RequestHandler meet = TwoPooledConnections.meetingEcho();
        final ExecutorService workers = Executors.newFixedThreadPool(2);
        final ExecutorService callers = Executors.newFixedThreadPool(2);
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(),
                meet, workers, 1 << 20, 300 * MS);
             UdpClient client = UdpClient.withDefaults())
        {
            final InetSocketAddress address = server.localAddress();
            TwoPooledConnections.open(client, address, callers);
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
