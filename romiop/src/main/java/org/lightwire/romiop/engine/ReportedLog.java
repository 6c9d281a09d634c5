package org.lightwire.romiop.engine;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongPredicate;

/**
 * A takeover's knowledge of the orders past what its reporters delivered: each order number with
 * the request named there in the newest epoch any report gave for it (Viewstamped Replication's
 * rule: a newer view's entry supersedes an older view's at the same place), and, per reporter,
 * the entries it sent, so that a report is counted only once it arrived whole.
 *
 * <p>A report is several packets (MsgOrders, the held Requests, a KeepAlive last), each of which
 * may be lost. The KeepAlive names how many entries the reporter sent and how far it accepted
 * (held every order and every request up to there): a takeover that counted a report missing
 * one of those could re-order an order that reporter helped commit.
 */
final class ReportedLog
{
    /** Order number to {request key, epoch}: the newest epoch's entry. */
    private final TreeMap<Long, long[]> entries = new TreeMap<>();
    /** Reporter to the order numbers it reported, each with {request key, epoch}. */
    private final Map<Integer, TreeMap<Long, long[]>> byReporter = new HashMap<>();

    /** Records that {@code reporter} (or this member, for its own knowledge) knows {@code key} at {@code seq} in {@code epoch}. */
    void entry(final int reporter, final int epoch, final long seq, final long key)
    {
        byReporter.computeIfAbsent(reporter, r -> new TreeMap<>()).put(seq, new long[] {key, epoch & 0xFFFF_FFFFL});
        final long[] known = entries.get(seq);
        if (known == null || Integer.compareUnsigned(epoch, (int)known[1]) > 0)
        {
            entries.put(seq, new long[] {key, epoch & 0xFFFF_FFFFL});
        }
    }

    /** Records every entry of {@code orders} as {@code reporter}'s, each of the epoch it was accepted in. */
    void entries(final int reporter, final Map<Long, AcceptedOrders.Entry> orders)
    {
        for (final Map.Entry<Long, AcceptedOrders.Entry> e : orders.entrySet())
        {
            entry(reporter, e.getValue().epoch(), e.getKey(), e.getValue().key());
        }
    }

    /**
     * @return true when {@code reporter}'s report arrived whole: at least {@code announced} entries,
     *     and one for every order number past {@code delivered} up to {@code accepted}, each naming a
     *     request {@code held} says this member holds.
     */
    boolean complete(final int reporter, final int announced, final long delivered, final long accepted, final LongPredicate held)
    {
        final TreeMap<Long, long[]> sent = byReporter.getOrDefault(reporter, new TreeMap<>());
        if (sent.size() < announced)
        {
            return false;
        }
        for (long seq = delivered + 1; seq <= accepted; seq++)
        {
            final long[] entry = sent.get(seq);
            if (entry == null || !held.test(entry[0]))
            {
                return false;
            }
        }
        return true;
    }

    /** @return the epoch of {@code reporter}'s entry at {@code seq}, or null when it reported none there. */
    Integer epochAt(final int reporter, final long seq)
    {
        final TreeMap<Long, long[]> sent = byReporter.get(reporter);
        final long[] entry = sent == null ? null : sent.get(seq);
        return entry == null ? null : (int)entry[1];
    }

    /** @return the request key at {@code seq}, or null when no report named one. */
    Long keyAt(final long seq)
    {
        final long[] known = entries.get(seq);
        return known == null ? null : known[0];
    }

    /** @return true when some report names request {@code key} at an order number past {@code afterSeq}. */
    boolean names(final long key, final long afterSeq)
    {
        if (entries.isEmpty())
        {
            return false;
        }
        for (final long[] known : entries.tailMap(afterSeq, false).values())
        {
            if (known[0] == key)
            {
                return true;
            }
        }
        return false;
    }

    /** @return order number to request key, the newest epoch's at each (a copy). */
    TreeMap<Long, Long> orders()
    {
        final TreeMap<Long, Long> copy = new TreeMap<>();
        entries.forEach((seq, known) -> copy.put(seq, known[0]));
        return copy;
    }

    /** Forgets the entries up to {@code seq}: they come from the holder of what was delivered. */
    void dropThrough(final long seq)
    {
        entries.headMap(seq, true).clear();
    }

    /** Forgets what reporters sent (a new proposal: they report again), keeping the entries. */
    void forgetReporters()
    {
        byReporter.clear();
    }

    void clear()
    {
        entries.clear();
        byReporter.clear();
    }
}
