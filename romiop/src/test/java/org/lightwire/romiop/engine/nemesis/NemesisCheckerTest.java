package org.lightwire.romiop.engine.nemesis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.engine.nemesis.History.Completion;
import org.lightwire.romiop.engine.nemesis.History.Incarnation;
import org.lightwire.romiop.engine.nemesis.History.Reply;
import org.lightwire.romiop.engine.nemesis.NemesisChecker.Violation;

/** Tier 1: the checker and the link filter on hand-made histories, so that each kind of violation is seen to be caught. */
class NemesisCheckerTest
{
    private static final long MS = NemesisCluster.MS;
    private static final long BOUND = 1_000 * MS;

    private final History history = new History();
    private final NemesisChecker checker = new NemesisChecker(history);
    private final Incarnation a = new Incarnation(1, 1);
    private final Incarnation b = new Incarnation(2, 1);

    NemesisCheckerTest()
    {
        history.started(a);
        history.started(b);
        for (int r = 0; r < 10; r++)
        {
            history.sent("101/" + r, r * 100 * MS);
        }
    }

    private void deliver(final Incarnation by, final long seq, final String request, final long atNs)
    {
        checker.onDelivery(history.delivered(by, seq, request, atNs));
    }

    private void complete(final int clientId, final String request, final long seq, final long atNs)
    {
        final Completion c = new Completion(clientId, request, seq, atNs);
        history.completed(c);
        checker.onCompletion(c);
    }

    private Map<Violation, Integer> end(final long healNs)
    {
        return checker.checkEnd(List.of(a, b), List.of(101), healNs, BOUND, Map.of(), i -> i.toString()).counts();
    }

    /** Both members deliver 0..2 in one order; after the heal at 150 ms both deliver request 2 (sent at 200 ms) and the call succeeds. */
    private void agreeingRun()
    {
        for (int r = 0; r < 3; r++)
        {
            deliver(a, r + 1, "101/" + r, (r * 100 + 10) * MS);
            deliver(b, r + 1, "101/" + r, (r * 100 + 20) * MS);
        }
        history.replied(new Reply(101, 1, "101/2", 3, 215 * MS));
        complete(101, "101/2", 3, 225 * MS);
    }

    @Test
    void anAgreeingRunThatProgressesAfterTheHealPasses()
    {
        agreeingRun();
        assertTrue(checker.progressedSince(150 * MS, List.of(a, b), List.of(101)));
        assertEquals(Map.of(), end(150 * MS));
    }

    @Test
    void twoLiveMembersDeliveringDifferentRequestsAtOneOrderIsSplitBrain()
    {
        agreeingRun();
        deliver(a, 4, "101/3", 310 * MS);
        deliver(b, 4, "101/4", 410 * MS);
        assertEquals(Map.of(Violation.ORDER_DIVERGED, 1), checker.verdict().counts());
    }

    @Test
    void aCrashedMembersUnadoptedDeliveryIsCountedApart()
    {
        agreeingRun();
        deliver(a, 4, "101/3", 310 * MS);
        history.ended(a, 320 * MS);
        deliver(b, 4, "101/4", 410 * MS);
        assertEquals(Map.of(Violation.CRASHED_TAIL_REORDERED, 1), checker.verdict().counts());
    }

    @Test
    void aRequestDeliveredTwiceAndAnOrderNumberGoingBackAreCaught()
    {
        agreeingRun();
        // A rejoin that jumps back: order 2 again, with request 0 again.
        deliver(a, 2, "101/0", 400 * MS);
        final Map<Violation, Integer> counts = checker.verdict().counts();
        assertEquals(1, counts.get(Violation.DUPLICATE_DELIVERY));
        assertEquals(1, counts.get(Violation.SEQ_NOT_INCREASING));
        assertEquals(1, counts.get(Violation.ORDER_DIVERGED), "order 2 holds 101/1 elsewhere");
    }

    @Test
    void aReplyOrSuccessNamingAnotherOrderThanTheFinalOneIsCaught()
    {
        agreeingRun();
        history.replied(new Reply(101, 2, "101/1", 3, 300 * MS));
        complete(101, "101/0", 2, 310 * MS);
        final Map<Violation, Integer> counts = end(150 * MS);
        assertEquals(1, counts.get(Violation.ACCEPTED_REPLY_UNADOPTED));
        assertEquals(1, counts.get(Violation.COMPLETED_CALL_LOST));
    }

    @Test
    void noProgressAfterTheHealWithinTheBoundIsCaughtPerMemberAndClient()
    {
        agreeingRun();
        // Healed at 250 ms: nothing sent after it is delivered or completed in time; b delivers 101/3 too late.
        deliver(b, 4, "101/3", 250 * MS + BOUND + 1);
        assertFalse(checker.progressedSince(250 * MS, List.of(a, b), List.of(101)));
        final Map<Violation, Integer> counts = end(250 * MS);
        assertEquals(2, counts.get(Violation.MEMBER_STUCK));
        assertEquals(1, counts.get(Violation.CLIENT_STUCK));
    }

    private void install(final Incarnation by, final long cut, final long atNs, final String... seqAndRequest)
    {
        final java.util.List<ReplicaLog.Entry> entries = new java.util.ArrayList<>();
        for (final String e : seqAndRequest)
        {
            final String[] parts = e.split(" ");
            entries.add(new ReplicaLog.Entry(Long.parseLong(parts[0]), parts[1]));
        }
        checker.onInstall(history.installed(by, cut, entries, atNs));
    }

    @Test
    void aStateThatLacksAnOrderBeforeItsCutOrDisagreesWithTheOrderIsCaught()
    {
        agreeingRun();
        final Incarnation c = new Incarnation(3, 1);
        history.started(c);
        // Orders 1..3 are 101/0..2; c installs a state after order 3 without order 2.
        install(c, 3, 300 * MS, "1 101/0", "3 101/2");
        final Incarnation d = new Incarnation(4, 1);
        history.started(d);
        install(d, 2, 300 * MS, "1 101/0", "2 101/5");
        assertEquals(1, checker.verdict().counts().get(Violation.STATE_DIVERGED), "order 2 holds 101/1");
        final Map<Violation, Integer> counts = checker.checkEnd(List.of(), List.of(), 150 * MS, BOUND, Map.of(), i -> "").counts();
        assertEquals(2, counts.get(Violation.STATE_CUT_WRONG), "c lacks order 2; d has another request there");
    }

    @Test
    void aStateWholeUpToItsCutThenEveryOrderAfterItPasses()
    {
        agreeingRun();
        final Incarnation c = new Incarnation(3, 1);
        history.started(c);
        install(c, 2, 300 * MS, "1 101/0", "2 101/1");
        deliver(c, 3, "101/2", 310 * MS);
        assertEquals(Map.of(), checker.checkEnd(List.of(), List.of(), 150 * MS, BOUND, Map.of(), i -> "").counts());
    }

    @Test
    void goingOnPastAnOrderIsExcusedOnlyWhenItsRequestRanAtAnEarlierNumber()
    {
        agreeingRun();
        // a: order 4 holds 101/0 again (a later leader ordered it anew); a skips it (it ran it at 1) and goes on at 5.
        deliver(b, 4, "101/0", 400 * MS);
        deliver(a, 5, "101/3", 410 * MS);
        assertEquals(Map.of(Violation.DUPLICATE_DELIVERY, 1), checker.verdict().counts(), "b ran 101/0 twice");
        // b skips order 5 and runs 101/3 later, at 6: a different execution order, not excused.
        deliver(b, 6, "101/3", 420 * MS);
        final Map<Violation, Integer> counts = checker.checkEnd(List.of(), List.of(), 150 * MS, BOUND, Map.of(), i -> "").counts();
        assertEquals(1, counts.get(Violation.SKIPPED_ORDER));
    }

    @Test
    void linkCutsBlockOneDirectionOrEveryLinkAcrossSidesUntilHealed()
    {
        final LinkCuts links = new LinkCuts();
        links.cutOneWay("one", 1, 2);
        assertFalse(links.passes(1, 2));
        assertTrue(links.passes(2, 1));
        links.partition("p", List.of(List.of(1, 101), List.of(2, 3)));
        assertFalse(links.passes(3, 101));
        assertFalse(links.passes(101, 2));
        assertTrue(links.passes(2, 3));
        assertTrue(links.heal("p"));
        assertFalse(links.passes(1, 2), "the one-way cut is still in force");
        assertTrue(links.passes(3, 101));
        links.healAll();
        assertTrue(links.passes(1, 2));
    }

    /**
     * A stuck run is outside the failure model when more members than the group tolerates were
     * restarted and had not been readmitted (delivered or installed nothing) by the heal, or had
     * not delivered through its admission's reach; a restarted member that delivered that far
     * before the heal holds the group's memory again.
     */
    @Test
    void aStuckRunWithMostMembersRestartedAndNotReadmittedIsOutsideTheModel()
    {
        final Incarnation a2 = new Incarnation(1, 2);
        final Incarnation b2 = new Incarnation(2, 2);
        final Incarnation c = new Incarnation(3, 1);
        history.started(a2);
        history.started(b2);
        history.started(c);
        deliver(a2, 1, "101/0", 10 * MS);
        final NemesisChecker.Verdict oneReadmitted = checker.checkEnd(List.of(a2, b2, c), List.of(101), 150 * MS, BOUND, Map.of(), i -> "");
        assertEquals(Map.of(Violation.MEMBER_STUCK, 3, Violation.CLIENT_STUCK, 1), oneReadmitted.counts());
        assertEquals(null, oneReadmitted.outsideModel(), "1#2 delivered before the heal: one of three without memory");
        // Unless it was admitted with orders past what it delivered: its earlier incarnation may have held them.
        assertEquals(null, checker.checkEnd(List.of(a2, b2, c), List.of(101), 150 * MS, BOUND, Map.of(a2, 1L), i -> "").outsideModel(),
            "caught up");
        assertEquals("2 of 3 members restarted and not readmitted, or not caught up to their admission, at the heal",
            checker.checkEnd(List.of(a2, b2, c), List.of(101), 150 * MS, BOUND, Map.of(a2, 2L), i -> "").outsideModel());

        final History other = new History();
        final NemesisChecker fresh = new NemesisChecker(other);
        other.started(a2);
        other.started(b2);
        other.started(c);
        other.sent("101/5", 200 * MS);
        final NemesisChecker.Verdict noneReadmitted = fresh.checkEnd(List.of(a2, b2, c), List.of(101), 150 * MS, BOUND, Map.of(), i -> "");
        assertEquals("2 of 3 members restarted and not readmitted, or not caught up to their admission, at the heal", noneReadmitted.outsideModel());

        // Orders lost with the memory of every member that held them are excused: the group founds
        // anew, and a crashed incarnation's deliveries are ordered again.
        final Incarnation c0 = new Incarnation(3, 0);
        other.started(c0);
        fresh.onDelivery(other.delivered(c0, 1, "101/1", 20 * MS));
        other.ended(c0, 30 * MS);
        fresh.onDelivery(other.delivered(c, 1, "101/4", 250 * MS));
        final NemesisChecker.Verdict lost = fresh.checkEnd(List.of(a2, b2, c), List.of(101), 150 * MS, BOUND, Map.of(), i -> "");
        assertEquals(1, lost.counts().get(Violation.CRASHED_TAIL_REORDERED), lost.toString());
        assertEquals("2 of 3 members restarted and not readmitted, or not caught up to their admission, at the heal", lost.outsideModel());

        // A safety violation is never excused.
        fresh.onDelivery(other.delivered(a2, 1, "101/5", 300 * MS));
        fresh.onDelivery(other.delivered(a2, 2, "101/5", 310 * MS));
        assertEquals(null, fresh.checkEnd(List.of(a2, b2, c), List.of(101), 150 * MS, BOUND, Map.of(), i -> "").outsideModel());
    }
}
