package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.NakFlyweight;
import org.lightwire.romiop.protocol.OrderAckFlyweight;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.RequestFlyweight;

/**
 * Tier 1: the rules that keep restarted processes and stale leaders from splitting the order, each
 * on one MemberEngine with a hand-advanced clock and a recording sender (the nemesis simulation
 * shows them together: crash 56, mixed 2, mixed 4, crash 6).
 */
class RestartRulesTest
{
    private static final int LEADER = 1;
    private static final int CLIENT = 100;
    private static final long MS = 1_000_000L;

    private final SentPackets sent = new SentPackets();
    private final List<Long> executed = new ArrayList<>();

    private MemberEngine engine(final GroupConfig config)
    {
        return new MemberEngine(config.keepAlive(20 * MS, 100 * MS).joinTimeoutNs(60 * MS).retransmitTimeoutNs(20 * MS).nakDelayNs(2 * MS)
            .requestAckDelayNs(0).orderAckDelayNs(0), sent,
            (seq, sender, packetId, requestId, payload, offset, length) -> executed.add(MemberEngine.key(sender, packetId)));
    }

    private static void feed(final MemberEngine e, final ByteBuffer b, final long nowNs)
    {
        e.onPacket(b, 0, b.capacity(), nowNs);
    }

    private static void runUntil(final MemberEngine e, final long endNs)
    {
        for (long t = 0; t <= endNs; t += MS)
        {
            e.onTimer(t);
        }
    }

    private static ByteBuffer added(final int joiner)
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(0));
        ((MemberChangeFlyweight)new MemberChangeFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, joiner, 7, joiner,
            MemberChangeFlyweight.STATUS_ADDED, 0);
        return b;
    }

    private static ByteBuffer keepAlive(final int from, final int epoch, final long lastOrderSeq)
    {
        final ByteBuffer b = ByteBuffer.allocate(KeepAliveFlyweight.LENGTH);
        ((KeepAliveFlyweight)new KeepAliveFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, 50, epoch, lastOrderSeq, lastOrderSeq);
        return b;
    }

    private static ByteBuffer request(final int packetId)
    {
        final ByteBuffer b = ByteBuffer.allocate(RequestFlyweight.HEADER_LENGTH + 1);
        ((RequestFlyweight)new RequestFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, CLIENT, packetId, packetId, 1, 1);
        return b;
    }

    /** A MsgOrder of {@code epoch} from the leader naming request {@code packetId} at {@code seq}, with that commit. */
    private static ByteBuffer order(final int epoch, final int packetId, final long seq, final int msgPacketId)
    {
        return WirePackets.order(LEADER, msgPacketId, epoch, seq, CLIENT, packetId, seq);
    }

    /**
     * Member 2 of [1, 2, 3] that executed the client's request 1 at order 1 of epoch 1, and then
     * followed its leader into {@code epoch}.
     */
    private MemberEngine memberThatExecutedRequest1(final int epoch)
    {
        final MemberEngine member = engine(new GroupConfig(2, LEADER, 1, 2, 3));
        member.start(0);
        feed(member, request(1), MS);
        feed(member, order(1, 1, 1, 90), 2 * MS);
        if (epoch != 1)
        {
            feed(member, keepAlive(LEADER, epoch, 1), 2 * MS);
        }
        assertEquals(1, member.deliveredSeq());
        assertEquals(MemberEngine.State.MEMBER, member.state());
        assertEquals(List.of(MemberEngine.key(CLIENT, 1)), executed);
        return member;
    }

    @Test
    void aJoinerThatKnowsItsGroupNeverFoundsOneWhenNoMemberAnswers()
    {
        final MemberEngine joiner = engine(GroupConfig.joining(4, 1, 2, 3, 4));
        joiner.start(0);
        runUntil(joiner, 1_000 * MS);
        assertEquals(MemberEngine.State.JOINING, joiner.state(), "it waits for the group's leader");
        assertEquals(0, sent.keepAlives().size() + sent.orders().size(), "it never acts as a leader");
        assertEquals(51, sent.memberChanges().size(), "it asks (ADDED) at start and at every KeepAlive period");
    }

    @Test
    void aJoinerThatKnowsNoGroupFoundsOneWhenNoMemberAnswers()
    {
        final MemberEngine joiner = engine(GroupConfig.joining(4));
        joiner.start(0);
        runUntil(joiner, 1_000 * MS);
        assertEquals(MemberEngine.State.LEADER_IDLE, joiner.state(), "the paper's founding by silence");
    }

    @Test
    void aMemberAnswersAJoinersAddedWithItsViewLeaderFirst()
    {
        final MemberEngine member = engine(new GroupConfig(2, LEADER, 1, 2, 3));
        member.start(0);
        sent.clear();
        feed(member, added(4), MS);
        assertEquals(1, member.counters().joinersAnswered());
        assertEquals(1, sent.size());
        assertEquals(4, sent.all.get(0).to());
        final MemberChangeFlyweight m = sent.memberChanges().get(0);
        assertEquals(MemberChangeFlyweight.STATUS_LIST, m.status());
        assertEquals(LEADER, m.member(0), "its first entry is the leader, not the member that answers: nobody follows it");
    }

    @Test
    void aMemberTellsALeaderOfAnOlderEpochItsOwnEpoch()
    {
        // Its leader orders in epoch 3: the member enters it.
        final MemberEngine member = memberThatExecutedRequest1(3);
        sent.clear();
        // A leader of epoch 1, replaced while paused, multicasts its KeepAlive.
        feed(member, keepAlive(3, 1, 0), 3 * MS);
        assertEquals(1, member.counters().staleLeadersTold());
        assertEquals(1, sent.ofType(PacketType.KEEP_ALIVE).size());
        assertEquals(3, sent.ofType(PacketType.KEEP_ALIVE).get(0).to());
        assertEquals(3, sent.keepAlives().get(0).epoch());
    }

    @Test
    void aMemberNeverExecutesARequestTwiceWhateverOrderNumberItIsGiven()
    {
        final MemberEngine member = memberThatExecutedRequest1(1);
        // A later leader that never knew of order 1 orders the client's resent request again.
        feed(member, order(1, 1, 2, 91), 3 * MS);
        feed(member, request(1), 4 * MS);
        assertEquals(2, member.deliveredSeq(), "the order number is kept");
        assertEquals(List.of(MemberEngine.key(CLIENT, 1)), executed, "executed once");
        assertEquals(1, member.counters().reorderedRequestsSkipped());
    }

    private static ByteBuffer orderAck(final int from, final int packetId, final long seq)
    {
        final ByteBuffer b = ByteBuffer.allocate(OrderAckFlyweight.LENGTH);
        ((OrderAckFlyweight)new OrderAckFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, packetId, OneEngine.ORDERING_EPOCH, seq, seq);
        return b;
    }

    private static ByteBuffer orderNak(final int from, final int packetId, final long fromSeq)
    {
        final ByteBuffer b = ByteBuffer.allocate(NakFlyweight.HEADER_LENGTH);
        ((NakFlyweight)new NakFlyweight().wrap(b, 0)).setOrderNak(ByteOrder.BIG_ENDIAN, from, packetId, fromSeq);
        return b;
    }

    @Test
    void theLeaderRemovesAMemberAskingForWhatItForgotOnlyInAPacketNewerThanItsAck()
    {
        final GroupConfig config = new GroupConfig(LEADER, LEADER, 1, 2, 3).orderInterval(0, true).orderWindow(16);
        final MemberEngine leader = OneEngine.founded(engine(config), config, 0);
        feed(leader, request(1), MS);
        feed(leader, orderAck(2, 10, 1), 2 * MS);
        feed(leader, orderAck(3, 10, 1), 2 * MS);
        assertEquals(1, leader.deliveredSeq());
        assertEquals(0, leader.retainedOrders(), "every member ACKed order 1: forgotten");
        // A NAK for order 1 that member 2 sent before its ACK, delayed: answered, nobody removed.
        feed(leader, orderNak(2, 9, 1), 3 * MS);
        assertEquals(0, leader.counters().laggardsRemoved());
        assertEquals(List.of(1, 2, 3), Arrays.stream(leader.currentMembers()).boxed().toList());
        // The same NAK sent after that ACK: a later incarnation that can never catch up.
        feed(leader, orderNak(2, 11, 1), 4 * MS);
        assertEquals(1, leader.counters().laggardsRemoved());
        assertEquals(List.of(1, 3), Arrays.stream(leader.currentMembers()).boxed().toList());
    }

    /**
     * A joiner's NAKs sent after its ADDED are its own (it starts after the commit): one that asks
     * for an order every member had delivered and the leader forgot before it was admitted can
     * never be served, and it is removed (it rejoins, and takes a state). The ADDED's packet id is
     * the mark, not the id of the LIST the leader wrote while admitting it (its own, and higher).
     */
    @Test
    void aJoinerAskingInAPacketNewerThanItsAddedForWhatTheLeaderForgotIsRemoved()
    {
        final GroupConfig config = new GroupConfig(LEADER, LEADER, 1, 2, 3).orderInterval(0, true).orderWindow(16);
        final MemberEngine leader = OneEngine.founded(engine(config), config, 0);
        for (int i = 1; i <= 3; i++)
        {
            feed(leader, request(i), i * MS);
            feed(leader, orderAck(2, 10 + i, i), i * MS);
            feed(leader, orderAck(3, 10 + i, i), i * MS);
        }
        assertEquals(3, leader.deliveredSeq());
        assertEquals(0, leader.retainedOrders(), "every member ACKed orders 1 to 3: forgotten");
        feed(leader, added(4), 5 * MS);
        assertEquals(List.of(1, 2, 3, 4), Arrays.stream(leader.currentMembers()).boxed().toList());
        // Sent before its ADDED (packet 7), delayed: answered, nobody removed.
        feed(leader, orderNak(4, 6, 1), 6 * MS);
        assertEquals(0, leader.counters().laggardsRemoved());
        // Sent after it: this process can never get order 1.
        feed(leader, orderNak(4, 8, 1), 7 * MS);
        assertEquals(1, leader.counters().laggardsRemoved());
        assertEquals(List.of(1, 2, 3), Arrays.stream(leader.currentMembers()).boxed().toList());
    }
}
