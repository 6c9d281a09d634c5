package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.memory.Faults;
import org.lightwire.transport.link.memory.MemoryLink;

/**
 * The JVM's one {@link IdleServicer} serves every pool: a pool whose servicing throws (here a
 * link whose receive throws a RuntimeException, as a link bug would) is counted and skipped, and
 * the other pools' idle connections are still served (their CALL_ACK goes).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdleServicerIsolationTest
{
    private static final long MS = MemoryLinkChannelTest.MS;

    /** A link whose receive throws once armed. */
    private static final class Broken implements Link
    {
        private final Link link;
        volatile boolean armed;

        Broken(final Link link)
        {
            this.link = link;
        }

        @Override
        public void send(final ByteBuffer header, final ByteBuffer payload) throws IOException
        {
            link.send(header, payload);
        }

        @Override
        public int receive(final ByteBuffer dst, final long timeoutNs) throws IOException
        {
            if (armed)
            {
                throw new IllegalStateException("a broken link");
            }
            return link.receive(dst, timeoutNs);
        }

        @Override
        public int maxPacketBytes()
        {
            return link.maxPacketBytes();
        }

        @Override
        public boolean preservesOrder()
        {
            return link.preservesOrder();
        }

        @Override
        public void close() throws IOException
        {
            link.close();
        }
    }

    @Test
    void aPoolWhoseServicingThrowsDoesNotStopTheOthers() throws Exception
    {
        final MemoryLink.Pair pb = MemoryLink.pair(21, Faults.NONE, Faults.NONE, 1500);
        final MemoryLink.Pair pa = MemoryLink.pair(22, Faults.NONE, Faults.NONE, 1500);
        final Broken broken = new Broken(pb.a());
        final ClientConnection cb = new ClientConnection(broken, MemoryLinkChannelTest.CONFIG, "broken", 1 << 20);
        final ClientConnection ca = new ClientConnection(pa.a(), MemoryLinkChannelTest.CONFIG, "healthy", 1 << 20);
        try (LinkServerDriver sb = new LinkServerDriver(pb.b(), MemoryLinkChannelTest.CONFIG, new MemoryLinkChannelTest.Echo(), null, 1 << 20, "broken").start();
             LinkServerDriver sa = new LinkServerDriver(pa.b(), MemoryLinkChannelTest.CONFIG, new MemoryLinkChannelTest.Echo(), null, 1 << 20, "healthy").start();
             ConnectionPool brokenPool = new ConnectionPool(() -> cb, "broken", 1, 1_000 * MS);
             ConnectionPool healthyPool = new ConnectionPool(() -> ca, "healthy", 1, 1_000 * MS))
        {
            final long failuresBefore = IdleServicer.shared().failures();
            final ClientConnection b = brokenPool.acquire();
            b.call(ByteBuffer.wrap(new byte[] {0, 0, 0, 1, 1}), 10_000 * MS);
            broken.armed = true;
            brokenPool.release(b);
            awaitTrue(() -> IdleServicer.shared().failures() > failuresBefore, "the broken pool's servicing threw and was counted");

            final ClientConnection a = healthyPool.acquire();
            final ByteBuffer reply = a.call(ByteBuffer.wrap(new byte[] {0, 0, 0, 1, 42}), 10_000 * MS);
            final byte[] got = new byte[reply.remaining()];
            reply.get(got);
            assertArrayEquals(new byte[] {0, 0, 0, 1, 42}, got);
            healthyPool.release(a);
            awaitTrue(() -> a.counters().callAcksSent() == 1, "the healthy pool's CALL_ACK went: the servicer still runs");
            assertTrue(IdleServicer.shared().failures() > failuresBefore);
            broken.armed = false;
        }
    }

    private static void awaitTrue(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(5);
        }
    }
}
