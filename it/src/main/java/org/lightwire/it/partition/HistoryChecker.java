package org.lightwire.it.partition;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Judges a {@link History} against the group's guarantees, each on its own (Jepsen's total-order
 * checker is the model):
 *
 * <ol>
 * <li><b>identical</b>: there is one sequence of which every replica's log is a stretch: a prefix
 * for a process that ran from the group's start or took the group's state, a stretch from its
 * first entry for a restarted one without a state. Each log is compared entry by entry with the reference, the log that
 * agrees with most entries of all logs, and the first divergence is named with its index and both
 * entries. After the run every live replica ends at the same place, with the same digest;</li>
 * <li><b>lost</b>: every acknowledged append is in that sequence, and no live replica skipped one
 * within its stretch;</li>
 * <li><b>replies</b>: every acknowledged append's reply, the log's length, is its place in the
 * sequence (so the replies a quorum agreed on came from replicas that agree with it);</li>
 * <li><b>double</b>: no replica executed an entry twice (no entry is ever appended twice);</li>
 * <li><b>liveness</b>: after the last heal appends are acknowledged again within the bound, counted
 * from when a client could try (its first append made after the heal), and every live replica
 * executes appends made after the heal;</li>
 * <li><b>errors</b>: every failed append failed with TRANSIENT, NO_QUORUM (the target behaviour:
 * the client may try again), never a consolidation TIMEOUT, an inconsistent vote or anything else;</li>
 * <li><b>fault</b>: the fault demonstrably happened;</li>
 * <li><b>collected</b>: every live replica's log was read whole, and its digest is the digest of
 * what was read.</li>
 * </ol>
 */
public final class HistoryChecker
{
    /** How many findings of one kind a check lists before it counts the rest. */
    private static final int MAX_FINDINGS = 8;

    private final long livenessBoundNs;

    /** @param livenessBoundNs how soon after the last heal an append must be acknowledged again. */
    public HistoryChecker(final long livenessBoundNs)
    {
        this.livenessBoundNs = livenessBoundNs;
    }

    /** Where a log lies in the reference sequence, and where it first departs from it. */
    private record Alignment(ReplicaLog log, int start, int divergence, int referenceIndex, long entry, long referenceEntry)
    {
        boolean diverges()
        {
            return divergence >= 0;
        }

        /** @return the reference index just past the log's last entry (as far as it aligns). */
        int end()
        {
            return start + log.entries().length;
        }
    }

    public Verdict check(final History h)
    {
        final List<ReplicaLog> finals = h.logs().stream().filter(ReplicaLog::last).toList();
        final ReplicaLog reference = reference(h.logs());
        final long[] sequence = reference == null ? new long[0] : reference.entries();
        final Map<Long, Integer> position = firstPositions(sequence);
        final List<Alignment> alignments = new ArrayList<>();
        for (final ReplicaLog l : h.logs())
        {
            alignments.add(align(l, sequence, position));
        }
        final List<Verdict.Check> checks = new ArrayList<>();
        final String divergedAt = identical(reference, alignments, checks);
        final long lost = lost(h, reference, sequence, position, alignments, checks);
        replies(h, reference, position, checks);
        final long doubles = doubles(h.logs(), checks);
        final long stalledNs = liveness(h, finals, checks);
        final Map<String, Integer> errors = errors(h, checks);
        checks.add(new Verdict.Check("fault", h.faultActed(), List.of(h.faultEvidence())));
        collected(h, finals, checks);
        final long acked = h.appends().stream().filter(Append::acked).count();
        return new Verdict(List.copyOf(checks), acked, lost, divergedAt, doubles, stalledNs, errors);
    }

    /**
     * @return the log that agrees with the most entries of all logs (each log counted up to where
     * it departs from the candidate), then the longest, then the first; null without logs. A short
     * prefix agrees with everyone but covers little, so it does not win.
     */
    private static ReplicaLog reference(final List<ReplicaLog> logs)
    {
        List<ReplicaLog> candidates = logs.stream().filter(l -> l.last() && l.fromStart()).toList();
        if (candidates.isEmpty())
        {
            candidates = logs;
        }
        ReplicaLog best = null;
        long bestScore = -1;
        for (final ReplicaLog c : candidates)
        {
            final Map<Long, Integer> position = firstPositions(c.entries());
            long score = 0;
            for (final ReplicaLog l : logs)
            {
                final Alignment a = align(l, c.entries(), position);
                score += a.diverges() ? a.divergence() : Math.min(a.end(), c.entries().length) - Math.min(a.start(), c.entries().length);
            }
            if (best == null || score > bestScore || score == bestScore && c.entries().length > best.entries().length)
            {
                best = c;
                bestScore = score;
            }
        }
        return best;
    }

    private static Map<Long, Integer> firstPositions(final long[] sequence)
    {
        final Map<Long, Integer> position = new HashMap<>(sequence.length * 2);
        for (int i = 0; i < sequence.length; i++)
        {
            position.putIfAbsent(sequence[i], i);
        }
        return position;
    }

    private static Alignment align(final ReplicaLog log, final long[] sequence, final Map<Long, Integer> position)
    {
        final long[] e = log.entries();
        final int start;
        if (log.fromStart())
        {
            start = 0;
        }
        else if (e.length == 0)
        {
            start = sequence.length;
        }
        else
        {
            final Integer p = position.get(e[0]);
            if (p == null)
            {
                // Its very first entry is nowhere in the sequence.
                return new Alignment(log, sequence.length, 0, -1, e[0], 0);
            }
            start = p;
        }
        for (int j = 0; j < e.length && start + j < sequence.length; j++)
        {
            if (e[j] != sequence[start + j])
            {
                return new Alignment(log, start, j, start + j, e[j], sequence[start + j]);
            }
        }
        return new Alignment(log, start, -1, -1, 0, 0);
    }

    /**
     * @return the first index of the sequence at which a log departs from it; "start" when the
     * only departure is a restarted process whose first entry is nowhere in the sequence; "none".
     */
    private static String identical(final ReplicaLog reference, final List<Alignment> alignments, final List<Verdict.Check> checks)
    {
        final List<String> f = new ArrayList<>();
        boolean passed = true;
        long divergedAt = -1;
        boolean atStart = false;
        if (reference == null)
        {
            checks.add(new Verdict.Check("identical", false, List.of("no replica's log was read")));
            return "none";
        }
        f.add("reference: " + reference.name() + ", " + reference.entries().length + " entries");
        for (final Alignment a : alignments)
        {
            final ReplicaLog l = a.log();
            if (!a.diverges())
            {
                continue;
            }
            passed = false;
            if (a.referenceIndex() < 0)
            {
                f.add(l.name() + " begins with " + Entries.text(a.entry()) + ", which " + reference.name() + " never executed");
                atStart = true;
            }
            else
            {
                f.add(l.name() + " diverges at its index " + a.divergence() + " (sequence index " + a.referenceIndex() + "): it executed " +
                    Entries.text(a.entry()) + " where " + reference.name() + " executed " + Entries.text(a.referenceEntry()));
                divergedAt = divergedAt < 0 ? a.referenceIndex() : Math.min(divergedAt, a.referenceIndex());
            }
        }
        // At the end every live replica is at the same place of the sequence, with the same digest.
        final List<Alignment> finals = alignments.stream().filter(a -> a.log().last() && !a.diverges()).toList();
        final int end = finals.stream().mapToInt(Alignment::end).max().orElse(0);
        for (final Alignment a : finals)
        {
            if (a.end() < end)
            {
                passed = false;
                f.add(a.log().name() + " ends at sequence index " + a.end() + " of " + end + " (" + (end - a.end()) + " behind)");
            }
            else if (!a.log().fromStart())
            {
                f.add(a.log().name() + " holds sequence indexes " + a.start() + " to " + (a.end() - 1) + " (it started afresh without the group's state)");
            }
        }
        final Set<String> digests = new TreeSet<>();
        alignments.stream().filter(a -> a.log().last() && a.log().fromStart()).forEach(a -> digests.add(a.log().digest()));
        if (digests.size() > 1)
        {
            passed = false;
            f.add("the replicas that ran from the start or took the group's state report " + digests.size() + " different digests");
        }
        checks.add(new Verdict.Check("identical", passed, f));
        return divergedAt >= 0 ? Long.toString(divergedAt) : atStart ? "start" : "none";
    }

    private static long lost(final History h, final ReplicaLog reference, final long[] sequence, final Map<Long, Integer> position,
        final List<Alignment> alignments, final List<Verdict.Check> checks)
    {
        final List<String> f = new ArrayList<>();
        final Set<Long> lost = new HashSet<>();
        final List<Long> missingFromSequence = new ArrayList<>();
        for (final Append a : h.appends())
        {
            if (a.acked() && !position.containsKey(a.entry()))
            {
                missingFromSequence.add(a.entry());
                lost.add(a.entry());
            }
        }
        if (!missingFromSequence.isEmpty())
        {
            f.add(missingFromSequence.size() + " acknowledged appends are not in the sequence (" + (reference == null ? "none read" : reference.name()) +
                "), first " + Entries.text(missingFromSequence.get(0)));
        }
        for (final Alignment al : alignments)
        {
            final ReplicaLog l = al.log();
            if (!l.last())
            {
                continue;
            }
            final Set<Long> executed = new HashSet<>(l.entries().length * 2);
            for (final long e : l.entries())
            {
                executed.add(e);
            }
            final TreeSet<Integer> skipped = new TreeSet<>();
            for (final Append a : h.appends())
            {
                final Integer p = position.get(a.entry());
                if (a.acked() && p != null && p >= al.start() && p < Math.min(al.end(), sequence.length) && !executed.contains(a.entry()))
                {
                    skipped.add(p);
                    lost.add(a.entry());
                }
            }
            if (!skipped.isEmpty())
            {
                f.add(l.name() + " skipped " + skipped.size() + " acknowledged appends within its stretch, first " +
                    Entries.text(sequence[skipped.first()]) + " at sequence index " + skipped.first() + ", last at " + skipped.last());
            }
        }
        if (lost.isEmpty())
        {
            f.add("every acknowledged append is in the sequence and in every live replica's stretch of it");
        }
        checks.add(new Verdict.Check("lost", lost.isEmpty(), f));
        return lost.size();
    }

    /**
     * Each acknowledged append's reply is the log's length after it: on replicas that ran from the
     * start and agree with the sequence, its index in the sequence plus one. A reply that says
     * otherwise was agreed by replicas whose logs departed from the sequence.
     */
    private static void replies(final History h, final ReplicaLog reference, final Map<Long, Integer> position,
        final List<Verdict.Check> checks)
    {
        if (reference == null || !reference.fromStart())
        {
            checks.add(new Verdict.Check("replies", true, List.of("not checked: no replica ran from the group's start")));
            return;
        }
        long wrong = 0;
        String example = null;
        for (final Append a : h.appends())
        {
            final Integer p = position.get(a.entry());
            if (a.acked() && p != null && a.length() != p + 1L)
            {
                wrong++;
                if (example == null)
                {
                    example = Entries.text(a.entry()) + " was acknowledged with length " + a.length() + ", but it is at sequence index " + p;
                }
            }
        }
        checks.add(new Verdict.Check("replies", wrong == 0, List.of(wrong == 0 ?
            "every acknowledged append's reply is its place in the sequence" :
            wrong + " acknowledged appends got a reply that is not their place in the sequence, first " + example)));
    }

    private static long doubles(final List<ReplicaLog> logs, final List<Verdict.Check> checks)
    {
        final List<String> f = new ArrayList<>();
        long doubles = 0;
        for (final ReplicaLog l : logs)
        {
            final Map<Long, Integer> first = new HashMap<>(l.entries().length * 2);
            long extra = 0;
            String example = null;
            for (int i = 0; i < l.entries().length; i++)
            {
                final Integer before = first.putIfAbsent(l.entries()[i], i);
                if (before != null)
                {
                    extra++;
                    if (example == null)
                    {
                        example = Entries.text(l.entries()[i]) + " at its indexes " + before + " and " + i;
                    }
                }
            }
            if (extra > 0)
            {
                f.add(l.name() + " executed " + extra + " entries again, first " + example);
            }
            doubles += extra;
        }
        if (doubles == 0)
        {
            f.add("no replica executed an entry twice");
        }
        checks.add(new Verdict.Check("double", doubles == 0, f));
        return doubles;
    }

    /**
     * @return the shortest, over the clients, time from a client's first append made after the
     * last heal to its first acknowledged one, or -1 when no append made after the heal was
     * acknowledged. (A call in flight at the heal may take the whole consolidation timeout; the
     * clock starts when a client could try again.)
     */
    private long liveness(final History h, final List<ReplicaLog> finals, final List<Verdict.Check> checks)
    {
        final List<String> f = new ArrayList<>();
        final long heal = h.lastHealNs();
        final Map<Integer, Long> firstMade = new TreeMap<>();
        final Map<Integer, Long> firstAcked = new HashMap<>();
        for (final Append a : h.appends())
        {
            if (a.startNs() - heal >= 0)
            {
                firstMade.merge(a.client(), a.startNs(), Math::min);
                if (a.acked())
                {
                    firstAcked.merge(a.client(), a.endNs(), Math::min);
                }
            }
        }
        long stalledNs = -1;
        for (final Map.Entry<Integer, Long> m : firstMade.entrySet())
        {
            final Long acked = firstAcked.get(m.getKey());
            f.add("client " + m.getKey() + ": first append after the heal made " + Verdict.seconds(m.getValue() - heal) + " after it, " +
                (acked == null ? "none acknowledged" : "first acknowledged " + Verdict.seconds(acked - heal) + " after it"));
            if (acked != null && (stalledNs < 0 || acked - m.getValue() < stalledNs))
            {
                stalledNs = acked - m.getValue();
            }
        }
        boolean passed = stalledNs >= 0 && stalledNs <= livenessBoundNs;
        f.add(0, stalledNs < 0 ? "no append made after the last heal was acknowledged" :
            "appends were acknowledged again " + Verdict.seconds(stalledNs) + " after a client could try (bound " +
            Verdict.seconds(livenessBoundNs) + ")");
        final long madeAfter = h.appends().stream().filter(a -> a.startNs() - heal >= 0).count();
        final long ackedAfter = h.appends().stream().filter(a -> a.startNs() - heal >= 0 && a.acked()).count();
        f.add(madeAfter + " appends made after the heal, " + ackedAfter + " acknowledged");
        final Map<Long, Long> started = new HashMap<>(h.appends().size() * 2);
        h.appends().forEach(a -> started.put(a.entry(), a.startNs()));
        for (final ReplicaLog l : finals)
        {
            long after = 0;
            for (final long e : l.entries())
            {
                final Long s = started.get(e);
                if (s != null && s - heal >= 0)
                {
                    after++;
                }
            }
            if (after == 0)
            {
                passed = false;
                f.add(l.name() + " executed none of the appends made after the heal (" + l.entries().length + " entries in all)");
            }
        }
        for (final Map.Entry<Integer, String> u : h.unreadable().entrySet())
        {
            passed = false;
            f.add("replica " + u.getKey() + " did not answer its probe: " + u.getValue());
        }
        checks.add(new Verdict.Check("liveness", passed, f));
        return stalledNs;
    }

    private static Map<String, Integer> errors(final History h, final List<Verdict.Check> checks)
    {
        final Map<String, Integer> counts = new HashMap<>();
        final Map<String, Append> first = new HashMap<>();
        long before = 0;
        long during = 0;
        long after = 0;
        for (final Append a : h.appends())
        {
            if (a.acked())
            {
                continue;
            }
            final String kind = a.failure().kind();
            counts.merge(kind, 1, Integer::sum);
            first.putIfAbsent(kind, a);
            if (a.endNs() - h.faultStartNs() < 0)
            {
                before++;
            }
            else if (a.endNs() - h.lastHealNs() < 0)
            {
                during++;
            }
            else
            {
                after++;
            }
        }
        final Map<String, Integer> sorted = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
            .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        final List<String> f = new ArrayList<>();
        boolean passed = true;
        f.add("failed appends: " + before + " before the fault, " + during + " during it, " + after + " after the last heal");
        int listed = 0;
        for (final Map.Entry<String, Integer> e : sorted.entrySet())
        {
            final Append a = first.get(e.getKey());
            final boolean target = a.failure().isTarget();
            passed &= target;
            if (listed++ < MAX_FINDINGS)
            {
                f.add((target ? "" : "not the target behaviour: ") + e.getKey() + " x" + e.getValue() + ", completed " + a.failure().completed() +
                    ", first " + Verdict.seconds(a.endNs() - h.faultStartNs()) + " after the fault began, after " +
                    Verdict.seconds(a.endNs() - a.startNs()) + ": " + a.failure().message());
            }
        }
        checks.add(new Verdict.Check("errors", passed, f));
        return sorted;
    }

    private static void collected(final History h, final List<ReplicaLog> finals, final List<Verdict.Check> checks)
    {
        final List<String> f = new ArrayList<>();
        boolean passed = h.unreadable().isEmpty();
        h.unreadable().forEach((id, why) -> f.add("replica " + id + " could not be read: " + why));
        for (final ReplicaLog l : finals.stream().sorted(Comparator.comparingInt(ReplicaLog::member)).toList())
        {
            final boolean whole = l.executed() == l.entries().length;
            final boolean digestMatches = l.computedDigest().equals(l.digest());
            passed &= whole && digestMatches;
            f.add(l.name() + ": " + l.entries().length + " entries read, " + l.executed() + " executed" +
                (digestMatches ? ", digest " + l.digest().substring(0, Math.min(16, l.digest().length())) : ", its digest is not that of the entries read"));
        }
        checks.add(new Verdict.Check("collected", passed, f));
    }
}
