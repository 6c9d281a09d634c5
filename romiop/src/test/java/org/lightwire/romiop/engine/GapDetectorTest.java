package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.lightwire.romiop.protocol.NakFlyweight;
import org.lightwire.romiop.protocol.PacketType;
import org.junit.jupiter.api.Test;

/** Tier 1: what a member misses, when it NAKs, and how it answers NAKs; a hand-advanced clock, a recording sender. */
class GapDetectorTest
{
    private static final long MS = 1_000_000L;
    private static final int LEADER = 1;
    private static final int CLIENT = 100;

    private final SentPackets sent = new SentPackets();
    private final GroupCounters counters = new GroupCounters();

    private OrderedDelivery delivery;
    private GapDetector gaps;

    private void member(final GroupConfig config)
    {
        final Outbox outbox = new Outbox(config, sent);
        delivery = new OrderedDelivery(outbox, (orderSeq, held) ->
        {
        });
        gaps = new GapDetector(config, counters, outbox, delivery, LEADER);
    }

    private static GroupConfig config()
    {
        return new GroupConfig(2, LEADER, 1, 2, 3).nakDelayNs(2 * MS).retransmitTimeoutNs(20 * MS);
    }

    private void hold(final int packetId)
    {
        delivery.hold(new HeldRequest(HeldRequest.key(CLIENT, packetId), packetId, 1, 0, new byte[] {1}));
    }

    private static long key(final int packetId)
    {
        return HeldRequest.key(CLIENT, packetId);
    }

    @Test
    void nothingMissingNothingScheduled()
    {
        member(config());
        hold(10);
        delivery.order(1, key(10));
        delivery.deliverReady();
        gaps.check(true, 0);
        assertFalse(gaps.isArmed());
        assertEquals(Deadlines.NONE, gaps.nextDeadlineNs());
    }

    @Test
    void aMissingOrderIsNakedFromItsNumberAfterTheDelayThenEveryTimeoutUntilFilled()
    {
        member(config());
        hold(11);
        delivery.order(2, key(11));
        gaps.check(true, 5 * MS);
        assertTrue(gaps.isArmed());
        assertEquals(7 * MS, gaps.nextDeadlineNs());
        gaps.check(true, 6 * MS);
        assertEquals(7 * MS, gaps.nextDeadlineNs(), "a gap already scheduled keeps its time");
        gaps.onTimer(true, 7 * MS - 1);
        assertEquals(0, sent.size());
        gaps.onTimer(true, 7 * MS);
        assertEquals(1, sent.naks().size());
        final NakFlyweight nak = sent.naks().get(0);
        assertEquals(PacketType.MSG_ORDER, nak.nakType());
        assertEquals(1, nak.fromOrderSeq());
        assertEquals(LEADER, sent.all.get(0).to());
        assertEquals(27 * MS, gaps.nextDeadlineNs());
        gaps.target(3);
        gaps.onTimer(true, 27 * MS);
        assertEquals(3, sent.all.get(1).to(), "NAKs go to the target of the moment");
        assertEquals(2, counters.orderNaksSent());

        hold(10);
        delivery.order(1, key(10));
        delivery.deliverReady();
        gaps.check(true, 30 * MS);
        assertFalse(gaps.isArmed(), "filled");
        assertEquals(Deadlines.NONE, gaps.nextDeadlineNs());
    }

    @Test
    void withTheNextOrderKnownItNaksTheOrderedRequestsItLacksInOrder()
    {
        member(config());
        delivery.order(1, key(10));
        delivery.order(2, key(11));
        delivery.order(3, key(12));
        hold(11);
        gaps.check(true, 0);
        gaps.onTimer(true, 2 * MS);
        final NakFlyweight nak = sent.naks().get(0);
        assertEquals(PacketType.REQUEST, nak.nakType());
        assertEquals(2, nak.entryCount());
        assertEquals(List.of(10, 12), List.of(nak.entryPacketId(0), nak.entryPacketId(1)));
        assertEquals(CLIENT, nak.entrySenderId(1));
        assertEquals(1, counters.requestNaksSent());
    }

    @Test
    void aRequestNakListsWhatFitsInOnePacket()
    {
        member(config().maxPacketBytes(NakFlyweight.length(2)));
        for (int i = 1; i <= 5; i++)
        {
            delivery.order(i, key(10 + i));
        }
        gaps.check(true, 0);
        gaps.onTimer(true, 2 * MS);
        assertEquals(2, sent.naks().get(0).entryCount());
        assertEquals(NakFlyweight.length(2), sent.all.get(0).bytes().capacity());
    }

    @Test
    void aMemberThatDoesNotNakSchedulesNothingAndADueNakIsNotSent()
    {
        member(config());
        delivery.order(2, key(11));
        gaps.check(false, 0);
        assertFalse(gaps.isArmed());
        gaps.check(true, 0);
        gaps.onTimer(false, 2 * MS);
        assertEquals(0, sent.size());
        assertEquals(22 * MS, gaps.nextDeadlineNs(), "still due a timeout later");
        gaps.disarm();
        assertEquals(Deadlines.NONE, gaps.nextDeadlineNs());
    }

    private static NakFlyweight orderNak(final long fromSeq)
    {
        final NakFlyweight nak = new NakFlyweight();
        nak.wrap(ByteBuffer.allocate(NakFlyweight.length(0)), 0);
        nak.setOrderNak(Outbox.WIRE_ORDER, 3, 50, fromSeq);
        return nak;
    }

    @Test
    void anOrderNakIsAnsweredFromTheOldestRetainedOrWithWhereTheOrderEnds()
    {
        member(config());
        for (int i = 1; i <= 4; i++)
        {
            hold(10 + i);
            delivery.order(i, key(10 + i));
        }
        delivery.deliverReady();
        delivery.retainAtMost(2);
        gaps.answer(orderNak(1), 3, true, 4);
        assertEquals(3, sent.orders().get(0).firstOrderSeq(), "from the oldest it still keeps");
        assertEquals(2, sent.orders().get(0).entryCount());
        assertEquals(3, sent.all.get(0).to());
        gaps.answer(orderNak(5), 3, false, 6);
        assertEquals(List.of(6L), sent.keepAlives().stream().map(k -> k.lastOrderSeq()).toList());
        assertEquals(1, counters.naksServed());
        assertEquals(1, counters.naksServedAsMember());
    }

    @Test
    void aRequestNakIsAnsweredWithEveryNamedRequestRetainedOrHeld()
    {
        member(config());
        hold(11);
        delivery.order(1, key(11));
        delivery.deliverReady();
        hold(12);
        final NakFlyweight nak = new NakFlyweight();
        nak.wrap(ByteBuffer.allocate(NakFlyweight.length(3)), 0);
        nak.setRequestNak(Outbox.WIRE_ORDER, 3, 50, 3);
        nak.entry(0, CLIENT, 11).entry(1, CLIENT, 13).entry(2, CLIENT, 12);
        gaps.answer(nak, 3, false, 1);
        assertEquals(List.of(11, 12), sent.requests().stream().map(r -> r.packetId()).toList(), "13 it does not have");
        assertEquals(CLIENT, sent.requests().get(0).senderId(), "as the client sent it");
    }
}
