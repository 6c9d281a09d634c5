package org.lightwire.romiop.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.link.GroupLink;
import org.lightwire.romiop.link.GroupLinkCounters;

/**
 * The driver's loop over an in-memory link: tasks run on the driver thread in submission order,
 * datagrams reach the engine, the timer fires once its deadline has passed, and a throwing engine
 * call is counted without stopping the loop. Waits on latches only; no timing is asserted.
 */
class GroupDriverTest
{
    /** A link whose inbound datagrams the test supplies. */
    private static final class QueueLink implements GroupLink
    {
        final LinkedBlockingQueue<byte[]> inbound = new LinkedBlockingQueue<>();
        private static final byte[] WAKE = new byte[0];
        volatile boolean closed;

        @Override
        public void send(final int destinationId, final ByteBuffer packet, final int length)
        {
        }

        @Override
        public int receive(final ByteBuffer into, final long timeoutNs) throws java.io.IOException
        {
            if (closed)
            {
                throw new java.nio.channels.ClosedChannelException();
            }
            final byte[] b;
            try
            {
                b = timeoutNs <= 0 ? inbound.poll() : inbound.poll(timeoutNs, TimeUnit.NANOSECONDS);
            }
            catch (final InterruptedException e)
            {
                throw new java.io.IOException(e);
            }
            if (b == null || b == WAKE)
            {
                return -1;
            }
            into.put(0, b);
            return b.length;
        }

        @Override
        public void wakeup()
        {
            inbound.offer(WAKE);
        }

        @Override
        public void addPeer(final int id, final InetSocketAddress address)
        {
        }

        @Override
        public InetSocketAddress peer(final int id)
        {
            return null;
        }

        @Override
        public InetSocketAddress localAddress()
        {
            return null;
        }

        @Override
        public GroupLinkCounters counters()
        {
            return new GroupLinkCounters();
        }

        @Override
        public void close()
        {
            closed = true;
            wakeup();
        }
    }

    /** Records what the driver calls; throws on a packet whose first byte is 'X'. */
    private static final class RecordingEngine implements DrivenEngine
    {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch timerFired = new CountDownLatch(1);
        final CountDownLatch packets = new CountDownLatch(2);
        volatile long deadlineNs = Long.MAX_VALUE;
        volatile Thread thread;

        @Override
        public void onPacket(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
        {
            thread = Thread.currentThread();
            if (buffer.get(offset) == 'X')
            {
                throw new IllegalStateException("engine bug on purpose");
            }
            calls.add("packet " + length);
            packets.countDown();
        }

        @Override
        public void onTimer(final long nowNs)
        {
            if (deadlineNs - nowNs <= 0)
            {
                calls.add("timer");
                deadlineNs = Long.MAX_VALUE;
                timerFired.countDown();
            }
        }

        @Override
        public long nextDeadlineNs()
        {
            return deadlineNs;
        }
    }

    @Test
    void tasksRunInOrderOnTheDriverThreadPacketsReachTheEngineAndFailuresAreCounted() throws Exception
    {
        final QueueLink link = new QueueLink();
        final RecordingEngine engine = new RecordingEngine();
        final GroupDriver driver = new GroupDriver("test-driver", link, engine, 1500).start();
        try
        {
            final List<Integer> order = Collections.synchronizedList(new ArrayList<>());
            final CountDownLatch tasksDone = new CountDownLatch(100);
            final List<Boolean> onDriver = Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < 100; i++)
            {
                final int n = i;
                driver.submit(now ->
                {
                    order.add(n);
                    onDriver.add(driver.onDriverThread());
                    tasksDone.countDown();
                });
            }
            assertTrue(tasksDone.await(10, TimeUnit.SECONDS));
            for (int i = 0; i < 100; i++)
            {
                assertEquals(i, order.get(i));
            }
            assertTrue(onDriver.stream().allMatch(b -> b));

            link.inbound.add(new byte[] {'X', 1});
            link.inbound.add(new byte[] {1, 2, 3});
            link.inbound.add(new byte[] {4, 5, 6, 7});
            assertTrue(engine.packets.await(10, TimeUnit.SECONDS));
            assertEquals(List.of("packet 3", "packet 4"), engine.calls);
            assertEquals(1, driver.failures());
            assertTrue(driver.lastFailure().getMessage().contains("on purpose"));

            driver.submit(now -> engine.deadlineNs = now + TimeUnit.MILLISECONDS.toNanos(5));
            assertTrue(engine.timerFired.await(10, TimeUnit.SECONDS), "timer never fired");
            assertEquals("timer", engine.calls.get(2));
        }
        finally
        {
            driver.close();
            link.close();
        }
        assertThrows(IllegalStateException.class, () -> driver.submit(now -> { }));
    }
}
