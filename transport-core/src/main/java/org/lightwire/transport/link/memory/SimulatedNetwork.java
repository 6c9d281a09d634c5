package org.lightwire.transport.link.memory;

import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.function.LongSupplier;

import org.lightwire.transport.engine.PacketSender;

/**
 * A deterministic network between two endpoints A and B for discrete-event simulation: virtual
 * time, one thread, and seeded drop, duplicate, reorder and delay per direction and per
 * {@link PacketKind} (STYLE.md's second test tier; JGroups' {@code DISCARD} and Aeron's
 * {@code LossGenerator} are the models).
 *
 * <p>The driver owns the clock. It sends with {@link #send}, asks {@link #nextDeliveryNs()} when
 * the next packet lands, advances its clock, and calls {@link #deliverDue} or
 * {@link #deliverNext}. The same seed, faults and calls give the same deliveries, byte for byte
 * and in the same order: each packet's delivery time is {@code nowNs + baseLatencyNs + delay},
 * and packets due at the same time leave in the order they were queued.
 *
 * <p>The fate of a packet, drawn from its direction's own stream split from the seed:
 * <ul>
 *   <li><b>drop</b>: it is never delivered;</li>
 *   <li><b>duplicate</b>: a second copy is delivered with its own delay;</li>
 *   <li><b>reorder</b>: the first copy is held back by the width of the direction's delay range
 *       plus 1 to 3 base latencies plus 1 ns, so that every packet sent in the same direction
 *       up to {@code baseLatencyNs} after it, and not itself reordered, overtakes it.</li>
 * </ul>
 *
 * <p>Not thread-safe; deliveries are made from the calling thread and the consumer may send.
 */
public final class SimulatedNetwork
{
    // Compared by difference, as deadlines are everywhere in Lightwire, so that a driver whose
    // clock starts near Long.MAX_VALUE (a raw System.nanoTime()) still gets the right order.
    private static final Comparator<InFlight> DELIVERY_ORDER = (a, b) ->
    {
        final long deltaNs = a.deliveryNs - b.deliveryNs;
        return deltaNs != 0 ? (deltaNs < 0 ? -1 : 1) : Long.compare(a.order, b.order);
    };

    private final long seed;
    private final long baseLatencyNs;
    private final Direction[] directions = new Direction[Side.values().length];
    private final PriorityQueue<InFlight> inFlight = new PriorityQueue<>(DELIVERY_ORDER);
    private long queuedCount;

    /**
     * @param seed seeds the fault decisions of both directions; see {@link #seed()}.
     * @param baseLatencyNs the one-way latency every packet has before its drawn delay.
     * @param aToB faults of packets sent by A.
     * @param bToA faults of packets sent by B.
     */
    public SimulatedNetwork(final long seed, final long baseLatencyNs, final Faults aToB, final Faults bToA)
    {
        if (baseLatencyNs < 0 || baseLatencyNs > Faults.MAX_DELAY_NS)
        {
            throw new IllegalArgumentException(
                "baseLatencyNs is " + baseLatencyNs + "; allowed range is [0, " + Faults.MAX_DELAY_NS + "]");
        }
        this.seed = seed;
        this.baseLatencyNs = baseLatencyNs;
        final FaultInjector[] injectors = FaultInjector.forSeed(seed);
        directions[Side.A.ordinal()] = new Direction(injectors[Side.A.ordinal()], aToB);
        directions[Side.B.ordinal()] = new Direction(injectors[Side.B.ordinal()], bToA);
    }

    /** A network without faults in either direction. */
    public SimulatedNetwork(final long seed, final long baseLatencyNs)
    {
        this(seed, baseLatencyNs, Faults.NONE, Faults.NONE);
    }

    /** @return the seed; report it on failure so that the run replays exactly. */
    public long seed()
    {
        return seed;
    }

    public long baseLatencyNs()
    {
        return baseLatencyNs;
    }

    /** @return the faults of packets sent by {@code from}. */
    public Faults faults(final Side from)
    {
        return direction(from).faults;
    }

    /**
     * Changes the faults of packets sent by {@code from} from the next send on; packets in
     * flight keep their fate, and the other direction's draws are not affected.
     */
    public void faults(final Side from, final Faults faults)
    {
        direction(from).faults = Objects.requireNonNull(faults, "faults");
    }

    /** @return what the faults did to packets sent by {@code from}. */
    public FaultCounters counters(final Side from)
    {
        return direction(from).counters;
    }

    /**
     * Sends one packet from {@code from} to its peer. The header and payload are copied from
     * their positions to their limits; neither buffer's position changes. Any bytes are carried,
     * including packets shorter than a header or with an unknown type.
     *
     * @param from the sending endpoint.
     * @param header the first bytes of the packet, normally the 8-byte header.
     * @param payload the rest of the packet, or null.
     * @param nowNs the virtual time of the send.
     */
    public void send(final Side from, final ByteBuffer header, final ByteBuffer payload, final long nowNs)
    {
        final Direction direction = direction(from);
        final byte[] packet = copy(header, payload);
        final FaultInjector injector = direction.injector;
        final Faults faults = direction.faults;
        final PacketKind kind = PacketKind.of(packet);

        injector.decide(faults, kind);
        direction.counters.onSent();
        if (injector.drop)
        {
            direction.counters.onDropped();
            return;
        }

        long deliveryNs = nowNs + baseLatencyNs + injector.delayNs;
        if (injector.reorder)
        {
            // Beyond the slowest packet of either kind sent at the same time, then by whole base
            // latencies, so that packets sent up to one latency later land first.
            deliveryNs += faults.maxDelayNs() - faults.minDelayNs(kind) +
                injector.holdLatencies * baseLatencyNs + 1;
            direction.counters.onReordered();
        }
        queue(from.peer(), packet, deliveryNs);

        if (injector.duplicate)
        {
            direction.counters.onDuplicated();
            queue(from.peer(), packet.clone(), nowNs + baseLatencyNs + injector.duplicateDelayNs);
        }
    }

    /**
     * A {@link PacketSender} for an engine at {@code from}, reading the virtual time from
     * {@code clockNs} at each send.
     */
    public PacketSender sender(final Side from, final LongSupplier clockNs)
    {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(clockNs, "clockNs");
        return (header, payload) -> send(from, header, payload, clockNs.getAsLong());
    }

    /** @return the delivery time of the next packet, or {@link Long#MAX_VALUE} when none is in flight. */
    public long nextDeliveryNs()
    {
        final InFlight next = inFlight.peek();
        return next == null ? Long.MAX_VALUE : next.deliveryNs;
    }

    /** @return the number of packet copies in flight in both directions. */
    public int inFlight()
    {
        return inFlight.size();
    }

    /**
     * Delivers the next packet if it is due.
     *
     * @return true when a packet was delivered.
     */
    public boolean deliverNext(final long nowNs, final PacketConsumer consumer)
    {
        final InFlight next = inFlight.peek();
        if (next == null || next.deliveryNs - nowNs > 0)
        {
            return false;
        }
        deliver(inFlight.poll(), nowNs, consumer);
        return true;
    }

    /**
     * Delivers, in order, every packet that was in flight when the call began and is due at
     * {@code nowNs}. Packets the consumer sends are left for the next call, even when their
     * latency is zero, so that two endpoints echoing each other cannot keep the call from
     * returning.
     *
     * @return the number of packets delivered.
     */
    public int deliverDue(final long nowNs, final PacketConsumer consumer)
    {
        final long queuedBefore = queuedCount;
        int delivered = 0;
        InFlight next;
        while ((next = inFlight.peek()) != null && next.deliveryNs - nowNs <= 0 && next.order < queuedBefore)
        {
            deliver(inFlight.poll(), nowNs, consumer);
            delivered++;
        }
        return delivered;
    }

    @Override
    public String toString()
    {
        return "SimulatedNetwork{seed=" + seed +
            ", baseLatencyNs=" + baseLatencyNs +
            ", inFlight=" + inFlight.size() +
            ", A->B=" + directions[Side.A.ordinal()] +
            ", B->A=" + directions[Side.B.ordinal()] + '}';
    }

    private void deliver(final InFlight packet, final long nowNs, final PacketConsumer consumer)
    {
        // Counted before the consumer runs so that counters read inside it are already current.
        direction(packet.to.peer()).counters.onDelivered();
        consumer.onPacket(packet.to, ByteBuffer.wrap(packet.bytes), nowNs);
    }

    private void queue(final Side to, final byte[] packet, final long deliveryNs)
    {
        inFlight.add(new InFlight(to, packet, deliveryNs, queuedCount++));
    }

    private Direction direction(final Side from)
    {
        return directions[from.ordinal()];
    }

    static byte[] copy(final ByteBuffer header, final ByteBuffer payload)
    {
        Objects.requireNonNull(header, "header");
        final int headerLength = header.remaining();
        final int payloadLength = payload == null ? 0 : payload.remaining();
        final byte[] packet = new byte[headerLength + payloadLength];
        header.get(header.position(), packet, 0, headerLength);
        if (payloadLength > 0)
        {
            payload.get(payload.position(), packet, headerLength, payloadLength);
        }
        return packet;
    }

    private static final class Direction
    {
        final FaultInjector injector;
        final FaultCounters counters = new FaultCounters();
        Faults faults;

        Direction(final FaultInjector injector, final Faults faults)
        {
            this.injector = injector;
            this.faults = Objects.requireNonNull(faults, "faults");
        }

        @Override
        public String toString()
        {
            return "{" + faults + ", " + counters + '}';
        }
    }

    private static final class InFlight
    {
        final Side to;
        final byte[] bytes;
        final long deliveryNs;
        final long order;

        InFlight(final Side to, final byte[] bytes, final long deliveryNs, final long order)
        {
            this.to = to;
            this.bytes = bytes;
            this.deliveryNs = deliveryNs;
            this.order = order;
        }
    }
}
