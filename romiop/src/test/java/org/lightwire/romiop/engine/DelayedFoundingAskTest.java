package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The known gap of "Failure model for restarts" (docs/romiop.md), shown: without start counts,
 * a restarted process that promises a founding check (a delayed copy of the first one's ask, or a
 * restarted founding leader's new check) looks like a first start, and its "nothing accepted"
 * counts. Each sequence breaks the order without start counts (disabled, with the reason) and
 * keeps it counting starts ({@code start_count_dir}). On a {@link HandWiredNet}.
 */
class DelayedFoundingAskTest
{
    private static final String GAP = "known gap without start counts, docs/romiop.md 'Failure model for restarts': a restarted " +
        "process that receives a delayed duplicate of the founding ask (and of a KeepAlive of the founding leader's epoch) looks like a first start";

    /**
     * Group [1,2,3]. 2 is removed and rejoins (admitted, it counts itself in a takeover). 1 commits
     * 100/1 with 3 and is cut off; 3 restarts (the one failure three tolerate) and receives a
     * delayed copy of 1's founding ask and of a KeepAlive of epoch 2: it promises and enters epoch
     * 2 like a first start. 2 takes over, 3 reports "nothing accepted", and 200/1 is ordered at 1.
     */
    @Test
    @Disabled(GAP)
    void oneRestartOfThreeWithADelayedFoundingAskAndKeepAlive()
    {
        oneRestartOfThree(new HandWiredNet());
    }

    @Test
    void oneRestartOfThreeCountingStarts()
    {
        oneRestartOfThree(new HandWiredNet().countingStarts());
    }

    private static void oneRestartOfThree(final HandWiredNet net)
    {
        net.founded(1, 2, 3);
        final int nonce = net.engines.get(1).foundingNonce();
        net.runMs(30);
        net.pause(2);
        net.runMs(200);
        net.resume(2);
        net.runMs(400);
        net.cutBetween(new int[] {1}, new int[] {2});
        net.request(100, 1, 1, 3);
        net.runMs(5);
        assertEquals("100/1", net.delivered.get(1).get(1L), net.engines.get(1).deliverySummary());
        net.cutBetween(new int[] {1}, new int[] {3});
        net.restart(3, new GroupConfig(3, 1, 1, 2, 3));
        net.inject(3, WirePackets.foundingAsk(1, 7, nonce, 1, 2, 3));
        net.inject(3, WirePackets.keepAlive(1, 9, OneEngine.ORDERING_EPOCH, 0, 0));
        net.runMs(1000);
        net.request(200, 1, 2, 3);
        net.runMs(100);
        net.assertOneOrder();
    }

    /**
     * Group [1..5]; 4 and 5 hear only 1's founding asks. 1 commits 100/1 with 2 and 3 and is cut
     * off; 2 and 3 restart and each receives a delayed copy of 1's founding ask: they promise, and
     * their reports carry the founding promise like 4's and 5's. {2, 3, 4, 5} order 200/1 at 1.
     * (Without the delayed asks the same run waits: RestartedProposerTest.)
     */
    @Test
    @Disabled(GAP)
    void twoRestartsOfFiveWithDelayedFoundingAsks()
    {
        RestartedProposerTest.twoRestartsOfFiveAfterACommit(new HandWiredNet(), true);
    }

    @Test
    void twoRestartsOfFiveWithDelayedFoundingAsksCountingStarts()
    {
        RestartedProposerTest.twoRestartsOfFiveAfterACommit(new HandWiredNet().countingStarts(), true);
    }

    /**
     * Group [1..7]; 5, 6 and 7 hear only 1's founding asks. 1 commits 100/1 with 2, 3 and 4; 4 is
     * then cut off, and 2, 3 and 1 restart (three of seven). The restarted 1's check is answered
     * by 2 and 3, restarted too, with new promises, and cannot pass (4 does not answer, 5, 6 and 7
     * are paused); 1 fails, and 5, 6 and 7 run again.
     * 2 takes over: the promises of 2 and 3 to the second check look like those of members that
     * were up for the first, and with 5, 6 and 7 they make a majority that decides nothing was
     * committed: 200/1 at 1.
     */
    @Test
    @Disabled(GAP + "; here the second check is a restarted founding leader's own")
    void threeRestartsOfSevenPromisingARestartedFoundingLeadersCheck()
    {
        threeRestartsOfSeven(new HandWiredNet());
    }

    @Test
    void threeRestartsOfSevenCountingStarts()
    {
        threeRestartsOfSeven(new HandWiredNet().countingStarts());
    }

    private static void threeRestartsOfSeven(final HandWiredNet net)
    {
        final int[] all = {1, 2, 3, 4, 5, 6, 7};
        net.foundedWithSomeHearingOnlyAsks(all, 5, 6, 7);
        net.request(100, 1, 1, 2, 3, 4);
        net.runMs(30);
        assertEquals("100/1", net.delivered.get(4).get(1L), net.engines.get(4).deliverySummary());
        net.cutBetween(new int[] {4}, new int[] {1, 2, 3, 5, 6, 7});
        for (final int id : new int[] {2, 3, 1})
        {
            net.restart(id, new GroupConfig(id, 1, all));
        }
        net.runMs(60);
        net.crash(1);
        for (final int id : new int[] {5, 6, 7})
        {
            net.resume(id);
        }
        net.runMs(1500);
        net.request(200, 1, 2, 3, 5, 6, 7);
        net.runMs(200);
        net.assertOneOrder();
    }

    /**
     * [1..5]: the founding check passed, nothing ordered. 1 pauses; 2 takes over with 3, 4 and 5
     * and commits 200/1 at 1. 3 and 4 restart on 1's side, cut off from 2 and 5, each handed a
     * delayed copy of 1's founding ask: they promise it and take 1's orders of the founding
     * leader's epoch; 1 commits 300/1 at 1 with them (KnownRestartTest runs it counting starts).
     */
    @Test
    @Disabled(GAP)
    void twoRestartsOfFiveOnTheOldLeadersSide()
    {
        KnownRestartTest.restartsOnTheOldLeadersSide(new HandWiredNet(), false, 1, 2, 3, 4, 5);
    }
}
