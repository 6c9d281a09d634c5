package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.Map;
import java.util.SortedMap;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;

/**
 * A member's report to a takeover it promised its epoch to (docs/romiop.md, "Leader failover"):
 * the orders it accepted and did not deliver, one MsgOrder flagged REPORT for each run of
 * consecutive numbers accepted in one epoch, stamped with that epoch; then its held requests; and
 * last a KeepAlive flagged REPORT with the epoch promised, what it delivered, how far it accepted
 * without a gap, and how many entries came before it (the takeover counts a report only whole),
 * flagged when its sender may be a restarted process and when it promised a founding check, and
 * with its tail: this incarnation, its admission's reach, how far it knows the orders committed,
 * the incarnations it knows.
 */
final class TakeoverReport
{
    private final int selfId;
    private final GroupCounters counters;
    private final Outbox outbox;
    private final ByteBuffer out;
    private final OrderedDelivery delivery;
    /** What this member accepted and did not deliver, in each epoch. */
    private final AcceptedOrders accepted;
    private final MsgOrderFlyweight msgOrder = new MsgOrderFlyweight();
    /** This process's incarnation, and the newest it knows of every member: in the report's tail. */
    private final long incarnation;
    private final KnownIncarnations known;
    private final AdmissionReach admission;

    TakeoverReport(final int selfId, final GroupCounters counters, final Outbox outbox, final OrderedDelivery delivery,
        final AcceptedOrders accepted, final long incarnation, final KnownIncarnations known, final AdmissionReach admission)
    {
        this.incarnation = incarnation;
        this.known = known;
        this.admission = admission;
        this.selfId = selfId;
        this.counters = counters;
        this.outbox = outbox;
        this.out = outbox.buffer();
        this.delivery = delivery;
        this.accepted = accepted;
    }

    /**
     * Reports to {@code newLeaderId} for {@code promisedEpoch}.
     *
     * @param fixedSeq  the highest target a takeover of this member's own fixed: committed, though
     *                  not held here past what it delivered (reported as fixed, beside delivered).
     * @param commitSeq the commit this member knows, stamped on the MsgOrders.
     * @param unproven  this member may be a restarted process (it accepted nothing since its founding start).
     * @param foundingPromise this member promised a founding leader's check, in this incarnation.
     * @param provesNothing no takeover may count this report (flags bit 7).
     */
    void send(final int newLeaderId, final int promisedEpoch, final long fixedSeq, final long commitSeq, final boolean unproven,
        final boolean foundingPromise, final boolean provesNothing)
    {
        counters.reportsSent++;
        final int limit = outbox.maxEntriesPerOrder();
        // Orders it knew at what it delivered are history. Those past it it reports even below a
        // target it fixed: the takeover may have to keep them in their places (Paxos's rule).
        final long delivered = delivery.deliveredSeq();
        accepted.dropThrough(delivered);
        final SortedMap<Long, AcceptedOrders.Entry> undelivered = accepted.after(delivered);
        final Iterator<Map.Entry<Long, AcceptedOrders.Entry>> it = undelivered.entrySet().iterator();
        Map.Entry<Long, AcceptedOrders.Entry> next = it.hasNext() ? it.next() : null;
        while (next != null)
        {
            final long first = next.getKey();
            final int entryEpoch = next.getValue().epoch();
            final long[] keys = new long[limit];
            int count = 0;
            while (next != null && next.getKey() == first + count && next.getValue().epoch() == entryEpoch && count < limit)
            {
                keys[count++] = next.getValue().key();
                next = it.hasNext() ? it.next() : null;
            }
            msgOrder.wrap(out, 0);
            msgOrder.set(Outbox.WIRE_ORDER, selfId, outbox.nextPacketId(), entryEpoch, first, count, commitSeq);
            msgOrder.header().report(true);
            for (int i = 0; i < count; i++)
            {
                msgOrder.entry(i, (int)(keys[i] >>> 32), (int)keys[i]);
            }
            outbox.send(newLeaderId, msgOrder.packetSize());
        }
        for (final HeldRequest held : delivery.heldByKey().values())
        {
            outbox.request(newLeaderId, held);
        }
        long acceptedSeq = delivered;
        AcceptedOrders.Entry entry;
        while ((entry = accepted.at(acceptedSeq + 1)) != null && delivery.isHeld(entry.key()))
        {
            acceptedSeq++;
        }
        outbox.report(newLeaderId, promisedEpoch, delivered, acceptedSeq, undelivered.size(), unproven, foundingPromise, provesNothing,
            incarnation, admission.epoch(), admission.reach(), Math.max(delivered, fixedSeq), known);
    }
}
