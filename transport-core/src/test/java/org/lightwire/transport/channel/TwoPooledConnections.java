package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Makes a client's pool hold two connections to a server: two calls that meet in the server before either replies. */
final class TwoPooledConnections
{
    private static final long MS = 1_000_000L;

    private TwoPooledConnections()
    {
    }

    /** @return an echo handler that holds each of the first two calls until both have arrived. */
    static RequestHandler meetingEcho()
    {
        final CountDownLatch both = new CountDownLatch(2);
        return call ->
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
    }

    /** Two calls at once from {@code callers}' threads, answered by a {@link #meetingEcho} server: the pool then holds two connections. */
    static void open(final UdpClient client, final InetSocketAddress server, final ExecutorService callers) throws Exception
    {
        final Future<Byte> a = callers.submit(() -> client.call(server, ByteBuffer.wrap(new byte[] {1}), 10_000 * MS, r -> r.get()));
        final Future<Byte> b = callers.submit(() -> client.call(server, ByteBuffer.wrap(new byte[] {2}), 10_000 * MS, r -> r.get()));
        assertEquals(1, (byte)a.get());
        assertEquals(2, (byte)b.get());
        assertEquals(2, client.openConnections());
    }
}
