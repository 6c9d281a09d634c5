package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.OrderAckFlyweight;
import org.lightwire.romiop.protocol.RequestFlyweight;
import org.lightwire.romiop.protocol.ViewChangeFlyweight;
import org.junit.jupiter.api.Test;

/**
 * Tier 1: the leader's lease (docs/notes/romiop-views.md, section 5). A leader of {1, 2, 3} whose
 * followers go silent; KeepAlives every 100 ms, a member silent after 450 ms, so the lease runs out
 * at 450 ms and the step-down (most of the view silent) follows at the 500 ms tick.
 */
class LeaseTest
{
    private static final int LEADER = 1;
    private static final int CLIENT = 100;
    private static final long MS = 1_000_000L;

    private final SentPackets sent = new SentPackets();
    private final List<Long> delivered = new ArrayList<>();
    private final GroupConfig config = new GroupConfig(LEADER, LEADER, 1, 2, 3)
        .keepAlive(100 * MS, 450 * MS).retransmitTimeoutNs(20 * MS).orderInterval(0, true).requestAckDelayNs(0);
    private final MemberEngine leader = OneEngine.founded(new MemberEngine(config, sent,
        (seq, sender, packetId, requestId, payload, offset, length) -> delivered.add(seq)), config, 0);

    private static ByteBuffer request(final int packetId)
    {
        return request(CLIENT, packetId);
    }

    private static ByteBuffer request(final int clientId, final int packetId)
    {
        final ByteBuffer b = ByteBuffer.allocate(RequestFlyweight.HEADER_LENGTH + 1);
        ((RequestFlyweight)new RequestFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, clientId, packetId, packetId, 1, 1);
        return b;
    }

    private static ByteBuffer orderAck(final int from, final long seq)
    {
        final ByteBuffer b = ByteBuffer.allocate(OrderAckFlyweight.LENGTH);
        ((OrderAckFlyweight)new OrderAckFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, 60, OneEngine.ORDERING_EPOCH, seq, seq);
        return b;
    }

    private void feed(final ByteBuffer b, final long nowNs)
    {
        leader.onPacket(b, 0, b.capacity(), nowNs);
    }

    /** Runs the leader's timer at each deadline up to {@code untilNs}. */
    private void runUntil(final long untilNs)
    {
        for (long at = leader.nextDeadlineNs(); at - untilNs <= 0; at = leader.nextDeadlineNs())
        {
            leader.onTimer(at);
        }
    }

    @Test
    void withoutAPresentMajorityTheLeaderHoldsRequestsAnswersUnavailableOnceAndOrdersWhenAFollowerReturns()
    {
        leader.start(0);
        runUntil(400 * MS);
        assertEquals(450 * MS, leader.nextDeadlineNs(), "the lease runs out 450 ms after the followers were last heard");
        leader.onTimer(450 * MS);
        assertEquals(1, leader.counters().leaseLost());
        assertEquals(MemberEngine.State.LEADER_IDLE, leader.state(), "still leading: the step-down comes at the next tick");

        sent.clear();
        feed(request(1), 460 * MS);
        assertEquals(0, sent.orders().size(), "no order without a majority");
        final List<ViewChangeFlyweight> notices = sent.viewChanges();
        assertEquals(1, notices.size());
        assertEquals(CLIENT, sent.ofType(org.lightwire.romiop.protocol.PacketType.VIEW_CHANGE).get(0).to());
        final ViewChangeFlyweight n = notices.get(0);
        assertEquals(ViewChangeFlyweight.KIND_UNAVAILABLE, n.kind());
        assertEquals(LEADER, n.senderId());
        assertEquals(OneEngine.ORDERING_EPOCH, n.epoch());
        assertEquals(3, n.memberCount());
        assertEquals(List.of(1, 2, 3), List.of(n.memberId(0), n.memberId(1), n.memberId(2)));
        assertEquals(List.of(ViewChangeFlyweight.MEMBER_PRESENT, 0, 0), List.of(n.memberFlags(0), n.memberFlags(1), n.memberFlags(2)),
            "only the leader is present");

        feed(request(2), 470 * MS);
        assertEquals(1, sent.viewChanges().size(), "one notice a client a retransmit timeout");
        assertEquals(0, sent.orders().size());
        assertEquals(1, leader.counters().unavailableSent());

        feed(orderAck(2, 0), 480 * MS);
        assertEquals(1, leader.counters().leaseRegained());
        final List<MsgOrderFlyweight> orders = sent.orders();
        assertEquals(1, orders.size(), "the held requests are ordered as soon as the majority is back");
        assertEquals(1, orders.get(0).firstOrderSeq());
        assertEquals(List.of(1, 2), List.of(orders.get(0).entryPacketId(0), orders.get(0).entryPacketId(1)));
        feed(orderAck(2, 2), 490 * MS);
        assertEquals(List.of(1L, 2L), delivered, "member 2 and the leader commit them");

        runUntil(500 * MS);
        assertEquals(MemberEngine.State.LEADER_IDLE, leader.state(), "member 3 is removed, the leader leads on");
        assertEquals(0, leader.counters().leaderStepDowns());
        assertEquals(1, leader.counters().membersRemoved());
        final org.lightwire.romiop.protocol.MemberChangeFlyweight list = sent.memberChanges().stream()
            .filter(c -> c.status() == org.lightwire.romiop.protocol.MemberChangeFlyweight.STATUS_LIST).reduce((a, b) -> b).orElseThrow();
        assertEquals(List.of(1, 2, 3), List.of(list.listMember(0), list.listMember(1), list.listMember(2)),
            "the view [1, 2], then 3: still of the configuration");
        assertEquals(2, list.listViewSize());
    }

    @Test
    void aLeaderWhoseViewStaysSilentStillStepsDownAtTheTickAfterItsLeaseRanOut()
    {
        leader.start(0);
        runUntil(450 * MS);
        assertEquals(1, leader.counters().leaseLost());
        runUntil(500 * MS);
        assertEquals(MemberEngine.State.JOINING, leader.state());
        assertEquals(1, leader.counters().leaderStepDowns());
        sent.clear();
        feed(request(1), 510 * MS);
        assertEquals(0, sent.viewChanges().size(), "no longer leading: no notice");
    }

    @Test
    void aLeaderHeardByItsMajorityNeverLosesItsLease()
    {
        leader.start(0);
        for (long t = 100 * MS; t <= 2_000 * MS; t += 100 * MS)
        {
            runUntil(t);
            feed(orderAck(2, 0), t);
        }
        feed(request(1), 2_010 * MS);
        assertEquals(0, leader.counters().leaseLost());
        assertEquals(0, sent.viewChanges().size());
        assertEquals(1, sent.orders().size());
    }

    @Test
    void aClientWithAnOrderNotYetCommittedIsNotToldItsCallsWereNotOrdered()
    {
        leader.start(0);
        feed(request(1), 10 * MS);
        assertEquals(1, sent.orders().size(), "ordered while the lease holds; no member accepts it");
        runUntil(450 * MS);
        assertEquals(1, leader.counters().leaseLost());
        feed(request(2), 460 * MS);
        assertEquals(0, sent.viewChanges().size(), "its order 1 would run if the majority returned");
        feed(request(CLIENT + 1, 1), 461 * MS);
        assertEquals(1, sent.viewChanges().size(), "another client, with nothing ordered, is told");
        assertEquals(CLIENT + 1, sent.ofType(org.lightwire.romiop.protocol.PacketType.VIEW_CHANGE).get(0).to());
    }
}
