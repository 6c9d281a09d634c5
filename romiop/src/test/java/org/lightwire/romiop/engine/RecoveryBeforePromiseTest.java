package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Answers to a recovery ask sent before their senders promised a takeover (docs/romiop.md,
 * "Incarnations"), with or without start counts: a restarted process learns the members' epochs
 * from n - m + 1 others, which meets any majority that took its earlier incarnation's promise
 * only if those members had promised before they answered. A takeover counts the earlier
 * incarnation's report at once; the rest of its majority may promise later, and a member
 * answering in between tells an older epoch. Without the incarnations each answerer knows and
 * carries in its report ({@link KnownIncarnations}), the restart takes the older epoch's orders
 * while the takeover still counts its forgotten report, and both sequences break the order. On a
 * {@link HandWiredNet}.
 */
class RecoveryBeforePromiseTest
{
    /**
     * [1..5] founded, 100/1 committed by all. 2, cut off from 1 and 5, takes over (epoch 3); 4
     * reports to it, then restarts, cut off from 2. 3 has not heard 2 yet: the restarted 4 learns
     * epoch 2 from 1, 3 and 5, rejoins, and 1 admits it. 3 then hears 2 and reports: 2 decides with
     * {2, 3, the earlier 4} and orders 400/1 at 2, while 1 commits 300/1 at 2 with {1, 4, 5}.
     */
    @Test
    void aRejoinedRestartLearnsFromAnswersSentBeforeTheirSendersPromised()
    {
        answerBeforePromise(new HandWiredNet());
    }

    @Test
    void aRejoinedRestartLearnsFromAnswersSentBeforeTheirSendersPromisedCountingStarts()
    {
        answerBeforePromise(new HandWiredNet().countingStarts());
    }

    private static void answerBeforePromise(final HandWiredNet net)
    {
        final int[] all = {1, 2, 3, 4, 5};
        fourRestartedAfterReportingToTwo(net, all);
        threeHearsOnlyTwoThenTwoLeaders(net, all);
    }

    /**
     * Counting starts, the founding-check form. [1..5]; 3 and 5 do not hear 1 at first. 2 and 4
     * promise 1's check (epoch 2), then stop hearing 1; 2 takes over (epoch 3) and 4 reports to it.
     * 4 restarts (count 2), cut off from 2, and learns the epochs from 1, 3 and 5, which promised
     * nothing yet: it promises 1's check, as 3 and 5 do once they hear 1, and the check passes (2's
     * promise came first). 3 then reports to 2: 2 decides with {2, 3, the earlier 4} while 1 orders
     * with {1, 4, 5}.
     */
    @Test
    void aKnownRestartLearnsFromAnswersSentBeforeTheirSendersPromised()
    {
        final int[] all = {1, 2, 3, 4, 5};
        final HandWiredNet net = new HandWiredNet().countingStarts();
        net.cutOneWay(1, 3);
        net.cutOneWay(1, 5);
        net.cutOneWay(2, 3);
        net.cutOneWay(2, 5);
        for (final int id : all)
        {
            net.add(id, new GroupConfig(id, 1, all));
        }
        net.runMs(25);
        net.cutOneWay(1, 2);
        net.cutOneWay(1, 4);
        fourFollowsTwoThenRestarts(net, all);
        net.runMs(2);
        net.mend(1, 3);
        net.mend(1, 5);
        net.cutOneWay(1, 2);
        net.runMs(25);
        net.cutBetween(new int[] {1, 4, 5}, new int[] {3});
        net.mend(2, 3);
        twoLeadersThenHeal(net, all);
    }

    /**
     * The first sequence, and 3, which answered the restarted 4's ask, restarts before it reports
     * to 2 (found by a review): its later incarnation learns the epochs from 1, the new 4 and 5, is
     * admitted by 1 and reports to 2, and 2 would count {2, the new 3, the earlier 4} while 1
     * commits with {1, 4, 5}. The new 3 knows the new 4's incarnation from the answers it merged
     * (each answer carries the incarnations its sender knows, and its sender's own).
     */
    @Test
    void anAnswererThatRestartsBeforeItReportsLearnsTheRestartAgain()
    {
        answererRestarts(new HandWiredNet(), new GroupConfig(3, 1, 1, 2, 3, 4, 5));
    }

    @Test
    void anAnswererThatRestartsBeforeItReportsLearnsTheRestartAgainCountingStarts()
    {
        answererRestarts(new HandWiredNet().countingStarts(), new GroupConfig(3, 1, 1, 2, 3, 4, 5));
    }

    @Test
    void anAnswererThatRestartsAsAJoinerBeforeItReportsLearnsTheRestartAgain()
    {
        answererRestarts(new HandWiredNet(), GroupConfig.joining(3, 1, 2, 3, 4, 5));
    }

    private static void answererRestarts(final HandWiredNet net, final GroupConfig threeRestarted)
    {
        final int[] all = {1, 2, 3, 4, 5};
        fourRestartedAfterReportingToTwo(net, all);
        assertEquals(MemberEngine.State.MEMBER, net.engines.get(4).state(), "the new 4 was admitted by 1");
        net.cutOneWay(3, 2);
        net.restart(3, threeRestarted);
        for (int ms = 0; ms < 100 && net.engines.get(3).state() != MemberEngine.State.MEMBER; ms++)
        {
            net.runMs(1);
        }
        assertEquals(MemberEngine.State.MEMBER, net.engines.get(3).state(), "the new 3 was admitted by 1");
        net.runMs(10);
        threeHearsOnlyTwoThenTwoLeaders(net, all);
    }

    /**
     * Seven members, two restarts (found by a second review): 2 takes over (epoch 3) and 4
     * reports to it; 4 restarts and its asks reach only 3, which answers and restarts too; the new
     * 3 learns from 1, 5, 6 and 7 before any of them heard the new 4, is admitted by 1, and
     * reports to 2 with 5. Only then do the new 4's asks reach 1, 6 and 7. Had the new 4 learned
     * from {the earlier 3, 1, 6, 7}, 2 would count {2, the new 3, the earlier 4, 5}, none of which
     * names the new 4, while 1 commits with {1, 4, 6, 7}. An answer of an incarnation older than one
     * known counts for no learning: 1, 6 and 7 name the new 3, so the new 4 needs another answer.
     */
    @Test
    void anAnswererThatRestartsBeforeItHeardOfTheRestartItAnsweredInAGroupOfSeven()
    {
        answererRestartsAmongSeven(new HandWiredNet());
    }

    @Test
    void anAnswererThatRestartsBeforeItHeardOfTheRestartItAnsweredInAGroupOfSevenCountingStarts()
    {
        answererRestartsAmongSeven(new HandWiredNet().countingStarts());
    }

    private static void answererRestartsAmongSeven(final HandWiredNet net)
    {
        final int[] all = {1, 2, 3, 4, 5, 6, 7};
        net.founded(all);
        net.runMs(30);
        net.request(100, 1, all);
        net.runMs(30);
        net.cutOneWay(1, 2);
        net.cutOneWay(1, 4);
        for (final int id : new int[] {3, 5, 6, 7})
        {
            net.cutOneWay(2, id);
        }
        for (int ms = 0; ms < 400 && net.engines.get(4).leaderId() != 2; ms++)
        {
            net.runMs(1);
        }
        assertEquals(2, net.engines.get(4).leaderId(), "4 reported to 2");
        net.cutBetween(new int[] {2}, new int[] {4});
        net.mend(1, 4);
        for (final int id : new int[] {1, 5, 6, 7})
        {
            net.cutOneWay(4, id);
        }
        net.restart(4, GroupConfig.joining(4, all));
        for (int ms = 0; ms < 100 && net.engines.get(3).counters().epochAsksAnswered() == 0; ms++)
        {
            net.runMs(1);
        }
        assertEquals(true, net.engines.get(3).counters().epochAsksAnswered() > 0, "3 answered the new 4");
        net.cutOneWay(4, 3);
        net.cutOneWay(3, 2);
        net.restart(3, GroupConfig.joining(3, all));
        for (int ms = 0; ms < 200 && net.engines.get(3).state() != MemberEngine.State.MEMBER; ms++)
        {
            net.runMs(1);
        }
        assertEquals(MemberEngine.State.MEMBER, net.engines.get(3).state(), "the new 3 was admitted by 1");
        net.mend(4, 1);
        net.mend(4, 6);
        net.mend(4, 7);
        net.cutBetween(new int[] {1}, new int[] {3, 5});
        net.mend(2, 3);
        net.mend(2, 5);
        net.cutBetween(new int[] {2, 3, 5}, new int[] {4, 6, 7});
        net.cutOneWay(2, 1);
        for (int ms = 0; ms < 400 && net.engines.get(2).epoch() < 3; ms++)
        {
            net.runMs(1);
        }
        net.runMs(50);
        net.request(300, 1, 1, 4, 6, 7);
        net.request(400, 1, 2, 3, 5);
        net.runMs(150);
        net.heal();
        net.runMs(1500);
        net.request(500, 1, all);
        net.runMs(300);
        net.assertOneOrder();
    }

    /** [1..5] founded, 100/1 committed by all; 2, cut off from 1 and 5, takes over; 4 reports to it, then restarts, heard by 1 only. */
    private static void fourRestartedAfterReportingToTwo(final HandWiredNet net, final int[] all)
    {
        net.founded(all);
        net.runMs(30);
        net.request(100, 1, all);
        net.runMs(30);
        net.cutBetween(new int[] {2}, new int[] {1, 5});
        net.cutOneWay(2, 3);
        net.cutOneWay(1, 4);
        fourFollowsTwoThenRestarts(net, all);
        net.runMs(30);
    }

    /** Runs until 4 follows 2's takeover (it reported to it), then restarts 4 cut off from 2 and heard by 1. */
    private static void fourFollowsTwoThenRestarts(final HandWiredNet net, final int[] all)
    {
        for (int ms = 0; ms < 400 && net.engines.get(4).leaderId() != 2; ms++)
        {
            net.runMs(1);
        }
        net.cutBetween(new int[] {2}, new int[] {4});
        net.mend(1, 4);
        net.restart(4, new GroupConfig(4, 1, all));
    }

    /** 3 hears 2 again and nobody else; 2 and 4 cut apart; then {@link #twoLeadersThenHeal}. */
    private static void threeHearsOnlyTwoThenTwoLeaders(final HandWiredNet net, final int[] all)
    {
        net.mend(2, 3);
        net.cutBetween(new int[] {2}, new int[] {4});
        net.cutBetween(new int[] {1}, new int[] {3});
        net.cutBetween(new int[] {4, 5}, new int[] {3});
        twoLeadersThenHeal(net, all);
    }

    /** Runs until 2 leads epoch 3; 300/1 to 1, 4 and 5, 400/1 to 2 and 3; heals; 500/1 to all; checks one order. */
    private static void twoLeadersThenHeal(final HandWiredNet net, final int[] all)
    {
        for (int ms = 0; ms < 300 && net.engines.get(2).epoch() != 3; ms++)
        {
            net.runMs(1);
        }
        net.request(300, 1, 1, 4, 5);
        net.request(400, 1, 2, 3);
        net.runMs(150);
        net.heal();
        net.runMs(1500);
        net.request(500, 1, all);
        net.runMs(300);
        net.assertOneOrder();
    }
}
