package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;

/**
 * Ordered delivery (paper, Figure 4 lines 33-39): the requests a member holds, the order entries it
 * knows by order sequence number, and delivery strictly from the next expected number on, never
 * past an order or a request it lacks. Delivered requests are retained, by order sequence number:
 * the leader's until every member ACKs them ({@link #forget}), everyone else's the last
 * {@code maxRetainedOrders} ({@link #retainAtMost}), so that any member can answer NAKs and hand
 * them to a new leader ({@link #sendOrders}, {@link #find}).
 */
final class OrderedDelivery
{
    /** Hears each request as it is delivered, in order. */
    interface Listener
    {
        void delivered(long orderSeq, HeldRequest held);
    }

    private final Outbox outbox;
    private final Listener listener;
    private final MsgOrderFlyweight msgOrder = new MsgOrderFlyweight();
    /** Received, not yet delivered requests, by key, in arrival order. */
    private final LinkedHashMap<Long, HeldRequest> received = new LinkedHashMap<>();
    /** What {@link #received} holds, by {@link HeldRequest#cost}. */
    private long heldBytes;
    /** Known order entries not yet delivered: order sequence number to request key. */
    private final TreeMap<Long, Long> orders = new TreeMap<>();
    /** Delivered requests still kept, by order sequence number, and their numbers by key. */
    private final TreeMap<Long, HeldRequest> log = new TreeMap<>();
    private final Map<Long, Long> logSeqByKey = new HashMap<>();
    private long nextDeliverSeq = 1;
    private long highestKnownSeq;

    OrderedDelivery(final Outbox outbox, final Listener listener)
    {
        this.outbox = outbox;
        this.listener = listener;
    }

    // Held requests.

    boolean isHeld(final long key)
    {
        return received.containsKey(key);
    }

    HeldRequest held(final long key)
    {
        return received.get(key);
    }

    void hold(final HeldRequest held)
    {
        final HeldRequest before = received.put(held.key, held);
        heldBytes += held.cost() - (before == null ? 0 : before.cost());
    }

    /** @return the held request dropped, or null when none was held. */
    HeldRequest drop(final long key)
    {
        final HeldRequest held = received.remove(key);
        if (held != null)
        {
            heldBytes -= held.cost();
        }
        return held;
    }

    /** @return the bytes the held requests count ({@link HeldRequest#cost}). */
    long heldBytes()
    {
        return heldBytes;
    }

    /** @return the held requests, in arrival order (read-only: {@link #drop} removes). */
    Map<Long, HeldRequest> heldByKey()
    {
        return Collections.unmodifiableMap(received);
    }

    // Orders.

    long nextDeliverSeq()
    {
        return nextDeliverSeq;
    }

    /** @return the order sequence number of the last request delivered (0 before the first). */
    long deliveredSeq()
    {
        return nextDeliverSeq - 1;
    }

    boolean hasOrder(final long orderSeq)
    {
        return orders.containsKey(orderSeq);
    }

    void order(final long orderSeq, final long key)
    {
        orders.put(orderSeq, key);
    }

    /** @return the known, undelivered order entries, by order sequence number (live). */
    TreeMap<Long, Long> orders()
    {
        return orders;
    }

    /** @return the keys of the known, undelivered order entries, in order. */
    Collection<Long> orderedKeys()
    {
        return orders.values();
    }

    boolean isOrderedUndelivered(final long key)
    {
        return orders.containsValue(key);
    }

    /**
     * @return true when this member knows that some order exists: it delivered one, holds one
     *     (behind a gap too), or a KeepAlive or MsgOrder named a number past 0.
     */
    boolean knowsAnyOrder()
    {
        return deliveredSeq() > 0 || highestKnownSeq > 0 || !orders.isEmpty();
    }

    /** @return the highest order number this member knows exists (delivered, held, or named by a KeepAlive or MsgOrder). */
    long highestKnownSeq()
    {
        return Math.max(Math.max(highestKnownSeq, deliveredSeq()), orders.isEmpty() ? 0 : orders.lastKey());
    }

    /** Some order up to {@code orderSeq} exists (a KeepAlive or a later MsgOrder said so). */
    void knowUpTo(final long orderSeq)
    {
        highestKnownSeq = Math.max(highestKnownSeq, orderSeq);
    }

    /**
     * @return true when something is missing: an order or a request past what this member accepted,
     *     known to exist or known itself. (Orders accepted and waiting for their commit miss nothing.)
     */
    boolean misses()
    {
        final long accepted = acceptedSeq();
        return highestKnownSeq > accepted || orders.higherKey(accepted) != null;
    }

    /**
     * @return the highest order sequence number up to which this member holds every order and
     *     every request they name (what it accepted; at least what it delivered).
     */
    long acceptedSeq()
    {
        long seq = nextDeliverSeq;
        Long key;
        while ((key = orders.get(seq)) != null && received.containsKey(key))
        {
            seq++;
        }
        return seq - 1;
    }

    /**
     * Delivers every request from the next order sequence number on, as far as orders and requests
     * run without a gap, and no further than {@code commitSeq}: what a majority holds.
     */
    void deliverReady(final long commitSeq)
    {
        Long key;
        while (nextDeliverSeq <= commitSeq && (key = orders.get(nextDeliverSeq)) != null)
        {
            final HeldRequest held = drop(key);
            if (held == null)
            {
                break;
            }
            orders.remove(nextDeliverSeq);
            log.put(nextDeliverSeq, held);
            logSeqByKey.put(key, nextDeliverSeq);
            listener.delivered(nextDeliverSeq, held);
            nextDeliverSeq++;
        }
        highestKnownSeq = Math.max(highestKnownSeq, nextDeliverSeq - 1);
    }

    /** A joiner starts after {@code orderSeq}: the order its leader named (no state transfer of earlier requests). */
    void startAfter(final long orderSeq)
    {
        nextDeliverSeq = orderSeq + 1;
        highestKnownSeq = orderSeq;
    }

    /**
     * A state taken after order {@code cut} is installed: the orders up to it, and the requests
     * they name, are done with (the state holds their effects); delivery goes on after it.
     */
    void installedAt(final long cut)
    {
        final var upToCut = orders.headMap(cut, true);
        for (final long key : upToCut.values())
        {
            drop(key);
        }
        upToCut.clear();
        nextDeliverSeq = Math.max(nextDeliverSeq, cut + 1);
        highestKnownSeq = Math.max(highestKnownSeq, cut);
    }

    /** Drops the known, undelivered order entries (a new leader takes them over, or no longer needs them). */
    void clearOrders()
    {
        orders.clear();
    }

    /** Forgets what is known of orders: a member that follows a new leader takes its orders only. */
    void forgetOrders()
    {
        orders.clear();
        highestKnownSeq = nextDeliverSeq - 1;
    }

    // Retained, delivered requests.

    boolean isDelivered(final long key)
    {
        return logSeqByKey.containsKey(key);
    }

    /** @return a request retained or held, or null. */
    HeldRequest find(final long key)
    {
        final Long seq = logSeqByKey.get(key);
        return seq != null ? log.get(seq) : received.get(key);
    }

    int retainedCount()
    {
        return log.size();
    }

    /**
     * @return the first order of the unbroken run of retained orders that ends at the last one
     *     delivered: what this member can send a new leader without a hole (a member that joined
     *     at a commit has none before it).
     */
    long firstOfRetainedRun()
    {
        long seq = nextDeliverSeq - 1;
        while (seq > 0 && log.containsKey(seq))
        {
            seq--;
        }
        return seq + 1;
    }

    /** @return the oldest order sequence number retained, or the next to deliver when none is. */
    long firstRetainedSeq()
    {
        return log.isEmpty() ? nextDeliverSeq : log.firstKey();
    }

    /** Keeps the last {@code maxRetained} delivered requests (a member's tail for a new leader). */
    void retainAtMost(final int maxRetained)
    {
        while (log.size() > maxRetained)
        {
            logSeqByKey.remove(log.pollFirstEntry().getValue().key);
        }
    }

    /** Forgets the delivered request at {@code orderSeq} (every member has it). */
    void forget(final long orderSeq)
    {
        final HeldRequest held = log.remove(orderSeq);
        if (held != null)
        {
            logSeqByKey.remove(held.key);
        }
    }

    /**
     * Sends the orders from {@code fromSeq} on, delivered and retained or known and not yet
     * delivered (a leader's orders wait for their commit), as one MsgOrder of at most a packet's
     * entries; when none is known there, a KeepAlive naming {@code orderEndSeq}, where the order
     * ends, so that the asker stops asking: flagged TOLD unless this member is {@code leading}
     * (a member's word of its epoch is no leader's).
     */
    void sendOrders(final int destinationId, final long fromSeq, final long orderEndSeq, final boolean leading)
    {
        final int limit = outbox.maxEntriesPerOrder();
        int count = 0;
        while (count < limit && keyAt(fromSeq + count) != null)
        {
            count++;
        }
        if (count == 0)
        {
            if (leading)
            {
                outbox.keepAlive(destinationId, orderEndSeq);
            }
            else
            {
                outbox.told(destinationId, orderEndSeq);
            }
            return;
        }
        final ByteBuffer out = outbox.buffer();
        msgOrder.wrap(out, 0);
        msgOrder.set(Outbox.WIRE_ORDER, outbox.selfId(), outbox.nextPacketId(), outbox.epoch(), fromSeq, count, outbox.commit());
        for (int i = 0; i < count; i++)
        {
            final long key = keyAt(fromSeq + i);
            msgOrder.entry(i, HeldRequest.clientId(key), HeldRequest.packetId(key));
        }
        outbox.send(destinationId, msgOrder.packetSize());
    }

    /** @return the request key ordered at {@code orderSeq}, delivered or not, or null when unknown here. */
    private Long keyAt(final long orderSeq)
    {
        final HeldRequest delivered = log.get(orderSeq);
        return delivered != null ? Long.valueOf(delivered.key) : orders.get(orderSeq);
    }
}
