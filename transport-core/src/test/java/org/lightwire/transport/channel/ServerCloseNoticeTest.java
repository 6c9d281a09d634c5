package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpLinkConfig;

/**
 * A server that closes tells each connection's client (REJECT, SERVER_CLOSED): the client's idle
 * servicer reads it, the pool drops the connections, and the next call opens a new connection,
 * whose set-up finds that nobody listens. Without the notice that call went on a pooled
 * connection to a port nobody reads, and failed as a call that may have been executed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerCloseNoticeTest
{
    private static final long MS = 1_000_000L;

    @Test
    void aClosedServersIdleConnectionsAreDroppedAndTheNextCallFailsAtItsSetUp() throws Exception
    {
        // The idle servicer reads every idle connection at least once a second.
        callAfterClose(2500);
    }

    /**
     * A call made at once after the close takes a pooled connection before the idle servicer read
     * it: the pool reads it first (it sat idle), finds the REJECT, and the call goes on a new one.
     */
    @Test
    void aCallRightAfterTheCloseReadsTheNoticeBeforeItGoesOnAPooledConnection() throws Exception
    {
        callAfterClose(0);
    }

    private static void callAfterClose(final long sleepMs) throws Exception
    {
        final RequestHandler meet = TwoPooledConnections.meetingEcho();
        final ExecutorService workers = Executors.newFixedThreadPool(2);
        final ExecutorService callers = Executors.newFixedThreadPool(2);
        try (UdpClient client = UdpClient.withDefaults())
        {
            final InetSocketAddress address;
            try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(),
                meet, workers, 1 << 20, 600_000 * MS))
            {
                address = server.localAddress();
                TwoPooledConnections.open(client, address, callers);
                // Their CALL_ACKs (an ack delay after the replies) reach the server while it is up:
                // a CALL_ACK to a closed port would bring an ICMP error that gives the close away.
                Thread.sleep(200);
            }
            Thread.sleep(sleepMs);
            final IOException e = assertThrows(IOException.class,
                () -> client.call(address, ByteBuffer.wrap(new byte[] {3}), 10_000 * MS, r -> r.get()));
            assertFalse(e instanceof ConnectionFailedException, "the call went on a pooled connection: " + e);
            assertTrue(String.valueOf(e.getMessage()).contains("nobody listens"), "a new connection's set-up failed: " + e);
            assertEquals(0, client.openConnections(), "both pooled connections dropped");
        }
        finally
        {
            workers.shutdownNow();
            callers.shutdownNow();
        }
    }
}
