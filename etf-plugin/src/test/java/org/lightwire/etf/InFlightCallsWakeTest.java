package org.lightwire.etf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * (scripts/many-clients.sh). Calls one after another on one connection cost it one round each
 * (the reply's), not two (an idle wait of a tick ended once more after each call started); and a
 * call whose first timer falls before the end of the reader's wait still wakes it.
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

    /**
     * 60 calls one after another on one pooled connection, each answered after 3 ms: the reader
     * is woken by each reply and by nothing else, give or take a few rounds (a connection not yet
     * watched, the linger's end). Before, an idle wait of a tick after each reply ended again
     * once the next call had started: about two rounds a call.
     */
    @Test
    void callsOneAfterAnotherCostTheReaderOneRoundEach() throws Exception
    {
        final RequestHandler threeMs = call ->
        {
            final byte b = call.request().get(call.request().position());
            try
            {
                Thread.sleep(3);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            call.reply(ByteBuffer.wrap(new byte[] {(byte)(b + 1)}));
        };
        final int calls = 60;
        final ExecutorService workers = Executors.newFixedThreadPool(2);
        final Semaphore replied = new Semaphore(0);
        final StringBuilder replies = new StringBuilder();
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(),
                threeMs, workers, 1 << 20, TimeUnit.MINUTES.toNanos(10));
             UdpClient client = new UdpClient(EngineConfig.defaults(), UdpLinkConfig.defaults().toBuilder()
                 .clientWaits(UdpLinkConfig.ClientWaits.SELECT).build(), 4, TimeUnit.SECONDS.toNanos(30), 1 << 20))
        {
            final ConnectionPool pool = client.pool(server.localAddress());
            final InFlightCalls reader = new InFlightCalls(new InFlightCalls.Completion()
            {
                @Override
                public void replied(final InFlightCalls.Call call, final ByteBuffer reply)
                {
                    replies.append(reply.get(reply.position())).append(' ');
                    replied.release();
                }

                @Override
                public void failed(final InFlightCalls.Call call, final IOException cause)
                {
                    throw new AssertionError("a call failed", cause);
                }
            }, 0);
            reader.open();
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicInteger rounds = new AtomicInteger();
            final Thread readerThread = new Thread(() ->
            {
                while (!stop.get())
                {
                    reader.drive();
                    rounds.incrementAndGet();
                }
            }, "reader");
            final Set<ClientConnection> used = Collections.newSetFromMap(new IdentityHashMap<>());
            try
            {
                readerThread.start();
                // One call first: its connection is then watched (a call on an unwatched one wakes the reader).
                final StringBuilder expected = new StringBuilder();
                for (int i = 0; i <= calls; i++)
                {
                    if (i == 1)
                    {
                        rounds.set(0);
                    }
                    final ClientConnection c = pool.acquire();
                    used.add(c);
                    final ByteBuffer request = ByteBuffer.wrap(new byte[] {(byte)i});
                    c.startCall(request.duplicate());
                    reader.submit(new InFlightCalls.Call(pool, c, 0, new byte[] {(byte)i}, request, false, System.nanoTime(),
                        TimeUnit.SECONDS.toNanos(30), null));
                    assertTrue(replied.tryAcquire(30, TimeUnit.SECONDS), "call " + i + " was not answered");
                    expected.append((byte)(i + 1)).append(' ');
                }
                final int counted = rounds.get();
                assertEquals(expected.toString(), replies.toString(), "each call's own reply, in order");
                // Each connection beyond the first is one the reader did not watch: one more round.
                assertTrue(counted <= calls + 2 * used.size() + 6, counted + " reader rounds for " + calls + " calls on "
                    + used.size() + " connection(s)");
            }
            finally
            {
                stop.set(true);
                reader.close();
                readerThread.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
        finally
        {
            workers.shutdownNow();
        }
    }

    /**
     * The reader knows one call, whose timer is 30 s away (its connection's retransmission timeout),
     * so it waits that long. A call then starts on another connection it watches, one whose timer
     * is 50 ms away, and is held by the server: the reader must be woken to ask for its reply at
     * 50 ms (the ask is a packet sent), not when the first call's timer ends its wait.
     */
    @Test
    void aCallWhoseTimerFallsBeforeTheReadersWaitEndsWakesIt() throws Exception
    {
        final CountDownLatch release = new CountDownLatch(1);
        final RequestHandler holdsH = call ->
        {
            final byte b = call.request().get(call.request().position());
            if (b == 'H')
            {
                try
                {
                    release.await();
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            }
            call.reply(ByteBuffer.wrap(new byte[] {b}));
        };
        final long thirty = TimeUnit.SECONDS.toNanos(30);
        final long fifty = TimeUnit.MILLISECONDS.toNanos(50);
        final EngineConfig slow = EngineConfig.builder().retransmitMinNs(thirty).retransmitInitialNs(thirty).retransmitMaxNs(thirty)
            .peerTimeoutNs(4 * thirty).rttProbeIntervalNs(0).ackDelayNs(TimeUnit.SECONDS.toNanos(60)).build();
        final EngineConfig quick = EngineConfig.builder().retransmitMinNs(fifty).retransmitInitialNs(fifty).retransmitMaxNs(fifty)
            .peerTimeoutNs(4 * thirty).rttProbeIntervalNs(0).build();
        final UdpLinkConfig select = UdpLinkConfig.defaults().toBuilder().clientWaits(UdpLinkConfig.ClientWaits.SELECT).build();
        final ExecutorService workers = Executors.newFixedThreadPool(4);
        final AtomicInteger failures = new AtomicInteger();
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(),
                holdsH, workers, 1 << 20, TimeUnit.MINUTES.toNanos(10));
             UdpClient slowClient = new UdpClient(slow, select, 4, thirty, 1 << 20);
             UdpClient quickClient = new UdpClient(quick, select, 4, thirty, 1 << 20))
        {
            final ConnectionPool slowPool = slowClient.pool(server.localAddress());
            final ConnectionPool quickPool = quickClient.pool(server.localAddress());
            final Semaphore replied = new Semaphore(0);
            final InFlightCalls reader = new InFlightCalls(new InFlightCalls.Completion()
            {
                @Override
                public void replied(final InFlightCalls.Call call, final ByteBuffer reply)
                {
                    replied.release();
                }

                @Override
                public void failed(final InFlightCalls.Call call, final IOException cause)
                {
                    failures.incrementAndGet();
                }
            }, 0);
            reader.open();
            final AtomicBoolean stop = new AtomicBoolean();
            final Thread readerThread = new Thread(() ->
            {
                while (!stop.get())
                {
                    reader.drive();
                }
            }, "reader");
            try
            {
                readerThread.start();
                // A quick call first, so that the quick connection is watched when the held one starts on it.
                final ClientConnection q = quickPool.acquire();
                final ByteBuffer fast = ByteBuffer.wrap(new byte[] {'F'});
                q.startCall(fast.duplicate());
                reader.submit(new InFlightCalls.Call(quickPool, q, 0, new byte[] {'F'}, fast, false, System.nanoTime(), thirty, null));
                assertTrue(replied.tryAcquire(30, TimeUnit.SECONDS), "set-up: the quick call was not answered");
                final ClientConnection a = slowPool.acquire();
                final ByteBuffer held = ByteBuffer.wrap(new byte[] {'H'});
                a.startCall(held.duplicate());
                reader.submit(new InFlightCalls.Call(slowPool, a, 0, new byte[] {'H'}, held, false, System.nanoTime(), 4 * thirty, null));
                // Until the reader waits for the held call's 30 s timer (its wait ends more than 10 s on).
                final java.lang.reflect.Field wakeBy = InFlightCalls.class.getDeclaredField("wakeByNs");
                wakeBy.setAccessible(true);
                final long waitEndNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                long end = (long)wakeBy.get(reader);
                // (Long.MIN_VALUE: the reader is not waiting.)
                while ((end == Long.MIN_VALUE || end - System.nanoTime() < TimeUnit.SECONDS.toNanos(10)) && System.nanoTime() - waitEndNs < 0)
                {
                    Thread.onSpinWait();
                    end = (long)wakeBy.get(reader);
                }
                assertTrue(end != Long.MIN_VALUE && end - System.nanoTime() > TimeUnit.SECONDS.toNanos(10),
                    "set-up: the reader never waited for the held call");
                final ClientConnection b = quickPool.acquire();
                assertSame(q, b, "set-up: the quick pool did not hand out its watched connection");
                b.startCall(held.duplicate());
                final long sent = b.counters().packetsSent();
                reader.submit(new InFlightCalls.Call(quickPool, b, 0, new byte[] {'H'}, held, false, System.nanoTime(), 4 * thirty, null));
                final long endNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (b.counters().packetsSent() == sent && System.nanoTime() - endNs < 0)
                {
                    Thread.sleep(5);
                }
                assertTrue(b.counters().packetsSent() > sent, "no ask for the held call's reply within 5 s of its 50 ms timer: "
                    + "the reader slept on for the other call's 30 s timer");
                assertEquals(0, failures.get());
            }
            finally
            {
                release.countDown();
                stop.set(true);
                reader.close();
                readerThread.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
        finally
        {
            workers.shutdownNow();
        }
    }
}
