package org.lightwire.romiop.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.romiop.link.UdpGroupLink;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;

/**
 * The polling driver over real loopback sockets: a reader in {@code pollUntil} takes the datagrams
 * on its own thread; with no reader the driver's thread polls and fires timers; a returning
 * reader takes polling back; tasks run inline when the engine is free and keep their order when it
 * is not; close ends a polling reader. Waits on latches and conditions only; no timing is asserted.
 */
@Timeout(60)
class PollingDriverTest
{
    private static final long SECONDS = 10;
    private static final long LONG_WAIT_NS = TimeUnit.SECONDS.toNanos(60);

    /** Records what the driver calls, and on which thread; a packet with marker 13 throws. */
    private static final class RecordingEngine implements DrivenEngine
    {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        final List<Thread> packetThreads = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch timerFired = new CountDownLatch(1);
        volatile long deadlineNs = Long.MAX_VALUE;
        volatile Thread timerThread;

        @Override
        public void onPacket(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
        {
            final long marker = ((KeepAliveFlyweight)new KeepAliveFlyweight().wrap(buffer, offset)).lastOrderSeq();
            if (marker == 13)
            {
                throw new IllegalStateException("engine bug on purpose");
            }
            packetThreads.add(Thread.currentThread());
            calls.add("packet " + marker);
        }

        @Override
        public void onTimer(final long nowNs)
        {
            timerThread = Thread.currentThread();
            calls.add("timer");
            deadlineNs = Long.MAX_VALUE;
            timerFired.countDown();
        }

        @Override
        public long nextDeadlineNs()
        {
            return deadlineNs;
        }

        int packets()
        {
            return packetThreads.size();
        }
    }

    /** Waits for a condition another thread makes true; fails after {@value #SECONDS} s instead of hanging. */
    private static void await(final java.util.function.BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - end > 0)
            {
                throw new AssertionError("not within " + SECONDS + " s: " + what);
            }
            Thread.sleep(0, 100_000);
        }
    }

    private static UdpGroupLink link(final int selfId, final boolean polled) throws Exception
    {
        return UdpGroupLink.open(new UdpGroupLink.Settings().mode(UdpGroupLink.Mode.FANOUT).selfId(selfId).polled(polled)
            .unicastBind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
    }

    private static void send(final UdpGroupLink from, final int senderId, final long marker)
    {
        final ByteBuffer b = ByteBuffer.allocate(64);
        ((KeepAliveFlyweight)new KeepAliveFlyweight().wrap(b, 0)).set(java.nio.ByteOrder.BIG_ENDIAN, senderId, 1, 1, marker, 0);
        from.send(1, b, 64);
    }

    @Test
    void aPollingReaderTakesTheDatagramsOnItsOwnThread() throws Exception
    {
        final RecordingEngine engine = new RecordingEngine();
        try (UdpGroupLink receiver = link(1, true); UdpGroupLink sender = link(2, false))
        {
            sender.addPeer(1, receiver.localAddress());
            final PollingDriver driver = new PollingDriver("test-driver", receiver, engine).start();
            try
            {
                // When the engine is free a task runs now, on this thread. The driver's own thread
                // takes the engine now and then (its first polls after start), and a task submitted
                // then runs there: so submit until one runs inline, which needs the engine free once.
                final Thread caller = Thread.currentThread();
                final AtomicReference<Thread> ranOn = new AtomicReference<>();
                await(() ->
                {
                    driver.submit(now -> ranOn.set(Thread.currentThread()));
                    return ranOn.get() == caller;
                }, "a task submitted while the engine is free runs on the submitting thread");

                final AtomicBoolean done = new AtomicBoolean();
                final AtomicReference<Thread> reader = new AtomicReference<>();
                final Thread t = new Thread(() ->
                {
                    reader.set(Thread.currentThread());
                    done.set(driver.pollUntil(() -> engine.packets() == 2, LONG_WAIT_NS));
                }, "jacorb-reader");
                t.start();
                // Once the reader polls, it holds polling until its condition is met.
                await(() -> driver.readerPolls() > 0, "the reader polls");
                send(sender, 2, 13);
                send(sender, 2, 7);
                send(sender, 2, 8);
                t.join(TimeUnit.SECONDS.toMillis(SECONDS));
                assertFalse(t.isAlive());
                assertTrue(done.get());
                assertEquals(List.of("packet 7", "packet 8"), engine.calls);
                assertEquals(List.of(reader.get(), reader.get()), engine.packetThreads, "both on the reader's thread");
                assertEquals(1, driver.failures(), "the throwing packet is counted, polling goes on");
                assertEquals("engine bug on purpose", driver.lastFailure().getMessage());
            }
            finally
            {
                driver.close();
            }
        }
    }

    @Test
    void withNoReaderTheDriverThreadTakesDatagramsAndFiresTimers() throws Exception
    {
        final RecordingEngine engine = new RecordingEngine();
        try (UdpGroupLink receiver = link(1, true); UdpGroupLink sender = link(2, false))
        {
            sender.addPeer(1, receiver.localAddress());
            final PollingDriver driver = new PollingDriver("test-driver", receiver, engine).start();
            try
            {
                send(sender, 2, 7);
                driver.submit(now -> engine.deadlineNs = now + TimeUnit.MILLISECONDS.toNanos(5));
                assertTrue(engine.timerFired.await(SECONDS, TimeUnit.SECONDS), engine.calls.toString());
                await(() -> engine.packets() > 0, "the driver thread takes the packet");
                assertEquals("test-driver", engine.timerThread.getName());
                assertEquals("test-driver", engine.packetThreads.get(0).getName());
                assertTrue(driver.driverPolls() > 0);
                assertEquals(0, driver.readerPolls());
            }
            finally
            {
                driver.close();
            }
        }
    }

    @Test
    void aReturningReaderTakesPollingBackFromTheDriverThread() throws Exception
    {
        final RecordingEngine engine = new RecordingEngine();
        try (UdpGroupLink receiver = link(1, true); UdpGroupLink sender = link(2, false))
        {
            sender.addPeer(1, receiver.localAddress());
            final PollingDriver driver = new PollingDriver("test-driver", receiver, engine).start();
            try
            {
                // No reader yet: the driver's thread polls, and holds polling.
                await(() -> driver.driverPolls() > 0, "the driver thread polls");
                final AtomicReference<Thread> reader = new AtomicReference<>();
                final Thread t = new Thread(() ->
                {
                    reader.set(Thread.currentThread());
                    driver.pollUntil(() -> engine.packets() == 1, LONG_WAIT_NS);
                }, "jacorb-reader");
                t.start();
                await(() -> driver.readerPolls() > 0, "the reader polls");
                send(sender, 2, 7);
                t.join(TimeUnit.SECONDS.toMillis(SECONDS));
                assertFalse(t.isAlive());
                assertEquals(List.of(reader.get()), engine.packetThreads);
                assertTrue(driver.handovers() >= 1, "the reader woke the selecting driver thread");
            }
            finally
            {
                driver.close();
            }
        }
    }

    @Test
    void aTaskSubmittedWhileTheEngineIsBusyQueuesAndKeepsItsOrder() throws Exception
    {
        final RecordingEngine engine = new RecordingEngine();
        try (UdpGroupLink link = link(1, true))
        {
            final PollingDriver driver = new PollingDriver("test-driver", link, engine).start();
            try
            {
                final CountDownLatch busy = new CountDownLatch(1);
                final CountDownLatch release = new CountDownLatch(1);
                final List<Integer> order = Collections.synchronizedList(new ArrayList<>());
                final Thread holder = new Thread(() -> driver.submit(now ->
                {
                    busy.countDown();
                    try
                    {
                        release.await(SECONDS, TimeUnit.SECONDS);
                    }
                    catch (final InterruptedException e)
                    {
                        Thread.currentThread().interrupt();
                    }
                    order.add(1);
                }));
                holder.start();
                assertTrue(busy.await(SECONDS, TimeUnit.SECONDS));
                final long inlineBefore = driver.inlineTasks();
                driver.submit(now -> order.add(2));
                driver.submit(now -> order.add(3));
                assertEquals(inlineBefore, driver.inlineTasks(), "neither ran on this thread while the engine was busy");
                assertEquals(List.of(), order);
                release.countDown();
                holder.join(TimeUnit.SECONDS.toMillis(SECONDS));
                // The holder ran what was queued before it let go of the engine.
                assertEquals(List.of(1, 2, 3), order);
            }
            finally
            {
                driver.close();
            }
        }
    }

    @Test
    void aConditionMetElsewhereEndsThePollWithTheWakeupAndCloseEndsAnyPoll() throws Exception
    {
        final RecordingEngine engine = new RecordingEngine();
        try (UdpGroupLink link = link(1, true); UdpGroupLink sender = link(2, false))
        {
            sender.addPeer(1, link.localAddress());
            final PollingDriver driver = new PollingDriver("test-driver", link, engine).start();
            final AtomicBoolean flag = new AtomicBoolean();
            final AtomicBoolean result = new AtomicBoolean();
            final Thread first = new Thread(() -> result.set(driver.pollUntil(flag::get, LONG_WAIT_NS)));
            first.start();
            await(() -> driver.readerPolls() > 0, "the reader polls");
            flag.set(true);
            driver.wakeup();
            first.join(TimeUnit.SECONDS.toMillis(SECONDS));
            assertFalse(first.isAlive(), "woken, it saw its condition");
            assertTrue(result.get());

            final long pollsBefore = driver.readerPolls();
            final Thread second = new Thread(() -> result.set(driver.pollUntil(() -> false, LONG_WAIT_NS)));
            second.start();
            await(() -> driver.readerPolls() > pollsBefore, "the second reader polls");
            driver.close();
            second.join(TimeUnit.SECONDS.toMillis(SECONDS));
            assertFalse(second.isAlive(), "close ends the poll");
            assertFalse(result.get());
            assertTrue(driver.closed());
            assertThrows(IllegalStateException.class, () -> driver.submit(now -> engine.calls.add("after close")));
            send(sender, 2, 9);
            assertFalse(driver.pollUntil(() -> false, LONG_WAIT_NS), "a closed driver polls no more");
            assertEquals(List.of(), engine.calls, "a closed driver takes nothing");
        }
    }

    @Test
    void whileAReaderPollsTheDriverThreadOnlyLooksInNowAndThen() throws Exception
    {
        final RecordingEngine engine = new RecordingEngine();
        try (UdpGroupLink link = link(1, true))
        {
            final PollingDriver driver = new PollingDriver("test-driver", link, engine).start();
            try
            {
                // With a reader polling, the driver thread parks READER_ABSENCE_MS at a time.
                final long before = driver.idleWakeups();
                final long start = System.nanoTime();
                assertFalse(driver.pollUntil(() -> false, TimeUnit.MILLISECONDS.toNanos(100)));
                final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                final long wakeups = driver.idleWakeups() - before;
                // A driver thread spinning beside the reader (as a 100 us park did) would look in
                // ten or more times per millisecond; the bound is loose on purpose.
                assertTrue(wakeups <= elapsedMs + 2, wakeups + " wake-ups in " + elapsedMs + " ms");
            }
            finally
            {
                driver.close();
            }
        }
    }

    @Test
    void aLinkWithAnEventLoopIsRefused() throws Exception
    {
        try (UdpGroupLink link = link(1, false))
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PollingDriver("test-driver", link, new RecordingEngine()));
            assertTrue(e.getMessage().contains("Settings.polled(true)"), e.getMessage());
        }
    }
}
