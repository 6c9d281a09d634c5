package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

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
        RestartedProposerTest.afterACommitTwoAndThreeRestart(net, false);
    }

    /**
     * Every process of [1..5] on its second start: a whole group started again, keeping its start
     * counts. None can learn the group's epochs (each tells epoch 0: it forgot them), so none
     * promises a founding check, and the group founds no new order on its own: the orders of its
     * earlier life may be lost with it. Started afresh (the counts removed), it orders.
     */
    @Test
    void aWholeGroupStartedAgainKeepingItsCountsWaitsUntilTheyAreRemoved()
    {
        final int[] all = {1, 2, 3, 4, 5};
        final HandWiredNet net = new HandWiredNet().countingStarts().founded(all);
        for (final int id : all)
        {
            net.crash(id);
        }
        for (final int id : all)
        {
            net.add(id, new GroupConfig(id, 1, all));
        }
        net.runMs(3000);
        net.request(200, 1, all);
        net.runMs(300);
        assertEquals(MemberEngine.FOUNDING_EPOCH, net.engines.get(1).epoch(), "the founding check did not pass");
        for (final int id : all)
        {
            assertEquals(2, net.engines.get(id).startCount());
            assertEquals(Map.of(), net.delivered.get(id), id + " delivered nothing");
        }
        net.forgetStarts();
        for (final int id : all)
        {
            net.restart(id, new GroupConfig(id, 1, all));
        }
        net.runMs(300);
        net.request(200, 2, all);
        net.runMs(300);
        net.assertOneOrder();
        for (final int id : all)
        {
            assertEquals(1, net.engines.get(id).startCount());
            assertEquals("200/2", net.delivered.get(id).get(1L), id + ": " + net.engines.get(id).deliverySummary());
        }
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

    /**
     * From a second review: a group that began by taking over from a founding leader nobody heard
     * ordered with no founding check, so no promise shows that orders may exist. [1..5]; 1 and 3
     * cut off from the start; after {@code founding_wait} 2 takes over with 4 and 5 (first starts
     * count themselves) and commits 100/1 with them. Then {@code split} runs, and the group waits
     * for 2, the one member left that holds 100/1, rather than order 200/1 at 1.
     */
    private static HandWiredNet takeoverFoundedThen(final java.util.function.Consumer<HandWiredNet> split)
    {
        final int[] all = {1, 2, 3, 4, 5};
        final HandWiredNet net = new HandWiredNet().countingStarts();
        net.cutBetween(new int[] {1}, new int[] {2, 3, 4, 5});
        net.cutBetween(new int[] {3}, new int[] {2, 4, 5});
        for (final int id : all)
        {
            net.add(id, new GroupConfig(id, 1, all));
        }
        net.runMs(1600);
        net.request(100, 1, 2, 4, 5);
        net.runMs(50);
        assertEquals("100/1", net.delivered.get(2).get(1L), net.engines.get(2).deliverySummary());
        split.accept(net);
        net.runMs(4000);
        return net;
    }

    /** ...2 is cut off, 4 and 5 restart (two of five) and reach 3: 3 takes over, the known restarts do not count. */
    @Test
    void aGroupFoundedByTakeoverWaitsWhenTwoOfFiveRestart()
    {
        final HandWiredNet net = takeoverFoundedThen(n ->
        {
            n.cutBetween(new int[] {2}, new int[] {1, 3, 4, 5});
            n.restart(4, new GroupConfig(4, 1, 1, 2, 3, 4, 5));
            n.restart(5, new GroupConfig(5, 1, 1, 2, 3, 4, 5));
            n.mend(3, 4);
            n.mend(3, 5);
        });
        net.request(200, 1, 3, 4, 5);
        net.runMs(300);
        net.assertOneOrder();
        assertEquals(null, net.delivered.get(3).get(1L), "3 ordered nothing at 1");
    }

    /** ...the network splits {2, 5} | {1, 3, 4} and 4 restarts (one of five): 1 and 3, first starts, with the known restart 4 are no majority. */
    @Test
    void aGroupFoundedByTakeoverWaitsWhenOneOfFiveRestartsOnTheOtherSide()
    {
        final HandWiredNet net = takeoverFoundedThen(n ->
        {
            n.heal();
            n.cutBetween(new int[] {2, 5}, new int[] {1, 3, 4});
            n.restart(4, new GroupConfig(4, 1, 1, 2, 3, 4, 5));
        });
        net.request(200, 1, 1, 3, 4);
        net.runMs(300);
        net.assertOneOrder();
        assertEquals(null, net.delivered.get(3).get(1L), "3 ordered nothing at 1");
    }

    /**
     * From the second review. [1..5]; 1 cut off from the start, 3 started late; 2 takes over with 4
     * and 5 and commits 100/1. 2 is cut off, 4 and 5 restart and ask the epochs of 1 and 3 (which
     * never saw 2's epoch) and of each other: each tells epoch 0, as a known restart that has not
     * learned does, and no answer of theirs counts, so they learn nothing and promise no founding
     * check of 1's; 3 then cannot take over with them.
     */
    @Test
    void knownRestartsLearnNothingFromEachOther()
    {
        final int[] all = {1, 2, 3, 4, 5};
        final HandWiredNet net = new HandWiredNet().countingStarts();
        net.cutBetween(new int[] {1}, new int[] {2, 3, 4, 5});
        for (final int id : new int[] {1, 2, 4, 5})
        {
            net.add(id, new GroupConfig(id, 1, all));
        }
        net.runMs(1600);
        net.request(100, 1, 2, 4, 5);
        net.runMs(50);
        assertEquals("100/1", net.delivered.get(2).get(1L), net.engines.get(2).deliverySummary());
        net.cutBetween(new int[] {3}, new int[] {2, 4, 5});
        net.add(3, new GroupConfig(3, 1, all));
        net.runMs(5);
        net.heal();
        net.cutBetween(new int[] {2}, new int[] {1, 3, 4, 5});
        for (final int id : new int[] {3, 4, 5})
        {
            net.passOnly(1, id, b -> !TakeoverDuringFoundingCheckTest.isFoundingAsk(b));
        }
        net.restart(4, new GroupConfig(4, 1, all));
        net.restart(5, new GroupConfig(5, 1, all));
        net.runMs(30);
        net.passOnly.clear();
        net.runMs(200);
        net.cutBetween(new int[] {1}, new int[] {3, 4, 5});
        net.runMs(4000);
        net.request(200, 1, 3, 4, 5);
        net.runMs(300);
        net.assertOneOrder();
        assertEquals(null, net.delivered.get(3).get(1L), "3 ordered nothing at 1");
    }
}
