package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lightwire.romiop.engine.OneEngine.feed;
import static org.lightwire.romiop.engine.OneEngine.runUntil;
import static org.lightwire.romiop.engine.WirePackets.added;
import static org.lightwire.romiop.engine.WirePackets.keepAlive;
import static org.lightwire.romiop.engine.WirePackets.list;
import static org.lightwire.romiop.engine.WirePackets.order;
import static org.lightwire.romiop.engine.WirePackets.orderAck;
import static org.lightwire.romiop.engine.WirePackets.request;
import static org.lightwire.romiop.engine.WirePackets.start;
import static org.lightwire.romiop.engine.WirePackets.takeover;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/**
 * A process restarted with the same id forgot what its earlier incarnation accepted and promised:
 * it reports to no takeover (a report of "nothing accepted" could let the takeover miss an order
 * that incarnation helped commit) until a leader has admitted it and set where it starts. One
 * MemberEngine, a hand-advanced clock, a recording sender.
 */
class AmnesiaTest
{
    private static final long MS = OneEngine.MS;
    private static final int CLIENT = 100;

    private final SentPackets sent = new SentPackets();

    private long reportsSent()
    {
        return sent.keepAlives().stream().filter(k -> k.header().report()).count();
    }

    @Test
    void aFoundingMemberRemovedBeforeItAcceptedAnythingReportsToNoTakeoverUntilALeaderAdmitsIt()
    {
        // Member 3 of [1, 2, 3], removed by leader 1's LIST [1, 2] before it accepted any order (a
        // leader removes a restarted process that asks for orders it forgot): it rejoins, unproven.
        final MemberEngine m = OneEngine.started(new GroupConfig(3, 1, 1, 2, 3), sent);
        feed(m, list(1, 80, 2), MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        assertEquals(1, m.counters().foundingRejoins());
        feed(m, takeover(2, 1, 2, 1, 30), 2 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        assertEquals(0, reportsSent(), "an earlier process with its id may have accepted orders 1..30");
        assertEquals(1, m.counters().unadmittedReportsWithheld());

        // It asks the members' epochs before it asks to join: 1 and 2 (two of [1, 2, 3] besides it) tell epoch 2.
        final int nonce = sent.lastEpochAskNonce();
        feed(m, WirePackets.epochTold(1, 70, 3, nonce, 2), 3 * MS);
        feed(m, WirePackets.leaderTold(2, 71, 3, nonce, 2, 30), 3 * MS);
        assertEquals(1, m.counters().epochsLearned());
        // Leader 2 (epoch 2) admits it from its commit, 30, on.
        feed(m, list(2, 81, 1, 3), 3 * MS);
        feed(m, start(2, 82, 2, 30, 30), 4 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        assertEquals(30, m.deliveredSeq());

        // Removed again (say, its ACKs were lost), it rejoins with a history now; leader 2 fails
        // and its successor 1 takes over: this member's report is what it holds.
        feed(m, list(2, 83, 1), 5 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        feed(m, takeover(1, 2, 3, 2, 30), 6 * MS);
        assertEquals(1, reportsSent());
        assertEquals(30, sent.keepAlives().stream().filter(k -> k.header().report()).findFirst().orElseThrow().lastOrderSeq());
        assertEquals(1, m.leaderId());
        assertEquals(1, m.counters().foundingRejoins());
    }

    @Test
    void aFoundingMemberWhoseLeaderLeadsANewerEpochRejoinsAndReportsToNoTakeover()
    {
        // Member 3 restarted from the founding configuration (leader 1, epoch 1), accepted
        // nothing; leader 1, back from a pause, still leads epoch 3: the group has a history.
        final MemberEngine m = OneEngine.started(new GroupConfig(3, 1, 1, 2, 3), sent);
        feed(m, keepAlive(1, 80, 3, 294, 294), MS);
        assertEquals(MemberEngine.State.JOINING, m.state(), "it may be a restarted process");
        assertEquals(1, m.counters().foundingRejoins());
        // Leader 1 takes over with its history (epoch 3, delivered 294): no report of "nothing accepted".
        feed(m, takeover(1, 2, 4, 3, 294), 2 * MS);
        assertEquals(0, reportsSent());
        assertEquals(1, m.counters().unadmittedReportsWithheld());
    }

    @Test
    void aRestartedJoinerKnowsNoConfigurationToReportIn()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(3, 1, 2, 3), sent);
        feed(m, takeover(2, 1, 2, 1, 30), MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        assertEquals(0, reportsSent());
    }

    @Test
    void aFoundingMemberThatAcceptedNothingTakesATakeoverWithHistoryForItsRestart()
    {
        final MemberEngine restarted = OneEngine.started(new GroupConfig(3, 1, 1, 2, 3), sent);
        feed(restarted, takeover(2, 1, 2, 1, 30), MS);
        assertEquals(MemberEngine.State.JOINING, restarted.state(), "the group delivered 30 orders it knows nothing of");
        assertEquals(0, reportsSent());
        assertEquals(1, restarted.counters().foundingRejoins());
        // It stays unproven while it joins: the takeover repeated is not reported to either.
        feed(restarted, takeover(2, 1, 2, 1, 30), 2 * MS);
        assertEquals(0, reportsSent());

        // The same takeover at a first start (its sender delivered nothing, still in epoch 1) is reported to.
        final SentPackets firstStartSent = new SentPackets();
        final MemberEngine firstStart = OneEngine.started(new GroupConfig(3, 1, 1, 2, 3), firstStartSent);
        feed(firstStart, takeover(2, 1, 2, 1, 0), MS);
        assertEquals(MemberEngine.State.MEMBER, firstStart.state());
        assertEquals(1, firstStartSent.keepAlives().stream().filter(k -> k.header().report()).count());
        assertEquals(0, firstStart.counters().foundingRejoins());
    }

    @Test
    void aFoundingMemberThatAcceptedAnOrderReportsToATakeoverWithHistory()
    {
        final MemberEngine m = OneEngine.started(new GroupConfig(3, 1, 1, 2, 3), sent);
        feed(m, request(CLIENT, 1), MS);
        feed(m, order(1, 90, 1, 1, CLIENT, 1, 0), 2 * MS);
        feed(m, takeover(2, 1, 2, 1, 30), 3 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        assertEquals(2, m.leaderId());
        assertEquals(1, reportsSent());
        assertEquals(1, sent.keepAlives().stream().filter(k -> k.header().report()).findFirst().orElseThrow().lastOrderSeq(),
            "it delivered order 1 (a group of three commits with two)");
    }

    @Test
    void anOrderAckOfTheFoundingEpochCountsForNothingOnceTheCheckPassed()
    {
        // The check passed: every member promised the next epoch, in which this leader orders. An
        // OrderAck of the founding epoch for 50 orders (our id's earlier process gave them, and the
        // ACK was delayed past our check) is stale: it commits nothing and proves nothing.
        final MemberEngine leader = OneEngine.started(new GroupConfig(1, 1, 1, 2, 3).orderInterval(0, true), sent);
        feed(leader, request(CLIENT, 1), MS);
        runUntil(leader, 2 * MS, 3 * MS);
        assertEquals(OneEngine.ORDERING_EPOCH, sent.orders().get(0).epoch());
        feed(leader, orderAck(2, 10, MemberEngine.FOUNDING_EPOCH, 50), 4 * MS);
        assertEquals(1, leader.counters().staleEpochPackets());
        assertEquals(0, leader.deliveredSeq());
        assertEquals(MemberEngine.State.LEADER_IDLE, leader.state());
        feed(leader, orderAck(2, 11, OneEngine.ORDERING_EPOCH, 1), 5 * MS);
        assertEquals(1, leader.deliveredSeq(), "its own order 1, committed with member 2 in its epoch");
    }

    @Test
    void aDelayedOrderOfTheFoundingEpochIsStaleToAMemberThatAnsweredTheCheck()
    {
        // Member 2 answered its founding leader's check, promising the next epoch; a MsgOrder of
        // the founding epoch (an earlier process of the leader's id sent it, delayed past that
        // process's restart) is not taken, though a group of three delivers on its own acceptance.
        final MemberEngine member = OneEngine.started(new GroupConfig(2, 1, 1, 2, 3), sent);
        OneEngine.promised(member, 1, MS);
        feed(member, request(CLIENT, 1), 2 * MS);
        feed(member, WirePackets.order(1, 90, MemberEngine.FOUNDING_EPOCH, 1, CLIENT, 1, 0), 3 * MS);
        assertEquals(0, member.deliveredSeq());
        assertEquals(1, member.counters().staleEpochPackets());
        // The leader's order in the epoch promised to it is taken.
        feed(member, WirePackets.order(1, 91, OneEngine.ORDERING_EPOCH, 1, CLIENT, 1, 0), 4 * MS);
        assertEquals(1, member.deliveredSeq());
        assertEquals(MemberEngine.State.MEMBER, member.state());
    }

    @Test
    void aFoundingLeaderThatOrderedNothingLeadsNoTakeoverForAJoinersPromise()
    {
        // Member 3 reported for epoch 5, to a takeover that never finished: the group had a
        // history past our founding epoch, and we, restarted for all we know, remember none of it.
        final MemberEngine leader = OneEngine.checking(new GroupConfig(1, 1, 1, 2, 3), sent);
        feed(leader, added(3, 30, 5), MS);
        assertEquals(MemberEngine.State.JOINING, leader.state());
        assertEquals(0, leader.counters().selfTakeovers());
        assertEquals(1, leader.counters().foundingRejoins());
    }

    @Test
    void aRestartedJoinerAsksTheEpochsOfEnoughMembersBeforeItAsksToJoin()
    {
        // Group [1..5]: any majority that took a promise of an earlier process 5 holds two others
        // than 5, so 5 asks until three of the four others have told their epochs.
        final MemberEngine m = OneEngine.started(GroupConfig.joining(5, 1, 2, 3, 4, 5), sent);
        final int nonce = sent.lastEpochAskNonce();
        assertEquals(0, addedSent().size(), "no ADDED before the epochs are known");
        // A leader's view and start point reach it before it knows the epochs: not taken.
        feed(m, list(1, 60, 2, 3, 4, 5), MS);
        feed(m, start(1, 61, 3, 40, 40), MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        feed(m, WirePackets.epochTold(3, 70, 5, nonce + 2, 9), MS);
        feed(m, WirePackets.epochTold(6, 70, 5, nonce, 9), MS);
        feed(m, WirePackets.epochTold(1, 71, 5, nonce, 3), MS);
        feed(m, WirePackets.epochTold(2, 72, 5, nonce, 7), MS);
        runUntil(m, 2 * MS, 30 * MS);
        assertEquals(0, addedSent().size(), "an answer to another ask, one from outside the group, and two of four are not enough");
        feed(m, WirePackets.epochTold(2, 73, 5, nonce, 7), 31 * MS);
        assertEquals(0, addedSent().size(), "the same member twice counts once");
        feed(m, WirePackets.epochTold(4, 74, 5, nonce, 4), 31 * MS);
        assertEquals(1, m.counters().epochsLearned());
        assertEquals(List.of(7), addedSent(), "it asks to join promising the newest epoch told, 7");
        // Leader 1 of epoch 3 (older than 7) lists it and says where to start: not admitted.
        feed(m, list(1, 80, 2, 3, 4, 5), 32 * MS);
        feed(m, start(1, 81, 3, 40, 40), 32 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
    }

    /**
     * A restarted replica admitted by a leader whose view shrank to a minority ([2, 5] of five)
     * counts commits against the group it was configured with, not against that view: its own
     * acceptance and the leader's are two of five, no commit (mixed 5498: counted against the
     * view, it delivered orders the majority's takeover never had).
     */
    @Test
    void aRestartedJoinerCountsCommitsAgainstItsConfiguredGroupNotTheView()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(5, 1, 2, 3, 4, 5), sent);
        final int nonce = sent.lastEpochAskNonce();
        feed(m, WirePackets.leaderTold(2, 70, 5, nonce, 1, 0), MS);
        feed(m, WirePackets.epochTold(3, 71, 5, nonce, 1), MS);
        feed(m, WirePackets.epochTold(4, 72, 5, nonce, 1), MS);
        assertEquals(List.of(0), addedSent());
        feed(m, list(2, 80, 5), 2 * MS);
        feed(m, start(2, 81, 1, 0, 0), 2 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        feed(m, request(CLIENT, 1), 3 * MS);
        feed(m, order(2, 82, 1, 1, CLIENT, 1, 0), 3 * MS);
        runUntil(m, 3 * MS, 20 * MS);
        assertEquals(0, m.deliveredSeq(), "two of five accepted order 1: not committed");
        feed(m, request(CLIENT, 2), 21 * MS);
        feed(m, order(2, 83, 1, 2, CLIENT, 2, 1), 21 * MS);
        assertEquals(1, m.deliveredSeq(), "the leader's commit of 1 is taken");
    }

    /**
     * A joiner configured with no ids learns its configuration from its leader's LIST, the
     * members outside the view included: admitted by leader 2 of view [2, 5] in a configuration
     * of five, two acceptances are no commit.
     */
    @Test
    void aJoinerLearnsTheConfigurationOutsideTheViewFromItsLeadersList()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(5), sent);
        feed(m, WirePackets.listWithConfiguration(2, 80, 1, new int[] {5 | MemberChangeFlyweight.LEARNER}, 1, 3, 4), MS);
        feed(m, start(2, 81, 1, 0, 0), MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        assertArrayEquals(new int[] {1, 2, 3, 4}, m.configurationIds(), "the LIST's unmarked and outside entries");
        assertEquals(true, m.learner());
        feed(m, request(CLIENT, 1), 2 * MS);
        feed(m, order(2, 82, 1, 1, CLIENT, 1, 0), 2 * MS);
        runUntil(m, 2 * MS, 20 * MS);
        assertEquals(0, m.deliveredSeq(), "a learner delivers what its leader committed, not what it accepted");
        assertArrayEquals(new int[] {2, 5}, m.currentMembers(), "the view is the LIST's view");
    }

    @Test
    void membersAnswerAnEpochAskUnlessTheyMayBeRestartedThemselves()
    {
        final MemberEngine member = OneEngine.started(new GroupConfig(2, 1, 1, 2, 3), sent);
        // It accepted an order of epoch 1 (a history), then follows its leader into epoch 4.
        feed(member, request(CLIENT, 1), MS);
        feed(member, order(1, 59, 1, 1, CLIENT, 1, 1), MS);
        feed(member, keepAlive(1, 60, 4, 1, 1), MS);
        feed(member, ask(3, 1234), 2 * MS);
        final MemberChangeFlyweight told = sent.memberChanges().stream()
            .filter(c -> c.status() == MemberChangeFlyweight.STATUS_EPOCH_TOLD).findFirst().orElseThrow();
        assertEquals(List.of(3, 1234, 4), List.of(told.memberId(), told.member(0), told.member(1)), "to 3, its nonce, epoch 4");

        final SentPackets joinerSent = new SentPackets();
        final MemberEngine joiner = OneEngine.started(GroupConfig.joining(4, 1, 2, 3, 4), joinerSent);
        feed(joiner, ask(3, 1234), 2 * MS);
        assertEquals(0, joinerSent.memberChanges().stream().filter(c -> c.status() == MemberChangeFlyweight.STATUS_EPOCH_TOLD).count(),
            "it knows no epoch worth telling");
        assertEquals(1, member.counters().epochAsksAnswered());
    }

    private static java.nio.ByteBuffer ask(final int asker, final int nonce)
    {
        return WirePackets.epochAsk(asker, 5, nonce);
    }

    /** The epochs named by the ADDED sent (0 for none). */
    private List<Integer> addedSent()
    {
        return sent.memberChanges().stream().filter(c -> c.status() == MemberChangeFlyweight.STATUS_ADDED)
            .map(c -> c.memberCount() == 0 ? 0 : c.member(0)).toList();
    }

    @Test
    void aFoundingMemberThatAcceptedNothingGivesUpItsTakeoverWhenAReportShowsAHistory()
    {
        // Member 1 of [1, 2, 3]; leader 3, heard once, falls silent, and 1, its successor, takes over.
        final MemberEngine restarted = OneEngine.started(new GroupConfig(1, 3, 1, 2, 3), sent);
        feed(restarted, WirePackets.keepAlive(3, 1, 1, 0, 0), MS);
        runUntil(restarted, MS, 150 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, restarted.state());
        // 2 delivered 30 orders 1 never saw: 1 may be a restarted process; 2 and 1 must not decide alone.
        feed(restarted, WirePackets.reportEnd(2, 60, 2, 30, 30, 0), 151 * MS);
        runUntil(restarted, 152 * MS, 300 * MS);
        assertEquals(MemberEngine.State.JOINING, restarted.state());
        assertEquals(1, restarted.counters().foundingRejoins());

        // At a first start, 2 delivered nothing either; but 1, which accepted nothing, may still be
        // a restarted process: it does not count itself, and 2 alone is no majority of three. It
        // decides once 3, back, reports too.
        final MemberEngine firstStart = OneEngine.started(new GroupConfig(1, 3, 1, 2, 3), new SentPackets());
        feed(firstStart, WirePackets.keepAlive(3, 1, 1, 0, 0), MS);
        runUntil(firstStart, MS, 150 * MS);
        feed(firstStart, WirePackets.reportEnd(2, 60, 2, 0, 0, 0), 151 * MS);
        runUntil(firstStart, 152 * MS, 160 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, firstStart.state());
        feed(firstStart, WirePackets.reportEnd(3, 61, 2, 0, 0, 0), 161 * MS);
        runUntil(firstStart, 162 * MS, 170 * MS);
        assertEquals(MemberEngine.State.LEADER_IDLE, firstStart.state());
        assertEquals(0, firstStart.counters().foundingRejoins());
    }

    @Test
    void aFoundingLeaderWhoseCheckIsPendingHasNoHistory()
    {
        // A restarted founding leader holds its clients' requests until its check passes (the
        // group is past it): a joiner's promise sends it to rejoin, not to take over.
        final MemberEngine leader = OneEngine.checking(new GroupConfig(1, 1, 1, 2, 3).orderInterval(0, true), sent);
        feed(leader, request(CLIENT, 1), MS);
        assertEquals(0, sent.orders().size(), "nothing ordered before the check");
        feed(leader, added(3, 30, 5), 2 * MS);
        assertEquals(MemberEngine.State.JOINING, leader.state());
        assertEquals(0, leader.counters().selfTakeovers());
        assertEquals(1, leader.counters().foundingRejoins());
    }

    @Test
    void malformedEpochAsksAndAnswersAreCountedAndDropped()
    {
        final MemberEngine member = OneEngine.started(new GroupConfig(2, 1, 1, 2, 3), sent);
        final java.nio.ByteBuffer askForAnother = ask(3, 1234);
        askForAnother.putInt(12 + MemberChangeFlyweight.MEMBER_ID_OFFSET, 1);
        feed(member, askForAnother, MS);
        final java.nio.ByteBuffer shortAnswer = java.nio.ByteBuffer.allocate(MemberChangeFlyweight.length(1));
        final MemberChangeFlyweight c = new MemberChangeFlyweight();
        c.wrap(shortAnswer, 0);
        c.set(java.nio.ByteOrder.BIG_ENDIAN, 3, 6, 2, MemberChangeFlyweight.STATUS_EPOCH_TOLD, 1).member(0, 1234);
        feed(member, shortAnswer, MS);
        assertEquals(2, member.counters().unexpectedPackets());
        assertEquals(0, member.counters().epochAsksAnswered());
        assertEquals(0, sent.memberChanges().stream().filter(m -> m.status() == MemberChangeFlyweight.STATUS_EPOCH_TOLD).count());
    }
}
