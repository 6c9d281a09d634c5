package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.junit.jupiter.api.Test;

/** Tier 1: a member's held requests, known orders and delivery in order, alone. */
class OrderedDeliveryTest
{
    private static final int CLIENT = 100;

    private final SentPackets sent = new SentPackets();
    /** "orderSeq:packetId" as delivered. */
    private final List<String> delivered = new ArrayList<>();
    private final GroupConfig config = new GroupConfig(2, 1, 1, 2, 3).maxOrderEntries(3);
    private final OrderedDelivery delivery = new OrderedDelivery(new Outbox(config, sent),
        (orderSeq, held) -> delivered.add(orderSeq + ":" + HeldRequest.packetId(held.key)));

    private static HeldRequest request(final int packetId)
    {
        return new HeldRequest(HeldRequest.key(CLIENT, packetId), packetId, 1, 0, new byte[] {(byte)packetId});
    }

    private static long key(final int packetId)
    {
        return HeldRequest.key(CLIENT, packetId);
    }

    @Test
    void deliversStrictlyInOrderNeverPastAMissingRequest()
    {
        delivery.order(1, key(10));
        delivery.order(2, key(11));
        delivery.order(3, key(12));
        delivery.hold(request(12));
        delivery.hold(request(11));
        delivery.deliverReady(Long.MAX_VALUE);
        assertEquals(List.of(), delivered, "order 1's request is missing");
        assertTrue(delivery.misses());
        delivery.hold(request(10));
        delivery.deliverReady(Long.MAX_VALUE);
        assertEquals(List.of("1:10", "2:11", "3:12"), delivered);
        assertEquals(3, delivery.deliveredSeq());
        assertFalse(delivery.misses());
        assertFalse(delivery.isHeld(key(11)), "a delivered request is no longer held");
        assertTrue(delivery.isDelivered(key(11)));
    }

    @Test
    void neverPastAMissingOrderAndAnOrderKnownToExistIsMissed()
    {
        delivery.hold(request(10));
        delivery.hold(request(11));
        delivery.order(1, key(10));
        delivery.order(3, key(11));
        delivery.deliverReady(Long.MAX_VALUE);
        assertEquals(List.of("1:10"), delivered);
        assertTrue(delivery.misses(), "order 2 is missing");
        assertTrue(delivery.isOrderedUndelivered(key(11)));
        delivery.hold(request(12));
        delivery.order(2, key(12));
        delivery.deliverReady(Long.MAX_VALUE);
        assertEquals(List.of("1:10", "2:12", "3:11"), delivered);
        assertFalse(delivery.misses());
        delivery.knowUpTo(4);
        assertTrue(delivery.misses(), "a KeepAlive said order 4 exists");
    }

    @Test
    void retainsTheNewestDeliveredAndFindsThemAndHeldOnes()
    {
        for (int i = 1; i <= 4; i++)
        {
            delivery.hold(request(10 + i));
            delivery.order(i, key(10 + i));
        }
        delivery.hold(request(20));
        delivery.deliverReady(Long.MAX_VALUE);
        assertEquals(4, delivery.retainedCount());
        delivery.retainAtMost(2);
        assertEquals(2, delivery.retainedCount());
        assertEquals(3, delivery.firstRetainedSeq());
        assertNull(delivery.find(key(12)), "forgotten");
        assertFalse(delivery.isDelivered(key(12)), "a forgotten request is no longer known as delivered");
        assertEquals(key(13), delivery.find(key(13)).key);
        assertSame(delivery.held(key(20)), delivery.find(key(20)), "held, not delivered: found too");
        delivery.forget(3);
        assertEquals(4, delivery.firstRetainedSeq());
        assertNull(delivery.find(key(13)));
        delivery.forget(4);
        assertEquals(5, delivery.firstRetainedSeq(), "none retained: the next to deliver");
    }

    @Test
    void sendsRetainedOrdersAPacketAtATimeOrWhereTheOrderEnds()
    {
        for (int i = 1; i <= 5; i++)
        {
            delivery.hold(request(10 + i));
            delivery.order(i, key(10 + i));
        }
        delivery.deliverReady(Long.MAX_VALUE);
        delivery.sendOrders(7, 2, 9, true);
        final MsgOrderFlyweight o = sent.orders().get(0);
        assertEquals(7, sent.all.get(0).to());
        assertEquals(2, o.firstOrderSeq());
        assertEquals(3, o.entryCount(), "at most maxOrderEntries");
        assertEquals(List.of(12, 13, 14), List.of(o.entryPacketId(0), o.entryPacketId(1), o.entryPacketId(2)));
        assertEquals(CLIENT, o.entrySenderId(0));

        delivery.retainAtMost(1);
        delivery.sendOrders(7, 2, 9, true);
        delivery.sendOrders(7, 6, 9, false);
        assertEquals(1, sent.orders().size());
        assertEquals(List.of(9L, 9L), sent.keepAlives().stream().map(k -> k.lastOrderSeq()).toList(), "nothing kept there: where the order ends");
        assertEquals(List.of(false, true), sent.keepAlives().stream().map(k -> k.header().told()).toList(),
            "a leader's word, then a member's (flagged TOLD)");
    }

    @Test
    void aJoinerStartsAfterItsStartPointAndAMemberFollowingANewLeaderForgetsOrders()
    {
        delivery.startAfter(10);
        assertEquals(11, delivery.nextDeliverSeq());
        assertFalse(delivery.misses());
        delivery.hold(request(10));
        delivery.order(11, key(10));
        delivery.order(13, key(12));
        delivery.knowUpTo(14);
        delivery.deliverReady(Long.MAX_VALUE);
        assertEquals(List.of("11:10"), delivered);
        assertTrue(delivery.misses());
        delivery.forgetOrders();
        assertFalse(delivery.misses(), "nothing known past what it delivered");
        assertFalse(delivery.isOrderedUndelivered(key(12)));

        delivery.order(12, key(12));
        delivery.clearOrders();
        assertFalse(delivery.hasOrder(12));
        delivery.hold(request(13));
        delivery.forgetOrders();
        assertTrue(delivery.isHeld(key(13)), "a rejoin keeps held requests");
        assertEquals(1, delivery.retainedCount(), "and the delivered log, to answer NAKs");
        assertEquals(11, delivery.deliveredSeq());
    }
}
