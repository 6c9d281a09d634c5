package org.lightwire.transport.channel;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.memory.Faults;
import org.lightwire.transport.link.memory.MemoryLink;

/** Helpers of IdleServicerWakeupTest and IdleServicerIsolationTest: echo pools, a link that holds the servicer inside a pool, the servicer's visiting order. */
final class IdleServicerTestSupport implements AutoCloseable
{
    static final long MS = 1_000_000L;
    static final String SERVICER = "lightwire-idle-servicer";
    /** As MemoryLinkChannelTest.CONFIG: ack delay 2 ms. */
    static final org.lightwire.transport.engine.EngineConfig CONFIG = org.lightwire.transport.engine.EngineConfig.builder()
        .maxPacketBytes(1500)
        .bufferPoolPackets(16)
        .ackDelayNs(2 * MS)
        .retransmitMinNs(2 * MS)
        .retransmitMaxNs(50 * MS)
        .retransmitInitialNs(5 * MS)
        .peerTimeoutNs(5_000 * MS)
        .build();
    private static final AtomicInteger SEEDS = new AtomicInteger(1000);

    final List<AutoCloseable> closeables = new ArrayList<>();

    /** A link that, once armed, holds the idle servicer's next receive until opened (a slow pool). */
    static final class GateLink implements Link
    {
        final Link delegate;
        volatile boolean armed;
        /** Hold the servicer by spinning (no park, so an unpark is not swallowed by the wait). */
        volatile boolean spin;
        volatile boolean opened;
        volatile RuntimeException throwOnce;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch open = new CountDownLatch(1);

        GateLink(final Link delegate)
        {
            this.delegate = delegate;
        }

        @Override
        public void send(final ByteBuffer header, final ByteBuffer payload) throws IOException
        {
            delegate.send(header, payload);
        }

        @Override
        public int receive(final ByteBuffer dst, final long timeoutNs) throws IOException
        {
            if (Thread.currentThread().getName().equals(SERVICER))
            {
                final RuntimeException e = throwOnce;
                if (e != null)
                {
                    throwOnce = null;
                    entered.countDown();
                    throw e;
                }
                if (armed)
                {
                    armed = false;
                    entered.countDown();
                    if (spin)
                    {
                        while (!opened)
                        {
                            Thread.onSpinWait();
                        }
                        return delegate.receive(dst, timeoutNs);
                    }
                    try
                    {
                        open.await();
                    }
                    catch (final InterruptedException ie)
                    {
                        Thread.currentThread().interrupt();
                    }
                }
            }
            return delegate.receive(dst, timeoutNs);
        }

        @Override
        public int maxPacketBytes()
        {
            return delegate.maxPacketBytes();
        }

        @Override
        public boolean preservesOrder()
        {
            return delegate.preservesOrder();
        }

        @Override
        public void close() throws IOException
        {
            opened = true;
            open.countDown();
            delegate.close();
        }
    }

    /** A client connection to an echo server over memory; through a gate link when {@code gate} is given one. */
    ClientConnection echo(final GateLink[] gate) throws IOException
    {
        final MemoryLink.Pair pair = MemoryLink.pair(SEEDS.incrementAndGet(), Faults.NONE, Faults.NONE, 1500);
        final RequestHandler echo = call ->
        {
            if (call.exactlyOnce())
            {
                call.reply(ByteBuffer.allocate(call.request().remaining()).put(call.request()).flip());
            }
        };
        closeables.add(new LinkServerDriver(pair.b(), CONFIG, echo, null, 1 << 20, "review").start());
        Link client = pair.a();
        if (gate != null)
        {
            gate[0] = new GateLink(pair.a());
            client = gate[0];
        }
        return new ClientConnection(client, CONFIG, "review", 1 << 20);
    }

    /** @return the pools of the shared servicer in the order its loop visits them. */
    @SuppressWarnings("unchecked")
    static List<ConnectionPool> visitOrder() throws ReflectiveOperationException
    {
        final Field f = IdleServicer.class.getDeclaredField("pools");
        f.setAccessible(true);
        return new ArrayList<>((Set<ConnectionPool>) f.get(IdleServicer.shared()));
    }

    /** Waits up to 10 s for {@code condition}. */
    static void await(final java.util.function.BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(1);
        }
    }

    /** @return ms until the connection sent a CALL_ACK, or -1 if none within {@code limitMs}. */
    static long msUntilAck(final ClientConnection c, final long fromNs, final long limitMs) throws InterruptedException
    {
        while (acks(c) == 0)
        {
            if (System.nanoTime() - fromNs > limitMs * MS)
            {
                return -1;
            }
            Thread.sleep(1);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - fromNs);
    }

    /** Lets the held servicer go on. */
    static void open(final GateLink g)
    {
        g.opened = true;
        g.open.countDown();
    }

    /** @return acknowledgements of replies sent: CALL_ACKs, and RECLAIM_ACKs (which also clear a pending ack). */
    static long acks(final ClientConnection c)
    {
        return c.counters().callAcksSent() + c.counters().reclaimAcksSent();
    }

    @Override
    public void close() throws Exception
    {
        for (final AutoCloseable c : closeables)
        {
            c.close();
        }
    }
}
