package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Attacks on a fixed configuration with learners, from a review: misconfigured member lists, a
 * member restarted without its configuration, learners on either side of a partition or holding
 * the last order of a failed leader. Each run must keep one order; where the configuration
 * cannot be agreed the group must not start. On a {@link HandWiredNet}.
 */
class ConfigurationAttackTest
{
    private static final long MS = OneEngine.MS;

    /**
     * Replica 4 configured [1..4] with join=false beside a group configured [1, 2, 3]; its packets
     * to 1 are lost. The founding leader's ask names [1, 2, 3]: 4 answers that its list differs,
     * counts the mismatch and is a learner from then on, so it never delivers what it accepted
     * itself. (Before the ask named the configuration, 4 delivered 100/2, which 1 never committed,
     * while {2, 3} ordered 200/1 there.)
     */
    @Test
    void aMisconfiguredMemberLearnsAtTheFirstStartThatItIsALearner()
    {
        final HandWiredNet net = new HandWiredNet();
        net.cutOneWay(4, 1);
        net.add(1, new GroupConfig(1, 1, 1, 2, 3));
        net.add(2, new GroupConfig(2, 1, 1, 2, 3));
        net.add(3, new GroupConfig(3, 1, 1, 2, 3));
        net.add(4, new GroupConfig(4, 1, 1, 2, 3, 4));
        net.runMs(25);
        assertEquals(true, net.engines.get(4).learner());
        assertTrue(net.engines.get(4).counters().configurationMismatches() >= 1);
        net.request(100, 1, 1, 2, 3, 4);
        net.runMs(5);
        assertEquals("100/1", net.delivered.get(3).get(1L));
        assertEquals(null, net.delivered.get(4).get(1L), "a learner waits for its leader's commit");
        net.cutBetween(new int[] {1, 4}, new int[] {2, 3});
        net.request(100, 2, 1, 4);
        net.runMs(2);
        assertEquals(null, net.delivered.get(1).get(2L), "1 did not deliver 100/2: nothing committed it");
        assertEquals(null, net.delivered.get(4).get(2L));
        net.runMs(300);
        net.request(200, 1, 2, 3);
        net.runMs(50);
        assertEquals("200/1", net.delivered.get(2).get(2L), net.engines.get(2).deliverySummary());
        net.assertOneOrder();
    }

    /**
     * A process of the configuration restarted as GroupConfig.joining(2) (no configured ids): the
     * leader of a replaced epoch (1, paused while {2, 3} took over and committed 200/1 at order 2)
     * lists it as a member of [1, 2, 3]. Finding its own id there, it joins as a restarted member
     * does (it learns the epochs first, which 3, cut off, cannot tell it) instead of acknowledging
     * 1's orders: 1 commits nothing. (Before, it took the LIST as a learner would, and 1 counted
     * its OrderAck and committed 100/2 at order 2 with {1, 2}.)
     */
    @Test
    void aMemberRestartedWithoutItsConfigurationCompletesNoStaleLeadersCommit()
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2, 3);
        net.request(100, 1, 1, 2, 3);
        net.runMs(5);
        assertEquals("100/1", net.delivered.get(3).get(1L));
        // 1 pauses (GC, VM stall) and is cut off meanwhile; 2 takes over with 3 and commits 200/1 at 2.
        net.pause(1);
        net.cutBetween(new int[] {1}, new int[] {2, 3});
        net.runMs(300);
        net.request(200, 1, 2, 3);
        net.runMs(10);
        assertEquals("200/1", net.delivered.get(2).get(2L), net.engines.get(2).deliverySummary());
        assertEquals("200/1", net.delivered.get(3).get(2L), net.engines.get(3).deliverySummary());
        // 2 crashes and restarts as a joiner without configured ids; 3 is cut off from both.
        net.crash(2);
        net.heal();
        net.cutBetween(new int[] {3}, new int[] {1, 2});
        net.delivered.put(2, new TreeMap<>()); // the new incarnation's deliveries
        net.add(2, GroupConfig.joining(2));
        net.runMs(5);
        // 1 resumes: 2's ADDED waits in its socket buffer.
        net.request(100, 2, 1);
        net.resume(1);
        net.runMs(300);
        assertEquals(null, net.delivered.get(1).get(2L), "1 committed 100/2 at 2 with the restarted 2");
        assertTrue(net.engines.get(2).counters().configurationMismatches() >= 1);
        net.assertOneOrder();
    }

    /**
     * Leader 1 and replica 4 configured [1..4], replicas 2 and 3 configured [1, 2, 3] (join=false
     * everywhere). 2 and 3 answer 1's founding ask that their list differs: 1 counts neither
     * answer and never orders, so no commit of {1, 4} can be missed by {2, 3}. (Before, 1 committed
     * 100/2 with {1, 4}, a commit quorum of [1..4], while {2, 3}, a majority of [1, 2, 3], took
     * over and ordered 200/1 there.) The group does not start: every side counts the mismatch.
     */
    @Test
    void replicasGivenDifferentMemberListsNeverStartTheGroup()
    {
        final HandWiredNet net = new HandWiredNet();
        net.add(1, new GroupConfig(1, 1, 1, 2, 3, 4));
        net.add(2, new GroupConfig(2, 1, 1, 2, 3));
        net.add(3, new GroupConfig(3, 1, 1, 2, 3));
        net.add(4, new GroupConfig(4, 1, 1, 2, 3, 4));
        net.runMs(25);
        net.request(100, 1, 1, 2, 3, 4);
        net.runMs(5);
        assertEquals(true, net.engines.get(1).foundingCheckPending());
        assertEquals(0, net.engines.get(1).counters().ordersSent());
        assertEquals(java.util.List.of(2, 3), java.util.Arrays.stream(net.engines.get(1).foundingCheckMismatched()).boxed().toList());
        assertEquals(java.util.List.of(), java.util.Arrays.stream(net.engines.get(1).foundingCheckAwaiting()).boxed().toList(), "4 answered");
        net.cutBetween(new int[] {1, 4}, new int[] {2, 3});
        net.request(100, 2, 1, 4);
        net.runMs(300);
        net.request(200, 1, 2, 3);
        net.runMs(50);
        for (final int id : new int[] {1, 2, 3})
        {
            assertTrue(net.engines.get(id).counters().configurationMismatches() >= 1, "member " + id);
        }
        assertEquals(0, net.engines.get(1).counters().ordersSent());
        net.assertOneOrder();
    }

    /** Founded by GroupConfig.joining(1); 2 and 3 join as learners; the founder crashes: stuck, not unsafe (learners never take over). */
    @Test
    void aGroupFoundedWithoutIdsWaitsSafelyWhenItsFounderCrashes()
    {
        final HandWiredNet net = new HandWiredNet();
        net.add(1, GroupConfig.joining(1));
        net.runMs(100);
        net.add(2, GroupConfig.joining(2));
        net.add(3, GroupConfig.joining(3));
        net.runMs(20);
        net.request(100, 1, 1, 2, 3);
        net.runMs(10);
        net.cutBetween(new int[] {1}, new int[] {2, 3});
        net.request(100, 2, 1, 2, 3);
        net.runMs(1);
        net.crash(1);
        net.request(200, 1, 2, 3);
        net.runMs(3000);
        for (final int id : new int[] {2, 3})
        {
            final MemberEngine.State st = net.engines.get(id).state();
            assertTrue(st != MemberEngine.State.LEADER_IDLE && st != MemberEngine.State.LEADER_BATCHING, id + " leads");
        }
        net.assertOneOrder();
    }

    /** Learners 4, 5 on the leader's side of a partition accept its orders; {2, 3} takes over; heal. */
    @Test
    void learnersOnTheMinoritySideCommitNothing()
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2, 3);
        net.request(100, 1, 1, 2, 3);
        net.runMs(5);
        net.add(4, GroupConfig.joining(4));
        net.add(5, GroupConfig.joining(5));
        net.runMs(10);
        net.cutBetween(new int[] {1, 4, 5}, new int[] {2, 3});
        net.request(100, 2, 1, 4, 5);
        net.request(100, 3, 1, 4, 5);
        net.runMs(300);
        net.request(200, 1, 2, 3);
        net.runMs(50);
        net.heal();
        net.runMs(3000);
        assertEquals("200/1", net.delivered.get(2).get(2L));
        net.assertOneOrder();
    }

    /** Learners 4, 5 alone hold the failed leader's last order; 2 takes over with 3 and the learners' reports. */
    @Test
    void learnersHoldingACrashedLeadersLastOrderKeepItInPlace()
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2, 3);
        net.request(100, 1, 1, 2, 3);
        net.runMs(5);
        net.add(4, GroupConfig.joining(4));
        net.add(5, GroupConfig.joining(5));
        net.runMs(10);
        net.cutOneWay(1, 2);
        net.cutOneWay(1, 3);
        net.request(100, 2, 1, 4, 5);
        net.runMs(2);
        net.crash(1);
        net.heal();
        net.request(200, 1, 2, 3);
        net.runMs(3000);
        assertTrue(net.delivered.get(2).get(2L) != null, net.engines.get(2).deliverySummary());
        net.assertOneOrder();
    }
}
