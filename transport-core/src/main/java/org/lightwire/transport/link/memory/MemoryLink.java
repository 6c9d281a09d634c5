package org.lightwire.transport.link.memory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.lightwire.transport.link.Link;

/**
 * One end of an in-memory {@link Link} pair for real-time, multi-threaded tests, with the same
 * seeded faults as {@link SimulatedNetwork}: drop, duplicate, reorder and delay, per direction
 * and per {@link PacketKind}. For the same seed and faults, the n-th packet of a direction meets
 * the same fate as on a {@code SimulatedNetwork}.
 *
 * <p>A delay is real time: a delayed packet becomes receivable {@code delayNs} after its send.
 * A reordered packet is held until the next packet of its direction that is not itself
 * reordered has been sent and is then queued behind it; so a test that sends both before it
 * receives sees them swapped whatever the scheduler does. When no such packet follows, the
 * held one is released {@link #REORDER_HOLD_NS} after it would have been receivable, so that
 * reordering never turns into loss.
 *
 * <p>Thread-safe for one sending and one receiving thread per end. Closing an end fails its
 * later and blocked {@link #receive} and {@link #send} calls with {@link ClosedChannelException};
 * the peer is not told, as with a datagram socket, and what it sends afterwards is discarded
 * (counted as sent, never as delivered).
 */
public final class MemoryLink implements Link
{
    /** How long past its delay a reordered packet waits for a later packet to overtake it. */
    public static final long REORDER_HOLD_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Side side;
    private final long seed;
    private final int maxPacketBytes;
    private final Pipe outbound;
    private final Pipe inbound;
    private volatile boolean closed;
    // Written only by the one receiving thread.
    private volatile long truncated;

    /** The two ends of a pair. */
    public record Pair(MemoryLink a, MemoryLink b)
    {
    }

    private MemoryLink(final Side side, final long seed, final int maxPacketBytes, final Pipe outbound, final Pipe inbound)
    {
        this.side = side;
        this.seed = seed;
        this.maxPacketBytes = maxPacketBytes;
        this.outbound = outbound;
        this.inbound = inbound;
    }

    /**
     * Creates two connected ends.
     *
     * @param seed seeds the fault decisions of both directions.
     * @param aToB faults of the packets end A sends.
     * @param bToA faults of the packets end B sends.
     * @param maxPacketBytes the largest packet, header included, either end may send.
     * @return the ends A and B.
     */
    public static Pair pair(final long seed, final Faults aToB, final Faults bToA, final int maxPacketBytes)
    {
        if (maxPacketBytes < 1)
        {
            throw new IllegalArgumentException("maxPacketBytes is " + maxPacketBytes + "; it must be at least 1");
        }
        final FaultInjector[] injectors = FaultInjector.forSeed(seed);
        final Pipe aToBPipe = new Pipe(injectors[Side.A.ordinal()], Objects.requireNonNull(aToB, "aToB"));
        final Pipe bToAPipe = new Pipe(injectors[Side.B.ordinal()], Objects.requireNonNull(bToA, "bToA"));
        return new Pair(
            new MemoryLink(Side.A, seed, maxPacketBytes, aToBPipe, bToAPipe),
            new MemoryLink(Side.B, seed, maxPacketBytes, bToAPipe, aToBPipe));
    }

    /** @return which end of the pair this is. */
    public Side side()
    {
        return side;
    }

    /** @return the seed the pair was made with. */
    public long seed()
    {
        return seed;
    }

    /** @return the faults of the packets this end sends. */
    public Faults faults()
    {
        return outbound.faults;
    }

    /** Changes the faults of the packets this end sends, from the next send on. */
    public void faults(final Faults faults)
    {
        outbound.faults(Objects.requireNonNull(faults, "faults"));
    }

    /** @return what the faults did to the packets this end sends. */
    public FaultCounters counters()
    {
        return outbound.counters;
    }

    /** @return packets this end received into a buffer too small for them, and so cut short. */
    public long truncated()
    {
        return truncated;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Copies the packet; the buffers' positions are not changed.
     *
     * @throws IOException when the packet is longer than {@link #maxPacketBytes()}.
     * @throws ClosedChannelException when this end is closed.
     */
    @Override
    public void send(final ByteBuffer header, final ByteBuffer payload) throws IOException
    {
        if (closed)
        {
            throw new ClosedChannelException();
        }
        final int length = header.remaining() + (payload == null ? 0 : payload.remaining());
        if (length > maxPacketBytes)
        {
            throw new IOException(
                "packet of " + length + " bytes exceeds maxPacketBytes " + maxPacketBytes + " of " + side + "'s MemoryLink");
        }
        outbound.offer(SimulatedNetwork.copy(header, payload), System.nanoTime());
    }

    /**
     * {@inheritDoc}
     *
     * <p>When {@code dst} has less room than the packet, it is filled, the rest of the packet is
     * lost, {@link #truncated()} goes up, and the number of bytes copied is returned, as a
     * datagram socket does with a short buffer.
     *
     * @throws ClosedChannelException when this end is closed, before or during the wait.
     * @throws InterruptedIOException when the waiting thread is interrupted.
     */
    @Override
    public int receive(final ByteBuffer dst, final long timeoutNs) throws IOException
    {
        if (timeoutNs < 0)
        {
            throw new IllegalArgumentException("timeoutNs is " + timeoutNs + "; use 0 to poll or a positive wait");
        }
        final byte[] packet = inbound.take(timeoutNs);
        if (packet == null)
        {
            return TIMEOUT;
        }
        final int length = Math.min(packet.length, dst.remaining());
        if (length < packet.length)
        {
            truncated++;
        }
        dst.put(packet, 0, length);
        return length;
    }

    @Override
    public int maxPacketBytes()
    {
        return maxPacketBytes;
    }

    /** @return true when neither direction reorders and each delays every packet equally. */
    @Override
    public boolean preservesOrder()
    {
        return outbound.faults.preservesOrder() && inbound.faults.preservesOrder();
    }

    /** Closes this end: its blocked receive wakes and throws, and later calls throw. Idempotent. */
    @Override
    public void close()
    {
        closed = true;
        inbound.closeReceiver();
    }

    @Override
    public String toString()
    {
        return "MemoryLink{side=" + side +
            ", seed=" + seed +
            ", maxPacketBytes=" + maxPacketBytes +
            ", closed=" + closed +
            ", truncated=" + truncated +
            ", outbound=" + outbound.faults +
            ", counters=" + outbound.counters + '}';
    }

    /** One direction: the sender's fault decisions and the receiver's queue, under one lock. */
    private static final class Pipe
    {
        // By difference, as System.nanoTime() values may have any sign.
        private static final Comparator<Pending> READY_ORDER = (a, b) ->
        {
            final long deltaNs = a.readyNs - b.readyNs;
            return deltaNs != 0 ? (deltaNs < 0 ? -1 : 1) : Long.compare(a.order, b.order);
        };

        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final PriorityQueue<Pending> queue = new PriorityQueue<>(READY_ORDER);
        private final List<Pending> held = new ArrayList<>();
        private final FaultInjector injector;
        private final FaultCounters counters = new FaultCounters();
        private volatile Faults faults;
        private long queuedCount;
        private boolean receiverClosed;

        Pipe(final FaultInjector injector, final Faults faults)
        {
            this.injector = injector;
            this.faults = faults;
        }

        void faults(final Faults faults)
        {
            lock.lock();
            try
            {
                this.faults = faults;
            }
            finally
            {
                lock.unlock();
            }
        }

        void offer(final byte[] packet, final long nowNs)
        {
            lock.lock();
            try
            {
                injector.decide(faults, PacketKind.of(packet));
                counters.onSent();
                if (receiverClosed)
                {
                    return;
                }
                if (injector.drop)
                {
                    counters.onDropped();
                    return;
                }

                final Pending pending = new Pending(packet, nowNs + injector.delayNs);
                if (injector.reorder)
                {
                    counters.onReordered();
                    held.add(pending);
                }
                else
                {
                    queue(pending);
                    for (final Pending overtaken : held)
                    {
                        if (overtaken.readyNs - pending.readyNs < 0)
                        {
                            overtaken.readyNs = pending.readyNs;
                        }
                        queue(overtaken);
                    }
                    held.clear();
                }

                if (injector.duplicate)
                {
                    counters.onDuplicated();
                    queue(new Pending(packet.clone(), nowNs + injector.duplicateDelayNs));
                }
                changed.signalAll();
            }
            finally
            {
                lock.unlock();
            }
        }

        /** @return the next packet, or null when none became receivable within timeoutNs. */
        byte[] take(final long timeoutNs) throws IOException
        {
            final long deadlineNs = System.nanoTime() + timeoutNs;
            lock.lock();
            try
            {
                while (true)
                {
                    if (receiverClosed)
                    {
                        throw new ClosedChannelException();
                    }
                    final long nowNs = System.nanoTime();
                    long waitNs = deadlineNs - nowNs;

                    for (final Iterator<Pending> it = held.iterator(); it.hasNext(); )
                    {
                        final Pending pending = it.next();
                        final long releaseNs = pending.readyNs + REORDER_HOLD_NS;
                        if (releaseNs - nowNs <= 0)
                        {
                            it.remove();
                            queue(pending);
                        }
                        else
                        {
                            waitNs = Math.min(waitNs, releaseNs - nowNs);
                        }
                    }

                    final Pending head = queue.peek();
                    if (head != null)
                    {
                        if (head.readyNs - nowNs <= 0)
                        {
                            queue.poll();
                            counters.onDelivered();
                            return head.packet;
                        }
                        waitNs = Math.min(waitNs, head.readyNs - nowNs);
                    }

                    if (deadlineNs - nowNs <= 0)
                    {
                        return null;
                    }
                    changed.awaitNanos(waitNs);
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting in MemoryLink.receive");
            }
            finally
            {
                lock.unlock();
            }
        }

        void closeReceiver()
        {
            lock.lock();
            try
            {
                receiverClosed = true;
                queue.clear();
                held.clear();
                changed.signalAll();
            }
            finally
            {
                lock.unlock();
            }
        }

        private void queue(final Pending pending)
        {
            pending.order = queuedCount++;
            queue.add(pending);
        }
    }

    private static final class Pending
    {
        final byte[] packet;
        long readyNs;
        long order;

        Pending(final byte[] packet, final long readyNs)
        {
            this.packet = packet;
            this.readyNs = readyNs;
        }
    }
}
