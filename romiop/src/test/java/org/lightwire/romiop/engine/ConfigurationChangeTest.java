package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/**
 * The configuration - the members whose acceptances commit and whose majority takes over - is
 * fixed: the configured members. A new id the leader admits is a learner (in the view, delivering
 * what is committed, counted for nothing), and a member that leaves stays in the configuration,
 * absent. Each case here broke the order while a leader grew its configuration by itself on an
 * admission and shrank it on a leave: a commit quorum of the grown configuration ({1, 4} of
 * [1..4]) need not meet a majority of the old one ({2, 3} of [1, 2, 3]).
 *
 * <p>Several real engines on a {@link HandWiredNet}.
 */
class ConfigurationChangeTest
{
    private static final long MS = OneEngine.MS;

    /** Group [1, 2, 3], leader 1, request 100/1 delivered at order 1 everywhere. */
    private static HandWiredNet groupOfThreeWithOrderOne()
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2, 3);
        net.request(100, 1, 1, 2, 3);
        net.runMs(5);
        return net;
    }

    /** A new process 4: configured with no members, or (misconfigured) with [1..4] against the group's [1, 2, 3]. */
    private static GroupConfig newProcessFour(final boolean configured)
    {
        return configured ? GroupConfig.joining(4, 1, 2, 3, 4) : GroupConfig.joining(4);
    }

    /**
     * Group [1, 2, 3], leader 1. A partition cuts {1} from {2, 3}; within the KeepAlive timeout a
     * new process 4 asks 1 to join, and 1 admits it as a learner. 1 and 4 alone commit nothing
     * (once 4's acceptance made {1, 4} a commit quorum of [1..4], which {2, 3}, a majority of
     * [1, 2, 3], misses). {2, 3} takes over and orders request 200/1 at order 2; after the heal,
     * every member delivers that one at 2.
     */
    @ParameterizedTest(name = "configured with members: {0}")
    @ValueSource(booleans = {false, true})
    void aNewIdIsALearnerThatCommitsNothingWithTheLeader(final boolean configured)
    {
        final HandWiredNet net = groupOfThreeWithOrderOne();
        assertEquals("100/1", net.delivered.get(1).get(1L));
        assertEquals("100/1", net.delivered.get(2).get(1L));
        assertEquals("100/1", net.delivered.get(3).get(1L));

        // The partition: {1, 4} | {2, 3}; 4 starts now, a fresh id.
        net.cutBetween(new int[] {1, 4}, new int[] {2, 3});
        net.add(4, newProcessFour(configured));
        net.runMs(5);
        // (Configured with members, 4 may be a restarted process: it joins once a majority of
        // [1..4] told it their epochs, which only 1 can here.)
        assertEquals(configured ? MemberEngine.State.JOINING : MemberEngine.State.MEMBER, net.engines.get(4).state());
        net.request(100, 2, 1, 4);
        net.runMs(5);
        assertNull(net.delivered.get(1).get(2L), "leader 1 committed order 2 with a learner's acceptance: " + net.delivered);
        assertNull(net.delivered.get(4).get(2L), "learner 4 delivered an uncommitted order: " + net.delivered);

        // Side {2, 3}: 1 is silent; 2 takes over with 3's report, a majority of [1, 2, 3].
        net.runMs(300);
        assertEquals(MemberEngine.State.LEADER_IDLE, net.engines.get(2).state(), net.engines.get(2).deliverySummary());
        net.request(200, 1, 2, 3);
        net.runMs(10);
        assertEquals("200/1", net.delivered.get(2).get(2L));
        assertEquals("200/1", net.delivered.get(3).get(2L));
        assertNull(net.delivered.get(1).get(2L), "1 delivered order 2 on its side: " + net.delivered);
        assertNotEquals(MemberEngine.State.LEADER_BATCHING, net.engines.get(1).state());
        assertNull(net.delivered.get(4).get(2L), "4 delivered order 2 on 1's side: " + net.delivered);

        // After the heal 1 and 4 rejoin 2's group past order 2 (from its commit on, as rejoiners do).
        net.heal();
        net.runMs(3000);
        for (final int id : new int[] {1, 2, 3, 4})
        {
            final MemberEngine e = net.engines.get(id);
            assertTrue(e.deliveredSeq() >= 2 && e.state() != MemberEngine.State.JOINING, id + " after the heal: " + e.deliverySummary());
            final String second = net.delivered.get(id).get(2L);
            assertTrue(second == null || second.equals("200/1"), id + " after the heal: " + net.delivered);
        }
    }

    /**
     * No partition: 1's LIST naming 4 and its order 2 are lost to 2 and 3 (one-way loss), then 1
     * crashes. 4, admitted as a learner, accepted order 2; it is no member of the configuration,
     * so 1 committed nothing with it, and 2's takeover with 3 (a majority of [1, 2, 3]) decides
     * order 2 for every survivor, 4 included.
     */
    @ParameterizedTest(name = "configured with members: {0}")
    @ValueSource(booleans = {false, true})
    void theSameWithLossAndOneCrash(final boolean configured)
    {
        final HandWiredNet net = groupOfThreeWithOrderOne();
        net.cut.add((1L << 32) | 2);
        net.cut.add((1L << 32) | 3);
        net.add(4, newProcessFour(configured));
        net.runMs(configured ? 5 : 2);
        assertEquals(MemberEngine.State.MEMBER, net.engines.get(4).state(), "4 admitted by 1");
        net.request(100, 2, 1, 4);
        net.runMs(2);
        assertNull(net.delivered.get(1).get(2L), "leader 1 committed order 2 with a learner's acceptance");
        // 1 crashes; the loss ends.
        net.engines.remove(1);
        net.heal();
        // A client's request reaches 2 and 3 (4 lost it): held, ordered once a takeover decides.
        net.request(200, 1, 2, 3);
        net.runMs(300);
        final String second = net.delivered.get(2).get(2L);
        assertTrue("200/1".equals(second) || "100/2".equals(second), "2 delivered order 2: " + net.delivered);
        assertEquals(second, net.delivered.get(3).get(2L), "one request at order 2: " + net.delivered);
        assertEquals(second, net.delivered.get(4).get(2L), "one request at order 2: " + net.delivered);
    }

    /**
     * Three new processes (ids 4, 5, 6) are admitted, as learners, and crash at once. Silence takes
     * them out of the view; they were never in the configuration, whose majority (1, 2, 3 up and
     * connected) goes on.
     */
    @Test
    void newIdsThatJoinAndCrashDoNotStallTheGroup()
    {
        final HandWiredNet net = groupOfThreeWithOrderOne();
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
        for (final int id : new int[] {1, 2, 3})
        {
            assertEquals("100/2", net.delivered.get(id).get(2L), id + ": " + net.engines.get(id).deliverySummary());
        }
    }

    /**
     * Forged ADDED from ten ids of no member's, which then fall silent (max_members 8): the leader
     * admits five as learners, refuses the rest, and keeps its lease, since its configuration is
     * still [1, 2, 3], whose members all answer; silence takes the learners out of the view, and the
     * group orders on. (While an admission grew the configuration, the leader lost its lease within
     * 100 ms and stepped down.)
     */
    @Test
    void forgedNewIdsThatFallSilentCostTheLeaderNothing()
    {
        final HandWiredNet net = new HandWiredNet();
        net.add(1, new GroupConfig(1, 1, 1, 2, 3).maxMembers(8));
        net.add(2, new GroupConfig(2, 1, 1, 2, 3));
        net.add(3, new GroupConfig(3, 1, 1, 2, 3));
        net.runMs(25);
        final MemberEngine leader = net.engines.get(1);
        for (int id = 1000; id < 1010; id++)
        {
            final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(0));
            ((MemberChangeFlyweight)new MemberChangeFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, id, 7, id, MemberChangeFlyweight.STATUS_ADDED, 0);
            leader.onPacket(b, 0, b.capacity(), net.now);
        }
        net.pump();
        assertEquals(5, leader.counters().membersAdded());
        assertEquals(5, leader.counters().joinsRefused());
        net.runMs(1000);
        assertEquals(0, leader.counters().leaseLost());
        assertEquals(0, leader.counters().leaderStepDowns());
        assertEquals(5, leader.counters().membersRemoved(), "the silent learners leave the view");
        net.request(100, 1, 1, 2, 3);
        net.runMs(10);
        for (final int id : new int[] {1, 2, 3})
        {
            assertEquals("100/1", net.delivered.get(id).get(1L), id + ": " + net.engines.get(id).deliverySummary());
            assertEquals(0, net.engines.get(id).counters().configurationMismatches());
        }
    }

    /**
     * Shrinking: group [1..4], leader 1, commit quorum 2. Order 2 (100/2) is lost to 2 and 3; 4
     * accepts it, so 1 commits and delivers it with {1, 4}. Then 4 leaves (MemberEngine.leave) and
     * 1 crashes. The leave does not take 4 out of the configuration: {2, 3} is no majority of
     * [1..4], so neither takes over nor orders another request at 2; the group waits (two of its
     * four members are gone, one more than it survives) instead of forgetting a committed order.
     */
    @Test
    void aMemberThatLeavesStaysInTheConfiguration()
    {
        final HandWiredNet net = new HandWiredNet();
        for (final int id : new int[] {1, 2, 3, 4})
        {
            net.add(id, new GroupConfig(id, 1, 1, 2, 3, 4));
        }
        net.runMs(25);
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
        net.runMs(3000);
        assertNull(net.delivered.get(2).get(2L), "2 ordered past a committed order: " + net.delivered);
        assertNull(net.delivered.get(3).get(2L), "3 ordered past a committed order: " + net.delivered);
        for (final int id : new int[] {2, 3})
        {
            final MemberEngine.State state = net.engines.get(id).state();
            assertNotEquals(MemberEngine.State.LEADER_IDLE, state, id + " leads without a majority of [1..4]");
            assertNotEquals(MemberEngine.State.LEADER_BATCHING, state, id + " leads without a majority of [1..4]");
        }
    }
}
