package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.OrderAckFlyweight;
import org.lightwire.romiop.protocol.PacketType;
import org.junit.jupiter.api.Test;

/** Tier 1: when a member's request ACKs and cumulative order ACKs go; a hand-advanced clock, a recording sender. */
class AckSchedulerTest
{
    private static final long MS = 1_000_000L;
    private static final int SELF = 2;
    private static final int LEADER = 1;
    private static final int CLIENT = 100;

    private final SentPackets sent = new SentPackets();
    private final GroupCounters counters = new GroupCounters();
    private boolean member = true;
    private long deliveredSeq;
    private long acceptedSeq;
    private boolean atOnce = true;

    private AckScheduler acks(final GroupConfig config)
    {
        return new AckScheduler(config, counters, new Outbox(config, sent), new AckScheduler.Position()
        {
            @Override
            public boolean acksOrders()
            {
                return member;
            }

            @Override
            public long deliveredSeq()
            {
                return deliveredSeq;
            }

            @Override
            public long acceptedSeq()
            {
                return Math.max(acceptedSeq, deliveredSeq);
            }

            @Override
            public boolean acceptsAtOnce()
            {
                return atOnce;
            }

            @Override
            public int leaderId()
            {
                return LEADER;
            }
        });
    }

    private static GroupConfig config()
    {
        return new GroupConfig(SELF, LEADER, 1, 2, 3).requestAckDelayNs(2 * MS).orderAckDelayNs(5 * MS).orderWindow(8);
    }

    private List<Long> requestAcks()
    {
        return sent.acks().stream().filter(a -> a.ackedType() == PacketType.REQUEST).map(AckFlyweight::ackedId).toList();
    }

    /** @return the delivered sequence of each OrderAck sent. */
    private List<Long> orderAcks()
    {
        return sent.orderAcks().stream().map(OrderAckFlyweight::delivered).toList();
    }

    private List<Long> acceptedAcks()
    {
        return sent.orderAcks().stream().map(OrderAckFlyweight::accepted).toList();
    }

    @Test
    void aNewTwoWayRequestsAckWaitsForItsReplyWhichTakesItsPlace()
    {
        final AckScheduler acks = acks(config());
        acks.onRequest(HeldRequest.key(CLIENT, 7), true, 0);
        assertEquals(0, sent.size());
        assertEquals(2 * MS, acks.nextDeadlineNs());
        acks.onReply(HeldRequest.key(CLIENT, 7));
        assertEquals(1, counters.requestAcksByReply());
        assertEquals(Deadlines.NONE, acks.nextDeadlineNs());
        acks.onTimer(10 * MS);
        assertEquals(0, sent.size(), "the reply was the ACK");
        acks.onReply(HeldRequest.key(CLIENT, 7));
        assertEquals(1, counters.requestAcksByReply(), "a reply to a request ACKed already counts nothing");
    }

    @Test
    void aReplySlowerThanTheDelayLetsTheAckGoOldestFirstAndOnlyWhenDue()
    {
        final AckScheduler acks = acks(config());
        acks.onRequest(HeldRequest.key(CLIENT, 7), true, 0);
        acks.onRequest(HeldRequest.key(CLIENT, 8), true, 1 * MS);
        acks.onTimer(2 * MS);
        assertEquals(List.of(7L), requestAcks());
        assertEquals(CLIENT, sent.all.get(0).to());
        assertEquals(CLIENT, sent.acks().get(0).ackedSenderId());
        assertEquals(3 * MS, acks.nextDeadlineNs());
        acks.onTimer(3 * MS);
        assertEquals(List.of(7L, 8L), requestAcks());
        assertEquals(2, counters.requestAcksDeferred());
        assertEquals(Deadlines.NONE, acks.nextDeadlineNs());
    }

    @Test
    void anythingButANewTwoWayRequestIsAckedAtOnceAndARepeatEndsTheWait()
    {
        final AckScheduler acks = acks(config());
        acks.onRequest(HeldRequest.key(CLIENT, 5), false, 0);
        assertEquals(List.of(5L), requestAcks());
        acks.onRequest(HeldRequest.key(CLIENT, 6), true, 0);
        // The client resends: it lacks this member's ACK, so waiting longer for the reply would not help.
        acks.onRequest(HeldRequest.key(CLIENT, 6), true, 1 * MS);
        assertEquals(List.of(5L, 6L), requestAcks());
        assertEquals(Deadlines.NONE, acks.nextDeadlineNs());
        acks.onReply(HeldRequest.key(CLIENT, 6));
        assertEquals(0, counters.requestAcksByReply());
    }

    @Test
    void aCumulativeOrderAckCoversEveryOrderDeliveredWithinTheDelay()
    {
        final AckScheduler acks = acks(config());
        deliveredSeq = 1;
        acks.onDelivered(1 * MS);
        deliveredSeq = 3;
        acks.onDelivered(2 * MS);
        assertEquals(List.of(), orderAcks());
        assertEquals(6 * MS, acks.nextDeadlineNs(), "from the first delivery");
        acks.onTimer(6 * MS);
        assertEquals(List.of(3L), orderAcks());
        assertEquals(LEADER, sent.all.get(0).to());
        assertEquals(1, sent.orderAcks().get(0).epoch(), "the outbox's epoch");
        assertEquals(1, counters.orderAcksSent());
        assertEquals(Deadlines.NONE, acks.nextDeadlineNs());
        acks.onDelivered(7 * MS);
        acks.onTimer(20 * MS);
        assertEquals(1, orderAcks().size(), "nothing delivered since: nothing to ACK");
    }

    @Test
    void halfTheOrderWindowDeliveredUnackedIsAckedAtOnce()
    {
        final AckScheduler acks = acks(config());
        deliveredSeq = 3;
        acks.onDelivered(0);
        assertEquals(List.of(), orderAcks());
        deliveredSeq = 4;
        acks.onDelivered(1 * MS);
        assertEquals(List.of(4L), orderAcks(), "4 of a window of 8");
        assertEquals(Deadlines.NONE, acks.nextDeadlineNs(), "the ACK sent disarms the delayed one");
        deliveredSeq = 7;
        acks.onDelivered(2 * MS);
        assertEquals(List.of(4L), orderAcks());
        deliveredSeq = 8;
        acks.onDelivered(3 * MS);
        assertEquals(List.of(4L, 8L), orderAcks());
    }

    @Test
    void withNoDelayEachDeliveryIsAckedAndARepeatedOrderIsAckedOnDemand()
    {
        final AckScheduler acks = acks(config().orderAckDelayNs(0));
        deliveredSeq = 1;
        acks.onDelivered(0);
        deliveredSeq = 2;
        acks.onDelivered(0);
        acks.sendOrderAck();
        assertEquals(List.of(1L, 2L, 2L), orderAcks());
    }

    @Test
    void onlyAnOrdinaryMemberAcksOrdersAndAJoinerCountsFromItsStart()
    {
        final AckScheduler acks = acks(config());
        member = false;
        deliveredSeq = 4;
        acks.onDelivered(0);
        acks.sendOrderAck();
        assertEquals(List.of(), orderAcks(), "the leader ACKs no orders");
        assertEquals(Deadlines.NONE, acks.nextDeadlineNs());

        member = true;
        acks.startAt(10);
        deliveredSeq = 10;
        acks.onDelivered(1 * MS);
        assertEquals(Deadlines.NONE, acks.nextDeadlineNs(), "nothing past the start point is delivered");
        deliveredSeq = 11;
        acks.onDelivered(2 * MS);
        acks.onTimer(7 * MS);
        assertEquals(List.of(11L), orderAcks());
    }

    @Test
    void acceptanceIsToldAtOnceSinceTheLeaderCommitsByIt()
    {
        final AckScheduler acks = acks(config());
        acks.onAccepted(0);
        assertEquals(List.of(), acceptedAcks(), "nothing accepted yet");
        acceptedSeq = 3;
        acks.onAccepted(0);
        assertEquals(List.of(3L), acceptedAcks());
        assertEquals(List.of(0L), orderAcks(), "nothing delivered");
        acks.onAccepted(0);
        assertEquals(1, sent.orderAcks().size(), "told once");
        deliveredSeq = 3;
        acks.onDelivered(1 * MS);
        assertEquals(6 * MS, acks.nextDeadlineNs(), "delivery alone waits for the delay");
        acks.onTimer(6 * MS);
        assertEquals(List.of(3L, 3L), acceptedAcks());
        assertEquals(List.of(0L, 3L), orderAcks());
        acks.newEpoch();
        acks.onAccepted(0);
        assertEquals(List.of(3L, 3L, 3L), acceptedAcks(), "a new epoch is told what is held again");
    }

    @Test
    void aMemberTheLeaderDoesNotCommitWithFirstTellsItsAcceptanceAfterTheDelay()
    {
        final AckScheduler acks = acks(config());
        atOnce = false;
        acceptedSeq = 2;
        acks.onAccepted(1 * MS);
        assertEquals(List.of(), acceptedAcks(), "not at once");
        assertEquals(6 * MS, acks.nextDeadlineNs());
        acceptedSeq = 3;
        acks.onAccepted(2 * MS);
        acks.onTimer(6 * MS);
        assertEquals(List.of(3L), acceptedAcks(), "one OrderAck for both");
        assertEquals(Deadlines.NONE, acks.nextDeadlineNs());
    }
}
