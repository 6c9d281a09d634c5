package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lightwire.romiop.engine.OneEngine.feed;
import static org.lightwire.romiop.engine.OneEngine.runUntil;
import static org.lightwire.romiop.engine.WirePackets.keepAlive;
import static org.lightwire.romiop.engine.WirePackets.list;
import static org.lightwire.romiop.engine.WirePackets.request;
import static org.lightwire.romiop.engine.WirePackets.start;
import static org.lightwire.romiop.engine.WirePackets.takeover;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Members that step down, rejoin or take over must not wait for good on a process that is gone or
 * is not what it seems: one MemberEngine, a hand-advanced clock, a recording sender.
 */
class RejoinLivenessTest
{
    private static final long MS = OneEngine.MS;

    private final SentPackets sent = new SentPackets();

    @Test
    void aJoinerListedByALeaderThatFellSilentTakesTheNextLeadersView()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(4, 1, 2, 3, 4), sent);
        // A restarted process for all it knows: it learns the epochs of two of the others first.
        final int nonce = sent.lastEpochAskNonce();
        feed(m, WirePackets.epochTold(1, 70, 4, nonce, 2), 0);
        feed(m, WirePackets.epochTold(3, 71, 4, nonce, 2), 0);
        // Leader 2 lists it, then fails before it says where the joiner starts.
        feed(m, list(2, 80, 4), MS);
        assertEquals(2, m.leaderId());
        feed(m, list(3, 90, 4), 50 * MS);
        assertEquals(2, m.leaderId(), "2 was heard 49 ms ago: its view stands");
        feed(m, list(3, 91, 4), 150 * MS);
        assertEquals(3, m.leaderId(), "2 silent for longer than the KeepAlive timeout");
        feed(m, start(3, 92, 2, 40, 40), 151 * MS);
        // 3 answered its ask as a follower: it asks again, and 3 answers as the leader of epoch 2.
        assertEquals(List.of(MemberEngine.State.JOINING, 1L), List.of(m.state(), m.counters().admissionsDeferred()));
        feed(m, WirePackets.leaderTold(3, 93, 4, nonce, 2, 40), 152 * MS);
        feed(m, start(3, 94, 2, 40, 40), 153 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        assertEquals(40, m.deliveredSeq());
    }

    @Test
    void aLeaderThatSteppedDownReportsToTheTakeoverOfItself()
    {
        final MemberEngine leader = OneEngine.started(new GroupConfig(1, 1, 1, 2, 3).orderInterval(0, true), sent);
        // Order 1 commits with member 2; order 2 is sent, not yet accepted by anyone else.
        feed(leader, request(100, 1), MS);
        feed(leader, WirePackets.orderAck(2, 20, OneEngine.ORDERING_EPOCH, 1), MS);
        feed(leader, request(100, 2), 30 * MS);
        assertEquals(1, leader.deliveredSeq());
        // Nobody answers its KeepAlives: a minority of one, it steps down and rejoins.
        runUntil(leader, 2 * MS, 150 * MS);
        assertEquals(MemberEngine.State.JOINING, leader.state());
        sent.clear();
        // 2 takes over from it: its order 2 (maybe committed) must reach the new leader.
        feed(leader, takeover(2, 1, OneEngine.ORDERING_EPOCH + 1, OneEngine.ORDERING_EPOCH, 0), 151 * MS);
        assertEquals(2, leader.leaderId());
        assertEquals(MemberEngine.State.MEMBER, leader.state());
        assertEquals(true, java.util.Arrays.stream(leader.currentMembers()).anyMatch(id -> id == 1), "a member of the view it reported to");
        assertEquals(1, sent.keepAlives().stream().filter(k -> k.header().report()).count());
        assertEquals(1, sent.orders().stream().filter(o -> o.header().report() && o.firstOrderSeq() == 2).count());
    }

    @Test
    void aTakeoverGoesOnWhenAnOlderEpochsKeepAliveComesFromTheFailedLeadersId()
    {
        // Member 2 of [1, 2, 3] accepted order 1, follows leader 1 into epoch 2; 1 falls silent and 2 takes over.
        final MemberEngine m = OneEngine.started(new GroupConfig(2, 1, 1, 2, 3), sent);
        feed(m, request(100, 1), MS);
        feed(m, WirePackets.order(1, 69, 1, 1, 100, 1, 1), MS);
        feed(m, keepAlive(1, 70, 2, 1, 1), MS);
        runUntil(m, 2 * MS, 150 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        // A process restarted with id 1, in epoch 1: not the leader that failed.
        feed(m, keepAlive(1, 5, 1, 0, 0), 151 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        // Leader 1 of epoch 2 after all (we were cut off from it): the takeover gives up.
        feed(m, keepAlive(1, 71, 2, 0, 0), 152 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
    }

    @Test
    void aMemberAnswersTheNaksOfTheTakeoverItReportedToOutsideItsView()
    {
        // Member 3 of [1, 2, 3] delivers order 1, then leader 1's view drops 2 and 3: it rejoins
        // knowing only 1; 2 takes over from 1 and 3 reports to it (2 is still not in its view).
        final MemberEngine m = OneEngine.started(new GroupConfig(3, 1, 1, 2, 3), sent);
        feed(m, request(100, 1), MS);
        feed(m, WirePackets.order(1, 90, 1, 1, 100, 1, 1), MS);
        assertEquals(1, m.deliveredSeq());
        feed(m, list(1, 91), 2 * MS);
        feed(m, takeover(2, 1, 2, 1, 0), 3 * MS);
        assertEquals(2, m.leaderId());
        sent.clear();
        // The new leader catches up from it: order 1.
        feed(m, WirePackets.orderNak(2, 50, 1), 4 * MS);
        assertEquals(1, sent.orders().stream().filter(o -> o.firstOrderSeq() == 1 && !o.header().report()).count(), "order 1 sent to 2");
        assertEquals(0, m.counters().removedMembersTold());
    }
}
