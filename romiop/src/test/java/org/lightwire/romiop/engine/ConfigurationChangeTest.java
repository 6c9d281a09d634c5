package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Known safety gaps, not fixed (docs/romiop.md, "Tests"), each test disabled with its reason and
 * asserting what must happen: configurations that differ between members. A leader counts
 * commits against its own configuration (commit quorum n - q + 1), a takeover counts a majority against the taking-over
 * member's own configuration; a leader grows its configuration by itself the moment it admits a
 * new id (addMember), so the two can differ, and a commit quorum of the grown configuration need
 * not meet a majority of the old one ({1, 4} of [1..4] and {2, 3} of [1, 2, 3]).
 *
 * <p>Several real engines on a hand-wired network (a packet is delivered at once unless its link
 * is cut), one clock, timers every millisecond.
 */
class ConfigurationChangeTest
{
    private static final long MS = OneEngine.MS;

    /** A hand-wired network: GROUP goes to every attached engine but the sender; cut links drop. */
    static final class Net
    {
        final Map<Integer, MemberEngine> engines = new TreeMap<>();
        final Map<Integer, TreeMap<Long, String>> delivered = new TreeMap<>();
        final Set<Long> cut = new HashSet<>();
        final ArrayDeque<Object[]> queue = new ArrayDeque<>();
        long now;

        static GroupConfig tuned(final GroupConfig c)
        {
            return c.keepAlive(20 * MS, 100 * MS).retransmitTimeoutNs(20 * MS).nakDelayNs(2 * MS).requestAckDelayNs(0)
                .orderAckDelayNs(0).joinTimeoutNs(60 * MS);
        }

        MemberEngine add(final int id, final GroupConfig config)
        {
            final TreeMap<Long, String> log = new TreeMap<>();
            delivered.put(id, log);
            final MemberEngine e = new MemberEngine(tuned(config), (to, packet, length) ->
            {
                final byte[] copy = new byte[length];
                packet.get(0, copy, 0, length);
                queue.add(new Object[] {id, to, copy});
            }, (seq, sender, packetId, requestId, payload, offset, length) -> log.put(seq, sender + "/" + packetId));
            engines.put(id, e);
            e.start(now);
            pump();
            return e;
        }

        void cutBetween(final int[] a, final int[] b)
        {
            for (final int x : a)
            {
                for (final int y : b)
                {
                    cut.add(((long)x << 32) | (y & 0xFFFFFFFFL));
                    cut.add(((long)y << 32) | (x & 0xFFFFFFFFL));
                }
            }
        }

        void heal()
        {
            cut.clear();
        }

        private void deliverTo(final int from, final int to, final byte[] bytes)
        {
            final MemberEngine e = engines.get(to);
            if (e == null || cut.contains(((long)from << 32) | (to & 0xFFFFFFFFL)))
            {
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

        /** A client's request multicast to {@code to} (the members it reaches). */
        void request(final int client, final int packetId, final int... to)
        {
            for (final int id : to)
            {
                final ByteBuffer b = WirePackets.request(client, packetId);
                engines.get(id).onPacket(b, 0, b.capacity(), now);
            }
            pump();
        }

        void runMs(final long ms)
        {
            for (long i = 0; i < ms; i++)
            {
                now += MS;
                for (final MemberEngine e : engines.values())
                {
                    e.onTimer(now);
                }
                pump();
            }
        }
    }

    /** Group [1, 2, 3], leader 1, request 100/1 delivered at order 1 everywhere. */
    private static Net groupOfThreeWithOrderOne()
    {
        final Net net = new Net();
        net.add(1, new GroupConfig(1, 1, 1, 2, 3));
        net.add(2, new GroupConfig(2, 1, 1, 2, 3));
        net.add(3, new GroupConfig(3, 1, 1, 2, 3));
        net.request(100, 1, 1, 2, 3);
        net.runMs(5);
        return net;
    }

    /**
     * Group [1, 2, 3], leader 1. A partition cuts {1} from {2, 3}; within the KeepAlive timeout a
     * new process 4 (GroupConfig.joining(4)) asks 1 to join. Leader 1 admits it: configuration
     * [1..4], commit quorum 2, so 1 and 4 commit and deliver request 100/2 at order 2. Members 2
     * and 3 never heard of 4: their configuration is [1, 2, 3], whose majority {2, 3} takes over
     * and orders request 200/1 at order 2. Two members deliver different requests at order 2
     * (today; the test asserts what must happen).
     */
    @Disabled("known safety gap, not fixed: configuration changes are not agreed (Raft joint consensus is the fix; docs/romiop.md, Tests)")
    @Test
    void aLeaderThatAdmitsANewIdCommitsWithAQuorumThatTheOldConfigurationsMajorityMisses()
    {
        final Net net = groupOfThreeWithOrderOne();
        assertEquals("100/1", net.delivered.get(1).get(1L));
        assertEquals("100/1", net.delivered.get(2).get(1L));
        assertEquals("100/1", net.delivered.get(3).get(1L));

        // The partition: {1, 4} | {2, 3}; 4 starts now, a fresh id.
        net.cutBetween(new int[] {1, 4}, new int[] {2, 3});
        net.add(4, GroupConfig.joining(4));
        net.runMs(5);
        assertEquals(MemberEngine.State.MEMBER, net.engines.get(4).state(), "4 admitted by 1");
        net.request(100, 2, 1, 4);
        net.runMs(5);
        assertEquals("100/2", net.delivered.get(1).get(2L), "leader 1 committed order 2 with 4's acceptance alone");
        assertEquals("100/2", net.delivered.get(4).get(2L));

        // Side {2, 3}: 1 is silent; 2 takes over with 3's report, a majority of [1, 2, 3].
        net.runMs(300);
        assertEquals(MemberEngine.State.LEADER_IDLE, net.engines.get(2).state(), net.engines.get(2).deliverySummary());
        net.request(200, 1, 2, 3);
        net.runMs(10);
        assertEquals(net.delivered.get(1).get(2L), net.delivered.get(2).get(2L), "one request at order 2: " + net.delivered);
    }

    /**
     * No partition: 1's LIST naming 4 and its order 2 are lost to 2 and 3 (one-way loss for 5 ms),
     * then 1 crashes. One crash: 4, which delivered order 2, survives and reports to 2's takeover,
     * but is in neither 2's view nor its configuration, so its report is not counted; 2 decides
     * with 3 (a majority of [1, 2, 3]) and orders another request at 2.
     */
    @Disabled("known safety gap, not fixed: configuration changes are not agreed (Raft joint consensus is the fix; docs/romiop.md, Tests)")
    @Test
    void theSameWithLossAndOneCrash()
    {
        final Net net = groupOfThreeWithOrderOne();
        net.cut.add((1L << 32) | 2);
        net.cut.add((1L << 32) | 3);
        net.add(4, GroupConfig.joining(4));
        net.runMs(2);
        assertEquals(MemberEngine.State.MEMBER, net.engines.get(4).state(), "4 admitted by 1");
        net.request(100, 2, 1, 4);
        net.runMs(2);
        assertEquals("100/2", net.delivered.get(1).get(2L));
        // 1 crashes; the loss ends.
        net.engines.remove(1);
        net.heal();
        // A client's request reaches 2 and 3 (4 lost it): held, ordered once a takeover decides.
        net.request(200, 1, 2, 3);
        net.runMs(300);
        assertEquals(net.delivered.get(4).get(2L), net.delivered.get(2).get(2L), "one request at order 2: " + net.delivered);
    }

    /**
     * Liveness: three new processes (ids 4, 5, 6) are admitted and crash at once. Silence takes them
     * out of the view, never out of the configuration: [1..6], a majority of 4, with 1, 2, 3 all
     * up and connected. The leader has no lease for good, and no takeover can reach a majority (today).
     */
    @Disabled("known liveness gap, not fixed: members admitted by ADDED never leave the configuration by silence (docs/romiop.md, Tests)")
    @Test
    void newIdsThatJoinAndCrashStallTheGroupForGood()
    {
        final Net net = groupOfThreeWithOrderOne();
        for (final int id : new int[] {4, 5, 6})
        {
            net.add(id, GroupConfig.joining(id));
            net.runMs(3);
            assertEquals(MemberEngine.State.MEMBER, net.engines.get(id).state());
            net.engines.remove(id);
        }
        net.runMs(1000);
        net.request(100, 2, 1, 2, 3);
        net.runMs(3000);
        assertEquals("100/2", net.delivered.get(2).get(2L), "1, 2 and 3 are up: the group goes on (" + net.engines.get(2).deliverySummary() + ")");
    }

    /**
     * Shrinking: group [1..4], leader 1, commit quorum 2. Order 2 (100/2) is lost to 2 and 3; 4
     * accepts it, so 1 commits and delivers it with {1, 4}. Then 4 leaves (MemberEngine.leave):
     * everyone's configuration is [1, 2, 3]; 1 crashes, one crash of three. {2, 3} is a majority
     * of [1, 2, 3] and never held order 2: 2 orders another request there.
     */
    @Disabled("known safety gap, not fixed: configuration changes are not agreed (Raft joint consensus is the fix; docs/romiop.md, Tests)")
    @Test
    void aMemberThatLeavesAfterItsAcceptanceCommittedAnOrderTakesThatCommitWithIt()
    {
        final Net net = new Net();
        for (final int id : new int[] {1, 2, 3, 4})
        {
            net.add(id, new GroupConfig(id, 1, 1, 2, 3, 4));
        }
        net.request(100, 1, 1, 2, 3, 4);
        net.runMs(5);
        assertEquals("100/1", net.delivered.get(3).get(1L));
        net.cut.add((1L << 32) | 2);
        net.cut.add((1L << 32) | 3);
        net.request(100, 2, 1, 4);
        net.runMs(2);
        assertEquals("100/2", net.delivered.get(1).get(2L), "1 and 4 commit order 2");
        net.engines.get(4).leave(net.now);
        net.pump();
        net.engines.remove(4);
        net.engines.remove(1);
        net.heal();
        net.request(200, 1, 2, 3);
        net.runMs(300);
        assertEquals(net.delivered.get(1).get(2L), net.delivered.get(2).get(2L), "one request at order 2: " + net.delivered);
    }
}
