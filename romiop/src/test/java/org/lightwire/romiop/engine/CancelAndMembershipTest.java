package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.CancelFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.OrderAckFlyweight;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.RequestFlyweight;
import org.junit.jupiter.api.Test;

/** Tier 1: Cancel at the leader and at a member, the duplicate filter's bound, and founding a group. */
class CancelAndMembershipTest
{
    private static final long MS = 1_000_000L;
    private static final int CLIENT = 100;

    private record Sent(int to, PacketType type, ByteBuffer bytes)
    {
    }

    private final List<Sent> sent = new ArrayList<>();
    private final List<Long> delivered = new ArrayList<>();

    private MemberEngine engine(final GroupConfig config)
    {
        return OneEngine.founded(new MemberEngine(config, (to, packet, length) ->
        {
            final ByteBuffer copy = ByteBuffer.allocate(length);
            copy.put(0, packet, 0, length);
            sent.add(new Sent(to, new PacketHeader_1_0().wrap(copy, 0).type(), copy));
        }, (seq, sender, packetId, requestId, payload, offset, length) -> delivered.add(MemberEngine.key(sender, packetId))), config, 0);
    }

    private static GroupConfig fixed(final int self)
    {
        return new GroupConfig(self, 1, 1, 2, 3).orderInterval(10 * MS, false).retransmitTimeoutNs(20 * MS).keepAlive(0, 0)
            .cancelHoldNs(50 * MS).requestAckDelayNs(0);
    }

    private static ByteBuffer request(final int packetId)
    {
        final ByteBuffer b = ByteBuffer.allocate(RequestFlyweight.HEADER_LENGTH + 1);
        ((RequestFlyweight)new RequestFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, CLIENT, packetId, packetId, 3, 1);
        return b;
    }

    /** Member {@code from} holds the founded leader's order up to {@code accepted}: with the leader's, that commits in a group of three. */
    private static ByteBuffer orderAck(final int from, final long accepted)
    {
        final ByteBuffer b = ByteBuffer.allocate(OrderAckFlyweight.LENGTH);
        ((OrderAckFlyweight)new OrderAckFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, 1, OneEngine.ORDERING_EPOCH, accepted, 0);
        return b;
    }

    private static ByteBuffer cancel(final int cancelPacketId, final int requestPacketId)
    {
        final ByteBuffer b = ByteBuffer.allocate(CancelFlyweight.LENGTH);
        ((CancelFlyweight)new CancelFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, CLIENT, cancelPacketId, requestPacketId, requestPacketId);
        return b;
    }

    private static ByteBuffer order(final long firstSeq, final int... packetIds)
    {
        final ByteBuffer b = ByteBuffer.allocate(MsgOrderFlyweight.length(packetIds.length));
        final MsgOrderFlyweight o = new MsgOrderFlyweight();
        o.wrap(b, 0);
        o.set(ByteOrder.BIG_ENDIAN, 1, 1, 1, firstSeq, packetIds.length, 0);
        for (int i = 0; i < packetIds.length; i++)
        {
            o.entry(i, CLIENT, packetIds[i]);
        }
        return b;
    }

    private static void feed(final MemberEngine e, final ByteBuffer b, final long nowNs)
    {
        e.onPacket(b, 0, b.capacity(), nowNs);
    }

    private long count(final PacketType type)
    {
        return sent.stream().filter(s -> s.type == type).count();
    }

    @Test
    void leaderNeverOrdersARequestCancelledBeforeItsInterval()
    {
        final MemberEngine leader = engine(fixed(1));
        feed(leader, request(1), 0);
        feed(leader, request(2), 1 * MS);
        feed(leader, cancel(3, 1), 2 * MS);
        leader.onTimer(10 * MS);
        assertEquals(List.of(), delivered, "ordered, not yet committed");
        feed(leader, orderAck(2, 1), 11 * MS);
        assertEquals(List.of(MemberEngine.key(CLIENT, 2)), delivered);
        final MsgOrderFlyweight o = (MsgOrderFlyweight)new MsgOrderFlyweight()
            .wrap(sent.stream().filter(s -> s.type == PacketType.MSG_ORDER).findFirst().orElseThrow().bytes, 0);
        assertEquals(1, o.entryCount());
        assertEquals(2, o.entryPacketId(0));
        assertEquals(1, leader.counters().requestsCancelled());
        final AckFlyweight cancelAck = (AckFlyweight)new AckFlyweight().wrap(sent.stream()
            .filter(s -> s.type == PacketType.ACK && s.to == CLIENT).toList().get(2).bytes, 0);
        assertEquals(PacketType.CANCEL, cancelAck.ackedType());
        assertEquals(3, cancelAck.ackedId());

        feed(leader, request(1), 11 * MS);
        leader.onTimer(30 * MS);
        assertEquals(1, delivered.size(), "a late copy of the cancelled request is a duplicate");
        assertEquals(1, leader.counters().duplicateRequests());
        feed(leader, cancel(4, 2), 31 * MS);
        assertEquals(1, leader.counters().cancelsTooLate(), "an ordered request is delivered everywhere");
    }

    @Test
    void memberHoldsACancelledRequestInCaseTheLeaderOrderedItThenDropsIt()
    {
        final MemberEngine member = engine(fixed(2));
        feed(member, request(1), 0);
        feed(member, request(2), 0);
        feed(member, cancel(3, 1), 1 * MS);
        feed(member, cancel(4, 2), 1 * MS);
        assertEquals(51 * MS, member.nextDeadlineNs());
        feed(member, order(1, 2), 10 * MS);
        assertEquals(List.of(MemberEngine.key(CLIENT, 2)), delivered, "ordered before the cancel reached the leader: delivered");
        assertEquals(1, member.counters().cancelsTooLate());
        member.onTimer(51 * MS);
        assertEquals(1, member.counters().requestsCancelled());
        feed(member, request(1), 52 * MS);
        assertEquals(1, member.counters().duplicateRequests(), "dropped for good");
        assertEquals(Long.MAX_VALUE, member.nextDeadlineNs());
    }

    @Test
    void memberTakesTheLeadersCopyOfARequestCancelledBeforeItArrived()
    {
        final MemberEngine member = engine(fixed(2));
        feed(member, cancel(3, 1), 0);
        feed(member, request(1), 1 * MS);
        assertEquals(1, member.counters().duplicateRequests(), "the client's late copy is dropped");
        feed(member, order(1, 1), 2 * MS);
        member.onTimer(4 * MS);
        assertEquals(1, count(PacketType.NAK), "ordered after all: the member asks the leader");
        feed(member, request(1), 5 * MS);
        assertEquals(List.of(MemberEngine.key(CLIENT, 1)), delivered);
    }

    @Test
    void duplicateFilterKeepsAWindowPerClientNotTheHistory()
    {
        final GroupCounters counters = new GroupCounters();
        final DuplicateFilter filter = new DuplicateFilter(4, 2, counters);
        for (int id = 1; id <= 100; id += 3)
        {
            filter.finish(7, id);
        }
        assertEquals(4, filter.size());
        assertTrue(filter.isFinished(7, 1), "below the watermark");
        assertTrue(filter.isFinished(7, 100));
        assertFalse(filter.isFinished(7, 99), "above the watermark and never finished");
        assertFalse(filter.isFinished(7, 101));
        filter.finish(8, 5);
        filter.finish(9, 5);
        assertEquals(1, counters.clientsForgotten());
        assertFalse(filter.isFinished(7, 1), "client 7 was least recently used");
        assertEquals(2, filter.size());
    }

    @Test
    void firstMemberLeadsAGroupOfItsOwnWhenNobodyAnswersThenAddsAJoiner()
    {
        final GroupConfig config = GroupConfig.joining(5).joinTimeoutNs(30 * MS).keepAlive(10 * MS, 50 * MS);
        final MemberEngine first = engine(config);
        first.start(0);
        assertEquals(MemberEngine.State.JOINING, first.state());
        assertEquals(1, count(PacketType.MEMBER_CHANGE), "asked the group");
        for (long t = 10 * MS; t <= 30 * MS; t += 10 * MS)
        {
            first.onTimer(t);
        }
        assertEquals(MemberEngine.State.LEADER_IDLE, first.state());
        assertArrayEquals(new int[] {5}, first.currentMembers());

        sent.clear();
        final ByteBuffer added = ByteBuffer.allocate(MemberChangeFlyweight.length(0));
        ((MemberChangeFlyweight)new MemberChangeFlyweight().wrap(added, 0))
            .set(ByteOrder.BIG_ENDIAN, 6, 1, 6, MemberChangeFlyweight.STATUS_ADDED, 0);
        feed(first, added, 31 * MS);
        assertArrayEquals(new int[] {5, 6}, first.currentMembers());
        assertEquals(1, first.counters().membersAdded());
        final Sent list = sent.get(0);
        assertEquals(GroupSender.GROUP, list.to);
        final MemberChangeFlyweight mc = (MemberChangeFlyweight)new MemberChangeFlyweight().wrap(list.bytes, 0);
        assertEquals(MemberChangeFlyweight.STATUS_LIST, mc.status());
        assertEquals(2, mc.listSize());
        assertEquals(1, mc.listEpoch(), "the epoch the leader leads");
        assertEquals(5, mc.member(0), "leader first");
        assertEquals(6 | MemberChangeFlyweight.LEARNER, mc.member(1), "6 is no member of the founder's configuration [5]: a learner");
        assertEquals(6, mc.listMember(1));
        assertEquals(PacketType.MEMBER_CHANGE, sent.get(1).type, "the view again, to the joiner, before its start point");
        assertEquals(6, sent.get(1).to);
        assertEquals(PacketType.KEEP_ALIVE, sent.get(2).type, "where the joiner starts");
        assertEquals(6, sent.get(2).to);
    }
}
