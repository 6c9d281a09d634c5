package org.lightwire.romiop.engine;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.RequestFlyweight;

/**
 * The leader's fixed sequencer (paper, section 4.2 and Figure 4 lines 8-16; docs/romiop.md,
 * "Atomic multicast"): the queue of requests admitted to the order, the MsgOrders that number
 * them (a request sent to the sequencer alone rides in its MsgOrder when it fits, else goes to the
 * group by itself first), what each member has ACKed, and the re-multicast of the oldest order
 * some member lacks every {@code retransmitTimeoutNs}. A request every member has delivered is
 * forgotten. When to order (at once, or at the end of an order interval) is the engine's: it
 * holds the leader's state.
 */
final class Sequencer
{
    /** The group this sequencer orders for. */
    interface Group
    {
        /** @return the members of the current view, this one among them. */
        int[] view();

        /**
         * The leader accepts the orders up to {@code lastOrderSeq} as it numbers them (it holds
         * every request it orders): before their MsgOrder is written, so that it carries the
         * commit this may advance (alone in a group of one or two, it commits them).
         */
        void accepted(long lastOrderSeq);

        /** The leader delivers what is committed of the requests it just ordered, after their MsgOrder is on its way. */
        void deliverOrdered(long nowNs);
    }

    private final int selfId;
    private final int maxPacketBytes;
    private final int orderWindow;
    private final long retransmitTimeoutNs;
    private final GroupCounters counters;
    private final Outbox outbox;
    private final OrderedDelivery delivery;
    private final Group group;
    private final MsgOrderFlyweight msgOrder = new MsgOrderFlyweight();
    private final RequestFlyweight request = new RequestFlyweight();
    /** Requests admitted to the order, by key, in the order they will be numbered. */
    private final ArrayDeque<Long> queued = new ArrayDeque<>();
    /** Each member's cumulative order ACK ("delivered through N"). */
    private final Map<Integer, Long> memberDeliveredSeq = new HashMap<>();
    /** When each order not yet delivered everywhere was last sent (by order sequence number). */
    private final TreeMap<Long, Long> orderSentNs = new TreeMap<>();
    private long nextOrderSeq = 1;
    /** Orders up to here are delivered everywhere and forgotten. */
    private long forgottenSeq;
    private boolean retransmitArmed;
    private long retransmitDeadlineNs;

    Sequencer(final GroupConfig config, final GroupCounters counters, final Outbox outbox, final OrderedDelivery delivery, final Group group)
    {
        this.selfId = config.selfId;
        this.maxPacketBytes = config.maxPacketBytes;
        this.orderWindow = config.orderWindow;
        this.retransmitTimeoutNs = config.retransmitTimeoutNs;
        this.counters = counters;
        this.outbox = outbox;
        this.delivery = delivery;
        this.group = group;
    }

    /** Numbering goes on from {@code nextOrderSeq}; everything through {@code forgottenSeq} is forgotten; no member has ACKed yet. */
    void startAt(final long nextOrderSeq, final long forgottenSeq)
    {
        this.nextOrderSeq = nextOrderSeq;
        this.forgottenSeq = forgottenSeq;
        memberDeliveredSeq.clear();
    }

    /** Forgets the queue, the ACKs and the retransmission (stepping down); the numbering stays. */
    void reset()
    {
        queued.clear();
        memberDeliveredSeq.clear();
        orderSentNs.clear();
        retransmitArmed = false;
    }

    /** @return the order sequence number of the last request ordered (0 before the first). */
    long lastOrderSeq()
    {
        return nextOrderSeq - 1;
    }

    void queue(final long key)
    {
        queued.add(key);
    }

    boolean hasQueued()
    {
        return !queued.isEmpty();
    }

    boolean isQueued(final long key)
    {
        return queued.contains(key);
    }

    /** Takes a cancelled request off the queue: it is never ordered now. */
    void unqueue(final long key)
    {
        queued.remove(key);
    }

    /** Orders everything queued: as many MsgOrders as it takes, each delivered here once sent. */
    void emit(final long nowNs)
    {
        while (!queued.isEmpty())
        {
            final int count = Math.min(queued.size(), outbox.maxEntriesPerOrder());
            sendAloneWhatCannotBeCarried(count);
            group.accepted(nextOrderSeq + count - 1);
            msgOrder.wrap(outbox.buffer(), 0);
            msgOrder.set(Outbox.WIRE_ORDER, selfId, outbox.nextPacketId(), outbox.epoch(), nextOrderSeq, count, outbox.commit());
            for (int i = 0; i < count; i++)
            {
                final long key = queued.poll();
                orderSentNs.put(nextOrderSeq, nowNs);
                delivery.order(nextOrderSeq++, key);
                msgOrder.entry(i, HeldRequest.clientId(key), HeldRequest.packetId(key));
                final HeldRequest held = delivery.held(key);
                if (held != null && held.toCarry)
                {
                    held.toCarry = false;
                    // Written after the entries (whose room set() reserved), with flags bit 2 clear.
                    request.wrap(outbox.buffer(), msgOrder.end());
                    held.writeTo(request);
                    msgOrder.carried(request.packetSize());
                    counters.requestsCarried++;
                }
            }
            if (aloneInView())
            {
                // Nobody to tell: a member that joins starts after the commit and fetches what it
                // lacks, and this leader's multicast would only come back to it as its own echo.
                counters.ordersUnsentAlone++;
            }
            else
            {
                counters.ordersSent++;
                counters.orderEntriesSent += count;
                outbox.send(GroupSender.GROUP, msgOrder.packetSize());
            }
            // After the order is on its way, so that the followers' copies are not held up by this ORB's work.
            group.deliverOrdered(nowNs);
        }
        if (!retransmitArmed)
        {
            retransmitArmed = true;
            retransmitDeadlineNs = nowNs + retransmitTimeoutNs;
        }
    }

    /** @return true when the view holds no member but this leader. */
    private boolean aloneInView()
    {
        for (final int id : group.view())
        {
            if (id != selfId)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Of the next {@code count} requests to order, those sent to the sequencer alone that would not
     * fit in the MsgOrder go to the group by themselves first (a plain Request, as a NAK answer).
     */
    private void sendAloneWhatCannotBeCarried(final int count)
    {
        int room = maxPacketBytes - MsgOrderFlyweight.length(count);
        final Iterator<Long> keys = queued.iterator();
        for (int i = 0; i < count; i++)
        {
            final HeldRequest held = delivery.held(keys.next());
            if (held == null || !held.toCarry)
            {
                continue;
            }
            final int size = RequestFlyweight.HEADER_LENGTH + held.payload.length;
            if (size <= room)
            {
                room -= size;
            }
            else
            {
                held.toCarry = false;
                counters.requestsRelayedAlone++;
                outbox.request(GroupSender.GROUP, held);
            }
        }
    }

    /**
     * A member's cumulative order ACK, capped at the last order (an ACK from a confused member
     * cannot make the leader forget orders it never sent).
     *
     * @return true when it moved that member on (what every member has is then forgotten).
     */
    boolean onOrderAck(final int memberId, final long ackedSeq)
    {
        final long seq = Math.min(ackedSeq, lastOrderSeq());
        final Long before = memberDeliveredSeq.get(memberId);
        if (before != null && seq <= before)
        {
            return false;
        }
        memberDeliveredSeq.put(memberId, seq);
        forgetFullyDelivered();
        return true;
    }

    /** A member joins after {@code startSeq}: what follows is kept until it has it. */
    void memberAdded(final int memberId, final long startSeq)
    {
        memberDeliveredSeq.put(memberId, startSeq);
    }

    /** A new leader's survivor, which reported delivery through {@code deliveredSeq}. */
    void memberReported(final int memberId, final long deliveredSeq)
    {
        memberDeliveredSeq.put(memberId, deliveredSeq);
    }

    void memberRemoved(final int memberId)
    {
        memberDeliveredSeq.remove(memberId);
    }

    /** @return where a member stands: its last order ACK, or the last order for one not known. */
    long deliveredSeqOf(final int memberId)
    {
        return memberDeliveredSeq.getOrDefault(memberId, lastOrderSeq());
    }

    /** @return true when fewer than {@code orderWindow} orders sent are not yet delivered by every member. */
    boolean roomInWindow()
    {
        return lastOrderSeq() - lowestDeliveredSeq() < orderWindow;
    }

    /** Forgets the orders every member of the view (this one too) has delivered. */
    void forgetFullyDelivered()
    {
        final long lowest = lowestDeliveredSeq();
        orderSentNs.headMap(lowest, true).clear();
        while (forgottenSeq < lowest)
        {
            forgottenSeq++;
            delivery.forget(forgottenSeq);
        }
    }

    private long lowestDeliveredSeq()
    {
        long lowest = delivery.deliveredSeq();
        for (final int id : group.view())
        {
            if (id != selfId)
            {
                lowest = Math.min(lowest, memberDeliveredSeq.getOrDefault(id, 0L));
            }
        }
        return lowest;
    }

    /** Re-multicasts at once what some member lacks, and keeps doing so every timeout (a new leader's first act). */
    void resendNow(final long nowNs)
    {
        retransmitArmed = true;
        resendLaggingOrders(nowNs);
    }

    /** Re-multicasts the oldest orders some member lacks, once they are {@code retransmitTimeoutNs} old. */
    void onTimer(final long nowNs)
    {
        if (retransmitArmed && retransmitDeadlineNs - nowNs <= 0)
        {
            resendLaggingOrders(nowNs);
        }
    }

    long nextDeadlineNs()
    {
        return retransmitArmed ? retransmitDeadlineNs : Deadlines.NONE;
    }

    private void resendLaggingOrders(final long nowNs)
    {
        final long lowest = lowestDeliveredSeq();
        if (lowest >= lastOrderSeq())
        {
            retransmitArmed = false;
            return;
        }
        final long from = Math.max(lowest + 1, forgottenSeq + 1);
        final Long sentNs = orderSentNs.get(from);
        if (sentNs != null && nowNs - sentNs < retransmitTimeoutNs)
        {
            // The oldest order someone lacks is younger than the timeout (the timer was armed for
            // an earlier one, since ACKed): wait for its own time, do not resend it early.
            retransmitDeadlineNs = sentNs + retransmitTimeoutNs;
            return;
        }
        counters.orderRetransmits++;
        delivery.sendOrders(GroupSender.GROUP, from, lastOrderSeq(), true);
        for (final Map.Entry<Long, Long> e : orderSentNs.tailMap(from, true).headMap(from + outbox.maxEntriesPerOrder(), false).entrySet())
        {
            e.setValue(nowNs);
        }
        retransmitDeadlineNs = nowNs + retransmitTimeoutNs;
    }
}
