package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.engine.ProtocolEngine;
import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.memory.Faults;
import org.lightwire.transport.link.memory.MemoryLink;

/**
 * The pool's servicer works from a copy of the idle list: a connection taken from the pool and
 * started ({@code startCall}) after the copy must not be read by it (found by a review). Read, the
 * reply was taken off the link by the servicer's thread, and a driver that waits for the link to
 * be readable and for the connection's deadline (the ETF plug-in's in-flight calls) never learned
 * it was whole: with {@code ackDelayNs = 0} no deadline was left, and the call hung.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SweepStealsReplyTest
{
    static final long MS = 1_000_000L;

    /** A link that counts the packets the pool's servicer reads from it, and can hold the servicer in one receive. */
    static final class Spy implements Link
    {
        final Link link;
        final AtomicInteger readByServicer = new AtomicInteger();
        volatile CountDownLatch stallServicer;
        final CountDownLatch servicerStalled = new CountDownLatch(1);

        Spy(final Link link)
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
            final boolean servicer = Thread.currentThread().getName().startsWith("lightwire-idle-");
            final CountDownLatch stall = stallServicer;
            if (servicer && stall != null)
            {
                stallServicer = null;
                servicerStalled.countDown();
                try
                {
                    stall.await();
                }
                catch (final InterruptedException e)
                {
                    throw new IOException(e);
                }
            }
            final int n = link.receive(dst, timeoutNs);
            if (servicer && n >= 0)
            {
                readByServicer.incrementAndGet();
            }
            return n;
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
    void theServicerLeavesAConnectionTakenAndStartedAfterItsCopyOfTheIdleList() throws Exception
    {
        final EngineConfig config = MemoryLinkChannelTest.CONFIG.toBuilder().ackDelayNs(0).build();
        final MemoryLink.Pair pa = MemoryLink.pair(1, Faults.NONE, Faults.NONE, 1500);
        final MemoryLink.Pair pc = MemoryLink.pair(2, Faults.NONE, Faults.NONE, 1500);
        final Spy a = new Spy(pa.a());
        final Spy c = new Spy(pc.a());
        final ArrayDeque<ClientConnection> toOpen = new ArrayDeque<>();
        toOpen.add(new ClientConnection(a, config, "A", 1 << 20));
        toOpen.add(new ClientConnection(c, config, "C", 1 << 20));
        try (LinkServerDriver sa = new LinkServerDriver(pa.b(), config, new MemoryLinkChannelTest.Echo(), null, 1 << 20, "A").start();
             LinkServerDriver sc = new LinkServerDriver(pc.b(), config, new MemoryLinkChannelTest.Echo(), null, 1 << 20, "C").start();
             ConnectionPool pool = new ConnectionPool(toOpen::poll, "srv", 2, 1_000 * MS))
        {
            final ClientConnection ca = pool.acquire();
            final ClientConnection cc = pool.acquire();
            ca.call(ByteBuffer.wrap(new byte[] {0, 0, 0, 1}), 5_000 * MS);
            cc.call(ByteBuffer.wrap(new byte[] {0, 0, 0, 1}), 5_000 * MS);
            pool.release(cc);
            // Idle: A, then C; the servicer's next sweep reads A first, and is held (descheduled) there.
            pool.release(ca);
            final CountDownLatch release = new CountDownLatch(1);
            a.stallServicer = release;
            a.servicerStalled.await();

            // Meanwhile a caller takes A and C and starts a call on C, whose reader will poll it.
            assertEquals(ca, pool.acquire());
            assertEquals(cc, pool.acquire());
            final long repliesBefore = sc.session().counters().packetsSent();
            cc.startCall(ByteBuffer.wrap(new byte[] {0, 0, 0, 2}));
            // The reply is on C's link before the servicer goes on.
            final long deadlineNs = System.nanoTime() + 10_000 * MS;
            while (sc.session().counters().packetsSent() == repliesBefore && System.nanoTime() - deadlineNs < 0)
            {
                Thread.onSpinWait();
            }
            assertNotEquals(repliesBefore, sc.session().counters().packetsSent(), "C's server answered within 10 s");
            c.readByServicer.set(0);
            release.countDown();
            // (Nothing to wait for when it passes: the servicer's sweep over A and C ends within this.)
            Thread.sleep(300);
            assertEquals(0, c.readByServicer.get(), "the servicer read the reply of a call in progress");
            assertNotEquals(ProtocolEngine.NO_DEADLINE, cc.nextDeadlineNs(), "the call still has its deadline");
            final ByteBuffer reply = cc.awaitReply(5_000 * MS);
            assertEquals(2, reply.getInt(reply.position()), "the caller reads its own reply");
        }
    }
}
