package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A takeover led by a member that may be a restarted process, from a review: such a proposer
 * does not count itself toward the majority of reports, so a restarted member and one that knows
 * nothing cannot decide past an order the earlier incarnation helped commit (group of three), nor
 * can an honest proposer that only promised, with a restarted reporter (group of five). On a
 * {@link HandWiredNet}.
 */
class RestartedProposerTest
{
    /**
     * Group [1,2,3]; check passes (epoch 2). 1-3 cut; 1 commits 100/1 with 2 (1 delivers). 1-2 cut.
     * 2 restarts (the one restart). 3 paused. The new 2 (epoch 1, nothing) takes over: 2 ignored,
     * retried as 3. 3 resumes, suspecting, reports "nothing" (no history in the proposer). The new 2
     * must not count itself toward the majority (when it did, it led epoch 3 on target 0 and ordered
     * 200/1 at 1 beside the committed 100/1): it waits.
     */
    @Test
    void aRestartedProposerDoesNotCountItsOwnEmptyMemory()
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2, 3);
        net.runMs(30);
        assertEquals(OneEngine.ORDERING_EPOCH, net.engines.get(3).epoch());
        net.cutBetween(new int[] {1}, new int[] {3});
        net.request(100, 1, 1, 2);
        net.runMs(5);
        assertEquals("100/1", net.delivered.get(1).get(1L), net.engines.get(1).deliverySummary());
        net.pause(3);
        net.cutBetween(new int[] {1}, new int[] {2});
        net.restart(2, new GroupConfig(2, 1, 1, 2, 3));
        net.runMs(330);
        net.resume(3);
        net.runMs(300);
        net.request(200, 1, 2, 3);
        net.runMs(100);
        net.assertOneOrder();
    }

    /**
     * Group [1..5]; 2 and 5 hear only 1's founding asks (they promise epoch 2, stay in epoch 1), then
     * pause. 1 commits 100/1 with {1, 3, 4} in epoch 2. 1 and 4 are cut off (alive, holding it); 3
     * restarts (one of five). 2 and 5 resume; 2 (epoch 1, nothing) takes over proposing 3; the new 3
     * reports "nothing" (the proposer shows no history: epoch 1, delivered 0), 5 too. When the
     * proposer counted itself, {2, 3, 5} ordered 200/1 at 1 beside the committed 100/1.
     */
    @Test
    void aRestartedReporterAndAProposerThatOnlyPromised()
    {
        final int[] all = {1, 2, 3, 4, 5};
        final HandWiredNet net = new HandWiredNet().foundedWithSomeHearingOnlyAsks(all, 2, 5);
        assertEquals(OneEngine.ORDERING_EPOCH, net.engines.get(1).epoch());
        net.request(100, 1, 1, 3, 4);
        net.runMs(30);
        assertEquals("100/1", net.delivered.get(1).get(1L), net.engines.get(1).deliverySummary());
        net.cutBetween(new int[] {1}, new int[] {2, 3, 4, 5});
        net.cutBetween(new int[] {4}, new int[] {2, 3, 5});
        net.restart(3, new GroupConfig(3, 1, all));
        net.resume(2);
        net.resume(5);
        net.runMs(600);
        net.request(200, 1, 2, 3, 5);
        net.runMs(100);
        net.assertOneOrder();
    }

    /**
     * Group [1..5]; 4 and 5 hear only 1's founding asks (they promise epoch 2, stay in epoch 1),
     * then pause. 1 commits 100/1 with {1, 2, 3} in epoch 2 and is cut off (alive, holding it); 2
     * and 3 restart (two of five: the failures a group of five tolerates). 4 and 5 resume. Every
     * member but 1 accepted nothing and never left epoch 1, so none can tell whether it is a
     * restarted process: no majority of them may decide that nothing was committed.
     */
    @Test
    void twoRestartedMembersAndTwoThatOnlyPromisedDoNotOrderAfresh()
    {
        twoRestartsOfFiveAfterACommit(new HandWiredNet(), false);
    }

    /**
     * The run above, on {@code net}; with {@code delayedAsks}, each restarted member is handed a delayed copy of
     * 1's founding ask as it starts ({@link DelayedFoundingAskTest}).
     */
    static void twoRestartsOfFiveAfterACommit(final HandWiredNet net, final boolean delayedAsks)
    {
        net.foundedWithSomeHearingOnlyAsks(new int[] {1, 2, 3, 4, 5}, 4, 5);
        afterACommitTwoAndThreeRestart(net, delayedAsks);
    }

    /**
     * On a group [1..5] founded with 4 and 5 hearing only the asks: 1 commits 100/1 with 2 and 3
     * and is cut off, 2 and 3 restart (each handed a delayed copy of 1's founding ask with
     * {@code delayedAsks}), 4 and 5 resume; request 200/1 after 1.5 s; one order checked.
     */
    static void afterACommitTwoAndThreeRestart(final HandWiredNet net, final boolean delayedAsks)
    {
        final int[] all = {1, 2, 3, 4, 5};
        final int nonce = net.engines.get(1).foundingNonce();
        net.request(100, 1, 1, 2, 3);
        net.runMs(30);
        assertEquals("100/1", net.delivered.get(1).get(1L), net.engines.get(1).deliverySummary());
        net.cutBetween(new int[] {1}, new int[] {2, 3, 4, 5});
        for (final int id : new int[] {2, 3})
        {
            net.restart(id, new GroupConfig(id, 1, all));
            if (delayedAsks)
            {
                net.inject(id, WirePackets.foundingAsk(1, 7, nonce, all));
            }
        }
        net.resume(4);
        net.resume(5);
        net.runMs(1500);
        net.request(200, 1, 2, 3, 4, 5);
        net.runMs(100);
        net.assertOneOrder();
    }

    /**
     * The liveness side of the rule above: a group of five whose founding leader fails once its
     * check passed, before any order, takes over (every other member promised the check, and
     * none may be a restarted process that did not) and orders.
     */
    @Test
    void aGroupWhoseFoundingLeaderFailsBeforeAnyOrderTakesOver()
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2, 3, 4, 5);
        net.runMs(30);
        net.crash(1);
        net.runMs(1500);
        net.request(200, 1, 2, 3, 4, 5);
        net.runMs(100);
        net.assertOneOrder();
        for (final int id : new int[] {2, 3, 4, 5})
        {
            assertEquals("200/1", net.delivered.get(id).get(1L), net.engines.get(id).deliverySummary());
        }
    }

    /**
     * The price of the rule above, from a review: a group of five whose founding leader fails
     * during its check, 2 and 3 having promised it and 4 and 5 not (they started later), reports
     * to a takeover what the members of the case above report: it cannot tell the two apart, and
     * waits (ordering nothing) rather than risk the other case.
     */
    @Test
    void aGroupWhoseFoundingLeaderFailsDuringItsCheckWaits()
    {
        final HandWiredNet net = new HandWiredNet().foundingLeaderFailedDuringItsCheck();
        net.assertOneOrder();
        for (final int id : new int[] {2, 3, 4, 5})
        {
            assertEquals(0, net.delivered.get(id).size(), id + " waits: " + net.engines.get(id).deliverySummary());
        }
    }
}
