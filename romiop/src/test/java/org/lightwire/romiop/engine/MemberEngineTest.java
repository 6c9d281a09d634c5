package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.FragmentHeader;
import org.lightwire.romiop.protocol.Invalid;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.NakFlyweight;
import org.lightwire.romiop.protocol.OrderAckFlyweight;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.RequestFlyweight;
import org.junit.jupiter.api.Test;

/** Tier 1: one MemberEngine, a hand-advanced clock and a recording sender. */
class MemberEngineTest
{
    private static final int LEADER = 1;
    private static final int MEMBER = 2;
    private static final int CLIENT = 100;
    private static final long MS = 1_000_000L;

    private record Sent(int to, PacketType type, ByteBuffer bytes)
    {
    }

    private final List<Sent> sent = new ArrayList<>();
    private final List<Long> deliveredKeys = new ArrayList<>();

    /**
     * A member that ACKs every request and every delivering order at once, and a sequencer with the
     * strict ACK clock (the delayed ACKs and the order window have their own tests).
     */
    private MemberEngine engine(final int self, final long intervalNs, final boolean atOnce)
    {
        return engine(new GroupConfig(self, LEADER, 1, 2, 3)
            .orderInterval(intervalNs, atOnce).nakDelayNs(2 * MS).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).requestAckDelayNs(0)
            .orderAckDelayNs(0).orderWindow(1));
    }

    private MemberEngine engine(final GroupConfig config)
    {
        final MemberEngine e = new MemberEngine(config, (to, packet, length) ->
        {
            final ByteBuffer copy = ByteBuffer.allocate(length);
            copy.put(0, packet, 0, length);
            sent.add(new Sent(to, new PacketHeader_1_0().wrap(copy, 0).type(), copy));
        }, (seq, sender, packetId, requestId, payload, offset, length) -> deliveredKeys.add(MemberEngine.key(sender, packetId)));
        OneEngine.founded(e, config, 0);
        sent.clear();
        return e;
    }

    private static ByteBuffer request(final int packetId)
    {
        final ByteBuffer b = ByteBuffer.allocate(RequestFlyweight.HEADER_LENGTH + 1);
        ((RequestFlyweight)new RequestFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, CLIENT, packetId, packetId, 1, 1);
        return b;
    }

    private static ByteBuffer order(final long firstSeq, final int... packetIds)
    {
        return committedOrder(0, firstSeq, packetIds);
    }

    /** A MsgOrder of epoch 1 announcing {@code commit}. */
    private static ByteBuffer committedOrder(final long commit, final long firstSeq, final int... packetIds)
    {
        final ByteBuffer b = ByteBuffer.allocate(MsgOrderFlyweight.length(packetIds.length));
        final MsgOrderFlyweight o = new MsgOrderFlyweight();
        o.wrap(b, 0);
        o.set(ByteOrder.BIG_ENDIAN, LEADER, 1, 1, firstSeq, packetIds.length, commit);
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

    private List<MsgOrderFlyweight> ordersSent()
    {
        final List<MsgOrderFlyweight> orders = new ArrayList<>();
        for (final Sent s : sent)
        {
            if (s.type == PacketType.MSG_ORDER)
            {
                orders.add((MsgOrderFlyweight)new MsgOrderFlyweight().wrap(s.bytes, 0));
            }
        }
        return orders;
    }

    @Test
    void idleSequencerOrdersAtOnceThenBatchesUntilTheIntervalEnds()
    {
        final MemberEngine leader = engine(LEADER, 10 * MS, true);
        feed(leader, request(1), 0);
        assertEquals(1, ordersSent().size(), "first request ordered at once");
        assertEquals(MemberEngine.State.LEADER_BATCHING, leader.state());
        feed(leader, request(2), 1 * MS);
        feed(leader, request(3), 2 * MS);
        assertEquals(1, ordersSent().size(), "later requests wait for the interval");
        assertEquals(10 * MS, leader.nextDeadlineNs());
        leader.onTimer(10 * MS);
        final List<MsgOrderFlyweight> orders = ordersSent();
        assertEquals(2, orders.size());
        assertEquals(2, orders.get(1).firstOrderSeq());
        assertEquals(2, orders.get(1).entryCount());
        assertEquals(GroupSender.GROUP, sent.stream().filter(s -> s.type == PacketType.MSG_ORDER).findFirst().orElseThrow().to);
        leader.onTimer(20 * MS);
        assertEquals(MemberEngine.State.LEADER_IDLE, leader.state());
        assertEquals(0, leader.deliveredSeq(), "nothing committed: only the leader holds its orders");
        feed(leader, orderAck(3, 3), 21 * MS);
        assertEquals(3, leader.deliveredSeq(), "a member's acceptance and the leader's commit its orders in a group of three");
    }

    @Test
    void everyOrderCarriesTheEpochAndTheCommitAndAStaleEpochIsDropped()
    {
        final MemberEngine leader = engine(LEADER, 0, true);
        feed(leader, request(1), 0);
        assertEquals(OneEngine.ORDERING_EPOCH, ordersSent().get(0).epoch(), "the epoch after the founding one, promised by every member");
        assertEquals(0, ordersSent().get(0).commit(), "nothing committed when order 1 leaves");
        feed(leader, orderAck(2, 1), 1 * MS);
        assertEquals(1, leader.deliveredSeq(), "member 2's acceptance committed order 1");
        feed(leader, orderAck(3, 1), 1 * MS);
        feed(leader, request(2), 2 * MS);
        assertEquals(1, ordersSent().get(1).commit(), "the next order tells the commit");
        final ByteBuffer stale = ByteBuffer.allocate(OrderAckFlyweight.LENGTH);
        ((OrderAckFlyweight)new OrderAckFlyweight().wrap(stale, 0)).set(ByteOrder.BIG_ENDIAN, 3, 61, MemberEngine.FOUNDING_EPOCH, 2, 2);
        feed(leader, stale, 3 * MS);
        assertEquals(1, leader.counters().staleEpochPackets(), "an OrderAck of another epoch counts for nothing");
        assertEquals(1, leader.deliveredSeq());

        // A member that accepted order 1 of epoch 1 (a history: a founding member without one
        // that meets a newer epoch rejoins, as a possibly restarted process).
        final MemberEngine member = engine(MEMBER, 0, true);
        feed(member, request(1), 0);
        feed(member, request(2), 0);
        feed(member, committedOrder(1, 1, 1), 0);
        assertEquals(1, member.deliveredSeq());
        final ByteBuffer older = order(2, 2);
        older.putInt(12 + MsgOrderFlyweight.EPOCH_OFFSET, 1);
        final ByteBuffer newer = committedOrder(1, 2, 2);
        newer.putInt(12 + MsgOrderFlyweight.EPOCH_OFFSET, 2);
        feed(member, newer, 1 * MS);
        assertEquals(MemberEngine.State.MEMBER, member.state());
        assertEquals(2, member.deliveredSeq(), "epoch 2 entered from its leader");
        feed(member, older, 2 * MS);
        assertEquals(1, member.counters().staleEpochPackets(), "epoch 1 is over for it");
    }

    @Test
    void paperModeWaitsTheWholeIntervalEvenWhenIdle()
    {
        final MemberEngine leader = engine(LEADER, 10 * MS, false);
        feed(leader, request(1), 0);
        assertEquals(0, ordersSent().size());
        leader.onTimer(9 * MS);
        assertEquals(0, ordersSent().size());
        leader.onTimer(10 * MS);
        assertEquals(1, ordersSent().size());
    }

    /** Member {@code from} accepted and delivered the founded leader's order up to {@code deliveredSeq}. */
    private static ByteBuffer orderAck(final int from, final long deliveredSeq)
    {
        final ByteBuffer b = ByteBuffer.allocate(OrderAckFlyweight.LENGTH);
        ((OrderAckFlyweight)new OrderAckFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, 60, OneEngine.ORDERING_EPOCH, deliveredSeq, deliveredSeq);
        return b;
    }

    @Test
    void withNothingInFlightTheSequencerOrdersAtOnceEvenInsideTheInterval()
    {
        final MemberEngine leader = engine(LEADER, 10 * MS, true);
        feed(leader, request(1), 0);
        assertEquals(1, ordersSent().size());
        feed(leader, orderAck(2, 1), 1 * MS);
        feed(leader, orderAck(3, 1), 1 * MS);
        // Order 1 is delivered everywhere: request 2 need not wait for the interval's end (10 ms).
        feed(leader, request(2), 2 * MS);
        assertEquals(2, ordersSent().size());
        assertEquals(1, leader.counters().ordersAtOnceInBatching());

        // With order 2 in flight, request 3 waits, until the last ACK of order 2 releases it.
        feed(leader, request(3), 3 * MS);
        assertEquals(2, ordersSent().size());
        feed(leader, orderAck(2, 2), 4 * MS);
        assertEquals(2, ordersSent().size(), "member 3 has not ACKed order 2 yet");
        feed(leader, orderAck(3, 2), 5 * MS);
        assertEquals(3, ordersSent().size(), "the last ACK sends the waiting order at once");
        assertEquals(3, ordersSent().get(2).firstOrderSeq());
        assertEquals(2, leader.counters().ordersAtOnceInBatching());
    }

    @Test
    void theSequencerOrdersAtOnceWhileFewerThanTheWindowAreUnacknowledged()
    {
        final MemberEngine leader = engine(new GroupConfig(LEADER, LEADER, 1, 2, 3)
            .orderInterval(10 * MS, true).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).requestAckDelayNs(0).orderWindow(3));
        feed(leader, request(1), 0);
        feed(leader, request(2), 1 * MS);
        feed(leader, request(3), 2 * MS);
        assertEquals(3, ordersSent().size(), "three orders in flight, each sent at once");
        feed(leader, request(4), 3 * MS);
        feed(leader, request(5), 3 * MS);
        assertEquals(3, ordersSent().size(), "the window is full: 4 and 5 wait");
        feed(leader, orderAck(2, 2), 4 * MS);
        assertEquals(3, ordersSent().size(), "member 3 has delivered nothing yet");
        feed(leader, orderAck(3, 1), 5 * MS);
        assertEquals(4, ordersSent().size(), "order 1 is delivered everywhere: what waits goes out as one batch");
        assertEquals(4, ordersSent().get(3).firstOrderSeq());
        assertEquals(2, ordersSent().get(3).entryCount());
    }

    @Test
    void aMemberTellsWhatItAcceptedAtOnceAndWhatItDeliveredAfterTheDelay()
    {
        // Five members: a member's acceptance and the leader's do not commit; the leader's word does.
        final MemberEngine member = engine(new GroupConfig(MEMBER, LEADER, 1, 2, 3, 4, 5)
            .orderInterval(10 * MS, true).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).requestAckDelayNs(0).orderAckDelayNs(1 * MS));
        for (int i = 1; i <= 3; i++)
        {
            feed(member, request(i), 0);
        }
        final int before = sent.size();
        feed(member, order(1, 1), 100_000);
        feed(member, order(2, 2), 200_000);
        assertEquals(0, member.deliveredSeq(), "accepted, not committed");
        assertEquals(List.of(1L, 2L), acceptedAcks(before), "each acceptance is told at once: the leader commits by it");
        assertEquals(List.of(0L, 0L), orderAcks(before));
        feed(member, committedOrder(2, 3, 3), 300_000);
        assertEquals(2, member.deliveredSeq(), "delivered up to the leader's commit");
        assertEquals(List.of(1L, 2L, 3L), acceptedAcks(before));
        assertEquals(List.of(0L, 0L, 2L), orderAcks(before), "the acceptance of 3 tells the delivery it came with");
        assertEquals(Long.MAX_VALUE, member.nextDeadlineNs(), "nothing left to tell");
        member.onTimer(5 * MS);
        assertEquals(3, orderAcks(before).size());
        feed(member, committedOrder(3, 3, 3), 6 * MS);
        assertEquals(3, member.deliveredSeq());
        assertEquals(List.of(0L, 0L, 2L, 3L), orderAcks(before), "a repeated order is answered at once");
    }

    @Test
    void aMemberOfAGroupOfThreeDeliversWhatItAcceptedSinceTheLeaderHoldsItToo()
    {
        final MemberEngine member = engine(new GroupConfig(MEMBER, LEADER, 1, 2, 3)
            .orderInterval(10 * MS, true).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).requestAckDelayNs(0).orderAckDelayNs(5 * MS));
        feed(member, request(1), 0);
        final int before = sent.size();
        feed(member, order(1, 1), 10_000);
        assertEquals(1, member.deliveredSeq(), "the leader and this member are two of three: committed");
        assertEquals(List.of(1L), acceptedAcks(before));
        assertEquals(List.of(1L), orderAcks(before));
    }

    @Test
    void aFollowerNeedNotWakeForRequestsUntilItMissesOne()
    {
        final MemberEngine member = engine(new GroupConfig(MEMBER, LEADER, 1, 2, 3)
            .orderInterval(10 * MS, true).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).requestAckDelayNs(0));
        final MemberEngine leader = engine(new GroupConfig(LEADER, LEADER, 1, 2, 3)
            .orderInterval(10 * MS, true).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).requestAckDelayNs(0));
        assertTrue(leader.wakesForRequests(), "the sequencer orders requests as they come");
        assertFalse(member.wakesForRequests(), "a follower acts on a request when its order comes");
        feed(member, request(1), 0);
        feed(member, order(1, 1), 10_000);
        assertEquals(1, member.deliveredSeq());
        assertFalse(member.wakesForRequests());
        feed(member, order(2, 2), 20_000);
        assertEquals(1, member.deliveredSeq(), "request 2 is missing");
        assertTrue(member.wakesForRequests(), "a member with a gap wants the missing request at once");
        feed(member, request(2), 30_000);
        assertEquals(2, member.deliveredSeq());
        assertFalse(member.wakesForRequests(), "gap filled");
    }

    private List<OrderAckFlyweight> orderAckPackets(final int from)
    {
        return sent.subList(from, sent.size()).stream().filter(x -> x.type == PacketType.ORDER_ACK)
            .map(x -> (OrderAckFlyweight)new OrderAckFlyweight().wrap(x.bytes, 0)).toList();
    }

    /** @return the delivered sequence of every OrderAck sent since {@code from}. */
    private List<Long> orderAcks(final int from)
    {
        return orderAckPackets(from).stream().map(OrderAckFlyweight::delivered).toList();
    }

    /** @return the accepted sequence of every OrderAck sent since {@code from}. */
    private List<Long> acceptedAcks(final int from)
    {
        return orderAckPackets(from).stream().map(OrderAckFlyweight::accepted).toList();
    }

    @Test
    void theSequencerResendsAnOrderOnlyOnceItIsOlderThanTheTimeout()
    {
        // retransmit_ms 20: armed by order 1 at 0 ms; order 2 leaves at 19 ms.
        final MemberEngine leader = engine(LEADER, 0, true);
        feed(leader, request(1), 0);
        feed(leader, orderAck(2, 1), 1 * MS);
        feed(leader, orderAck(3, 1), 1 * MS);
        feed(leader, request(2), 19 * MS);
        assertEquals(2, ordersSent().size());
        leader.onTimer(19 * MS);
        assertEquals(20 * MS, leader.nextDeadlineNs());
        leader.onTimer(20 * MS);
        assertEquals(0, leader.counters().orderRetransmits(), "order 2 is 1 ms old: not lost yet");
        assertEquals(2, ordersSent().size());
        assertEquals(39 * MS, leader.nextDeadlineNs(), "re-armed for order 2's own timeout");
        feed(leader, orderAck(2, 2), 30 * MS);
        leader.onTimer(39 * MS);
        assertEquals(1, leader.counters().orderRetransmits(), "member 3 still lacks order 2");
        assertEquals(3, ordersSent().size());
        assertEquals(2, ordersSent().get(2).firstOrderSeq());
        assertEquals(59 * MS, leader.nextDeadlineNs(), "the resent order waits a whole timeout again");
        feed(leader, orderAck(3, 2), 40 * MS);
        leader.onTimer(59 * MS);
        assertEquals(1, leader.counters().orderRetransmits());
        assertEquals(Long.MAX_VALUE, leader.nextDeadlineNs(), "everything delivered everywhere: nothing armed");
    }

    @Test
    void aLeaderAloneInItsGroupForgetsWhatItHasDelivered()
    {
        final MemberEngine leader = engine(new GroupConfig(LEADER, LEADER, 1)
            .orderInterval(10 * MS, true).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).requestAckDelayNs(0));
        for (int i = 1; i <= 500; i++)
        {
            feed(leader, request(i), i * MS);
            leader.onTimer(i * MS + MS / 2);
        }
        assertEquals(500, leader.deliveredSeq());
        assertEquals(500, deliveredKeys.size());
        // No member will ACK: what the leader has delivered itself is all there is to wait for.
        assertEquals(0, leader.retainedOrders());
    }

    @Test
    void aLeaderKeepsEachOrderUntilEveryMemberHasAckedIt()
    {
        final MemberEngine leader = engine(LEADER, 0, true);
        feed(leader, request(1), 0);
        feed(leader, request(2), 1 * MS);
        leader.onTimer(1 * MS);
        assertEquals(0, leader.deliveredSeq());
        feed(leader, orderAck(2, 2), 2 * MS);
        assertEquals(2, leader.deliveredSeq(), "committed by member 2's acceptance");
        assertEquals(2, leader.retainedOrders(), "member 3 has not ACKed");
        feed(leader, orderAck(3, 1), 3 * MS);
        assertEquals(1, leader.retainedOrders());
        feed(leader, orderAck(3, 2), 4 * MS);
        assertEquals(0, leader.retainedOrders());
    }

    @Test
    void memberNeverDeliversPastAMissingRequestAndNaksItAfterTheDelay()
    {
        final MemberEngine member = engine(MEMBER, 10 * MS, true);
        feed(member, request(2), 0);
        feed(member, order(1, 1, 2), 0);
        assertEquals(List.of(), deliveredKeys, "request 1 missing: nothing delivered, not even 2");
        assertEquals(2 * MS, member.nextDeadlineNs());
        member.onTimer(2 * MS);
        final Sent nakSent = sent.get(sent.size() - 1);
        assertEquals(PacketType.NAK, nakSent.type);
        assertEquals(LEADER, nakSent.to);
        final NakFlyweight nak = (NakFlyweight)new NakFlyweight().wrap(nakSent.bytes, 0);
        assertEquals(PacketType.REQUEST, nak.nakType());
        assertEquals(1, nak.entryCount());
        assertEquals(1, nak.entryPacketId(0));
        assertEquals(22 * MS, member.nextDeadlineNs(), "NAK repeats every retransmit timeout");

        feed(member, request(1), 3 * MS);
        assertEquals(List.of(MemberEngine.key(CLIENT, 1), MemberEngine.key(CLIENT, 2)), deliveredKeys);
        assertEquals(Long.MAX_VALUE, member.nextDeadlineNs());
        final OrderAckFlyweight ack = (OrderAckFlyweight)new OrderAckFlyweight().wrap(sent.get(sent.size() - 1).bytes, 0);
        assertEquals(2, ack.accepted(), "told the leader at once");
        assertEquals(2, ack.delivered());
    }

    @Test
    void anOrderThatDeliversIsAcknowledgedOnceAndARepeatedOrderAgain()
    {
        final MemberEngine member = engine(MEMBER, 10 * MS, true);
        feed(member, request(1), 0);
        final int before = sent.size();
        feed(member, order(1, 1), 1 * MS);
        assertEquals(List.of(1L), orderAcks(before), "one OrderAck for the order and the delivery it caused");
        feed(member, order(1, 1), 2 * MS);
        assertEquals(2, member.counters().orderAcksSent(), "a repeated order is ACKed again: the leader lacks our ACK");
    }

    private List<AckFlyweight> requestAcks()
    {
        return sent.stream().filter(x -> x.type == PacketType.ACK).map(x -> (AckFlyweight)new AckFlyweight().wrap(x.bytes, 0))
            .filter(a -> a.ackedType() == PacketType.REQUEST).toList();
    }

    @Test
    void aTwoWayRequestIsAcknowledgedByItsReplyOrAfterTheDelay()
    {
        final MemberEngine leader = engine(new GroupConfig(LEADER, LEADER, 1)
            .orderInterval(10 * MS, true).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).requestAckDelayNs(2 * MS));
        feed(leader, request(1), 0);
        assertEquals(0, requestAcks().size(), "held back for the reply");
        assertEquals(2 * MS, leader.nextDeadlineNs());
        leader.sendReply(CLIENT, 1, 1, ByteBuffer.allocate(4), 0, 4, 1 * MS);
        leader.onTimer(2 * MS);
        assertEquals(0, requestAcks().size(), "the reply acknowledged request 1");
        assertEquals(1, leader.counters().requestAcksByReply());

        feed(leader, request(2), 3 * MS);
        leader.onTimer(4 * MS);
        assertEquals(0, requestAcks().size(), "not yet: due at 5 ms");
        leader.onTimer(5 * MS);
        assertEquals(1, requestAcks().size(), "no reply within 2 ms: ACKed anyway");
        assertEquals(2, requestAcks().get(0).ackedId());
        assertEquals(1, leader.counters().requestAcksDeferred());

        // A duplicate is the client asking again: ACKed at once.
        feed(leader, request(1), 6 * MS);
        assertEquals(2, requestAcks().size());
        assertEquals(1, requestAcks().get(1).ackedId());
    }

    @Test
    void aPieceOfATwoWayRequestIsAcknowledgedAtOnceForNoReplyNamesIt()
    {
        final MemberEngine leader = engine(new GroupConfig(LEADER, LEADER, 1)
            .orderInterval(10 * MS, true).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).requestAckDelayNs(2 * MS));
        final byte[] piece = new byte[FragmentHeader.HEADER_LENGTH + 3];
        FragmentHeader.write(piece, 0, 0, 0, 100);
        final ByteBuffer b = ByteBuffer.allocate(RequestFlyweight.HEADER_LENGTH + piece.length);
        ((RequestFlyweight)new RequestFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, CLIENT, 1, 1, 1, piece.length)
            .payload(ByteBuffer.wrap(piece), 0, piece.length);
        feed(leader, b, 0);
        assertEquals(1, requestAcks().size(), "a piece: no reply will acknowledge it");
        assertEquals(1, requestAcks().get(0).ackedId());
        assertEquals(0, leader.counters().requestAcksDeferred());
        feed(leader, request(2), 0);
        assertEquals(1, requestAcks().size(), "a whole two-way request: held back for its reply");
    }

    private static ByteBuffer numbered(final int packetId, final int clientSeq)
    {
        final ByteBuffer b = request(packetId);
        ((RequestFlyweight)new RequestFlyweight().wrap(b, 0)).clientSeq(clientSeq);
        return b;
    }

    @Test
    void theSequencerKeepsEachClientsOrderAndGivesUpOnAGapAfterTheFifoWait()
    {
        final MemberEngine leader = engine(new GroupConfig(LEADER, LEADER, 1)
            .orderInterval(10 * MS, true).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).requestAckDelayNs(0).fifoWaitNs(50 * MS));
        // Alone in its group, the leader delivers each request as it orders it.
        // The client's second request (number 2) overtakes its first: held until number 1 arrives.
        feed(leader, numbered(11, 2), 0);
        assertEquals(List.of(), deliveredKeys);
        assertEquals(1, leader.heldForFifo());
        feed(leader, numbered(10, 1), 1 * MS);
        assertEquals(List.of(MemberEngine.key(CLIENT, 10), MemberEngine.key(CLIENT, 11)), deliveredKeys);
        assertEquals(0, leader.heldForFifo());

        // Number 3 never comes (its request is lost for good): number 4 waits 50 ms, then goes.
        feed(leader, numbered(13, 4), 2 * MS);
        assertEquals(2, deliveredKeys.size());
        leader.onTimer(51 * MS);
        assertEquals(2, deliveredKeys.size(), "still waiting for number 3");
        leader.onTimer(52 * MS);
        assertEquals(MemberEngine.key(CLIENT, 13), deliveredKeys.get(2));
        assertEquals(1, leader.counters().fifoGapsSkipped());
        assertEquals(2, leader.counters().requestsHeldForFifo());

        // Number 3 turns up after all: ordered at once, late.
        feed(leader, numbered(12, 3), 60 * MS);
        assertEquals(MemberEngine.key(CLIENT, 12), deliveredKeys.get(3));
        assertEquals(1, leader.counters().fifoLateRequests());
        assertEquals(List.of(), ordersSent(), "a leader alone multicasts no order (it delivers each as it orders it)");
    }

    @Test
    void lostOrderIsNakedFromTheFirstMissingSequence()
    {
        final MemberEngine member = engine(MEMBER, 10 * MS, true);
        feed(member, request(1), 0);
        feed(member, request(2), 0);
        feed(member, order(2, 2), 0);
        assertEquals(List.of(), deliveredKeys);
        member.onTimer(2 * MS);
        final NakFlyweight nak = (NakFlyweight)new NakFlyweight().wrap(sent.get(sent.size() - 1).bytes, 0);
        assertEquals(PacketType.MSG_ORDER, nak.nakType());
        assertEquals(1, nak.fromOrderSeq());
        feed(member, order(1, 1), 3 * MS);
        assertEquals(2, member.deliveredSeq());
    }

    @Test
    void duplicateRequestIsDroppedButAcknowledgedAgain()
    {
        final MemberEngine member = engine(MEMBER, 10 * MS, true);
        feed(member, request(1), 0);
        feed(member, order(1, 1), 0);
        feed(member, request(1), 1 * MS);
        assertEquals(1, deliveredKeys.size());
        assertEquals(1, member.counters().duplicateRequests());
        final long acksToClient = sent.stream().filter(s -> s.type == PacketType.ACK && s.to == CLIENT).count();
        assertEquals(2, acksToClient);
        feed(member, order(1, 1), 2 * MS);
        assertEquals(1, deliveredKeys.size());
        assertEquals(1, member.counters().duplicateOrderEntries());
    }

    @Test
    void leaderServesARequestNakFromItsStoreAndOrdersEachRequestOnce()
    {
        final MemberEngine leader = engine(LEADER, 0, true);
        feed(leader, request(1), 0);
        feed(leader, request(1), 0);
        leader.onTimer(0);
        assertEquals(1, ordersSent().size());
        final ByteBuffer b = ByteBuffer.allocate(NakFlyweight.length(1));
        final NakFlyweight nak = new NakFlyweight();
        nak.wrap(b, 0);
        nak.setRequestNak(ByteOrder.BIG_ENDIAN, MEMBER, 5, 1).entry(0, CLIENT, 1);
        sent.clear();
        feed(leader, b, 1 * MS);
        assertEquals(1, sent.size());
        assertEquals(MEMBER, sent.get(0).to);
        final RequestFlyweight resent = (RequestFlyweight)new RequestFlyweight().wrap(sent.get(0).bytes, 0);
        assertEquals(CLIENT, resent.senderId());
        assertEquals(1, resent.packetId());
    }

    @Test
    void malformedPacketsAreCountedNeverThrown()
    {
        final MemberEngine member = engine(MEMBER, 10 * MS, true);
        feed(member, ByteBuffer.allocate(3), 0);
        final ByteBuffer badOrder = order(1, 1);
        badOrder.putShort(PacketHeader_1_0.HEADER_LENGTH + MsgOrderFlyweight.ENTRY_COUNT_OFFSET, (short)9);
        feed(member, badOrder, 0);
        assertEquals(1, member.counters().invalid(Invalid.TRUNCATED));
        assertEquals(1, member.counters().invalid(Invalid.BAD_COUNT));
        assertTrue(sent.isEmpty());
    }

    private static ByteBuffer requestToSequencer(final int packetId, final int payloadLength)
    {
        final ByteBuffer b = ByteBuffer.allocate(RequestFlyweight.HEADER_LENGTH + payloadLength);
        ((RequestFlyweight)new RequestFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, CLIENT, packetId, packetId, 1, payloadLength)
            .header().toSequencer(true);
        for (int i = 0; i < payloadLength; i++)
        {
            b.put(RequestFlyweight.HEADER_LENGTH + i, (byte)(packetId + i));
        }
        return b;
    }

    private List<Sent> sentOf(final PacketType type)
    {
        return sent.stream().filter(x -> x.type == type).toList();
    }

    private static byte[] bytes(final ByteBuffer b, final int from, final int to)
    {
        final byte[] a = new byte[to - from];
        b.get(from, a);
        return a;
    }

    @Test
    void aRequestSentToTheSequencerTravelsInsideItsOrderAndAFollowerDeliversItFromThere()
    {
        final MemberEngine leader = engine(LEADER, 10 * MS, true);
        final ByteBuffer fromClient = requestToSequencer(1, 5);
        feed(leader, fromClient, 0);
        assertTrue(sentOf(PacketType.REQUEST).isEmpty(), "not relayed by itself");
        final List<MsgOrderFlyweight> orders = ordersSent();
        assertEquals(1, orders.size());
        final MsgOrderFlyweight order = orders.get(0);
        assertEquals(1, order.entryCount());
        assertEquals(1, order.carriedCount());
        assertEquals(MsgOrderFlyweight.length(1) + fromClient.capacity(), order.packetSize());
        // The client's packet, byte for byte, but for flags bit 2.
        final byte[] expected = bytes(fromClient, 0, fromClient.capacity());
        expected[PacketHeader_1_0.FLAGS_OFFSET] &= ~PacketHeader_1_0.FLAG_TO_SEQUENCER;
        final ByteBuffer orderBytes = sentOf(PacketType.MSG_ORDER).get(0).bytes;
        assertEquals(java.util.HexFormat.of().formatHex(expected),
            java.util.HexFormat.of().formatHex(bytes(orderBytes, order.firstCarried(), order.end())));
        assertEquals(1, leader.counters().requestsCarried());
        assertEquals(List.of(), deliveredKeys, "not committed yet");
        feed(leader, orderAck(MEMBER, 1), 1);
        assertEquals(List.of(MemberEngine.key(CLIENT, 1)), deliveredKeys);

        sent.clear();
        deliveredKeys.clear();
        final MemberEngine follower = OneEngine.promised(engine(MEMBER, 10 * MS, true), LEADER, 0);
        sent.clear();
        feed(follower, orderBytes, 1 * MS);
        assertEquals(List.of(MemberEngine.key(CLIENT, 1)), deliveredKeys, "request and order came in one datagram");
        assertEquals(1, follower.counters().carriedRequestsReceived());
        assertEquals(1, follower.counters().requestsReceived());
        final List<Sent> acks = sentOf(PacketType.ACK);
        assertEquals(1, acks.size(), "the request ACKed to its client: " + acks);
        assertEquals(CLIENT, acks.get(0).to);
        final List<Sent> orderAcks = sentOf(PacketType.ORDER_ACK);
        assertEquals(1, orderAcks.size(), "the order accepted, told to the leader: " + orderAcks);
        assertEquals(LEADER, orderAcks.get(0).to);
    }

    @Test
    void aRequestSentToTheSequencerThatWouldNotFitInTheOrderGoesToTheGroupByItselfFirst()
    {
        final MemberEngine leader = engine(new GroupConfig(LEADER, LEADER, 1, 2, 3)
            .nakDelayNs(2 * MS).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).requestAckDelayNs(0).orderAckDelayNs(0).maxPacketBytes(512));
        // 28 + 441 = 469 bytes: alone it fits a 512-byte packet, after a 44-byte one-entry order it does not.
        feed(leader, requestToSequencer(1, 441), 0);
        final List<Sent> out = sent.stream().filter(x -> x.type == PacketType.REQUEST || x.type == PacketType.MSG_ORDER).toList();
        assertEquals(List.of(PacketType.REQUEST, PacketType.MSG_ORDER), out.stream().map(Sent::type).toList());
        assertEquals(GroupSender.GROUP, out.get(0).to);
        final RequestFlyweight relayed = (RequestFlyweight)new RequestFlyweight().wrap(out.get(0).bytes, 0);
        assertEquals(null, relayed.validate(out.get(0).bytes.capacity()));
        assertEquals(false, relayed.header().toSequencer());
        assertEquals(441, relayed.payloadLength());
        assertEquals(0, ordersSent().get(0).carriedCount());
        assertEquals(1, leader.counters().requestsRelayedAlone());
        assertEquals(0, leader.counters().requestsCarried());
    }

    @Test
    void aRequestSentToAMemberThatDoesNotOrderIsHeldAndDeliveredByThePlainOrder()
    {
        final MemberEngine member = engine(MEMBER, 10 * MS, true);
        feed(member, requestToSequencer(1, 2), 0);
        assertEquals(1, member.counters().requestsToSequencerNotCarried());
        assertTrue(ordersSent().isEmpty());
        assertEquals(List.of(), deliveredKeys);
        feed(member, order(1, 1), 1 * MS);
        assertEquals(List.of(MemberEngine.key(CLIENT, 1)), deliveredKeys);
    }

    @Test
    void aCarriedRequestTheFollowerAlreadyHasIsADuplicateAndDeliveredOnce()
    {
        final MemberEngine leader = engine(LEADER, 10 * MS, true);
        feed(leader, requestToSequencer(1, 3), 0);
        final ByteBuffer orderBytes = sentOf(PacketType.MSG_ORDER).get(0).bytes;
        deliveredKeys.clear();
        final MemberEngine follower = OneEngine.promised(engine(MEMBER, 10 * MS, true), LEADER, 0);
        sent.clear();
        // The client's resend to the group got there first.
        final ByteBuffer resend = requestToSequencer(1, 3);
        resend.put(PacketHeader_1_0.FLAGS_OFFSET, (byte)(resend.get(PacketHeader_1_0.FLAGS_OFFSET) & ~PacketHeader_1_0.FLAG_TO_SEQUENCER));
        feed(follower, resend, 0);
        feed(follower, orderBytes, 1 * MS);
        assertEquals(List.of(MemberEngine.key(CLIENT, 1)), deliveredKeys);
        assertEquals(1, follower.counters().duplicateRequests());
        assertEquals(1, follower.counters().delivered());
    }
}
