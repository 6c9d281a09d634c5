package org.lightwire.romiop.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
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

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.link.UdpGroupLink;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;

/**
 * The event-loop driver over real loopback sockets: datagrams reach the engine on the link's
 * event loop, a task submitted while the engine is free runs on the submitter's own thread, tasks
 * keep their order, the timer fires once its deadline has passed, a throwing engine call is
 * counted, and a closed driver takes nothing. Waits on latches only; no timing is asserted.
 */
class EventLoopDriverTest
{
    private static final long SECONDS = 10;

    /** Records what the driver calls, and on which thread; a packet with marker 13 throws. */
    private static final class RecordingEngine implements DrivenEngine
    {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch packets = new CountDownLatch(2);
        final CountDownLatch timerFired = new CountDownLatch(1);
        volatile long deadlineNs = Long.MAX_VALUE;
        volatile Thread packetThread;

        @Override
        public void onPacket(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
        {
            packetThread = Thread.currentThread();
            final long marker = ((KeepAliveFlyweight)new KeepAliveFlyweight().wrap(buffer, offset)).lastOrderSeq();
            if (marker == 13)
            {
                throw new IllegalStateException("engine bug on purpose");
            }
            calls.add("packet " + marker);
            packets.countDown();
        }

        @Override
        public void onTimer(final long nowNs)
        {
            calls.add("timer");
            deadlineNs = Long.MAX_VALUE;
            timerFired.countDown();
        }

        @Override
        public long nextDeadlineNs()
        {
            return deadlineNs;
        }
    }

    private static UdpGroupLink link(final int selfId) throws Exception
    {
        return UdpGroupLink.open(new UdpGroupLink.Settings().mode(UdpGroupLink.Mode.FANOUT).selfId(selfId)
            .unicastBind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
    }

    private static ByteBuffer keepAlive(final int senderId, final long marker)
    {
        final ByteBuffer b = ByteBuffer.allocate(64);
        ((KeepAliveFlyweight)new KeepAliveFlyweight().wrap(b, 0)).set(java.nio.ByteOrder.BIG_ENDIAN, senderId, 1, 1, marker, 0);
        return b;
    }

    @Test
    void datagramsTasksAndTheTimerReachTheEngineInOrder() throws Exception
    {
        final RecordingEngine engine = new RecordingEngine();
        try (UdpGroupLink receiver = link(1); UdpGroupLink sender = link(2))
        {
            sender.addPeer(1, receiver.localAddress());
            final EventLoopDriver driver = new EventLoopDriver(receiver, engine).start();
            try
            {
                // The engine is free: the task runs now, on this thread.
                final Thread[] ranOn = new Thread[1];
                driver.submit(now -> ranOn[0] = Thread.currentThread());
                assertSame(Thread.currentThread(), ranOn[0]);
                assertEquals(2, driver.inlineTasks(), "start's arming task and this one");

                final ByteBuffer bug = keepAlive(2, 13);
                sender.send(1, bug, 64);
                final ByteBuffer first = keepAlive(2, 7);
                sender.send(1, first, 64);
                final ByteBuffer second = keepAlive(2, 8);
                sender.send(1, second, 64);
                assertTrue(engine.packets.await(SECONDS, TimeUnit.SECONDS), engine.calls.toString());
                assertNotSame(Thread.currentThread(), engine.packetThread);
                assertTrue(engine.packetThread.getName().startsWith("romiop-link-1"), engine.packetThread.getName());
                assertEquals(1, driver.failures(), "the throwing packet is counted, the loop goes on");
                assertEquals("engine bug on purpose", driver.lastFailure().getMessage());

                // A deadline set by a task is armed and fires.
                driver.submit(now -> engine.deadlineNs = now + TimeUnit.MILLISECONDS.toNanos(5));
                assertTrue(engine.timerFired.await(SECONDS, TimeUnit.SECONDS), engine.calls.toString());
                assertEquals(List.of("packet 7", "packet 8", "timer"), engine.calls);
            }
            finally
            {
                driver.close();
            }
            assertThrows(IllegalStateException.class, () -> driver.submit(now -> engine.calls.add("after close")));
            sender.send(1, keepAlive(2, 9), 64);
            // Ordered after the packet above on the same loop: once it runs, the packet has been dropped.
            final CountDownLatch drained = new CountDownLatch(1);
            receiver.eventLoop().execute(drained::countDown);
            assertTrue(drained.await(SECONDS, TimeUnit.SECONDS));
            assertEquals(List.of("packet 7", "packet 8", "timer"), engine.calls, "a closed driver takes nothing");
        }
    }

    @Test
    void aTaskSubmittedWhileTheEngineIsBusyQueuesAndKeepsItsOrder() throws Exception
    {
        final RecordingEngine engine = new RecordingEngine();
        try (UdpGroupLink link = link(1))
        {
            final EventLoopDriver driver = new EventLoopDriver(link, engine).start();
            try
            {
                final CountDownLatch busy = new CountDownLatch(1);
                final CountDownLatch release = new CountDownLatch(1);
                final List<Integer> order = Collections.synchronizedList(new ArrayList<>());
                // Task 1 holds the engine on the loop thread.
                link.eventLoop().execute(() -> driver.submit(now ->
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
                assertTrue(busy.await(SECONDS, TimeUnit.SECONDS));
                final long inlineBefore = driver.inlineTasks();
                driver.submit(now -> order.add(2));
                driver.submit(now -> order.add(3));
                assertEquals(inlineBefore, driver.inlineTasks(), "neither ran on this thread while the engine was busy");
                release.countDown();
                final CountDownLatch done = new CountDownLatch(1);
                driver.submit(now -> done.countDown());
                assertTrue(done.await(SECONDS, TimeUnit.SECONDS));
                assertEquals(List.of(1, 2, 3), order);
            }
            finally
            {
                driver.close();
            }
        }
    }
}
