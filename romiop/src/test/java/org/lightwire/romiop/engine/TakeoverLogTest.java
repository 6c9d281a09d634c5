package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.romiop.engine.OneEngine.feed;
import static org.lightwire.romiop.engine.OneEngine.runUntil;
import static org.lightwire.romiop.engine.WirePackets.added;
import static org.lightwire.romiop.engine.WirePackets.reportEnd;
import static org.lightwire.romiop.engine.WirePackets.reportEntry;
import static org.lightwire.romiop.engine.WirePackets.request;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a takeover keeps past the highest delivered order: every order a reporter accepted keeps its
 * place, so the whole report must have arrived, and the leader's own orders go before anything it
 * had queued. One MemberEngine, a hand-advanced clock, a recording sender.
 */
class TakeoverLogTest
{
    private static final long MS = OneEngine.MS;
    private static final int CLIENT = 100;

    private final SentPackets sent = new SentPackets();

    /** The requests this member ordered, in order, as "client/packet" from its MsgOrders (not reports). */
    private List<String> ordered()
    {
        return sent.orders().stream().filter(o -> !o.header().report())
            .flatMap(o -> java.util.stream.IntStream.range(0, o.entryCount()).mapToObj(i -> (o.firstOrderSeq() + i) + "=" +
                o.entrySenderId(i) + "/" + o.entryPacketId(i)))
            .distinct().toList();
    }

    @Test
    void aReportCountsOnlyOnceItArrivedWhole()
    {
        // Member 1 of [1..5]; leader 5, heard once, falls silent and 1 takes over, proposing epoch 2.
        final MemberEngine m = OneEngine.started(new GroupConfig(1, 5, 1, 2, 3, 4, 5), sent);
        feed(m, WirePackets.keepAlive(5, 1, 1, 0, 0), MS);
        runUntil(m, MS, 150 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        // 3 accepted order 1 (request 100/1) of leader 5; its report's MsgOrder and Request are lost.
        // (1 accepted nothing and may be a restarted process: three others must report.)
        feed(m, reportEnd(2, 59, 2, 0, 0, 0), 151 * MS);
        feed(m, reportEnd(3, 60, 2, 0, 1, 1), 151 * MS);
        feed(m, reportEnd(4, 60, 2, 0, 0, 0), 151 * MS);
        runUntil(m, 152 * MS, 300 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state(), "2 and 4 are no majority of five; 3's report is not whole");
        assertEquals(1, m.counters().incompleteReports());
        // 3 reports again (it does at each REMOVED of ours): whole now.
        feed(m, request(CLIENT, 1), 301 * MS);
        feed(m, reportEntry(3, 61, 1, 1, CLIENT, 1), 301 * MS);
        feed(m, reportEnd(3, 62, 2, 0, 1, 1), 301 * MS);
        assertEquals(1, m.counters().incompleteReports());
        runUntil(m, 302 * MS, 320 * MS);
        assertTrue(m.state() == MemberEngine.State.LEADER_IDLE || m.state() == MemberEngine.State.LEADER_BATCHING, m.state().name());
        assertEquals("1=100/1", ordered().get(0), "order 1, which 3 may have committed with 5, keeps its place");
    }

    @Test
    void aLeaderTakingOverFromItselfOrdersItsOwnOrdersBeforeItsQueuedBatch()
    {
        final MemberEngine leader = OneEngine.started(new GroupConfig(1, 1, 1, 2, 3).orderInterval(10 * MS, false), sent);
        feed(leader, request(CLIENT, 1), MS);
        runUntil(leader, 2 * MS, 12 * MS);
        assertEquals(List.of("1=100/1"), ordered(), "ordered when its batch ended");
        feed(leader, WirePackets.orderAck(2, 20, OneEngine.ORDERING_EPOCH, 1), 12 * MS);
        assertEquals(1, leader.deliveredSeq(), "committed with member 2");
        feed(leader, request(CLIENT, 2), 13 * MS);
        runUntil(leader, 14 * MS, 24 * MS);
        assertEquals(List.of("1=100/1", "2=100/2"), ordered());
        feed(leader, request(CLIENT + 1, 1), 25 * MS);
        assertEquals(2, ordered().size(), "the next request waits for its batch");
        // 3 reported for epoch 5 to a takeover that never finished: the leader takes over from itself.
        feed(leader, added(3, 30, 5), 26 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, leader.state());
        feed(leader, reportEnd(2, 60, 6, 1, 1, 0), 27 * MS);
        feed(leader, reportEnd(3, 60, 6, 1, 1, 0), 27 * MS);
        runUntil(leader, 28 * MS, 70 * MS);
        assertEquals(MemberEngine.State.LEADER_IDLE, leader.state());
        assertEquals(List.of("1=100/1", "2=100/2", "3=101/1"), ordered(), "its order 2 (maybe committed) keeps its place, then the batch");
    }

    @Test
    void aReportNamesNoOrderItsSenderDeliveredPast()
    {
        // Member 3 of [1, 2, 3] delivers order 1, knows order 2 without its request, and is removed.
        final MemberEngine m = OneEngine.started(new GroupConfig(3, 1, 1, 2, 3), sent);
        feed(m, request(CLIENT, 1), MS);
        feed(m, WirePackets.order(1, 90, 1, 1, CLIENT, 1, 1), MS);
        feed(m, WirePackets.order(1, 91, 1, 2, CLIENT, 2, 1), MS);
        feed(m, WirePackets.list(1, 92, 2), 2 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        // Admitted again from the commit, 5: order 2 is behind it.
        feed(m, WirePackets.list(1, 93, 2, 3), 3 * MS);
        feed(m, WirePackets.start(1, 94, 1, 5, 5), 3 * MS);
        assertEquals(5, m.deliveredSeq());
        // Leader 1 fails; 2 takes over: 3's report is its delivered 5 and nothing older.
        feed(m, WirePackets.takeover(2, 1, 2, 1, 5), 4 * MS);
        assertEquals(2, m.leaderId());
        assertEquals(0, sent.orders().stream().filter(o -> o.header().report()).count(), "order 2 was history at 5");
        assertEquals(0, sent.keepAlives().stream().filter(k -> k.header().report()).findFirst().orElseThrow().reportEntries());
    }

    @Test
    void aTakeoverThatYieldsReportsOnlyWhatItKnowsItself()
    {
        // Member 2 of [1..5] takes over from leader 1 (heard once, then silent), proposing epoch 2; 4 reports order 5.
        final MemberEngine m = OneEngine.started(new GroupConfig(2, 1, 1, 2, 3, 4, 5), sent);
        feed(m, WirePackets.keepAlive(1, 1, 1, 0, 0), MS);
        runUntil(m, MS, 150 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        feed(m, request(CLIENT, 7), 151 * MS);
        feed(m, reportEntry(4, 61, 1, 5, CLIENT, 7), 151 * MS);
        // 3 proposes epoch 3: 2 yields and reports to it. Order 5 is 4's to report (in its own epoch), not 2's.
        feed(m, WirePackets.takeover(3, 1, 3, 1, 0), 152 * MS);
        assertEquals(3, m.leaderId());
        assertEquals(0, sent.orders().stream().filter(o -> o.header().report()).count());
    }

    @Test
    void aTakeoverWhoseHolderJoinedPastTheOrdersSkipsThemAsAJoinerDoes()
    {
        // Member 1 of [1, 2, 3] delivered order 1; leader 3 falls silent; 1 takes over.
        final MemberEngine m = OneEngine.started(new GroupConfig(1, 3, 1, 2, 3), sent);
        feed(m, request(CLIENT, 1), MS);
        feed(m, WirePackets.order(3, 90, 1, 1, CLIENT, 1, 1), MS);
        assertEquals(1, m.deliveredSeq());
        runUntil(m, 2 * MS, 150 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        // 2 delivered 40, but joined at 40 (nothing before it to send): the holder of what is fixed.
        feed(m, reportEnd(2, 60, 2, 40, 40, 0), 151 * MS);
        runUntil(m, 152 * MS, 160 * MS);
        assertTrue(m.deliverySummary().endsWith("catching up to 40 from 2"), m.deliverySummary());
        // 2 answers the order NAK: it can send from 41 on.
        feed(m, WirePackets.servesFrom(2, 61, 2, 40, 41), 161 * MS);
        assertEquals(40, m.deliveredSeq());
        assertEquals(1, m.counters().takeoverSkips());
        assertTrue(m.state() == MemberEngine.State.LEADER_IDLE || m.state() == MemberEngine.State.LEADER_BATCHING, m.state().name());
    }

    @Test
    void aMemberTellsTheTakeoverItReportedToWhereItCanStart()
    {
        // Member 3 of [1, 2, 3] joins leader 1's group at 40 (nothing retained before), then 2 takes over from 1.
        final MemberEngine m = OneEngine.started(new GroupConfig(3, 1, 1, 2, 3), sent);
        feed(m, request(CLIENT, 1), MS);
        feed(m, WirePackets.order(1, 90, 1, 1, CLIENT, 1, 1), MS);
        feed(m, WirePackets.list(1, 91, 2), 2 * MS);
        feed(m, WirePackets.list(1, 92, 2, 3), 3 * MS);
        feed(m, WirePackets.start(1, 93, 1, 40, 40), 3 * MS);
        assertEquals(40, m.deliveredSeq());
        feed(m, WirePackets.takeover(2, 1, 2, 1, 0), 4 * MS);
        assertEquals(2, m.leaderId());
        sent.clear();
        feed(m, WirePackets.orderNak(2, 50, 1), 5 * MS);
        final org.lightwire.romiop.protocol.KeepAliveFlyweight told = sent.keepAlives().get(0);
        assertEquals(List.of(2L, 40L, 41L), List.of((long)told.epoch(), told.lastOrderSeq(), told.commit() + 1),
            "promised epoch 2, delivered 40, and it can send from 41 on (it kept order 1, but not 2 to 40)");
        assertEquals(List.of(true, false), List.of(told.header().told(), told.header().report()), "a member's word, flagged TOLD");
        assertEquals(1, m.counters().servedFromTold());
        // Asked from order 2 on, where it holds nothing: its word of where the order ends is a member's too.
        sent.clear();
        feed(m, WirePackets.orderNak(2, 51, 2), 6 * MS);
        assertEquals(List.of(true, true), sent.keepAlives().stream().map(k -> k.header().told()).toList(),
            "where it serves from, then where the order ends (found by a review: unflagged, the second read as a leader's)");
        assertEquals(40L, sent.keepAlives().get(1).lastOrderSeq());
    }
}
