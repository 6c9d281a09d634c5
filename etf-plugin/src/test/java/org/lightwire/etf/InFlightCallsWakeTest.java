package org.lightwire.etf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.ConnectionPool;
import org.lightwire.transport.channel.RequestHandler;
import org.lightwire.transport.channel.UdpClient;
import org.lightwire.transport.channel.UdpServer;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpLinkConfig;

/**
 * The client's reader of in-flight calls waits for what it knows: a call whose reply takes 300 ms
 * costs it a handful of rounds (the call's own timers, its probe's answer, the reply), not one per
 * millisecond. Capped at a millisecond, every client ORB with a slow call in flight woke a thousand
 * times a second, and 256 client ORBs on two cores served about half the calls they serve now
 * (scripts/many-clients.sh).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InFlightCallsWakeTest
{
    @Test
    void aSlowCallCostsTheReaderAFewRoundsNotOnePerMillisecond() throws Exception
    {
        final RequestHandler slow = call ->
        {
            try
            {
                Thread.sleep(300);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            call.reply(ByteBuffer.wrap(new byte[] {7}));
        };
        final ExecutorService workers = Executors.newFixedThreadPool(2);
        final AtomicInteger replied = new AtomicInteger();
        final AtomicInteger replyByte = new AtomicInteger(-1);
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(),
                slow, workers, 1 << 20, TimeUnit.MINUTES.toNanos(10));
             UdpClient client = new UdpClient(EngineConfig.defaults(), UdpLinkConfig.defaults().toBuilder()
                 .clientWaits(UdpLinkConfig.ClientWaits.SELECT).build(), 4, TimeUnit.SECONDS.toNanos(30), 1 << 20))
        {
            final ConnectionPool pool = client.pool(server.localAddress());
            final InFlightCalls calls = new InFlightCalls(new InFlightCalls.Completion()
            {
                @Override
                public void replied(final InFlightCalls.Call call, final ByteBuffer reply)
                {
                    replyByte.set(reply.get(reply.position()));
                    replied.incrementAndGet();
                }

                @Override
                public void failed(final InFlightCalls.Call call, final IOException cause)
                {
                    throw new AssertionError("the call failed", cause);
                }
            }, 0);
            calls.open();
            try
            {
                final ClientConnection c = pool.acquire();
                final ByteBuffer request = ByteBuffer.wrap(new byte[] {1});
                c.startCall(request.duplicate());
                calls.submit(new InFlightCalls.Call(pool, c, 0, new byte[] {1}, request, false, System.nanoTime(), Long.MAX_VALUE / 4, null));
                int rounds = 0;
                while (replied.get() == 0 && rounds < 100_000)
                {
                    calls.drive();
                    rounds++;
                }
                assertEquals(1, replied.get());
                assertEquals(7, replyByte.get());
                assertTrue(rounds <= 30, rounds + " reader rounds for one call of 300 ms");
            }
            finally
            {
                calls.close();
            }
        }
        finally
        {
            workers.shutdownNow();
        }
    }
}
