package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.romiop.engine.OneEngine.feed;
import static org.lightwire.romiop.engine.OneEngine.runUntil;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/**
 * A takeover proposes its epoch, and a report is a promise for it (Viewstamped Replication's view
 * number): one MemberEngine, a hand-advanced clock, a recording sender.
 */
class ProposedEpochTest
{
    private static final long MS = OneEngine.MS;

    private final SentPackets sent = new SentPackets();

    private MemberEngine engine(final GroupConfig config)
    {
        return OneEngine.started(config, sent);
    }

    /** A takeover by {@code from} of failed {@code subject}, proposing {@code epoch}. */
    private static ByteBuffer takeover(final int from, final int subject, final int epoch)
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(1));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, from, 40 + epoch, subject, MemberChangeFlyweight.STATUS_REMOVED, 1).member(0, epoch);
        return b;
    }

    private static ByteBuffer added(final int from, final int promisedEpoch)
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(1));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, from, 30, from, MemberChangeFlyweight.STATUS_ADDED, 1).member(0, promisedEpoch);
        return b;
    }

    /** {@code from}'s report, promising {@code epoch}: nothing delivered or accepted. */
    private static ByteBuffer report(final int from, final int epoch)
    {
        return WirePackets.reportEnd(from, 60, epoch, 0, 0, 0);
    }

    /** The epochs proposed by the takeovers this member multicast. */
    private List<Integer> proposals()
    {
        return sent.memberChanges().stream().filter(m -> m.status() == MemberChangeFlyweight.STATUS_REMOVED && m.memberCount() >= 1)
            .map(m -> m.member(0)).collect(Collectors.toList());
    }

    @Test
    void aMemberReportsForOneEpochToOneTakeoverOnly()
    {
        final MemberEngine m = engine(new GroupConfig(4, 1, 1, 2, 3, 4, 5));
        runUntil(m, MS, 110 * MS);
        feed(m, takeover(2, 1, 2), 111 * MS);
        assertEquals(2, m.leaderId(), "2, the successor, proposes epoch 2: reported to");
        assertEquals(1, sent.keepAlives().stream().filter(k -> k.header().report()).count());
        feed(m, takeover(3, 1, 2), 112 * MS);
        assertEquals(1, m.counters().staleTakeoversIgnored(), "epoch 2 is promised to 2");
        assertEquals(2, m.leaderId());
    }

    @Test
    void aFormerMemberJoiningAgainReportsToATakeover()
    {
        // Member 3 of [1, 2, 3], removed by leader 1's LIST [1, 2]: it rejoins, its configuration still [1, 2, 3].
        final MemberEngine m = engine(new GroupConfig(3, 1, 1, 2, 3));
        // It accepted order 1: it has a history to report (one that accepted nothing may be a restarted process).
        feed(m, WirePackets.request(100, 1), MS / 2);
        feed(m, WirePackets.order(1, 79, 1, 1, 100, 1, 0), MS / 2);
        final ByteBuffer list = ByteBuffer.allocate(MemberChangeFlyweight.listLength(2));
        final MemberChangeFlyweight l = new MemberChangeFlyweight();
        l.wrap(list, 0);
        l.setList(ByteOrder.BIG_ENDIAN, 1, 80, 1, 2, 1).member(0, 1).member(1, 2);
        feed(m, list, MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        feed(m, takeover(2, 1, 2), 2 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        assertEquals(2, m.leaderId());
        assertTrue(sent.keepAlives().stream().anyMatch(k -> k.header().report()), "its report ends with a flagged KeepAlive");
    }

    @Test
    void aLeaderThatHearsAJoinerNameANewerEpochTakesOverFromItselfPastIt()
    {
        final MemberEngine leader = engine(new GroupConfig(1, 1, 1, 2, 3).orderInterval(0, true));
        // Its order 1 committed with member 2: a history (a founding leader with nothing committed may be a restarted process).
        feed(leader, WirePackets.request(100, 1), MS / 2);
        feed(leader, WirePackets.orderAck(2, 20, OneEngine.ORDERING_EPOCH, 1), MS / 2);
        assertEquals(1, leader.deliveredSeq());
        feed(leader, added(3, 5), MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, leader.state());
        assertEquals(1, leader.counters().selfTakeovers());
        assertEquals(List.of(6), proposals(), "past the joiner's 5");
        feed(leader, report(2, 6), 2 * MS);
        feed(leader, report(3, 6), 2 * MS);
        runUntil(leader, 3 * MS, 10 * MS);
        assertEquals(MemberEngine.State.LEADER_IDLE, leader.state());
        assertEquals(1, leader.leaderId());
        sent.clear();
        runUntil(leader, 11 * MS, 40 * MS);
        assertTrue(sent.keepAlives().stream().allMatch(k -> k.epoch() == 6) && !sent.keepAlives().isEmpty(), "it leads epoch 6");
    }

    @Test
    void aTakeoverWithoutAMajorityForItsEpochProposesTheNext()
    {
        final MemberEngine m = engine(new GroupConfig(1, 5, 1, 2, 3, 4, 5));
        feed(m, WirePackets.keepAlive(5, 1, 1, 0, 0), MS);
        runUntil(m, MS, 150 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        runUntil(m, 151 * MS, 400 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state(), "nobody reports");
        final List<Integer> proposed = proposals().stream().distinct().collect(Collectors.toList());
        assertEquals(List.of(2, 3), proposed, "epoch 2, then after twice the KeepAlive timeout epoch 3");
        assertEquals(1, m.counters().takeoversRetried());
        assertTrue(m.deliverySummary().endsWith("taking over: 0 reports, proposing epoch 3"), m.deliverySummary());
    }

    /**
     * A leader whose view announcement is still unACKed when it takes over from itself (a member
     * named a newer promise) and then yields to another takeover announces nothing more: its LIST
     * names it leader of its old view. Before, it kept resending that LIST as a member, and ACKs
     * to it were matched against the new leader's LISTs, so it never stopped.
     */
    @Test
    void aLeaderThatTakesOverFromItselfAndYieldsStopsAnnouncingItsOldView()
    {
        final MemberEngine e = OneEngine.started(new GroupConfig(1, 1, 1, 2, 3), sent);
        feed(e, WirePackets.added(4, 30, 0), MS);
        assertEquals(2, leaderLists(), "learner 4 admitted: the view multicast, and sent to it");
        feed(e, WirePackets.added(3, 31, 5), 2 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, e.state(), "3 promised epoch 5: a takeover of its own");
        feed(e, WirePackets.takeover(2, 1, 7, 2, 0), 3 * MS);
        assertEquals(MemberEngine.State.MEMBER, e.state());
        assertEquals(2, e.leaderId());
        sent.clear();
        runUntil(e, 4 * MS, 200 * MS);
        assertEquals(0, leaderLists(), "no LIST of its own after it yielded");
    }

    /** @return the LISTs multicast by member 1 naming itself leader. */
    private long leaderLists()
    {
        return sent.memberChanges().stream()
            .filter(c -> c.status() == MemberChangeFlyweight.STATUS_LIST && c.senderId() == 1 && c.member(0) == 1).count();
    }
}
