package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;

/** Tier 1: the leader's order queue, MsgOrders, members' ACKs and order retransmission; a hand-advanced clock, a recording sender. */
class SequencerTest
{
    private static final long MS = 1_000_000L;
    private static final int LEADER = 1;
    private static final int CLIENT = 100;

    private final SentPackets sent = new SentPackets();
    private final GroupCounters counters = new GroupCounters();
    private final List<Long> delivered = new ArrayList<>();
    private int[] view = {1, 2, 3};
    private OrderedDelivery delivery;
    private Sequencer sequencer;

    /** The last order sequence number of each MsgOrder, as the sequencer told the leader it accepted them. */
    private final List<Long> acceptedUpTo = new ArrayList<>();

    private void leader(final GroupConfig config)
    {
        final Outbox outbox = new Outbox(config, sent);
        delivery = new OrderedDelivery(outbox, (orderSeq, held) -> delivered.add(orderSeq));
        sequencer = new Sequencer(config, counters, outbox, delivery, new Sequencer.Group()
        {
            @Override
            public int[] view()
            {
                return view;
            }

            @Override
            public void accepted(final long lastOrderSeq)
            {
                acceptedUpTo.add(lastOrderSeq);
            }

            @Override
            public void deliverOrdered(final long nowNs)
            {
                delivery.deliverReady(Long.MAX_VALUE);
            }
        });
    }

    private static GroupConfig config()
    {
        return new GroupConfig(LEADER, LEADER, 1, 2, 3).retransmitTimeoutNs(20 * MS).orderWindow(4);
    }

    private static long key(final int packetId)
    {
        return HeldRequest.key(CLIENT, packetId);
    }

    private HeldRequest hold(final int packetId, final int payloadBytes)
    {
        final HeldRequest held = new HeldRequest(key(packetId), packetId, 1, 0, new byte[payloadBytes]);
        delivery.hold(held);
        return held;
    }

    private void queue(final int... packetIds)
    {
        for (final int id : packetIds)
        {
            hold(id, 1);
            sequencer.queue(key(id));
        }
    }

    @Test
    void queuedRequestsAreNumberedInQueueOrderAndDeliveredHereOnceSent()
    {
        leader(config());
        queue(10, 11, 12);
        assertTrue(sequencer.hasQueued());
        sequencer.emit(0);
        assertFalse(sequencer.hasQueued());
        assertEquals(1, sent.orders().size());
        final MsgOrderFlyweight order = sent.orders().get(0);
        assertEquals(GroupSender.GROUP, sent.all.get(0).to());
        assertEquals(1, order.firstOrderSeq());
        assertEquals(3, order.entryCount());
        assertEquals(11, order.entryPacketId(1));
        assertEquals(List.of(1L, 2L, 3L), delivered);
        assertEquals(3, sequencer.lastOrderSeq());
        assertEquals(1, counters.ordersSent());
        assertEquals(3, counters.orderEntriesSent());
        assertEquals(20 * MS, sequencer.nextDeadlineNs(), "retransmission armed by the first order");
    }

    @Test
    void aLongQueueGoesInAsManyOrdersAsItTakes()
    {
        leader(config().maxOrderEntries(2));
        queue(10, 11, 12, 13, 14);
        sequencer.emit(0);
        assertEquals(List.of(2, 2, 1), sent.orders().stream().map(MsgOrderFlyweight::entryCount).toList());
        assertEquals(List.of(1L, 3L, 5L), sent.orders().stream().map(MsgOrderFlyweight::firstOrderSeq).toList());
        assertEquals(List.of(2L, 4L, 5L), acceptedUpTo, "the leader accepts each order before it is written");
    }

    @Test
    void aRequestSentToTheSequencerAloneRidesInItsOrderOrGoesAloneWhenItDoesNotFit()
    {
        leader(config().maxPacketBytes(600));
        hold(10, 50).toCarry = true;
        hold(11, 50).toCarry = true;
        final HeldRequest large = hold(12, 500);
        large.toCarry = true;
        sequencer.queue(key(10));
        sequencer.queue(key(11));
        sequencer.queue(key(12));
        sequencer.emit(0);
        assertEquals(1, sent.requests().size(), "the one too large to carry goes first, alone");
        assertEquals(12, sent.requests().get(0).packetId());
        assertEquals(1, sent.orders().size());
        assertEquals(2, sent.orders().get(0).carriedCount());
        assertEquals(2, counters.requestsCarried());
        assertEquals(1, counters.requestsRelayedAlone());
        assertFalse(large.toCarry, "the group has it now");
    }

    @Test
    void theLaggingOrderIsResentAfterTheTimeoutAndForgottenOnceEveryMemberHasIt()
    {
        leader(config());
        queue(10, 11);
        sequencer.emit(0);
        assertTrue(sequencer.onOrderAck(2, 2));
        assertTrue(sequencer.onOrderAck(3, 1));
        assertFalse(sequencer.onOrderAck(3, 1), "a repeated ACK moves nothing");
        sent.clear();
        sequencer.onTimer(20 * MS - 1);
        assertEquals(0, sent.size());
        sequencer.onTimer(20 * MS);
        assertEquals(1, sent.orders().size());
        assertEquals(2, sent.orders().get(0).firstOrderSeq(), "from the oldest order some member lacks");
        assertEquals(1, counters.orderRetransmits());
        assertEquals(40 * MS, sequencer.nextDeadlineNs());
        assertEquals(2, delivery.firstRetainedSeq(), "order 1, which every member has, is forgotten");
        assertTrue(sequencer.onOrderAck(3, 2));
        sent.clear();
        sequencer.onTimer(40 * MS);
        assertEquals(0, sent.size());
        assertEquals(Deadlines.NONE, sequencer.nextDeadlineNs(), "every member has every order");
    }

    @Test
    void anOrderYoungerThanTheTimeoutWaitsForItsOwnTime()
    {
        leader(config());
        queue(10);
        sequencer.emit(0);
        sequencer.onOrderAck(2, 1);
        sequencer.onOrderAck(3, 1);
        queue(11);
        sequencer.emit(15 * MS);
        sent.clear();
        sequencer.onTimer(20 * MS);
        assertEquals(0, sent.size());
        assertEquals(35 * MS, sequencer.nextDeadlineNs());
    }

    @Test
    void anAckBeyondTheLastOrderIsCappedAndTheWindowCountsWhatSomeMemberLacks()
    {
        leader(config());
        queue(10, 11, 12, 13);
        sequencer.emit(0);
        assertFalse(sequencer.roomInWindow(), "four orders unACKed fill a window of four");
        sequencer.onOrderAck(2, 99);
        assertEquals(4, sequencer.deliveredSeqOf(2));
        assertFalse(sequencer.roomInWindow(), "member 3 still lacks them all");
        sequencer.onOrderAck(3, 1);
        assertTrue(sequencer.roomInWindow());
    }

    @Test
    void aRemovedMemberNoLongerHoldsBackForgettingAndANewOneStartsAtTheNextOrder()
    {
        leader(config());
        queue(10, 11);
        sequencer.emit(0);
        sequencer.onOrderAck(2, 2);
        view = new int[] {1, 2};
        sequencer.memberRemoved(3);
        sequencer.forgetFullyDelivered();
        assertEquals(3, delivery.firstRetainedSeq(), "member 2 has both: forgotten");
        sent.clear();
        sequencer.onTimer(20 * MS);
        assertEquals(0, sent.size());
        assertEquals(Deadlines.NONE, sequencer.nextDeadlineNs());
        view = new int[] {1, 2, 4};
        sequencer.memberAdded(4, 1);
        assertEquals(1, sequencer.deliveredSeqOf(4), "it starts after the commit it was given");
        assertEquals(2, sequencer.deliveredSeqOf(5), "one not known: the last order");
    }

    @Test
    void aCancelledRequestLeavesTheQueueAndANewLeaderNumbersOnFromWhereItStarts()
    {
        leader(config());
        queue(10, 11);
        sequencer.unqueue(key(10));
        assertFalse(sequencer.isQueued(key(10)));
        assertTrue(sequencer.isQueued(key(11)));
        sequencer.reset();
        assertFalse(sequencer.hasQueued());
        delivery.startAfter(6);
        sequencer.startAt(7, 6);
        sequencer.memberReported(2, 6);
        sequencer.memberReported(3, 5);
        sequencer.resendNow(0);
        assertEquals(1, sent.keepAlives().size(), "member 3 lacks order 6, which nobody keeps: a KeepAlive says where the order ends");
        assertEquals(6, sent.keepAlives().get(0).lastOrderSeq());
        assertEquals(20 * MS, sequencer.nextDeadlineNs());
        queue(12);
        sequencer.emit(1 * MS);
        assertEquals(7, sent.orders().get(0).firstOrderSeq());
    }
}
