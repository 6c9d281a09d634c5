package org.lightwire.romiop.engine;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.lightwire.romiop.protocol.PacketType;

/**
 * When a member sends its ACKs. Requests (paper, section 4.1: every Request is ACKed to its
 * client, a duplicate too): a new two-way request's ACK waits {@code requestAckDelayNs} for the
 * request's Reply, which the client takes as that member's ACK (omniTransport's implicit
 * acknowledgement); only a slower reply lets the ACK go ({@code requestAcksDeferred}); everything
 * else is ACKed at once. Orders: an OrderAck tells the leader how far this member holds the order
 * (accepted) and how far it delivered. It goes at once when the accepted sequence advances, since
 * the leader commits, and so delivers, only what a majority accepted; delivery alone advancing is
 * told by one OrderAck {@code orderAckDelayNs} later, covering every order delivered meanwhile, or
 * at once when half of {@code orderWindow} has been delivered unACKed, so the leader's order
 * window never fills for want of a delayed ACK. docs/romiop.md, "Atomic multicast".
 */
final class AckScheduler
{
    /** Where this member stands, read when an order ACK is due. */
    interface Position
    {
        /** @return true while this member ACKs orders to a leader (an ordinary member). */
        boolean acksOrders();

        /** @return the order sequence number of the last request delivered. */
        long deliveredSeq();

        /** @return how far this member holds every order of its epoch and every request they name. */
        long acceptedSeq();

        /**
         * @return true when the leader needs this member's acceptance at once to commit (one of
         *     the members it commits with first); the others tell it with the delayed OrderAck.
         */
        boolean acceptsAtOnce();

        int leaderId();
    }

    private final long requestAckDelayNs;
    private final long orderAckDelayNs;
    /** Delivered orders unACKed that send the ACK at once: half the order window. */
    private final long orderAckAtOnce;
    private final GroupCounters counters;
    private final Outbox outbox;
    private final Position position;
    /** Two-way requests whose ACK waits for their Reply: key to when to ACK anyway (insertion order is deadline order). */
    private final LinkedHashMap<Long, Long> deferred = new LinkedHashMap<>();
    /** A cumulative order ACK is due at orderAckDeadlineNs. */
    private boolean orderAckArmed;
    private long orderAckDeadlineNs;
    private long lastAckedSeq;
    /** The accepted sequence the last OrderAck told. */
    private long lastAckedAccepted;

    AckScheduler(final GroupConfig config, final GroupCounters counters, final Outbox outbox, final Position position)
    {
        this.requestAckDelayNs = config.requestAckDelayNs;
        this.orderAckDelayNs = config.orderAckDelayNs;
        this.orderAckAtOnce = Math.max(1, config.orderWindow / 2);
        this.counters = counters;
        this.outbox = outbox;
        this.position = position;
    }

    /** @return true when a new two-way request's ACK may wait for its Reply ({@code requestAckDelayNs} above 0). */
    boolean defersRequestAcks()
    {
        return requestAckDelayNs > 0;
    }

    /**
     * A Request arrived: a new two-way one waits for its Reply, unless it waits already; anything
     * else is ACKed now, ending a wait (the client resends only because it lacks this ACK).
     */
    void onRequest(final long key, final boolean newTwoWay, final long nowNs)
    {
        if (newTwoWay && !deferred.containsKey(key))
        {
            deferred.put(key, nowNs + requestAckDelayNs);
        }
        else
        {
            deferred.remove(key);
            final int clientId = HeldRequest.clientId(key);
            outbox.ack(clientId, PacketType.REQUEST, clientId, HeldRequest.packetId(key));
        }
    }

    /** The request's Reply is being sent: it ACKs the request, whose own ACK need not go. */
    void onReply(final long key)
    {
        if (deferred.remove(key) != null)
        {
            counters.requestAcksByReply++;
        }
    }

    /** Delivery advanced: the cumulative order ACK goes now (half the window unACKed) or is scheduled. */
    void onDelivered(final long nowNs)
    {
        final long delivered = position.deliveredSeq();
        if (position.acksOrders() && delivered > lastAckedSeq)
        {
            if (orderAckDelayNs == 0 || delivered - lastAckedSeq >= orderAckAtOnce)
            {
                // Half the order window delivered unACKed: ACK now, before the leader's window fills.
                sendOrderAck();
            }
            else if (!orderAckArmed)
            {
                // One cumulative ACK for whatever is delivered until then.
                orderAckArmed = true;
                orderAckDeadlineNs = nowNs + orderAckDelayNs;
            }
        }
    }

    /**
     * Orders or requests came: when this member now holds more of the order, the leader hears it
     * at once if it commits with this member first, otherwise with the delayed OrderAck.
     */
    void onAccepted(final long nowNs)
    {
        if (!position.acksOrders() || position.acceptedSeq() <= lastAckedAccepted)
        {
            return;
        }
        if (position.acceptsAtOnce() || orderAckDelayNs == 0)
        {
            sendOrderAck();
        }
        else if (!orderAckArmed)
        {
            orderAckArmed = true;
            orderAckDeadlineNs = nowNs + orderAckDelayNs;
        }
    }

    /** Sends the leader an OrderAck now: accepted and delivered (an ordinary member only). */
    void sendOrderAck()
    {
        if (!position.acksOrders())
        {
            return;
        }
        orderAckArmed = false;
        lastAckedSeq = position.deliveredSeq();
        lastAckedAccepted = Math.max(lastAckedSeq, position.acceptedSeq());
        counters.orderAcksSent++;
        outbox.orderAck(position.leaderId(), lastAckedAccepted, lastAckedSeq);
    }

    /** A joiner starts at {@code orderSeq}: the leader counts everything up to it as delivered. */
    void startAt(final long orderSeq)
    {
        lastAckedSeq = orderSeq;
        lastAckedAccepted = orderSeq;
    }

    /** A new epoch: what this member accepted is told again, in the new epoch. */
    void newEpoch()
    {
        lastAckedAccepted = -1;
    }

    /** Sends the request ACKs whose Reply did not come in time (oldest first), then a due order ACK. */
    void onTimer(final long nowNs)
    {
        for (final Iterator<Map.Entry<Long, Long>> it = deferred.entrySet().iterator(); it.hasNext(); )
        {
            final Map.Entry<Long, Long> e = it.next();
            if (e.getValue() - nowNs > 0)
            {
                break;
            }
            it.remove();
            final int clientId = HeldRequest.clientId(e.getKey());
            counters.requestAcksDeferred++;
            outbox.ack(clientId, PacketType.REQUEST, clientId, HeldRequest.packetId(e.getKey()));
        }
        if (orderAckArmed && orderAckDeadlineNs - nowNs <= 0)
        {
            orderAckArmed = false;
            if (position.acksOrders() && (position.deliveredSeq() > lastAckedSeq || position.acceptedSeq() > lastAckedAccepted))
            {
                sendOrderAck();
            }
        }
    }

    long nextDeadlineNs()
    {
        long deadline = Deadlines.NONE;
        deadline = Deadlines.earlier(deadline, !deferred.isEmpty(), deferred.isEmpty() ? 0 : deferred.values().iterator().next());
        return Deadlines.earlier(deadline, orderAckArmed, orderAckDeadlineNs);
    }
}
