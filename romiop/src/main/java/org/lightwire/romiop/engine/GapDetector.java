package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import org.lightwire.romiop.protocol.NakFlyweight;
import org.lightwire.romiop.protocol.PacketType;

/**
 * Gap detection and NAKs (paper, Figure 4: a member that lacks an order or a request asks for it).
 * A member that misses something past its delivered order (an order known to exist, or a known
 * order whose request it lacks) NAKs it to its NAK target (the leader; during failover the
 * survivor that holds what is fixed) after {@code nakDelayNs}, and every {@code retransmitTimeoutNs}
 * after that while the gap lasts: an order NAK from the next order when that order is missing, else
 * a request NAK listing the ordered requests it lacks. Any member answers NAKs from what it retains
 * or holds. Like Aeron's {@code LossDetector}, it only says what is missing and when: delivery fills
 * the gap.
 */
final class GapDetector
{
    private final long nakDelayNs;
    private final long retransmitTimeoutNs;
    /** Request NAK entries that fit in one packet. */
    private final int requestNakCapacity;
    private final GroupCounters counters;
    private final Outbox outbox;
    private final OrderedDelivery delivery;
    private final NakFlyweight nak = new NakFlyweight();
    private boolean armed;
    private long deadlineNs;
    private int targetId;

    GapDetector(final GroupConfig config, final GroupCounters counters, final Outbox outbox, final OrderedDelivery delivery,
        final int targetId)
    {
        this.nakDelayNs = config.nakDelayNs;
        this.retransmitTimeoutNs = config.retransmitTimeoutNs;
        this.requestNakCapacity = Math.min(0xFFFF, (config.maxPacketBytes - NakFlyweight.HEADER_LENGTH) / NakFlyweight.ENTRY_LENGTH);
        this.counters = counters;
        this.outbox = outbox;
        this.delivery = delivery;
        this.targetId = targetId;
    }

    /** Where NAKs go from now on. */
    void target(final int memberId)
    {
        targetId = memberId;
    }

    /** @return true while a gap is waiting to be filled (a NAK is scheduled). */
    boolean isArmed()
    {
        return armed;
    }

    /** Stops NAKing (the gap no longer matters: a new leader, a rejoin, a finished catch-up). */
    void disarm()
    {
        armed = false;
    }

    /**
     * After delivery: schedules the first NAK {@code nakDelayNs} from now when something is missing
     * and none is scheduled, and cancels it when nothing is.
     *
     * @param naks true while this member NAKs (it follows a leader, or catches up as a new one).
     */
    void check(final boolean naks, final long nowNs)
    {
        final boolean gap = naks && delivery.misses();
        if (gap && !armed)
        {
            armed = true;
            deadlineNs = nowNs + nakDelayNs;
        }
        else if (!gap)
        {
            armed = false;
        }
    }

    /** NAKs a due gap, then again every {@code retransmitTimeoutNs}. */
    void onTimer(final boolean naks, final long nowNs)
    {
        if (armed && deadlineNs - nowNs <= 0)
        {
            if (naks)
            {
                sendNak();
            }
            deadlineNs = nowNs + retransmitTimeoutNs;
        }
    }

    long nextDeadlineNs()
    {
        return armed ? deadlineNs : Deadlines.NONE;
    }

    private void sendNak()
    {
        final long next = delivery.acceptedSeq() + 1;
        final ByteBuffer out = outbox.buffer();
        if (!delivery.hasOrder(next))
        {
            nak.wrap(out, 0);
            nak.setOrderNak(Outbox.WIRE_ORDER, outbox.selfId(), outbox.nextPacketId(), next);
            counters.orderNaksSent++;
            outbox.send(targetId, nak.packetSize());
            return;
        }
        final int packetId = outbox.nextPacketId();
        nak.wrap(out, 0);
        // Header first to fix the byte order, entries next, the count last once it is known.
        nak.setRequestNak(Outbox.WIRE_ORDER, outbox.selfId(), packetId, 0);
        int count = 0;
        for (final long key : delivery.orderedKeys())
        {
            if (count == requestNakCapacity)
            {
                break;
            }
            if (!delivery.isHeld(key))
            {
                nak.entry(count++, HeldRequest.clientId(key), HeldRequest.packetId(key));
            }
        }
        nak.setRequestNak(Outbox.WIRE_ORDER, outbox.selfId(), packetId, count);
        counters.requestNaksSent++;
        outbox.send(targetId, nak.packetSize());
    }

    /**
     * Answers a NAK from what this member retains or holds: an order NAK with the orders from the
     * oldest retained on, a request NAK with each named request it has. Any member answers: the
     * leader normally, a survivor during failover.
     *
     * @param leading     true when this member orders (counted {@code naksServed}, else {@code naksServedAsMember}).
     * @param orderEndSeq where the order ends, told when no order asked for is retained.
     * @return how many requests the NAK named that this member neither holds nor retains.
     */
    int answer(final NakFlyweight received, final int requesterId, final boolean leading, final long orderEndSeq)
    {
        if (leading)
        {
            counters.naksServed++;
        }
        else
        {
            counters.naksServedAsMember++;
        }
        if (received.nakType() == PacketType.MSG_ORDER)
        {
            delivery.sendOrders(requesterId, Math.max(received.fromOrderSeq(), delivery.firstRetainedSeq()), orderEndSeq, leading);
            return 0;
        }
        final int count = received.entryCount();
        int unknown = 0;
        for (int i = 0; i < count; i++)
        {
            final HeldRequest held = delivery.find(HeldRequest.key(received.entrySenderId(i), received.entryPacketId(i)));
            if (held != null)
            {
                outbox.request(requesterId, held);
            }
            else
            {
                unknown++;
                counters.nakedRequestsUnknown++;
            }
        }
        return unknown;
    }
}
