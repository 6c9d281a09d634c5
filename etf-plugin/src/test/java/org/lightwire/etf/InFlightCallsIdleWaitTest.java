package org.lightwire.etf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.channel.CallTimeoutException;
import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.ConnectionPool;
import org.lightwire.transport.channel.RequestHandler;
import org.lightwire.transport.channel.UdpClient;
import org.lightwire.transport.channel.UdpServer;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpLinkConfig;

/**
 * The in-flight reader's idle wait (it waits as long as a call started now on a watched connection
 * waits before its first timer, doubling, until its linger ends) and the wake-up a caller gives it
 * only for a call that wait would make late: calls less than a linger apart never wake it, calls
 * further apart cost a few rounds, a call whose own deadline is shorter than the wait is woken
 * for (within the wait and past the linger, and when the caller reads the reader awake just
 * before it publishes its wait), and a discarded connection is not kept reachable. Requests: first
 * byte 'H' is held by the server until the test ends, 'S' sleeps 300 ms, 'Z' is answered at once,
 * anything else sleeps 3 ms; the reply echoes the byte.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InFlightCallsIdleWaitTest
{
    private final CountDownLatch release = new CountDownLatch(1);
    private ExecutorService workers;
    private UdpServer server;
    private UdpClient client;
    private InFlightCalls calls;
    private Thread readerThread;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger rounds = new AtomicInteger();
    /** Set by a test: the reader runs this between two drive() calls (so the next poll of the queue is the top admission). */
    private final AtomicBoolean armBetweenRounds = new AtomicBoolean();
    private volatile HookedQueue hooked;

    private final LinkedBlockingQueue<Object> outcomes = new LinkedBlockingQueue<>();

    private void start(final EngineConfig clientEngine, final long spinNs) throws IOException
    {
        final RequestHandler handler = call ->
        {
            final byte b = call.request().get(call.request().position());
            try
            {
                if (b == 'H')
                {
                    release.await();
                }
                else if (b != 'Z')
                {
                    Thread.sleep(b == 'S' ? 300 : 3);
                }
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            call.reply(ByteBuffer.wrap(new byte[] {b}));
        };
        workers = Executors.newFixedThreadPool(4);
        server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(), handler, workers,
            1 << 20, TimeUnit.MINUTES.toNanos(10));
        client = new UdpClient(clientEngine, UdpLinkConfig.defaults().toBuilder().clientWaits(UdpLinkConfig.ClientWaits.SELECT).build(), 4,
            TimeUnit.SECONDS.toNanos(30), 1 << 20);
        calls = new InFlightCalls(new InFlightCalls.Completion()
        {
            @Override
            public void replied(final InFlightCalls.Call call, final ByteBuffer reply)
            {
                outcomes.add(reply.get(reply.position()));
            }

            @Override
            public void failed(final InFlightCalls.Call call, final IOException cause)
            {
                outcomes.add(cause);
            }
        }, spinNs);
    }

    private void startReader() throws IOException
    {
        calls.open();
        readerThread = new Thread(() ->
        {
            while (!stop.get())
            {
                if (armBetweenRounds.getAndSet(false))
                {
                    hooked.armed = true;
                }
                calls.drive();
                rounds.incrementAndGet();
            }
        }, "reader");
        readerThread.start();
    }

    @AfterEach
    void tearDown() throws InterruptedException
    {
        release.countDown();
        stop.set(true);
        if (calls != null)
        {
            calls.close();
        }
        if (readerThread != null)
        {
            readerThread.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (client != null)
        {
            client.close();
        }
        if (server != null)
        {
            server.close();
        }
        if (workers != null)
        {
            workers.shutdownNow();
        }
    }

    private InFlightCalls.Call startCall(final ConnectionPool pool, final ClientConnection c, final byte what, final long timeoutNs)
        throws IOException
    {
        final ByteBuffer request = ByteBuffer.wrap(new byte[] {what});
        c.startCall(request.duplicate());
        return new InFlightCalls.Call(pool, c, 0, new byte[] {what}, request, false, System.nanoTime(), timeoutNs, null);
    }

    private static Object field(final Object o, final String name) throws ReflectiveOperationException
    {
        final Field f = InFlightCalls.class.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    private long wakeRequests() throws ReflectiveOperationException
    {
        return ((AtomicLong)field(calls, "wakeRequests")).get();
    }

    /**
     * One call every 25 ms + 3 ms on a connection whose lead is 200 ms (no RTT probes: the RTO
     * stays at its initial value): no caller wakes the reader, and each call costs it one round.
     * (The linger once ran from the last call admitted at the top of a round; a call admitted after
     * the select its reply ended did not count, so every second call found the reader past its
     * linger, asleep until woken: 10 wake-ups in 30 calls.)
     */
    @Test
    void callsLessThanALingerApartNeverWakeTheReader() throws Exception
    {
        spacedCalls(EngineConfig.builder().rttProbeIntervalNs(0).build(), 25, true);
    }

    /**
     * The same with the default engine (RTT probes: the RTO drops to about a millisecond, so the
     * lead is the usual reply time, a few milliseconds): the doubling idle waits cost a few rounds
     * a call, not one per lead (about 6 a call) nor one per tick (about 24).
     */
    @Test
    void callsFarApartCostTheReaderAFewRoundsEach() throws Exception
    {
        spacedCalls(EngineConfig.defaults(), 25, false);
    }

    private void spacedCalls(final EngineConfig engine, final int gapMs, final boolean assertWakes) throws Exception
    {
        start(engine, 0);
        final ConnectionPool pool = client.pool(server.localAddress());
        startReader();
        final ClientConnection first = pool.acquire();
        calls.submit(startCall(pool, first, (byte)1, TimeUnit.SECONDS.toNanos(30)));
        assertEquals((byte)1, outcomes.poll(30, TimeUnit.SECONDS), "set-up: the first call");
        final int n = 30;
        final long wakesBefore = wakeRequests();
        final int roundsBefore = rounds.get();
        for (int i = 0; i < n; i++)
        {
            Thread.sleep(gapMs);
            final ClientConnection c = pool.acquire();
            assertSame(first, c, "set-up: the pool hands out its one (watched) connection");
            calls.submit(startCall(pool, c, (byte)2, TimeUnit.SECONDS.toNanos(30)));
            assertEquals((byte)2, outcomes.poll(30, TimeUnit.SECONDS), "call " + i);
        }
        final long wakes = wakeRequests() - wakesBefore;
        final int r = rounds.get() - roundsBefore;
        if (assertWakes)
        {
            assertTrue(wakes <= 2, wakes + " wake-ups for " + n + " calls on a watched connection, none more than 28 ms after the last "
                + "(LINGER_NS is 50 ms): the reader left its linger while calls kept coming");
            assertTrue(r <= n + 4, r + " reader rounds for " + n + " calls");
        }
        else
        {
            assertTrue(r <= 4 * n, r + " reader rounds for " + n + " calls " + gapMs + " ms apart (lead " + first.callLeadNs() / 1_000 + " us)");
        }
    }

    /**
     * A connection the pool discarded (server idle timeout, a failed call, a failure) is not kept
     * reachable by the reader: a closed channel is never reported readable, so the reader forgets
     * it when it next computes its wait. (It once stayed for the life of the ETF connection, with
     * its engine, buffers and the plug-in's direct request buffer.)
     */
    @Test
    void aDiscardedConnectionIsNotKeptByTheReader() throws Exception
    {
        start(EngineConfig.defaults(), 0);
        final ConnectionPool pool = client.pool(server.localAddress());
        startReader();
        ClientConnection c = pool.acquire();
        calls.submit(startCall(pool, c, (byte)1, TimeUnit.SECONDS.toNanos(30)));
        assertEquals((byte)1, outcomes.poll(30, TimeUnit.SECONDS), "set-up: the call");
        final WeakReference<ClientConnection> ref = new WeakReference<>(c);
        c = null;
        // (The reader gives the connection back to the pool just after the completion upcall.)
        int discarded = 0;
        for (int i = 0; i < 100 && discarded == 0; i++)
        {
            Thread.sleep(10);
            discarded = pool.discardIdle();
        }
        assertEquals(1, discarded, "set-up: the pool closes its idle connection");
        // A later call on a new connection, so the reader has run rounds since.
        final ClientConnection d = pool.acquire();
        calls.submit(startCall(pool, d, (byte)2, TimeUnit.SECONDS.toNanos(30)));
        assertEquals((byte)2, outcomes.poll(30, TimeUnit.SECONDS), "set-up: the second call");
        for (int i = 0; i < 20 && ref.get() != null; i++)
        {
            System.gc();
            Thread.sleep(50);
        }
        final Map<?, ?> watched = (Map<?, ?>)field(calls, "watched");
        assertNull(ref.get(), "the reader keeps a closed, discarded transport connection reachable (watched: " + watched.size()
            + " entries for 1 live connection)");
        assertEquals(1, watched.size());
    }

    /**
     * The reader waits its idle lead (here ~0.9 s: replies of this connection take 300 ms,
     * so the usual reply time plus four deviations) on a watched connection; a call started there
     * whose first timer is its own 100 ms call timeout (shorter than the lead) must wake it: it
     * fails at ~100 ms, not at the end of the lead (nor never, past the linger).
     */
    @Test
    void aCallWhoseDeadlineFallsInsideTheIdleLeadWakesTheReader() throws Exception
    {
        start(EngineConfig.builder().rttProbeIntervalNs(0).build(), 0);
        final ConnectionPool pool = client.pool(server.localAddress());
        startReader();
        for (final boolean pastLinger : new boolean[] {false, true})
        {
            final ClientConnection c = pool.acquire();
            calls.submit(startCall(pool, c, (byte)'S', TimeUnit.SECONDS.toNanos(30)));
            assertEquals((byte)'S', outcomes.poll(30, TimeUnit.SECONDS), "set-up: a 300 ms call");
            final long leadNs = c.callLeadNs();
            assertTrue(leadNs > TimeUnit.MILLISECONDS.toNanos(500), "set-up: the connection's lead is " + leadNs);
            Thread.sleep(pastLinger ? TimeUnit.NANOSECONDS.toMillis(leadNs) + 200 : 5);
            final ClientConnection again = pool.acquire();
            assertSame(c, again, "set-up: the watched connection again");
            final long t0 = System.nanoTime();
            calls.submit(startCall(pool, again, (byte)'H', TimeUnit.MILLISECONDS.toNanos(100)));
            final Object outcome = outcomes.poll(30, TimeUnit.SECONDS);
            final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(outcome instanceof CallTimeoutException, "outcome " + outcome);
            assertTrue(tookMs < 400, "the call's 100 ms deadline fired after " + tookMs + " ms");
            // The timed-out connection is closed and discarded; the next pass opens a new one.
        }
    }

    /** The reader's queue; after the test arms it, runs a step once when drive()'s admission finds it empty. */
    private static final class HookedQueue extends ConcurrentLinkedQueue<InFlightCalls.Call>
    {
        volatile boolean armed;
        volatile Runnable atEmptyAdmission;

        @Override
        public InFlightCalls.Call poll()
        {
            final InFlightCalls.Call c = super.poll();
            final Runnable r = atEmptyAdmission;
            if (armed && c == null && r != null && Thread.currentThread().getName().equals("reader"))
            {
                armed = false;
                atEmptyAdmission = null;
                r.run();
            }
            return c;
        }
    }

    /**
     * Forced interleaving of the handshake: a caller submits between the reader's
     * admission at the top of a round (queue empty) and its publication of wakeByNs; it reads
     * AWAKE and does not wake the reader. The reader, past its linger, computes an unbounded wait
     * and must still find the call (its isEmpty() after the publication) before select(0): the
     * held call's 150 ms call timeout fails it on time.
     */
    @Test
    void aCallerThatReadsAwakeJustBeforeThePublicationIsSeen() throws Exception
    {
        start(EngineConfig.builder().rttProbeIntervalNs(0).build(), 0);
        final ConnectionPool pool = client.pool(server.localAddress());
        hooked = new HookedQueue();
        final Field q = InFlightCalls.class.getDeclaredField("submitted");
        q.setAccessible(true);
        q.set(calls, hooked);
        startReader();
        final ClientConnection c = pool.acquire();
        calls.submit(startCall(pool, c, (byte)1, TimeUnit.SECONDS.toNanos(30)));
        assertEquals((byte)1, outcomes.poll(30, TimeUnit.SECONDS));
        Thread.sleep(200);
        final ClientConnection again = pool.acquire();
        assertSame(c, again);
        final InFlightCalls.Call held = startCall(pool, again, (byte)'H', TimeUnit.MILLISECONDS.toNanos(150));
        final AtomicLong wakesInHook = new AtomicLong(-1);
        final AtomicLong wakeByInHook = new AtomicLong();
        final AtomicLong t0 = new AtomicLong();
        hooked.atEmptyAdmission = () ->
        {
            final Thread caller = new Thread(() ->
            {
                try
                {
                    final long before = wakeRequests();
                    wakeByInHook.set((Long)field(calls, "wakeByNs"));
                    t0.set(System.nanoTime());
                    calls.submit(held);
                    wakesInHook.set(wakeRequests() - before);
                }
                catch (final ReflectiveOperationException e)
                {
                    throw new AssertionError(e);
                }
            }, "caller");
            caller.start();
            try
            {
                caller.join();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        };
        armBetweenRounds.set(true);
        calls.wakeup();
        final Object outcome = outcomes.poll(30, TimeUnit.SECONDS);
        final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0.get());
        assertEquals(Long.MIN_VALUE, wakeByInHook.get(), "set-up: the caller ran while the reader was awake");
        assertEquals(0, wakesInHook.get(), "set-up: the caller did not wake the reader");
        assertTrue(outcome instanceof CallTimeoutException, "outcome " + outcome);
        assertTrue(tookMs < 1000, "the call's 150 ms deadline fired after " + tookMs + " ms");
    }

    /**
     * With {@code receive_spin_us} (here 400 ms), the reader busy-polls before it waits: never
     * past the end of its wait. A held call whose first timer is its own 50 ms call timeout (the
     * engine's timers are 30 s away) fails at about 50 ms; the spin once ran its whole 400 ms and
     * the select after it waited the whole wait again, so the call failed at about 450 ms.
     */
    @Test
    void aSpinEndsWhereTheWaitEnds() throws Exception
    {
        final long thirty = TimeUnit.SECONDS.toNanos(30);
        start(EngineConfig.builder().retransmitMinNs(thirty).retransmitInitialNs(thirty).retransmitMaxNs(thirty).peerTimeoutNs(4 * thirty)
            .rttProbeIntervalNs(0).build(), TimeUnit.MILLISECONDS.toNanos(400));
        final ConnectionPool pool = client.pool(server.localAddress());
        startReader();
        final ClientConnection c = pool.acquire();
        final long t0 = System.nanoTime();
        calls.submit(startCall(pool, c, (byte)'H', TimeUnit.MILLISECONDS.toNanos(50)));
        final Object outcome = outcomes.poll(30, TimeUnit.SECONDS);
        final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(outcome instanceof CallTimeoutException, "outcome " + outcome);
        assertTrue(tookMs < 300, "the call's 50 ms deadline fired after " + tookMs + " ms (the 400 ms spin ran past it)");
    }
}
