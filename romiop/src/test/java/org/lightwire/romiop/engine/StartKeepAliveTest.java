package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lightwire.romiop.engine.OneEngine.MS;
import static org.lightwire.romiop.engine.OneEngine.ORDERING_EPOCH;
import static org.lightwire.romiop.engine.OneEngine.feed;
import static org.lightwire.romiop.engine.OneEngine.runUntil;
import static org.lightwire.romiop.engine.WirePackets.added;
import static org.lightwire.romiop.engine.WirePackets.keepAlive;
import static org.lightwire.romiop.engine.WirePackets.list;
import static org.lightwire.romiop.engine.WirePackets.online;
import static org.lightwire.romiop.engine.WirePackets.orderAck;
import static org.lightwire.romiop.engine.WirePackets.request;
import static org.lightwire.romiop.engine.WirePackets.start;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.PacketType;

/**
 * The leader's word to a joiner on where it starts (docs/romiop.md, "Membership"): clients count
 * the joiner's replies from the LIST that admits it, so it must start at the start the leader
 * gave it with that LIST, not at a later KeepAlive's commit, whatever the network does to the
 * start: overtakes the LIST, is lost, comes late from an earlier admission. (Timings of
 * {@link OneEngine}: KeepAlive timeout 100 ms, retransmission 20 ms.)
 */
class StartKeepAliveTest
{
    private final SentPackets sent = new SentPackets();
    private int packetId = 1000;

    // ---------------------------------------------------------------------------------------------
    // The joiner.

    @Test
    void aStartThatOvertakesTheListIsKeptAndTakenOnceTheListComes()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(4), sent);
        feed(m, start(1, 81, 1, 30, 10), MS);
        assertEquals(List.of(MemberEngine.State.JOINING, 1L), List.of(m.state(), m.counters().earlyStartsKept()));
        feed(m, list(1, 80, 2, 3, 4 | MemberChangeFlyweight.LEARNER), MS);
        assertEquals(List.of(MemberEngine.State.MEMBER, 10L, 1L), List.of(m.state(), m.deliveredSeq(), m.counters().earlyStartsTaken()));
    }

    @Test
    void anEarlierAdmissionsStartKeptBeforeTheListIsNotTaken()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(4), sent);
        feed(m, start(1, 70, 1, 30, 5), MS);
        feed(m, list(1, 80, 2, 3, 4 | MemberChangeFlyweight.LEARNER), MS);
        assertEquals(List.of(MemberEngine.State.JOINING, 0L), List.of(m.state(), m.counters().earlyStartsTaken()));
        // The leader's periodic KeepAlive names a later commit: the joiner waits for its start.
        feed(m, keepAlive(1, 82, 1, 40, 20), 2 * MS);
        assertEquals(List.of(MemberEngine.State.JOINING, 1L), List.of(m.state(), m.counters().startsAwaited()));
        feed(m, start(1, 83, 1, 40, 10), 3 * MS);
        assertEquals(List.of(MemberEngine.State.MEMBER, 10L), List.of(m.state(), m.deliveredSeq()));
    }

    @Test
    void aStartSentBeforeTheListThatListedTheJoinerIsIgnored()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(4), sent);
        feed(m, list(1, 80, 2, 3, 4 | MemberChangeFlyweight.LEARNER), MS);
        feed(m, start(1, 79, 1, 30, 5), 2 * MS);
        assertEquals(List.of(MemberEngine.State.JOINING, 1L), List.of(m.state(), m.counters().staleStartsIgnored()));
        feed(m, start(1, 81, 1, 30, 10), 3 * MS);
        assertEquals(List.of(MemberEngine.State.MEMBER, 10L), List.of(m.state(), m.deliveredSeq()));
    }

    /**
     * The joiner never starts at a periodic KeepAlive's commit, however long it waits: a leader
     * that took the view over from the one that admitted it answers its next ADDED with a start.
     */
    @Test
    void aJoinerNeverStartsAtAPeriodicKeepAlive()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(4), sent);
        feed(m, list(1, 80, 2, 3, 4 | MemberChangeFlyweight.LEARNER), MS);
        feed(m, keepAlive(1, 81, 1, 30, 20), 50 * MS);
        feed(m, keepAlive(1, 82, 1, 30, 20), 500 * MS);
        assertEquals(List.of(MemberEngine.State.JOINING, 2L), List.of(m.state(), m.counters().startsAwaited()));
        feed(m, start(1, 83, 1, 30, 20), 501 * MS);
        assertEquals(List.of(MemberEngine.State.MEMBER, 20L), List.of(m.state(), m.deliveredSeq()));
    }

    @Test
    void aStartSentAgainAfterTheJoinerStartedChangesNothing()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(4), sent);
        feed(m, list(1, 80, 2, 3, 4 | MemberChangeFlyweight.LEARNER), MS);
        feed(m, start(1, 81, 1, 30, 10), MS);
        feed(m, start(1, 85, 1, 30, 2), 2 * MS);
        assertEquals(List.of(MemberEngine.State.MEMBER, 10L, 1L), List.of(m.state(), m.deliveredSeq(), m.counters().staleStartsIgnored()));
    }


    /**
     * 4 is listed by LIST 80 (start 82 lost), then cut off both ways. Leader 1 removes it (silent)
     * and announces [1, 2, 3]: 4, JOINING, ignores a LIST not naming it (or never gets it). The
     * partition heals, 4's next ADDED re-admits it at commit 20: LIST 100, start 101 (lost, or
     * still on its way). The LIST that left it out ended its first admission: it waits for the
     * start of the second, not the leader's next periodic KeepAlive's commit 30 (past the calls
     * clients counted it for since LIST 100).
     */
    @Test
    void aJoinerReadmittedWhileStillJoiningWaitsForItsNewStart()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(4), sent);
        feed(m, list(1, 80, 2, 3, 4 | MemberChangeFlyweight.LEARNER), MS);
        OneEngine.runUntil(m, 2 * MS, 149 * MS);
        feed(m, list(1, 90, 2, 3), 150 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        feed(m, list(1, 100, 2, 3, 4 | MemberChangeFlyweight.LEARNER), 160 * MS);
        feed(m, keepAlive(1, 102, 1, 40, 30), 170 * MS);
        assertEquals(List.of(MemberEngine.State.JOINING, 1L), List.of(m.state(), m.counters().startsAwaited()),
            "re-admitted by LIST 100 10 ms ago: it waits for the start of that admission");
        feed(m, start(1, 103, 1, 40, 20), 175 * MS);
        assertEquals(List.of(MemberEngine.State.MEMBER, 20L), List.of(m.state(), m.deliveredSeq()));
    }

    /**
     * Same re-admission (LIST 100 at commit 20); the start 82 of the first admission (commit 10),
     * delayed in the network, arrives now. It was sent before LIST 100 and is dropped: started at
     * 10, 4 would start below the orders the leader kept for it at this admission
     * (sequencer.memberAdded(4, 20)) and below the state the donor prepared.
     */
    @Test
    void aDelayedStartOfTheFirstAdmissionIsNotTakenAfterAReadmission()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(4), sent);
        feed(m, list(1, 80, 2, 3, 4 | MemberChangeFlyweight.LEARNER), MS);
        OneEngine.runUntil(m, 2 * MS, 149 * MS);
        feed(m, list(1, 90, 2, 3), 150 * MS);
        feed(m, list(1, 100, 2, 3, 4 | MemberChangeFlyweight.LEARNER), 160 * MS);
        feed(m, start(1, 82, 1, 10, 10), 161 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state(), "start 82 was sent before LIST 100");
        feed(m, start(1, 101, 1, 40, 20), 162 * MS);
        assertEquals(20, m.deliveredSeq());
    }

    /**
     * 4 is listed at 1 ms, then the leader's unicasts to 4 are lost for 60 ms (the leader keeps
     * resending start 10). The first packet after the outage is a periodic KeepAlive (commit 30):
     * 4 lets it pass, and takes the owed start that comes next.
     */
    @Test
    void aJoinerCutOffAfterItsListStillStartsAtItsStart()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(4), sent);
        feed(m, list(1, 80, 2, 3, 4 | MemberChangeFlyweight.LEARNER), MS);
        feed(m, keepAlive(1, 90, 1, 40, 30), 60 * MS);
        feed(m, start(1, 91, 1, 40, 10), 61 * MS);
        assertEquals(10, m.deliveredSeq(), "the start the leader still owes it, and sends every 20 ms");
    }

    // ---------------------------------------------------------------------------------------------
    // The leader.

    /**
     * The leader admits 4 at commit 1, then commits 2: every start it sends 4 names commit 1, one
     * every retransmission timeout until 4's ONLINE, none after it.
     */
    @Test
    void theLeaderSendsTheSameStartAgainUntilTheJoinerIsOnline()
    {
        final MemberEngine leader = committedOne();
        feed(leader, added(4, 30, 0), 2 * MS);
        feed(leader, request(100, 2), 3 * MS);
        feed(leader, orderAck(2, 21, ORDERING_EPOCH, 2), 3 * MS);
        assertEquals(2, leader.deliveredSeq());
        runUntil(leader, 4 * MS, 45 * MS);
        final List<KeepAliveFlyweight> before = startsTo(4);
        assertEquals(3, before.size(), "at 2, 22 and 42 ms");
        assertEquals(List.of(1L, 1L, 1L), before.stream().map(KeepAliveFlyweight::commit).toList());
        assertEquals(List.of(1L, 2L, 2L), before.stream().map(KeepAliveFlyweight::lastOrderSeq).toList(), "where the order ends, when sent");
        assertEquals(2, leader.counters().startsResent());
        feed(leader, online(4, 31), 46 * MS);
        runUntil(leader, 46 * MS, 90 * MS);
        assertEquals(3, startsTo(4).size(), "none after its ONLINE");
    }

    /** 4 never starts (2 and 3 answer): its start goes every retransmission timeout until the KeepAlive timeout, then 4 is removed. */
    @Test
    void aJoinerThatNeverStartsIsSentItsStartForOneKeepAliveTimeoutAtMost()
    {
        final MemberEngine leader = committedOne();
        feed(leader, added(4, 30, 0), 2 * MS);
        runWithTwoAndThree(leader, 3 * MS, 300 * MS, false);
        assertEquals(List.of(1L, 1L, 1L, 1L, 1L), startsTo(4).stream().map(KeepAliveFlyweight::commit).toList(),
            "at 2, 22, 42, 62 and 82 ms");
        assertEquals(List.of(1, 2, 3), Arrays.stream(leader.currentMembers()).boxed().toList(), "4 removed, silent");
    }

    /** 4 leaves before it started and is admitted again: its new start is the commit at the new admission, and only that one is sent again. */
    @Test
    void aReadmittedJoinerIsOwedTheNewStart()
    {
        final MemberEngine leader = committedOne();
        feed(leader, added(4, 30, 0), 2 * MS);
        runWithTwoAndThree(leader, 3 * MS, 10 * MS, false);
        feed(leader, WirePackets.takeover(4, 4, 0, 0, 0), 11 * MS);
        assertEquals(List.of(1, 2, 3), Arrays.stream(leader.currentMembers()).boxed().toList(), "4 left");
        feed(leader, request(100, 2), 12 * MS);
        feed(leader, orderAck(2, 22, ORDERING_EPOCH, 2), 12 * MS);
        assertEquals(2, leader.deliveredSeq());
        sent.clear();
        feed(leader, added(4, 40, 0), 13 * MS);
        runWithTwoAndThree(leader, 14 * MS, 40 * MS, false);
        assertEquals(List.of(2L, 2L), startsTo(4).stream().map(KeepAliveFlyweight::commit).toList(), "at 13 and 33 ms");
    }


    /**
     * 4 was admitted, started and multicast ONLINE 31; it left and is admitted again (ADDED 40).
     * A delayed (or duplicated) copy of its first ONLINE, 31, arrives: older than the ADDED this
     * admission answers, it does not stop the resends.
     */
    @Test
    void aStaleOnlineOfAnEarlierAdmissionDoesNotStopTheResends()
    {
        final MemberEngine leader = committedOne();
        feed(leader, added(4, 30, 0), 2 * MS);
        feed(leader, online(4, 31), 3 * MS);
        feed(leader, WirePackets.takeover(4, 4, 0, 0, 0), 11 * MS);
        assertEquals(List.of(1, 2, 3), Arrays.stream(leader.currentMembers()).boxed().toList(), "4 left");
        sent.clear();
        feed(leader, added(4, 40, 0), 13 * MS);
        feed(leader, online(4, 31), 14 * MS);
        runWithTwoAndThree(leader, 15 * MS, 40 * MS, false);
        assertEquals(2, startsTo(4).size(), "at 13 and 33 ms: ONLINE 31 is older than the ADDED 40 that this admission answers");
    }

    /**
     * 4 is admitted at commit 1 and stays JOINING (the leader's unicasts to it are lost), its ADDED
     * coming every 20 ms: it stays in the view, and the leader keeps every order past 1 for it
     * (sequencer.memberAdded(4, 1)). Past the resends' KeepAlive timeout, its ADDED is still
     * answered with start 1, never the current commit 2 (call 2, ordered after the LIST, is one
     * clients counted it for).
     */
    @Test
    void aJoinerStillInTheViewIsNeverGivenALaterStartThanItsAdmission()
    {
        final MemberEngine leader = committedOne();
        feed(leader, added(4, 30, 0), 2 * MS);
        feed(leader, request(100, 2), 3 * MS);
        feed(leader, orderAck(2, 21, ORDERING_EPOCH, 2), 3 * MS);
        assertEquals(2, leader.deliveredSeq());
        runWithTwoAndThree(leader, 4 * MS, 160 * MS, true);
        assertEquals(List.of(1, 2, 3, 4), Arrays.stream(leader.currentMembers()).boxed().toList(), "4 still in the view");
        assertEquals(List.of(1L), startsTo(4).stream().map(KeepAliveFlyweight::commit).distinct().toList(), "every start names commit 1");
    }

    /**
     * 4 is admitted at commit 1, starts, acks order 2 (2 and 3 too, so the leader forgets orders 1
     * and 2), but its ONLINE is lost: its OrderAck shows it started. 4 restarts (same id, nothing
     * delivered) and asks again: a start at 1 could not be served (order 2 is forgotten), so the
     * leader owes it nothing old and answers with the current commit.
     */
    @Test
    void aRestartedJoinerIsNotGivenAStartBelowTheOrdersTheLeaderStillHolds()
    {
        final MemberEngine leader = startedThenForgotten();
        assertEquals(2, leader.deliveredSeq());
        sent.clear();
        // The restarted 4 (its Lamport clock raised by what it heard since).
        feed(leader, added(4, 50, 0), 10 * MS);
        assertEquals(List.of(2L), startsTo(4).stream().map(KeepAliveFlyweight::commit).toList(),
            "orders 1 and 2 are forgotten: a start at 1 cannot be served");
    }

    /** The consequence of the above: the restarted 4, started at 1, NAKs order 2 and is removed as a laggard. */
    @Test
    void aRestartedJoinerTakingTheOwedStartIsNotRemovedAsALaggard()
    {
        final MemberEngine leader = startedThenForgotten();
        feed(leader, added(4, 50, 0), 10 * MS);
        final long start = startsTo(4).get(startsTo(4).size() - 1).commit();
        // The restarted 4 started where it was told and asks for the orders after it.
        feed(leader, WirePackets.orderNak(4, 52, start + 1), 11 * MS);
        assertEquals(0, leader.counters().laggardsRemoved(), "started at " + start);
        assertEquals(List.of(1, 2, 3, 4), Arrays.stream(leader.currentMembers()).boxed().toList());
    }

    /** Runs the leader's timer every millisecond, 2 and 3 answering every 10 ms, 4 asking to join every 20 ms if {@code joinerAsks}. */
    private void runWithTwoAndThree(final MemberEngine leader, final long fromNs, final long toNs, final boolean joinerAsks)
    {
        for (long t = fromNs; t <= toNs; t += MS)
        {
            if (t / MS % 10 == 0)
            {
                feed(leader, orderAck(2, packetId++, ORDERING_EPOCH, leader.deliveredSeq()), t);
                feed(leader, orderAck(3, packetId++, ORDERING_EPOCH, leader.deliveredSeq()), t);
            }
            if (joinerAsks && t / MS % 20 == 0)
            {
                feed(leader, added(4, packetId++, 0), t);
            }
            leader.onTimer(t);
        }
    }

    /**
     * Leader 1 admitted 4 at commit 1; 4 started and acked order 2, as 2 and 3 did, so the leader
     * forgot orders 1 and 2; 4's ONLINE was lost.
     */
    private MemberEngine startedThenForgotten()
    {
        final MemberEngine leader = committedOne();
        feed(leader, added(4, 30, 0), 2 * MS);
        feed(leader, orderAck(3, 22, ORDERING_EPOCH, 1), 2 * MS);
        feed(leader, request(100, 2), 3 * MS);
        feed(leader, orderAck(2, 23, ORDERING_EPOCH, 2), 3 * MS);
        feed(leader, orderAck(3, 24, ORDERING_EPOCH, 2), 3 * MS);
        feed(leader, orderAck(4, 33, ORDERING_EPOCH, 2), 4 * MS);
        return leader;
    }

    /** Leader 1 of [1, 2, 3] that ordered and committed 100/1 at 1 (2 accepted it). */
    private MemberEngine committedOne()
    {
        final MemberEngine leader = OneEngine.started(new GroupConfig(1, 1, 1, 2, 3).orderInterval(0, true), sent);
        feed(leader, request(100, 1), MS);
        feed(leader, orderAck(2, 20, ORDERING_EPOCH, 1), MS);
        assertEquals(1, leader.deliveredSeq());
        return leader;
    }

    private List<KeepAliveFlyweight> startsTo(final int joinerId)
    {
        return sent.all.stream().filter(s -> s.to() == joinerId && s.type() == PacketType.KEEP_ALIVE)
            .map(s -> (KeepAliveFlyweight)new KeepAliveFlyweight().wrap(s.bytes(), 0))
            .filter(k -> k.header().start()).toList();
    }
}
