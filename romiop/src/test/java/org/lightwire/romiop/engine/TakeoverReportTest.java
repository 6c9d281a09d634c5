package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.romiop.engine.OneEngine.feed;
import static org.lightwire.romiop.engine.OneEngine.runUntil;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.PacketType;

/**
 * What a member taking over counts as a survivor's report, and whom it yields to: one
 * MemberEngine, a hand-advanced clock, a recording sender. The nemesis simulation found each
 * (flap 98: a leader's KeepAlive counted as that member's report, so a takeover decided without
 * the orders that leader went on to commit).
 */
class TakeoverReportTest
{
    private static final long MS = OneEngine.MS;

    private final SentPackets sent = new SentPackets();

    private MemberEngine member(final int self, final int leader, final int... members)
    {
        return OneEngine.started(new GroupConfig(self, leader, members), sent);
    }

    private static ByteBuffer keepAlive(final int from, final int epoch, final long lastOrderSeq, final boolean report)
    {
        final ByteBuffer b = ByteBuffer.allocate(KeepAliveFlyweight.LENGTH);
        final KeepAliveFlyweight k = new KeepAliveFlyweight();
        k.wrap(b, 0);
        k.set(ByteOrder.BIG_ENDIAN, from, 60, epoch, lastOrderSeq, lastOrderSeq).header().report(report);
        return b;
    }

    private static ByteBuffer order(final int from, final int epoch, final long seq)
    {
        final ByteBuffer b = ByteBuffer.allocate(MsgOrderFlyweight.length(1));
        final MsgOrderFlyweight o = new MsgOrderFlyweight();
        o.wrap(b, 0);
        o.set(ByteOrder.BIG_ENDIAN, from, 70, epoch, seq, 1, 0);
        o.entry(0, 100, 1);
        return b;
    }

    /** A member of [1..5] whose leader 5, heard once, fell silent: the lowest id, it takes over at once. */
    private MemberEngine takingOver()
    {
        final MemberEngine m = member(1, 5, 1, 2, 3, 4, 5);
        feed(m, WirePackets.keepAlive(5, 1, 1, 0, 0), MS);
        runUntil(m, MS, 150 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        return m;
    }

    /**
     * As {@link #takingOver()}, but member 1 accepted order 1 of leader 5 (request 100/1), not yet
     * committed: a history, so that reports of more do not make it give up as a process that may
     * have been restarted.
     */
    private MemberEngine takingOverWithAHistory()
    {
        final MemberEngine m = member(1, 5, 1, 2, 3, 4, 5);
        feed(m, WirePackets.request(100, 1), MS / 2);
        feed(m, WirePackets.order(5, 70, 1, 1, 100, 1, 0), MS / 2);
        runUntil(m, MS, 150 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        return m;
    }

    /** Taking over with 3 reporting it delivered 5 and 4 reporting {@code fourDelivered}: at 260 ms it catches up to 5 from 3. */
    private MemberEngine catchingUpFromThree(final long fourDelivered)
    {
        final MemberEngine m = takingOverWithAHistory();
        feed(m, WirePackets.reportEnd(3, 60, 2, 5, 5, 0), 151 * MS);
        feed(m, WirePackets.reportEnd(4, 61, 2, fourDelivered, fourDelivered, 0), 151 * MS);
        runUntil(m, 152 * MS, 260 * MS);
        assertTrue(m.deliverySummary().endsWith("catching up to 5 from 3"), m.deliverySummary());
        return m;
    }

    @Test
    void aTakeoverCountsOnlyFlaggedReportsNotAnotherMembersKeepAlive()
    {
        final MemberEngine m = takingOverWithAHistory();
        // 3 and 4 lead, or catch up in takeovers of their own: their KeepAlives promise nothing.
        feed(m, keepAlive(3, 1, 0, false), 151 * MS);
        feed(m, keepAlive(4, 1, 0, false), 151 * MS);
        runUntil(m, 152 * MS, 400 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state(), "no report yet: 1 alone is no majority of five");
        // The takeover proposed epoch 3 after twice the KeepAlive timeout without a majority.
        feed(m, keepAlive(3, 3, 0, true), 401 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state(), "1 and 3 are no majority of five");
        feed(m, keepAlive(4, 3, 0, true), 402 * MS);
        runUntil(m, 403 * MS, 500 * MS);
        assertEquals(MemberEngine.State.LEADER_IDLE, m.state(), "reports of 3 and 4: a majority with 1");
    }

    /**
     * A KeepAlive of the epoch this member decided and leads, from a member other than its holder,
     * is no other leader's (found by a review): a former holder's late answer to a catch-up NAK
     * (stamped with the epoch it promised us), the same after every holder was tried, and a
     * follower telling us of that epoch. The takeover goes on.
     */
    @Test
    void keepAlivesOfTheEpochItLedFromNonLeadersDoNotEndTheTakeover()
    {
        final MemberEngine moved = catchingUpFromThree(5);
        runUntil(moved, 261 * MS, 470 * MS);
        assertTrue(moved.deliverySummary().endsWith("catching up to 5 from 4"), moved.deliverySummary());
        feed(moved, WirePackets.servesFrom(3, 90, 2, 5, 4), 471 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, moved.state(), "3's late answer: 3 leads nothing");

        final MemberEngine retried = catchingUpFromThree(5);
        runUntil(retried, 261 * MS, 680 * MS);
        assertTrue(retried.deliverySummary().endsWith("proposing epoch 3"), retried.deliverySummary());
        feed(retried, WirePackets.servesFrom(4, 91, 2, 5, 4), 681 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, retried.state(), "4's late answer after the retry");

        final MemberEngine told = catchingUpFromThree(5);
        feed(told, WirePackets.keepAlive(4, 92, 2, 0, 0), 261 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, told.state(), "4 telling us of epoch 2");
    }

    /**
     * The failed leader, alive after all and first holder of what is fixed, answers a catch-up NAK
     * late, after the takeover moved on to another holder: its KeepAlive, stamped with the epoch it
     * promised us, is flagged TOLD and proves no leader alive. Unflagged, it read as "the failed
     * leader leads our epoch": the takeover joined a member that leads nothing.
     */
    @Test
    void theFailedLeadersLateAnswerToACatchUpIsNoLeaderAlive()
    {
        final MemberEngine m = member(1, 2, 1, 2, 3, 4, 5);
        feed(m, WirePackets.request(100, 1), MS / 2);
        feed(m, WirePackets.order(2, 70, 1, 1, 100, 1, 0), MS / 2);
        runUntil(m, MS, 150 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        feed(m, WirePackets.reportEnd(2, 60, 2, 5, 5, 0), 151 * MS);
        feed(m, WirePackets.reportEnd(3, 61, 2, 5, 5, 0), 151 * MS);
        feed(m, WirePackets.reportEnd(4, 62, 2, 0, 0, 0), 151 * MS);
        feed(m, WirePackets.reportEnd(5, 63, 2, 0, 0, 0), 151 * MS);
        runUntil(m, 152 * MS, 260 * MS);
        assertTrue(m.deliverySummary().endsWith("catching up to 5 from 2"), m.deliverySummary());
        runUntil(m, 261 * MS, 470 * MS);
        assertTrue(m.deliverySummary().endsWith("catching up to 5 from 3"), m.deliverySummary());
        final long unexpected = m.counters().unexpectedPackets();
        feed(m, WirePackets.servesFrom(2, 90, 2, 5, 4), 471 * MS);
        assertEquals(List.of(MemberEngine.State.LEADER_RECOVERING, unexpected + 1), List.of(m.state(), m.counters().unexpectedPackets()),
            "2's late answer: 2 promised our epoch, it leads nothing");
        // The same KeepAlive unflagged is the failed leader's own, of our epoch: a leader alive after all.
        feed(m, WirePackets.keepAlive(2, 91, 2, 5, 5), 472 * MS);
        assertEquals(List.of(MemberEngine.State.JOINING, 2), List.of(m.state(), m.leaderId()));
    }

    /**
     * 1 of [1, 2, 3] takes over from 2 (epoch 2) with 3's report of 40 delivered; 3 falls silent,
     * and 1 retries, proposing epoch 3.
     */
    private MemberEngine retriedWithEpochThree()
    {
        final MemberEngine t = member(1, 2, 1, 2, 3);
        feed(t, WirePackets.request(100, 1), MS / 2);
        feed(t, WirePackets.order(2, 70, 1, 1, 100, 1, 0), MS / 2);
        runUntil(t, MS, 150 * MS);
        feed(t, WirePackets.reportEnd(3, 61, 2, 40, 40, 0), 151 * MS);
        runUntil(t, 152 * MS, 160 * MS);
        long now = 161 * MS;
        while (t.counters().takeoversRetried() == 0 && now < 2_000 * MS)
        {
            t.onTimer(now);
            now += MS;
        }
        assertEquals(List.of(MemberEngine.State.LEADER_RECOVERING, 1L), List.of(t.state(), t.counters().takeoversRetried()));
        assertTrue(t.deliverySummary().endsWith("proposing epoch 3"), t.deliverySummary());
        return t;
    }

    /**
     * A survivor's flagged word is stamped with the epoch it promised last, which may be our own
     * retry's (found by a review: 3 promised our epoch 3, then answered a late NAK of round 2).
     * Only a flagged epoch newer than the one we proposed says another takeover won.
     */
    @Test
    void aFlaggedWordOfOurOwnProposalIsNoReasonToGiveUpANewerOneIs()
    {
        final MemberEngine ours = retriedWithEpochThree();
        feed(ours, WirePackets.servesFrom(3, 95, 3, 40, 41), 2_001 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, ours.state(), "3 promised our epoch 3: it leads nothing");

        final MemberEngine newer = retriedWithEpochThree();
        feed(newer, WirePackets.servesFrom(3, 95, 4, 40, 41), 2_001 * MS);
        assertEquals(MemberEngine.State.JOINING, newer.state(), "3 promised epoch 4 to another: ours is lost");
    }

    /**
     * A takeover that yielded to a newer proposal (it follows 2, promised epoch 4) takes a member's
     * flagged word of epoch 3 for nothing: no newer than what it promised (found by a review: it
     * rejoined toward 3, which leads nothing).
     */
    @Test
    void aYieldedTakeoverTakesAFlaggedWordOfAnOlderPromiseForNothing()
    {
        final MemberEngine t = retriedWithEpochThree();
        feed(t, WirePackets.takeover(2, 3, 4, 1, 40), 2_001 * MS);
        assertEquals(List.of(MemberEngine.State.MEMBER, 2), List.of(t.state(), t.leaderId()));
        final long left = t.counters().staleLeadersLeft();
        feed(t, WirePackets.servesFrom(3, 96, 3, 40, 41), 2_002 * MS);
        assertEquals(List.of(MemberEngine.State.MEMBER, 2, left), List.of(t.state(), t.leaderId(), t.counters().staleLeadersLeft()));
    }

    @Test
    void aTakeoverThatHearsALeaderOfANewerEpochOrderJoinsItsGroup()
    {
        final MemberEngine m = takingOver();
        feed(m, order(3, 2, 1), 151 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        assertEquals(3, m.leaderId());
        assertEquals(1, m.counters().staleLeadersLeft());
        feed(m, keepAlive(3, 2, 0, true), 152 * MS);
        feed(m, keepAlive(4, 2, 0, true), 152 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state(), "reports to a takeover given up are nothing");
    }

    @Test
    void aTakeoverYieldsToALowerIdOfItsConfigurationOutsideItsView()
    {
        // Leader 1 removed 2 from the view [1..4]; 2 stays in the configuration (silence does not shrink it).
        final MemberEngine m = member(3, 1, 1, 2, 3, 4);
        final ByteBuffer list = ByteBuffer.allocate(MemberChangeFlyweight.listLength(3));
        final MemberChangeFlyweight l = new MemberChangeFlyweight();
        l.wrap(list, 0);
        l.setList(ByteOrder.BIG_ENDIAN, 1, 80, 1, 3, 1).member(0, 1).member(1, 3).member(2, 4);
        feed(m, list, MS);
        runUntil(m, 2 * MS, 150 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state(), "3 is the lowest id left of its view [3, 4]");
        sent.clear();
        final ByteBuffer removed = ByteBuffer.allocate(MemberChangeFlyweight.length(1));
        final MemberChangeFlyweight r = new MemberChangeFlyweight();
        r.wrap(removed, 0);
        // 2 proposes the epoch 3 proposed (2): the lower id wins the tie.
        r.set(ByteOrder.BIG_ENDIAN, 2, 81, 1, MemberChangeFlyweight.STATUS_REMOVED, 1).member(0, 2);
        feed(m, removed, 151 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state(), "2 takes over too, and is the lower id");
        assertEquals(2, m.leaderId());
        final long reportsTo2 = sent.all.stream().filter(s -> s.to() == 2 && s.type() == PacketType.KEEP_ALIVE).count();
        assertEquals(1, reportsTo2, "its report ends with one flagged KeepAlive to 2");
        assertEquals(true, sent.keepAlives().get(0).header().report());
    }

    @Test
    void aReportForAnEarlierProposalArrivingLateIsNotCounted()
    {
        final MemberEngine m = takingOverWithAHistory();
        runUntil(m, 151 * MS, 400 * MS);
        assertTrue(m.deliverySummary().endsWith("proposing epoch 3"), m.deliverySummary());
        // 3 and 4 reported for epoch 2 long ago; their reports come in late. Each may have
        // promised epoch 3 to another takeover since: they count for nothing here.
        feed(m, keepAlive(3, 2, 0, true), 401 * MS);
        feed(m, keepAlive(4, 2, 0, true), 401 * MS);
        runUntil(m, 402 * MS, 500 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        assertEquals(2, m.counters().staleReportsIgnored());
        feed(m, keepAlive(3, 3, 0, true), 501 * MS);
        feed(m, keepAlive(4, 3, 0, true), 501 * MS);
        runUntil(m, 502 * MS, 600 * MS);
        assertEquals(MemberEngine.State.LEADER_IDLE, m.state(), "their reports for epoch 3");
    }
    /**
     * Two takeovers at once, each naming the other's member failed (partition 1071: 1 took over
     * from 2, 3 from 1, and each ignored the other's takeover as "a member that thinks we
     * failed", for good). A takeover is no leader: one proposing a newer epoch wins it over.
     */
    @Test
    void aTakeoverNamingThisTakeoverFailedWithANewerEpochIsReportedTo()
    {
        final MemberEngine m = takingOver();
        feed(m, WirePackets.takeover(3, 1, 4, 1, 0), 151 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        assertEquals(3, m.leaderId());
        assertTrue(sent.keepAlives().stream().anyMatch(k -> k.header().report() && k.epoch() == 4), "its report, promising epoch 4");
    }

    /**
     * Its leader taking over from a member this member still has in its view (their views
     * differ) is not leading either: the member reports to it (flap 7942: two followers ignored
     * their leader's takeover from 3, which proposed epochs past 50 for good).
     */
    @Test
    void aMemberReportsToItsLeadersTakeoverFromAMemberOfItsView()
    {
        final MemberEngine m = member(2, 1, 1, 2, 3, 4);
        feed(m, WirePackets.takeover(1, 3, 2, 1, 0), MS);
        assertEquals(1, m.leaderId());
        assertTrue(sent.keepAlives().stream().anyMatch(k -> k.header().report() && k.epoch() == 2), "its report, promising epoch 2");
    }

    /**
     * A takeover by a member that is not this member's successor: reported to only once this
     * member has not heard its leader for the KeepAlive timeout itself (mixed 1971: a member
     * awaiting a state never considered the member taking over, outside its view, and never
     * reported to it). A member that still hears its leader keeps following it.
     */
    @Test
    void aMemberReportsToAnotherMembersTakeoverOnlyOnceItNoLongerHearsItsLeader()
    {
        final MemberEngine hearing = member(3, 1, 1, 2, 3, 4);
        feed(hearing, WirePackets.keepAlive(1, 50, 1, 0, 0), 40 * MS);
        feed(hearing, WirePackets.takeover(4, 1, 2, 1, 0), 50 * MS);
        assertEquals(1, hearing.leaderId(), "its leader was heard 10 ms ago");
        assertEquals(0, sent.keepAlives().stream().filter(k -> k.header().report()).count());

        final MemberEngine silent = member(3, 1, 1, 2, 3, 4);
        feed(silent, WirePackets.keepAlive(1, 50, 1, 0, 0), 40 * MS);
        feed(silent, WirePackets.takeover(4, 1, 2, 1, 0), 141 * MS);
        assertEquals(4, silent.leaderId(), "its leader silent for 101 ms");
        assertTrue(sent.keepAlives().stream().anyMatch(k -> k.header().report() && k.epoch() == 2), "its report, promising epoch 2");
    }

    /** A leader that runs a takeover naming this member failed is not leading: the member reports to it. */
    @Test
    void aMemberReportsToItsLeadersTakeoverThatNamesItFailed()
    {
        final MemberEngine m = member(2, 1, 1, 2, 3);
        feed(m, WirePackets.takeover(1, 2, 2, 1, 0), MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        assertEquals(1, m.leaderId());
        assertTrue(sent.keepAlives().stream().anyMatch(k -> k.header().report() && k.epoch() == 2), "its report, promising epoch 2");
    }

    /**
     * A member that awaits a state passes itself over as its silent leader's successor; when the
     * next one takes over it stays in its own view (it removed itself with the passed-over
     * candidates, and so never counted itself again).
     */
    @Test
    void aMemberThatPassedItselfOverStaysInItsViewWhenItFollowsTheNextCandidate()
    {
        // A restarted member of [1..4]: it learns two others' epochs before it is admitted.
        final MemberEngine m = OneEngine.started(GroupConfig.joining(4, 1, 2, 3, 4), sent, (seq, c, p, r, b, o, l) -> { },
            new CaptureRecorder(new java.util.ArrayList<>()));
        final int nonce = sent.lastEpochAskNonce();
        feed(m, WirePackets.leaderTold(1, 70, 4, nonce, 1, 10), 0);
        feed(m, WirePackets.epochTold(2, 71, 4, nonce, 1), 0);
        feed(m, WirePackets.list(1, 80, 2, 4), MS);
        feed(m, WirePackets.start(1, 81, 1, 10, 10), 2 * MS);
        assertEquals(1, m.counters().stateTransfers(), "admitted past order 10: it awaits a state");
        runUntil(m, 3 * MS, 300 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state(), "awaiting a state, it takes nothing over");
        feed(m, WirePackets.takeover(2, 1, 2, 1, 10), 301 * MS);
        assertEquals(2, m.leaderId());
        assertTrue(java.util.Arrays.stream(m.currentMembers()).anyMatch(id -> id == 4), java.util.Arrays.toString(m.currentMembers()));
    }
    /**
     * The survivor a takeover catches up from falls silent and no other reporter delivered the
     * target: the takeover proposes the next epoch and gathers reports again (partition 120 waited
     * for good), its target never below what it fixed; a reporter that delivered exactly that
     * serves it (it had chosen itself, and NAKed itself).
     */
    @Test
    void aCatchUpWithNoHolderLeftProposesTheNextEpochAndKeepsItsTarget()
    {
        final MemberEngine m = catchingUpFromThree(0);
        // Decided once the silent 2 and 5 were dropped (a KeepAlive timeout after the takeover
        // began); nothing came from 3 for twice the KeepAlive timeout since.
        runUntil(m, 261 * MS, 500 * MS);
        assertTrue(m.deliverySummary().endsWith("proposing epoch 3"), m.deliverySummary());
        assertEquals(1, m.counters().takeoversRetried());
        feed(m, WirePackets.reportEnd(3, 62, 3, 5, 5, 0), 501 * MS);
        feed(m, WirePackets.reportEnd(4, 63, 3, 0, 0, 0), 501 * MS);
        runUntil(m, 502 * MS, 510 * MS);
        assertTrue(m.deliverySummary().endsWith("catching up to 5 from 3"), m.deliverySummary());
    }

    /**
     * Every reporter that said it delivered the target was tried and none sent anything (each
     * had fixed the target in a takeover of its own and did not hold it; oneway 6739 cycled
     * between two such for good while the member that held it was joining): the takeover
     * proposes the next epoch, and a joiner that holds the target reports to it.
     */
    @Test
    void aCatchUpThatTriedEveryHolderWithoutProgressProposesTheNextEpoch()
    {
        final MemberEngine m = catchingUpFromThree(5);
        runUntil(m, 261 * MS, 470 * MS);
        assertTrue(m.deliverySummary().endsWith("catching up to 5 from 4"), m.deliverySummary());
        assertEquals(1, m.counters().catchUpsRetried());
        runUntil(m, 471 * MS, 680 * MS);
        assertTrue(m.deliverySummary().endsWith("proposing epoch 3"), m.deliverySummary());
        assertEquals(1, m.counters().catchUpsRetried(), "3 was tried already");
        assertEquals(1, m.counters().takeoversRetried());
    }

    /**
     * The failed leader stepped down and reports to the takeover (it promises the proposed
     * epoch, which no live leader does): its report counts, order entries included. It was read
     * as "the failed leader is alive", which ended the takeover each time (restart 125, mixed
     * 1023: a takeover that needed that report proposed epochs past 50).
     */
    @Test
    void theFailedLeadersReportCountsWithItsOrders()
    {
        final MemberEngine m = takingOverWithAHistory();
        feed(m, WirePackets.reportEnd(3, 60, 2, 0, 0, 0), 151 * MS);
        // 5 accepted order 1 and reports it.
        feed(m, WirePackets.reportEntry(5, 61, 1, 1, 100, 1), 151 * MS);
        feed(m, WirePackets.reportEnd(5, 62, 2, 0, 1, 1), 151 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state(), "5's report is no sign that it leads");
        assertEquals(0, m.counters().incompleteReports(), "its entry arrived with it");
        runUntil(m, 152 * MS, 300 * MS);
        assertTrue(m.state() == MemberEngine.State.LEADER_IDLE || m.state() == MemberEngine.State.LEADER_BATCHING,
            "1, 3 and 5 are a majority of five: " + m.deliverySummary());
    }
}
