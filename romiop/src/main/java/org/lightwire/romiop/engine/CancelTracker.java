package org.lightwire.romiop.engine;

import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Cancel at a member (beyond the paper's Figure 4; docs/romiop.md, "Cancel"). The leader decides:
 * a request it has not ordered is dropped and never ordered, an ordered one is delivered
 * everywhere ({@code cancelsTooLate}). Any other member cannot know whether the leader ordered it
 * first, so it keeps a cancelled request it holds for {@code cancelHoldNs} and then drops it unless
 * an order named it meanwhile; a Cancel for a request it never received marks that request
 * finished (should the leader have ordered it, the leader's copy is still taken after a NAK).
 */
final class CancelTracker
{
    /** What a Cancel acts on besides the held requests. */
    interface Orders
    {
        /** @return true while this member orders requests (the leader). */
        boolean ordering();

        /** @return true when an order this member knows and has not delivered names the request. */
        boolean isOrderedUndelivered(long key);

        /** The leader takes a request it has not ordered off its queue. */
        void unqueue(long key);
    }

    private final long cancelHoldNs;
    private final GroupCounters counters;
    private final OrderedDelivery delivery;
    private final DuplicateFilter finished;
    private final Orders orders;
    /** Held requests their client cancelled, by key, to the time of the Cancel (oldest first). */
    private final LinkedHashMap<Long, Long> cancelledAtNs = new LinkedHashMap<>();

    CancelTracker(final GroupConfig config, final GroupCounters counters, final OrderedDelivery delivery, final DuplicateFilter finished,
        final Orders orders)
    {
        this.cancelHoldNs = config.cancelHoldNs;
        this.counters = counters;
        this.delivery = delivery;
        this.finished = finished;
        this.orders = orders;
    }

    /** A client's Cancel of its request {@code packetId} (ACKed by the caller). */
    void onCancel(final int clientId, final int packetId, final long nowNs)
    {
        final long key = HeldRequest.key(clientId, packetId);
        if (delivery.isDelivered(key) || cancelledAtNs.containsKey(key))
        {
            counters.cancelsTooLate += delivery.isDelivered(key) ? 1 : 0;
            return;
        }
        if (finished.isFinished(clientId, packetId))
        {
            return;
        }
        if (orders.ordering() && delivery.isOrderedUndelivered(key))
        {
            // Ordered, waiting for its commit: too late, as if delivered.
            counters.cancelsTooLate++;
            return;
        }
        if (orders.ordering())
        {
            // The sequencer decides: a request it has not ordered is never ordered now.
            // (Left in its client's FIFO queue, if it waits there: releasing passes over it.)
            orders.unqueue(key);
            delivery.drop(key);
            finished.finish(clientId, packetId);
            counters.requestsCancelled++;
        }
        else if (delivery.isHeld(key))
        {
            if (!orders.isOrderedUndelivered(key))
            {
                cancelledAtNs.put(key, nowNs);
            }
        }
        else
        {
            // Never arrives as new now; should the leader have ordered it first, the NAK answer is still taken.
            finished.finish(clientId, packetId);
            counters.requestsCancelled++;
        }
    }

    /** A cancelled request was delivered after all (an order named it in time). */
    void onDelivered(final long key)
    {
        if (cancelledAtNs.remove(key) != null)
        {
            counters.cancelsTooLate++;
        }
    }

    boolean isCancelled(final long key)
    {
        return cancelledAtNs.containsKey(key);
    }

    /** A new leader re-orders a cancelled request in the old leader's place: it is no longer dropped. */
    void keep(final long key)
    {
        cancelledAtNs.remove(key);
    }

    /** A new leader drops every cancelled request it holds: no order names them now. */
    void dropAll()
    {
        for (final long k : cancelledAtNs.keySet())
        {
            drop(k);
        }
        cancelledAtNs.clear();
    }

    /** Drops every cancelled request no known order names (a rejoin); the others wait for their cancel hold as before. */
    void dropAllUnordered()
    {
        for (final Iterator<Long> it = cancelledAtNs.keySet().iterator(); it.hasNext(); )
        {
            final long k = it.next();
            if (!orders.isOrderedUndelivered(k))
            {
                it.remove();
                drop(k);
            }
        }
    }

    /** Drops cancelled request {@code k}: it is finished (a late copy is a duplicate) and counted. */
    private void drop(final long k)
    {
        delivery.drop(k);
        finished.finish(HeldRequest.clientId(k), HeldRequest.packetId(k));
        counters.requestsCancelled++;
    }

    /** Forgets every cancel (a rejoin). */
    void clear()
    {
        cancelledAtNs.clear();
    }

    /** Drops the cancelled requests held {@code cancelHoldNs} that no order named meanwhile. */
    void onTimer(final long nowNs)
    {
        if (cancelledAtNs.isEmpty() || cancelledAtNs.values().iterator().next() + cancelHoldNs - nowNs > 0)
        {
            return;
        }
        for (final Iterator<Map.Entry<Long, Long>> it = cancelledAtNs.entrySet().iterator(); it.hasNext(); )
        {
            final Map.Entry<Long, Long> e = it.next();
            if (e.getValue() + cancelHoldNs - nowNs > 0)
            {
                break;
            }
            it.remove();
            final long key = e.getKey();
            if (!orders.isOrderedUndelivered(key) && delivery.drop(key) != null)
            {
                finished.finish(HeldRequest.clientId(key), HeldRequest.packetId(key));
                counters.requestsCancelled++;
            }
        }
    }

    long nextDeadlineNs()
    {
        return cancelledAtNs.isEmpty() ? Deadlines.NONE : cancelledAtNs.values().iterator().next() + cancelHoldNs;
    }

    /** @return the cancelled requests held, oldest first (a read-only view). */
    Set<Long> cancelled()
    {
        return Collections.unmodifiableSet(cancelledAtNs.keySet());
    }
}
