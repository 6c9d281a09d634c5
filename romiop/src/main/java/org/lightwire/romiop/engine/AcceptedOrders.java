package org.lightwire.romiop.engine;

import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * The orders a follower accepted and has not delivered, each with the epoch whose leader sent it,
 * kept across epochs until it is delivered or a newer epoch's leader sends another order at its
 * number (Paxos's rule: an acceptor reports each value with the ballot it accepted it in).
 *
 * <p>A follower that enters a new epoch before that epoch's leader has sent it the orders past the
 * fixed prefix still reports the older epoch's entries, under their own epoch: should that leader
 * fail before it commits them again, a later takeover whose majority are such followers still
 * learns every order some majority accepted, and a newer epoch's entry at the same number wins.
 */
final class AcceptedOrders
{
    /** An accepted order: the request key and the epoch it was accepted in. */
    record Entry(long key, int epoch)
    {
    }

    private final TreeMap<Long, Entry> entries = new TreeMap<>();

    /** Keeps {@code orders} (order number to request key) as accepted in {@code epoch}, unless a newer epoch's entry is kept there. */
    void accept(final Map<Long, Long> orders, final int epoch)
    {
        for (final Map.Entry<Long, Long> e : orders.entrySet())
        {
            final Entry known = entries.get(e.getKey());
            if (known == null || Integer.compareUnsigned(epoch, known.epoch) >= 0)
            {
                entries.put(e.getKey(), new Entry(e.getValue(), epoch));
            }
        }
    }

    /** Forgets the entries up to {@code deliveredSeq}: the delivered log tells those. */
    void dropThrough(final long deliveredSeq)
    {
        entries.headMap(deliveredSeq, true).clear();
    }

    /** @return the entries past {@code deliveredSeq}, in order (a view). */
    NavigableMap<Long, Entry> after(final long deliveredSeq)
    {
        return entries.tailMap(deliveredSeq, false);
    }

    /** @return the entry at {@code seq}, or null. */
    Entry at(final long seq)
    {
        return entries.get(seq);
    }

    /** @return true when a kept entry past {@code afterSeq} names request {@code key}. */
    boolean names(final long key, final long afterSeq)
    {
        if (entries.isEmpty())
        {
            return false;
        }
        for (final Entry e : entries.tailMap(afterSeq, false).values())
        {
            if (e.key == key)
            {
                return true;
            }
        }
        return false;
    }

    /** Adds the request key of every kept entry to {@code keys}. */
    void addKeysTo(final Set<Long> keys)
    {
        for (final Entry e : entries.values())
        {
            keys.add(e.key);
        }
    }

    boolean isEmpty()
    {
        return entries.isEmpty();
    }

}
