package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;

/**
 * Several real engines on a hand-wired network: a packet is delivered at once unless its link is
 * cut (one way or both) or its receiver is paused (then it waits in the receiver's socket buffer,
 * read first when it resumes); one clock, timers every millisecond. GROUP goes to every attached
 * engine but the sender.
 */
final class HandWiredNet
{
    private static final long MS = OneEngine.MS;

    final Map<Integer, MemberEngine> engines = new TreeMap<>();
    final Map<Integer, TreeMap<Long, String>> delivered = new TreeMap<>();
    final Map<Integer, ArrayDeque<byte[][]>> paused = new TreeMap<>();
    final Set<Long> cut = new HashSet<>();
    /** Links that lose every packet but those the predicate passes. */
    final Map<Long, Predicate<byte[]>> passOnly = new HashMap<>();
    final ArrayDeque<Object[]> queue = new ArrayDeque<>();
    /** Every packet the members in it sent, in order, whether or not a link lost it (see {@link #record}). */
    final Map<Integer, List<byte[]>> recorded = new TreeMap<>();
    long now;
    /** Each process's starts so far, when they are counted on disk ({@link #countingStarts}); else empty. */
    private Map<Integer, Long> starts;
    /** Each process's starts so far, for its incarnation number ({@link GroupConfig#incarnation(long)}). */
    private final Map<Integer, Long> incarnations = new HashMap<>();

    static GroupConfig tuned(final GroupConfig c)
    {
        return c.keepAlive(20 * MS, 100 * MS).retransmitTimeoutNs(20 * MS).nakDelayNs(2 * MS).requestAckDelayNs(0)
            .orderAckDelayNs(0).joinTimeoutNs(60 * MS);
    }

    /**
     * Every process started from now on knows its start count ({@link GroupConfig#startCount}), as
     * one given {@code jacorb.lightwire.romiop.start_count_dir} does: 1 its first start, then one
     * more per restart.
     *
     * @return this network.
     */
    HandWiredNet countingStarts()
    {
        starts = new HashMap<>();
        return this;
    }

    /** Forgets every process's start count (their files removed): each next start is a first start again. */
    void forgetStarts()
    {
        starts.clear();
    }

    MemberEngine add(final int id, final GroupConfig config)
    {
        if (starts != null)
        {
            config.startCount(starts.merge(id, 1L, Long::sum));
        }
        final long started = incarnations.merge(id, 1L, Long::sum);
        if (config.incarnationNumber() == 0)
        {
            config.incarnation(started);
        }
        final TreeMap<Long, String> log = delivered.computeIfAbsent(id, k -> new TreeMap<>());
        final int incarnation = id;
        final MemberEngine e = new MemberEngine(tuned(config), (to, packet, length) ->
        {
            final byte[] copy = new byte[length];
            packet.get(0, copy, 0, length);
            queue.add(new Object[] {incarnation, to, copy});
        }, (seq, sender, packetId, requestId, payload, offset, length) ->
        {
            final String was = log.put(seq, sender + "/" + packetId);
            if (was != null && !was.equals(sender + "/" + packetId))
            {
                log.put(seq, was + "+" + sender + "/" + packetId);
            }
        });
        engines.put(id, e);
        e.start(now);
        pump();
        return e;
    }

    void crash(final int id)
    {
        engines.remove(id);
    }

    /** Crashes {@code id} (if it runs) and starts a new incarnation with {@code config}: nothing kept, its delivery log begun afresh. */
    MemberEngine restart(final int id, final GroupConfig config)
    {
        crash(id);
        delivered.put(id, new TreeMap<>());
        return add(id, config);
    }

    void pause(final int id)
    {
        paused.put(id, new ArrayDeque<>());
    }

    /** Resumes: the packets buffered while paused are read first, then timers run again. */
    void resume(final int id)
    {
        final ArrayDeque<byte[][]> buffered = paused.remove(id);
        for (final byte[][] p : buffered)
        {
            engines.get(id).onPacket(ByteBuffer.wrap(p[0]), 0, p[0].length, now);
        }
        pump();
    }

    void cutOneWay(final int from, final int to)
    {
        cut.add(((long)from << 32) | (to & 0xFFFFFFFFL));
    }

    void cutBetween(final int[] a, final int[] b)
    {
        for (final int x : a)
        {
            for (final int y : b)
            {
                cutOneWay(x, y);
                cutOneWay(y, x);
            }
        }
    }

    /** Mends the links between {@code a} and {@code b}, both ways (other cuts stay). */
    void mend(final int a, final int b)
    {
        cut.remove(((long)a << 32) | (b & 0xFFFFFFFFL));
        cut.remove(((long)b << 32) | (a & 0xFFFFFFFFL));
    }

    /** The link {@code from} -> {@code to} loses every packet but those {@code pass} lets through, until {@link #heal()}. */
    void passOnly(final int from, final int to, final Predicate<byte[]> pass)
    {
        passOnly.put(((long)from << 32) | (to & 0xFFFFFFFFL), pass);
    }

    /** The link {@code from} -> {@code to} passes everything again (ends {@link #passOnly}; cuts stay). */
    void passAll(final int from, final int to)
    {
        passOnly.remove(((long)from << 32) | (to & 0xFFFFFFFFL));
    }

    void heal()
    {
        cut.clear();
        passOnly.clear();
    }

    private void deliverTo(final int from, final int to, final byte[] bytes)
    {
        final MemberEngine e = engines.get(to);
        final long link = ((long)from << 32) | (to & 0xFFFFFFFFL);
        if (e == null || cut.contains(link) || passOnly.containsKey(link) && !passOnly.get(link).test(bytes))
        {
            return;
        }
        if (paused.containsKey(to))
        {
            paused.get(to).add(new byte[][] {bytes});
            return;
        }
        e.onPacket(ByteBuffer.wrap(bytes), 0, bytes.length, now);
    }

    void pump()
    {
        Object[] p;
        int guard = 0;
        while ((p = queue.poll()) != null && guard++ < 1_000_000)
        {
            final int from = (Integer)p[0];
            final int to = (Integer)p[1];
            final byte[] bytes = (byte[])p[2];
            if (!engines.containsKey(from) || paused.containsKey(from))
            {
                continue;
            }
            if (recorded.containsKey(from))
            {
                recorded.get(from).add(bytes);
            }
            if (to == GroupSender.GROUP)
            {
                for (final int id : engines.keySet())
                {
                    if (id != from)
                    {
                        deliverTo(from, id, bytes);
                    }
                }
            }
            else
            {
                deliverTo(from, to, bytes);
            }
        }
    }

    void request(final int client, final int packetId, final int... to)
    {
        for (final int id : to)
        {
            final ByteBuffer b = WirePackets.request(client, packetId);
            if (paused.containsKey(id))
            {
                final byte[] bytes = new byte[b.capacity()];
                b.get(0, bytes);
                paused.get(id).add(new byte[][] {bytes});
            }
            else
            {
                engines.get(id).onPacket(b, 0, b.capacity(), now);
            }
        }
        pump();
    }

    void runMs(final long ms)
    {
        for (long i = 0; i < ms; i++)
        {
            now += MS;
            for (final MemberEngine e : engines.values().toArray(new MemberEngine[0]))
            {
                final int id = engines.entrySet().stream().filter(x -> x.getValue() == e).findFirst().get().getKey();
                if (!paused.containsKey(id))
                {
                    e.onTimer(now);
                }
            }
            pump();
        }
    }

    /** Fails when two members delivered different requests at one order number, or one delivered twice. */
    void assertOneOrder()
    {
        final Map<Long, String> first = new TreeMap<>();
        final Map<Long, Integer> by = new TreeMap<>();
        for (final Map.Entry<Integer, TreeMap<Long, String>> m : delivered.entrySet())
        {
            final Set<String> seen = new HashSet<>();
            for (final Map.Entry<Long, String> d : m.getValue().entrySet())
            {
                assertTrue(seen.add(d.getValue()) && !d.getValue().contains("+"),
                    "member " + m.getKey() + " delivered " + d.getValue() + " twice: " + delivered);
                final String other = first.putIfAbsent(d.getKey(), d.getValue());
                if (other == null)
                {
                    by.put(d.getKey(), m.getKey());
                }
                else
                {
                    assertEquals(other, d.getValue(), "order " + d.getKey() + ": member " + by.get(d.getKey()) + " delivered " + other +
                        ", member " + m.getKey() + " " + d.getValue() + ": " + delivered);
                }
            }
        }
    }

    /**
     * Adds a group of {@code ids}, led by the first, each configured with all of them, and runs
     * until its founding leader's check passed (every member answered; the ask is resent each
     * KeepAlive period).
     *
     * @return this network.
     */
    HandWiredNet founded(final int... ids)
    {
        for (final int id : ids)
        {
            add(id, new GroupConfig(id, ids[0], ids));
        }
        runMs(25);
        return this;
    }

    /**
     * Adds a group of {@code ids}, led by the first, where the links from the leader to
     * {@code asksOnly} pass only its founding asks (and its answers to their own epoch asks, which
     * members that know they were restarted send first): those members promise the check's epoch
     * and stay in the founding epoch. Runs until the check passed (failing after 5 s), then pauses
     * them for 30 ms of the others.
     *
     * @return this network.
     */
    HandWiredNet foundedWithSomeHearingOnlyAsks(final int[] ids, final int... asksOnly)
    {
        for (final int id : asksOnly)
        {
            passOnly(ids[0], id, bytes -> TakeoverDuringFoundingCheckTest.isFoundingAsk(bytes) || isEpochTold(bytes));
        }
        for (final int id : ids)
        {
            add(id, new GroupConfig(id, ids[0], ids));
        }
        for (int ms = 0; engines.get(ids[0]).epoch() == MemberEngine.FOUNDING_EPOCH; ms++)
        {
            assertTrue(ms < 5000, "the founding check did not pass in 5 s: " + engines.get(ids[0]).deliverySummary());
            runMs(1);
        }
        for (final int id : asksOnly)
        {
            pause(id);
        }
        runMs(30);
        return this;
    }

    /**
     * Group [1..5]: 1, 2 and 3 start, 2 and 3 promise 1's check, 1 fails during it; 4 and 5 start
     * after (they never promised). After 2 s, request 200/1 to 2..5, and 300 ms more.
     *
     * @return this network.
     */
    HandWiredNet foundingLeaderFailedDuringItsCheck()
    {
        final int[] all = {1, 2, 3, 4, 5};
        for (final int id : new int[] {1, 2, 3})
        {
            add(id, new GroupConfig(id, 1, all));
        }
        runMs(30);
        crash(1);
        for (final int id : new int[] {4, 5})
        {
            add(id, new GroupConfig(id, 1, all));
        }
        runMs(2000);
        request(200, 1, 2, 3, 4, 5);
        runMs(300);
        return this;
    }

    private static boolean isEpochTold(final byte[] bytes)
    {
        final ByteBuffer b = ByteBuffer.wrap(bytes).order((bytes[5] & 1) != 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        return b.getShort(6) == PacketType.MEMBER_CHANGE.code() &&
            b.get(PacketHeader_1_0.HEADER_LENGTH + MemberChangeFlyweight.STATUS_OFFSET) == MemberChangeFlyweight.STATUS_EPOCH_TOLD;
    }

    /** From now on keeps a copy of every packet {@code id} sends, in {@link #recorded}: what an attacker, or a slow path, could deliver again later. */
    void record(final int id)
    {
        recorded.put(id, new ArrayList<>());
    }

    /** Hands {@code packet} to {@code to} now, as if it had been on the network all along (a delayed datagram). */
    void inject(final int to, final ByteBuffer packet)
    {
        engines.get(to).onPacket(packet, 0, packet.capacity(), now);
        pump();
    }
}
