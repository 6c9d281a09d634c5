package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A seeded in-memory multicast network for group engines: {@link GroupSender#GROUP} fans out to
 * every member but the sender, each copy independently dropped, duplicated and delayed by a random
 * jitter (which reorders). The same seed gives the same run, packet for packet.
 */
final class SimulatedGroupNetwork
{
    interface Endpoint
    {
        void onPacket(ByteBuffer buffer, int offset, int length, long nowNs);
    }

    private record InFlight(long atNs, long serial, int from, int to, byte[] bytes)
    {
    }

    private final SplittableRandom random;
    private final int[] memberIds;
    private final double dropRate;
    private final double duplicateRate;
    private final long baseLatencyNs;
    private final long jitterNs;
    private final Map<Integer, Endpoint> endpoints = new HashMap<>();
    private final PriorityQueue<InFlight> queue = new PriorityQueue<>(
        (a, b) -> a.atNs != b.atNs ? Long.compare(a.atNs, b.atNs) : Long.compare(a.serial, b.serial));
    private long serial;
    private long nowNs;
    long sent;
    long dropped;
    long duplicated;

    SimulatedGroupNetwork(final long seed, final int[] memberIds, final double dropRate, final double duplicateRate,
        final long baseLatencyNs, final long jitterNs)
    {
        this.random = new SplittableRandom(seed);
        this.memberIds = memberIds.clone();
        this.dropRate = dropRate;
        this.duplicateRate = duplicateRate;
        this.baseLatencyNs = baseLatencyNs;
        this.jitterNs = jitterNs;
    }

    void attach(final int id, final Endpoint endpoint)
    {
        endpoints.put(id, endpoint);
    }

    /** The sender for node {@code from}; it reads the network's clock, which {@link #deliverDue} advances. */
    GroupSender senderFor(final int from)
    {
        return (destinationId, packet, length) ->
        {
            final byte[] bytes = new byte[length];
            packet.get(0, bytes);
            if (destinationId == GroupSender.GROUP)
            {
                for (final int member : memberIds)
                {
                    if (member != from)
                    {
                        transmit(from, member, bytes);
                    }
                }
            }
            else
            {
                transmit(from, destinationId, bytes);
            }
        };
    }

    private void transmit(final int from, final int to, final byte[] bytes)
    {
        sent++;
        if (random.nextDouble() < dropRate)
        {
            dropped++;
            return;
        }
        final int copies = random.nextDouble() < duplicateRate ? 2 : 1;
        duplicated += copies - 1;
        for (int i = 0; i < copies; i++)
        {
            queue.add(new InFlight(nowNs + baseLatencyNs + random.nextLong(jitterNs + 1), serial++, from, to, bytes));
        }
    }

    long nowNs()
    {
        return nowNs;
    }

    void nowNs(final long nowNs)
    {
        this.nowNs = nowNs;
    }

    long nextDeliveryNs()
    {
        final InFlight head = queue.peek();
        return head == null ? Long.MAX_VALUE : head.atNs;
    }

    int inFlight()
    {
        return queue.size();
    }

    /** Delivers every packet due by {@code nowNs}, in time order. */
    void deliverDue(final long nowNs)
    {
        this.nowNs = nowNs;
        while (!queue.isEmpty() && queue.peek().atNs <= nowNs)
        {
            final InFlight p = queue.poll();
            final Endpoint endpoint = endpoints.get(p.to);
            if (endpoint != null)
            {
                endpoint.onPacket(ByteBuffer.wrap(p.bytes), 0, p.bytes.length, nowNs);
            }
        }
    }
}
