package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Processes that know they were restarted (start count 2 or more, {@link GroupConfig#startCount})
 * keep the order where a restart could otherwise pass for a first start: they learn the members'
 * epochs before they promise a founding check, so a delayed copy of an old ask does not take them
 * back to an older epoch; and once they learned that a check's epoch was promised, a promise they
 * make still shows a check ran but proves nothing of their memory (flags bit 7 of their reports).
 * On a {@link HandWiredNet}, counting starts.
 */
class KnownRestartTest
{
    /**
     * [1..5]; 4 and 5 crashed and restarted once before the founding leader's check (start count
     * 2), and hear only its asks: their promises are genuine. 1 commits 100/1 with 2 and 3 and is
     * cut off; 2 and 3 restart. The takeover must see that a check ran (4's and 5's promises show
     * it), so the restarted 2 and 3, which promised nothing, do not count: {2, 3, 4, 5} never
     * decide that nothing was committed.
     */
    @Test
    void promisersRestartedBeforeTheCheckStillShowIt()
    {
        final int[] all = {1, 2, 3, 4, 5};
        final HandWiredNet net = new HandWiredNet().countingStarts();
        for (final int id : new int[] {4, 5})
        {
            net.add(id, new GroupConfig(id, 1, all));
            net.crash(id);
        }
        net.foundedWithSomeHearingOnlyAsks(all, 4, 5);
        assertEquals(2, net.engines.get(4).startCount());
        committedThenTwoAndThreeRestart(net, all);
    }

    /** The same, every process on its second start: a whole group started again, keeping its start counts. */
    @Test
    void aWholeGroupStartedAgainKeepingItsCountsKeepsTheRule()
    {
        final int[] all = {1, 2, 3, 4, 5};
        final HandWiredNet net = new HandWiredNet().countingStarts();
        for (final int id : all)
        {
            net.add(id, new GroupConfig(id, 1, all));
        }
        for (final int id : all)
        {
            net.crash(id);
        }
        net.runMs(10);
        net.foundedWithSomeHearingOnlyAsks(all, 4, 5);
        assertEquals(2, net.engines.get(1).startCount());
        committedThenTwoAndThreeRestart(net, all);
    }

    private static void committedThenTwoAndThreeRestart(final HandWiredNet net, final int[] all)
    {
        net.request(100, 1, 1, 2, 3);
        net.runMs(30);
        assertEquals("100/1", net.delivered.get(1).get(1L), net.engines.get(1).deliverySummary());
        net.cutBetween(new int[] {1}, new int[] {2, 3, 4, 5});
        for (final int id : new int[] {2, 3})
        {
            net.restart(id, new GroupConfig(id, 1, all));
        }
        net.resume(4);
        net.resume(5);
        net.runMs(1500);
        net.request(200, 1, 2, 3, 4, 5);
        net.runMs(100);
        net.assertOneOrder();
    }

    /**
     * From a review. [1..5]; 3 and 4 hear only 1's founding asks; 100/1 is committed by 1, 2 and 5.
     * 2 is cut off; 5 restarts and learns the epochs (2, the check's), then 1 restarts and runs a
     * new check, which proposes past the epochs told: the restarted 5 promises it. 1 fails before
     * the check passes. 3, 4 and 5 report to a takeover: 5's promise shows a check ran but must not
     * count as proof that 5 forgot nothing, or {3, 4, 5} decide that nothing was committed.
     */
    @Test
    void aRestartPromisingARestartedFoundingLeadersNewCheckProvesNothing()
    {
        final int[] all = {1, 2, 3, 4, 5};
        final HandWiredNet net = new HandWiredNet().countingStarts();
        net.foundedWithSomeHearingOnlyAsks(all, 3, 4);
        net.cutBetween(new int[] {2, 5}, new int[] {3, 4});
        net.request(100, 1, 1, 2, 5);
        net.runMs(30);
        assertEquals("100/1", net.delivered.get(2).get(1L), net.engines.get(2).deliverySummary());
        net.heal();
        net.cutBetween(new int[] {2}, new int[] {1, 3, 4, 5});
        net.restart(5, new GroupConfig(5, 1, all));
        net.restart(1, new GroupConfig(1, 1, all));
        net.resume(3);
        net.resume(4);
        net.runMs(200);
        net.crash(1);
        net.runMs(3000);
        net.request(200, 1, 3, 4, 5);
        net.runMs(200);
        net.assertOneOrder();
        for (final int id : new int[] {3, 4, 5})
        {
            assertEquals(null, net.delivered.get(id).get(1L), id + " delivered nothing at 1: the group waits for 2");
        }
    }

    /**
     * [1,2,3]. 1 pauses, cut off from 2; 2 takes over with 3 (3 promises the new epoch) and
     * commits 200/1 at 1 with it. 3 restarts on 1's side of the partition and receives a delayed
     * copy of 1's founding ask; 1 resumes and orders 300/1. The restarted 3, which learns the
     * epochs first, does not promise the old check, takes no order of 1's epoch, and 1 commits
     * nothing at 1.
     */
    @Test
    void aRestartOnTheOldLeadersSideTakesNoOlderEpoch()
    {
        restartsOnTheOldLeadersSide(new HandWiredNet().countingStarts(), false, 1, 2, 3);
    }

    /** The same after 1 committed 100/1 with both. */
    @Test
    void aRestartOnTheOldLeadersSideTakesNoOlderEpochAfterAnOrder()
    {
        restartsOnTheOldLeadersSide(new HandWiredNet().countingStarts(), true, 1, 2, 3);
    }

    /** [1..5], 2 taking over with 3, 4 and 5; then 3 and 4 restart on 1's side (two of five). */
    @Test
    void twoRestartsOfFiveOnTheOldLeadersSideTakeNoOlderEpoch()
    {
        restartsOnTheOldLeadersSide(new HandWiredNet().countingStarts(), false, 1, 2, 3, 4, 5);
    }

    /**
     * The run of the tests above on {@code net}: group {@code all} founded; with {@code firstOrder}
     * 100/1 ordered; 1 pauses, cut off from 2 (and from 5 in a group of five); 2 takes over and
     * commits 200/1; the members but 1, 2 (and 5) restart on 1's side, cut off from 2 (and 5),
     * each handed a delayed copy of 1's founding ask; 1 resumes and is asked 300/1.
     */
    static void restartsOnTheOldLeadersSide(final HandWiredNet net, final boolean firstOrder, final int... all)
    {
        net.founded(all);
        final int nonce = net.engines.get(1).foundingNonce();
        net.runMs(30);
        final long before = firstOrder ? 1 : 0;
        if (firstOrder)
        {
            net.request(100, 1, all);
            net.runMs(30);
        }
        final int[] majoritySide = all.length == 5 ? new int[] {2, 5} : new int[] {2};
        final int[] restarted = all.length == 5 ? new int[] {3, 4} : new int[] {3};
        net.pause(1);
        net.cutBetween(new int[] {1}, majoritySide);
        net.runMs(400);
        assertEquals(2, net.engines.get(2).leaderId(), "2 took over");
        net.request(200, 1, all.length == 5 ? new int[] {2, 3, 4, 5} : new int[] {2, 3});
        net.runMs(20);
        assertEquals("200/1", net.delivered.get(2).get(before + 1), net.engines.get(2).deliverySummary());
        net.cutBetween(majoritySide, restarted);
        for (final int id : restarted)
        {
            net.restart(id, new GroupConfig(id, 1, all));
            net.inject(id, WirePackets.foundingAsk(1, 7, nonce, all));
        }
        net.resume(1);
        net.runMs(30);
        net.request(300, 1, all.length == 5 ? new int[] {1, 3, 4} : new int[] {1, 3});
        net.runMs(50);
        net.assertOneOrder();
        assertEquals(null, net.delivered.get(1).get(before + 1), "1 committed nothing at " + (before + 1));
    }
}
