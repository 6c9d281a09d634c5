package org.lightwire.etf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
 * The in-flight reader waits until the earliest timer of the calls it knows: a wake-up that a
 * {@code selectNow()} of the reader swallows between its last look and that wait would leave it
 * asleep for the call's retransmission timer (up to retransmitMaxNs, here 30 s so that the test
 * can tell). The exact interleavings are forced with a
 * queue that runs a step of another thread at the point named (the reader's {@code submitted}
 * queue, replaced by reflection). Plus: an idle reader past its linger still ticks every
 * millisecond ({@code Long.MAX_VALUE + 999_999} overflows in the select timeout).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InFlightCallsLostWakeupTest
{
    private static final byte HOLD = 'H';
    private static final byte FAST = 'F';
    /** Long enough for "the reader waited for the timer" to be told apart from "it was woken". */
    private static final long BOUND_S = 5;

    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger executed = new AtomicInteger();
    private ExecutorService workers;
    private UdpServer server;
    private UdpClient client;
    private ConnectionPool pool;

    @BeforeEach
    void startServer() throws IOException
    {
        final RequestHandler handler = call ->
        {
            final byte b = call.request().get(call.request().position());
            executed.incrementAndGet();
            if (b == HOLD)
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
        workers = Executors.newFixedThreadPool(4);
        server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(), handler,
            workers, 1 << 20, TimeUnit.MINUTES.toNanos(10));
        // Long retransmission timers and no RTT probe: a held call's channel stays quiet, and a
        // reader that misses a wake-up sleeps for 30 s. A long ack delay: the server resends a
        // reply (late packet on an idle connection) instead of getting a CALL_ACK.
        final long thirty = TimeUnit.SECONDS.toNanos(30);
        final EngineConfig slowTimers = EngineConfig.builder().retransmitMinNs(thirty).retransmitInitialNs(thirty)
            .retransmitMaxNs(thirty).peerTimeoutNs(4 * thirty).rttProbeIntervalNs(0).ackDelayNs(TimeUnit.SECONDS.toNanos(60)).build();
        client = new UdpClient(slowTimers, UdpLinkConfig.defaults().toBuilder().clientWaits(UdpLinkConfig.ClientWaits.SELECT).build(), 4,
            TimeUnit.SECONDS.toNanos(30), 1 << 20);
        pool = client.pool(server.localAddress());
    }

    @AfterEach
    void stop()
    {
        release.countDown();
        client.close();
        server.close();
        workers.shutdownNow();
    }

    /** Counts what the reader completed; the connection goes back to the pool in InFlightCalls.poll. */
    private static final class Replies implements InFlightCalls.Completion
    {
        final CountDownLatch[] byByte = new CountDownLatch[128];
        final AtomicReference<IOException> failure = new AtomicReference<>();

        Replies()
        {
            for (int i = 0; i < byByte.length; i++)
            {
                byByte[i] = new CountDownLatch(1);
            }
        }

        @Override
        public void replied(final InFlightCalls.Call call, final ByteBuffer reply)
        {
            byByte[reply.get(reply.position())].countDown();
        }

        @Override
        public void failed(final InFlightCalls.Call call, final IOException cause)
        {
            failure.compareAndSet(null, cause);
        }
    }

    /** The reader's submitted queue, with a step of another thread run where the reader is at a named point. */
    private static final class HookedQueue extends ConcurrentLinkedQueue<InFlightCalls.Call>
    {
        /** Run once when the reader's spin finds the queue empty (after it looked, before it looks again). */
        volatile Runnable spinFoundEmpty;
        /** Run once when unwatchIdle's admitSubmitted found the queue empty (before it cancels the key). */
        volatile Runnable unwatchFoundEmpty;
        /** Run once at the next admitSubmitted of drive() itself (top of the next round), before it polls. */
        volatile Runnable nextRoundPoll;
        volatile boolean armNextRound;

        @Override
        public boolean isEmpty()
        {
            final boolean empty = super.isEmpty();
            final Runnable r = spinFoundEmpty;
            if (r != null && empty && calledFrom("spinThenSelectNow"))
            {
                spinFoundEmpty = null;
                r.run();
            }
            return empty;
        }

        @Override
        public InFlightCalls.Call poll()
        {
            final Runnable atRound = nextRoundPoll;
            if (atRound != null && armNextRound && calledFrom("drive") && !calledFrom("unwatchIdle"))
            {
                nextRoundPoll = null;
                atRound.run();
            }
            final InFlightCalls.Call c = super.poll();
            final Runnable r = unwatchFoundEmpty;
            if (r != null && c == null && calledFrom("unwatchIdle"))
            {
                unwatchFoundEmpty = null;
                r.run();
                armNextRound = true;
            }
            return c;
        }

        private static boolean calledFrom(final String method)
        {
            return StackWalker.getInstance().walk(s -> s.anyMatch(f -> f.getClassName().equals(InFlightCalls.class.getName()) &&
                f.getMethodName().equals(method)));
        }
    }

    private static HookedQueue hook(final InFlightCalls calls) throws ReflectiveOperationException
    {
        final HookedQueue q = new HookedQueue();
        final Field f = InFlightCalls.class.getDeclaredField("submitted");
        f.setAccessible(true);
        f.set(calls, q);
        return q;
    }

    private InFlightCalls.Call start(final ClientConnection c, final byte what) throws IOException
    {
        final ByteBuffer request = ByteBuffer.wrap(new byte[] {what});
        c.startCall(request.duplicate());
        return new InFlightCalls.Call(pool, c, 0, new byte[] {what}, request, false, System.nanoTime(), Long.MAX_VALUE / 4, null);
    }

    /** Runs a step as another thread (a caller, a closer) would, and waits for it. */
    private static void asAnotherThread(final Runnable step)
    {
        final Thread t = new Thread(step, "other");
        t.start();
        try
        {
            t.join();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static Thread reader(final InFlightCalls calls, final AtomicBoolean stop, final AtomicInteger rounds)
    {
        final Thread t = new Thread(() ->
        {
            while (!stop.get())
            {
                calls.drive();
                rounds.incrementAndGet();
            }
        }, "reader");
        t.start();
        return t;
    }

    /**
     * receive_spin_us &gt; 0: the reader knows one call, whose timer is 30 s away, so it sleeps
     * (its wait ends 30 s on) and spins first. A caller submits call B (on a connection the reader does
     * not watch) after the spin's look at the queue and before its next selectNow(): submit() sees
     * the channel unwatched and wakes the selector, the spin's selectNow() swallows the wake-up, the
     * spin ends because the queue is no longer empty, and the reader goes into select() for 30 s.
     * B's reply has arrived long before, on a channel nobody watches; B is seen only when the held
     * call's timer or reply ends the wait.
     */
    @Test
    void aCallSubmittedWhileTheReaderSpinsIsSeenBeforeTheSleepingCallsTimer() throws Exception
    {
        final Replies replies = new Replies();
        final InFlightCalls calls = new InFlightCalls(replies, TimeUnit.MILLISECONDS.toNanos(100));
        final HookedQueue q = hook(calls);
        calls.open();
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger rounds = new AtomicInteger();
        Thread reader = null;
        try
        {
            final ClientConnection a = pool.acquire();
            final ClientConnection b = pool.acquire();
            calls.submit(start(a, HOLD));
            final InFlightCalls.Call callB = start(b, FAST);
            final AtomicBoolean hookRan = new AtomicBoolean();
            q.spinFoundEmpty = () ->
            {
                asAnotherThread(() -> calls.submit(callB));
                hookRan.set(true);
            };
            reader = reader(calls, stop, rounds);
            final boolean bSeenWhileAHeld = replies.byByte[FAST].await(BOUND_S, TimeUnit.SECONDS);
            release.countDown();
            assertTrue(replies.byByte[HOLD].await(60, TimeUnit.SECONDS), "the held call never completed");
            assertTrue(replies.byByte[FAST].await(60, TimeUnit.SECONDS), "B never completed");
            assertTrue(hookRan.get(), "set-up: the spin never found the queue empty");
            assertTrue(bSeenWhileAHeld, "call B, submitted during the spin, was not seen until the other call's reply "
                + "(the spin's selectNow() swallowed submit()'s wake-up; the reader then slept for the 30 s timer)");
            assertEquals(null, replies.failure.get());
        }
        finally
        {
            stop.set(true);
            calls.close();
            if (reader != null)
            {
                reader.join(TimeUnit.SECONDS.toMillis(60));
            }
        }
    }

    /**
     * Default settings (no spin). The reader knows one held call (timer 30 s off). A late packet
     * (the server resending call C's reply) makes an idle watched channel readable: unwatchIdle
     * cancels its key. The pool's servicer sweeps that idle connection (reads the packet), and a
     * caller then starts call B on it and submits it (channel not registered: it wakes the reader). At the top of the next round close() runs on another
     * thread: closed = true, wakeup(), and it waits for the reader's lock. The round's
     * admitSubmitted registers B's channel anew; register() throws CancelledKeyException (the
     * key is not flushed yet), and watch()'s selectNow() swallows close()'s wake-up. The reader
     * goes into select() for 30 s and close() waits with it.
     */
    @Test
    void closeDuringARoundThatRewatchesACancelledChannelDoesNotWaitForTheTimers() throws Exception
    {
        final Replies replies = new Replies();
        final InFlightCalls calls = new InFlightCalls(replies, 0);
        final HookedQueue q = hook(calls);
        calls.open();
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger rounds = new AtomicInteger();
        final ReentrantLock driving = (ReentrantLock)field(calls, "driving");
        Thread reader = null;
        final Thread[] closer = new Thread[1];
        try
        {
            final ClientConnection a = pool.acquire();
            final ClientConnection x = pool.acquire();
            calls.submit(start(a, HOLD));
            calls.submit(start(x, (byte)'C'));
            final AtomicBoolean unwatched = new AtomicBoolean();
            final AtomicBoolean closing = new AtomicBoolean();
            final CountDownLatch hooked = new CountDownLatch(1);
            q.unwatchFoundEmpty = () ->
            {
                // The pool's servicer sweeps the idle connection (reads the late packet, acknowledges
                // it), then a caller takes that connection for call B.
                asAnotherThread(() ->
                {
                    try
                    {
                        assertTrue(x.serviceIdle(System.nanoTime()), "set-up: the idle connection failed");
                        final ClientConnection again = pool.acquire();
                        assertSame(x, again, "set-up: the pool did not hand out the connection just unwatched");
                        calls.submit(start(again, HOLD));
                        unwatched.set(true);
                    }
                    catch (final IOException e)
                    {
                        throw new AssertionError(e);
                    }
                });
            };
            q.nextRoundPoll = () ->
            {
                closer[0] = new Thread(calls::close, "closer");
                closer[0].start();
                final long endNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!driving.hasQueuedThread(closer[0]) && System.nanoTime() - endNs < 0)
                {
                    Thread.onSpinWait();
                }
                closing.set(driving.hasQueuedThread(closer[0]));
                hooked.countDown();
            };
            reader = reader(calls, stop, rounds);
            assertTrue(replies.byByte['C'].await(30, TimeUnit.SECONDS), "set-up: call C was not answered");
            final boolean nextRound = hooked.await(30, TimeUnit.SECONDS);
            assertTrue(unwatched.get(), "set-up: no late packet made the idle channel readable");
            assertTrue(nextRound, "set-up: the next round did not start");
            assertTrue(closing.get(), "set-up: close() did not reach the reader's lock");
            closer[0].join(TimeUnit.SECONDS.toMillis(BOUND_S));
            final boolean closedWhileHeld = !closer[0].isAlive();
            release.countDown();
            closer[0].join(TimeUnit.SECONDS.toMillis(60));
            assertTrue(closedWhileHeld, "close() waited for the reader's select() of the calls' 30 s timers "
                + "(watch()'s selectNow() swallowed close()'s wake-up)");
        }
        finally
        {
            release.countDown();
            stop.set(true);
            calls.close();
            if (reader != null)
            {
                reader.join(TimeUnit.SECONDS.toMillis(60));
            }
        }
    }

    /**
     * With no call for longer than LINGER_NS the reader should sleep until woken (waitNs is
     * Long.MAX_VALUE); Math.max(1, toMillis(Long.MAX_VALUE + 999_999)) overflows to 1, so an
     * idle client ORB connection's reader would wake a thousand times a second for ever.
     */
    @Test
    void anIdleReaderPastItsLingerSleepsUntilWoken() throws Exception
    {
        final InFlightCalls calls = new InFlightCalls(new Replies(), 0);
        calls.open();
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger rounds = new AtomicInteger();
        final Thread reader = reader(calls, stop, rounds);
        try
        {
            // Past the linger (50 ms since the last call; there was none), then 300 ms idle.
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(InFlightCalls.LINGER_NS) + 300);
            final int idleRounds = rounds.get();
            assertTrue(idleRounds <= 60, idleRounds + " reader rounds in 350 ms without a call (one per millisecond)");
        }
        finally
        {
            stop.set(true);
            calls.close();
            reader.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    private static Object field(final Object o, final String name) throws ReflectiveOperationException
    {
        final Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }
}
