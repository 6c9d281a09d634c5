package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * A seeded in-memory multicast network for group engines: {@link GroupSender#GROUP} fans out to
 * every attached member but the sender (as IP multicast reaches every host on the group address), each copy independently dropped, duplicated and delayed by a random
 * jitter (which reorders). The same seed gives the same run, packet for packet. A {@link LinkFilter}
 * may block directed links (a partition, a one-way link failure): a copy it refuses when sent is lost.
 * Kept packets ({@link #keepForReplay}) can be delivered again much later ({@link #replay}): a
 * network that held copies, or an attacker that replays what it saw.
 */
public final class SimulatedGroupNetwork
{
    public interface Endpoint
    {
        void onPacket(ByteBuffer buffer, int offset, int length, long nowNs);
    }

    /** Which directed links carry packets now; asked once for each copy as it is sent. */
    @FunctionalInterface
    public interface LinkFilter
    {
        boolean passes(int from, int to);
    }

    private record InFlight(long atNs, long serial, int from, int to, byte[] bytes)
    {
    }

    private final SplittableRandom random;
    private final TreeSet<Integer> memberIds = new TreeSet<>();
    private final double dropRate;
    private final double duplicateRate;
    private final long baseLatencyNs;
    private final long jitterNs;
    private final Map<Integer, Endpoint> endpoints = new HashMap<>();
    /** Detached nodes: what they send is lost too (a crashed host sends nothing; a cut-off one reaches nobody). */
    private final java.util.Set<Integer> detached = new java.util.HashSet<>();
    private final PriorityQueue<InFlight> queue = new PriorityQueue<>(
        (a, b) -> a.atNs != b.atNs ? Long.compare(a.atNs, b.atNs) : Long.compare(a.serial, b.serial));
    private LinkFilter linkFilter = (from, to) -> true;
    private long serial;
    private long nowNs;
    /** Set while {@link SimulationDigestTest} runs this simulation on this thread. */
    private final TraceDigest trace = TraceDigest.current();
    /** The last packets sent (from, to, bytes; atNs is when sent), oldest first, for {@link #replay}. */
    private InFlight[] kept = new InFlight[0];
    private int keptNext;
    private int keptCount;
    long sent;
    long dropped;
    long duplicated;
    long blocked;

    public SimulatedGroupNetwork(final long seed, final int[] memberIds, final double dropRate, final double duplicateRate,
        final long baseLatencyNs, final long jitterNs)
    {
        this.random = new SplittableRandom(seed);
        for (final int id : memberIds)
        {
            this.memberIds.add(id);
        }
        this.dropRate = dropRate;
        this.duplicateRate = duplicateRate;
        this.baseLatencyNs = baseLatencyNs;
        this.jitterNs = jitterNs;
    }

    /** Keeps the last {@code packets} packets sent (each copy to each destination), for {@link #replay}. */
    public void keepForReplay(final int packets)
    {
        kept = new InFlight[packets];
        keptNext = 0;
        keptCount = 0;
    }

    /** @return the packets kept for {@link #replay}. */
    public int replayable()
    {
        return keptCount;
    }

    /**
     * Delivers a kept packet again, after the base latency, to the destination it was sent to
     * (unless the link filter refuses that link now): a delayed duplicate.
     *
     * @param age 0 the packet sent last, {@code replayable() - 1} the oldest kept.
     * @return what was replayed, for the history: "from -> to, sent at ns" (refused: null).
     */
    public String replay(final int age)
    {
        final InFlight p = kept[Math.floorMod(keptNext - 1 - age, kept.length)];
        if (!linkFilter.passes(p.from, p.to))
        {
            return null;
        }
        queue.add(new InFlight(nowNs + baseLatencyNs, serial++, p.from, p.to, p.bytes));
        return p.from + " -> " + p.to + ", sent at " + p.atNs + " ns";
    }

    public void linkFilter(final LinkFilter filter)
    {
        this.linkFilter = filter;
    }

    public void attach(final int id, final Endpoint endpoint)
    {
        endpoints.put(id, endpoint);
    }

    /** Attaches a host on the group address: it receives what is sent to GROUP. */
    public void attachMember(final int id, final Endpoint endpoint)
    {
        memberIds.add(id);
        endpoints.put(id, endpoint);
        detached.remove(id);
    }

    /** A crash or a cut: nothing reaches the node and nothing it sends from now on leaves; what is in flight still arrives. */
    public void detach(final int id)
    {
        memberIds.remove(id);
        endpoints.remove(id);
        detached.add(id);
    }

    /** The sender for node {@code from}; it reads the network's clock, which {@link #deliverDue} advances. */
    public GroupSender senderFor(final int from)
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
        if (detached.contains(from))
        {
            return;
        }
        sent++;
        if (kept.length > 0)
        {
            kept[keptNext] = new InFlight(nowNs, 0, from, to, bytes);
            keptNext = (keptNext + 1) % kept.length;
            keptCount = Math.min(keptCount + 1, kept.length);
        }
        if (!linkFilter.passes(from, to))
        {
            blocked++;
            return;
        }
        if (random.nextDouble() < dropRate)
        {
            dropped++;
            if (trace != null)
            {
                trace.sent(nowNs, from, to, bytes, new long[0]);
            }
            return;
        }
        final int copies = random.nextDouble() < duplicateRate ? 2 : 1;
        duplicated += copies - 1;
        final long[] arrivalsNs = new long[copies];
        for (int i = 0; i < copies; i++)
        {
            arrivalsNs[i] = nowNs + baseLatencyNs + random.nextLong(jitterNs + 1);
            queue.add(new InFlight(arrivalsNs[i], serial++, from, to, bytes));
        }
        if (trace != null)
        {
            trace.sent(nowNs, from, to, bytes, arrivalsNs);
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

    public long nextDeliveryNs()
    {
        final InFlight head = queue.peek();
        return head == null ? Long.MAX_VALUE : head.atNs;
    }

    int inFlight()
    {
        return queue.size();
    }

    /** Delivers every packet due by {@code nowNs}, in time order. */
    public void deliverDue(final long nowNs)
    {
        this.nowNs = nowNs;
        while (!queue.isEmpty() && queue.peek().atNs <= nowNs)
        {
            final InFlight p = queue.poll();
            final Endpoint endpoint = endpoints.get(p.to);
            if (trace != null)
            {
                trace.handled(nowNs, p.serial, p.from, p.to, endpoint != null);
            }
            if (endpoint != null)
            {
                endpoint.onPacket(ByteBuffer.wrap(p.bytes), 0, p.bytes.length, nowNs);
            }
        }
    }
}
