package org.lightwire.romiop.engine;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which of a takeover's reports may count toward its majority beyond the promise each made
 * (docs/romiop.md, "Incarnations"): a report of an incarnation older than one known counts for
 * nothing (its process restarted since, and may have told an older epoch than it promised here);
 * and a report whose sender was admitted as a possibly restarted process counts only once the
 * orders its admission reached are held by a report that counts, its own or another's (its
 * earlier incarnation may have helped commit one of them, which it lacks until it fetched them).
 */
final class ReportFence
{
    /** What a reporter's knowledge covers: delivered through, and the epoch of the entry it holds at an order number. */
    interface Knowledge
    {
        /** @return how far {@code reporter} delivered (every order through there committed). */
        long delivered(int reporter);

        /** @return the epoch of {@code reporter}'s entry at {@code seq}, or null when it reported none. */
        Integer epochAt(int reporter, long seq);
    }

    /** Beyond this many orders past its sender's knowledge, an admission's reach is not looked through: not covered. */
    static final long MAX_REACH_GAP = 1 << 20;

    private record Report(long incarnation, int reachEpoch, long reach, long holds)
    {
    }

    private final Map<Integer, Report> reports = new HashMap<>();

    /**
     * Records {@code reporter}'s report (this member's own too): its {@code incarnation}, the
     * {@code reach} of its last admission as a possibly restarted process (in {@code reachEpoch};
     * 0 for none) and how far it {@code holds} every order (delivered or accepted without a gap).
     */
    void put(final int reporter, final long incarnation, final int reachEpoch, final long reach, final long holds)
    {
        reports.put(reporter, new Report(incarnation, reachEpoch, reach, holds));
    }

    void remove(final int reporter)
    {
        reports.remove(reporter);
    }

    void clear()
    {
        reports.clear();
    }

    /**
     * @return those of {@code candidates} (each counted by every other rule, and recorded here)
     *     whose reports count: of the newest incarnation {@code known}, and with their admission's
     *     reach held by one that counts.
     */
    Set<Integer> counted(final Set<Integer> candidates, final KnownIncarnations known, final Knowledge knowledge)
    {
        final Set<Integer> counted = new HashSet<>();
        final Set<Integer> waiting = new HashSet<>();
        for (final int id : candidates)
        {
            final Report r = reports.get(id);
            if (r == null || known.older(id, r.incarnation))
            {
                continue;
            }
            (r.reach <= r.holds ? counted : waiting).add(id);
        }
        boolean grew = true;
        while (grew && !waiting.isEmpty())
        {
            grew = false;
            for (final int id : Set.copyOf(waiting))
            {
                if (covered(reports.get(id), id, counted, knowledge))
                {
                    waiting.remove(id);
                    counted.add(id);
                    grew = true;
                }
            }
        }
        return counted;
    }

    /** @return true when, past what {@code id} holds, every order its admission reached is held by a counted report. */
    private static boolean covered(final Report r, final int id, final Set<Integer> counted, final Knowledge knowledge)
    {
        if (r.reach - r.holds > MAX_REACH_GAP)
        {
            return false;
        }
        for (long seq = r.holds + 1; seq <= r.reach; seq++)
        {
            if (!heldBySome(seq, r.reachEpoch, id, counted, knowledge))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return true when a counted report other than {@code id}'s delivered {@code seq}, or holds
     *     an entry there of {@code epoch} or newer (an older epoch's entry may be one never
     *     committed, where the newer epoch committed another).
     */
    private static boolean heldBySome(final long seq, final int epoch, final int id, final Set<Integer> counted, final Knowledge knowledge)
    {
        for (final int z : counted)
        {
            if (z == id)
            {
                continue;
            }
            if (knowledge.delivered(z) >= seq)
            {
                return true;
            }
            final Integer at = knowledge.epochAt(z, seq);
            if (at != null && Integer.compareUnsigned(at, epoch) >= 0)
            {
                return true;
            }
        }
        return false;
    }
}
