package org.lightwire.romiop.engine.nemesis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.lightwire.romiop.engine.nemesis.History.Completion;
import org.lightwire.romiop.engine.nemesis.History.Delivery;
import org.lightwire.romiop.engine.nemesis.History.Incarnation;
import org.lightwire.romiop.engine.nemesis.History.Reply;

/**
 * Checks a run's history against the group's promises (docs/romiop.md, "Failure model"), in the
 * manner of Jepsen's total-order checker: every member's delivered sequence is a prefix of one
 * sequence, no incarnation delivers a request twice, every reply a client accepted and every call
 * it saw succeed is in that sequence at the place the reply names, and after the last heal every
 * live member and every client make progress within a bound. Agreement, duplicates and order are
 * checked as each delivery happens; the rest at the end. Each violation is counted by kind.
 */
final class NemesisChecker
{
    /** What a run can violate, each counted apart. */
    enum Violation
    {
        /** Two incarnations, both alive at the time, delivered different requests at one order number: split brain. */
        ORDER_DIVERGED,
        /**
         * An incarnation delivered a request at an order number and crashed; the group later ordered
         * another request there (docs/romiop.md: a crashed leader's deliveries past what a survivor
         * delivered "bind nobody").
         */
        CRASHED_TAIL_REORDERED,
        /** One incarnation delivered the same request twice (across its rejoins too). */
        DUPLICATE_DELIVERY,
        /** An incarnation delivered at an order number at or below one it had delivered. */
        SEQ_NOT_INCREASING,
        /** A delivered payload does not match the request it is delivered as. */
        CORRUPT_DELIVERY,
        /** A client accepted a member's reply naming an order number where the final sequence has another request. */
        ACCEPTED_REPLY_UNADOPTED,
        /** A call whose consolidation decided SUCCESS names an order number where the final sequence has another request. */
        COMPLETED_CALL_LOST,
        /** After the last heal, a live member delivered no new request within the bound. */
        MEMBER_STUCK,
        /** After the last heal, a client saw none of its new calls succeed within the bound. */
        CLIENT_STUCK,
        /**
         * An incarnation executed an order past one it neither executed nor took in a state (and
         * whose request it had not executed at another number): its application misses a request.
         */
        SKIPPED_ORDER,
        /** A state installed holds a request at an order number where an incarnation delivered another. */
        STATE_DIVERGED,
        /**
         * A state installed is not the order up to its cut: it lacks a request the final sequence has
         * at or below the cut (unless it holds it at an earlier number, or nobody executed anything
         * there), or its cut is below an order the incarnation had executed already.
         */
        STATE_CUT_WRONG,
        /** A member was refused the state it needed (every simulated member can give one). */
        STATE_REFUSED,
        /** An engine threw out of onPacket, onTimer or start (they must never throw). */
        ENGINE_THREW
    }

    /** Violations of one run: counts by kind and the first few examples of each. */
    static final class Verdict
    {
        /** What a run that lost a majority's memory may show (see {@link #outsideModel()}). */
        private static final Set<Violation> AMNESIA_OUTCOMES = EnumSet.of(Violation.MEMBER_STUCK, Violation.CLIENT_STUCK,
            Violation.CRASHED_TAIL_REORDERED, Violation.ACCEPTED_REPLY_UNADOPTED, Violation.COMPLETED_CALL_LOST, Violation.STATE_CUT_WRONG);

        private static final int EXAMPLES = 3;
        private final EnumMap<Violation, Integer> counts = new EnumMap<>(Violation.class);
        private final EnumMap<Violation, List<String>> examples = new EnumMap<>(Violation.class);
        /** Why the run left the failure model (more members restarted without memory than it tolerates), or null. */
        private String outsideModel;

        void add(final Violation v, final String example)
        {
            counts.merge(v, 1, Integer::sum);
            final List<String> list = examples.computeIfAbsent(v, k -> new ArrayList<>());
            if (list.size() < EXAMPLES)
            {
                list.add(example);
            }
        }

        boolean ok()
        {
            return counts.isEmpty();
        }

        /**
         * @return why the run left the failure model, when its violations are those a group that
         *     lost a majority's memory may show, else null. Such a group cannot know what was
         *     committed: it waits (members and clients stuck after the heal), or, its members
         *     started again from the founding configuration, founds a new order as a first start
         *     does (docs/romiop.md, "Failure model for restarts"), and the orders every holder of
         *     which restarted are lost: a crashed incarnation's deliveries ordered anew, replies
         *     and calls that name them, states without them. Nothing else is excused: two live
         *     incarnations that disagree, a request executed twice or skipped, a corrupt delivery.
         */
        String outsideModel()
        {
            final boolean amnesiaOnly = counts.keySet().stream().allMatch(AMNESIA_OUTCOMES::contains);
            return ok() || !amnesiaOnly ? null : outsideModel;
        }

        Map<Violation, Integer> counts()
        {
            return counts;
        }

        /** @return one line per kind: its count and its first few examples. */
        String summary()
        {
            final StringBuilder sb = new StringBuilder();
            counts.forEach((v, n) -> sb.append(v).append(" x").append(n).append(": ").append(String.join(" | ", examples.get(v))).append('\n'));
            return sb.toString().stripTrailing();
        }

        @Override
        public String toString()
        {
            if (ok())
            {
                return "no violation";
            }
            final StringBuilder sb = new StringBuilder();
            counts.forEach((v, n) ->
            {
                sb.append(v).append(" x").append(n).append(':');
                for (final String e : examples.get(v))
                {
                    sb.append("\n    ").append(e);
                }
                sb.append('\n');
            });
            return sb.toString().stripTrailing();
        }
    }

    private final History history;
    private final Verdict verdict = new Verdict();
    /** Per incarnation: the last order number delivered, and every request delivered with its order number. */
    private final Map<Incarnation, Long> lastSeq = new HashMap<>();
    private final Map<Incarnation, Map<String, Long>> requestsDelivered = new HashMap<>();
    /** Per order number: each distinct request delivered there, with the incarnations that delivered it. */
    private final Map<Long, Map<String, List<Incarnation>>> bySeq = new HashMap<>();
    /** For the liveness probe: the newest send time of a request each incarnation delivered, of a call each client completed. */
    private final Map<Incarnation, Long> newestSentDelivered = new HashMap<>();
    private final Map<Integer, Long> newestSentCompleted = new HashMap<>();
    /** Per incarnation: the order numbers it jumped over ({@link Violation#SKIPPED_ORDER} unless excused at the end). */
    private final Map<Incarnation, List<long[]>> jumps = new HashMap<>();

    NemesisChecker(final History history)
    {
        this.history = history;
    }

    Verdict verdict()
    {
        return verdict;
    }

    void violation(final Violation v, final String example)
    {
        verdict.add(v, example);
    }

    /** Agreement, duplicates and order, as the delivery happens. */
    void onDelivery(final Delivery d)
    {
        final Incarnation by = d.by();
        final Long last = lastSeq.put(by, d.orderSeq());
        if (last != null && d.orderSeq() <= last)
        {
            violation(Violation.SEQ_NOT_INCREASING, by + " delivered order " + d.orderSeq() + " after " + last + " at " + ms(d.atNs()));
        }
        final long next = last == null ? 1 : last + 1;
        if (d.orderSeq() > next)
        {
            jumps.computeIfAbsent(by, k -> new ArrayList<>()).add(new long[] {next, d.orderSeq() - 1, d.atNs()});
        }
        final Long before = requestsDelivered.computeIfAbsent(by, k -> new HashMap<>()).putIfAbsent(d.request(), d.orderSeq());
        if (before != null)
        {
            violation(Violation.DUPLICATE_DELIVERY, by + " delivered " + d.request() + " at order " + before + " and again at order " +
                d.orderSeq() + " at " + ms(d.atNs()));
        }
        final Map<String, List<Incarnation>> here = bySeq.computeIfAbsent(d.orderSeq(), k -> new LinkedHashMap<>(2));
        if (!here.isEmpty() && !here.containsKey(d.request()))
        {
            boolean othersAllCrashed = true;
            final StringBuilder others = new StringBuilder();
            for (final Map.Entry<String, List<Incarnation>> e : here.entrySet())
            {
                for (final Incarnation i : e.getValue())
                {
                    othersAllCrashed &= history.endedNs(i) <= d.atNs();
                    others.append(' ').append(i).append('=').append(e.getKey());
                }
            }
            violation(othersAllCrashed ? Violation.CRASHED_TAIL_REORDERED : Violation.ORDER_DIVERGED,
                "order " + d.orderSeq() + ": " + by + "=" + d.request() + " at " + ms(d.atNs()) + ", before it" + others);
        }
        here.computeIfAbsent(d.request(), k -> new ArrayList<>(2)).add(by);
        newestSentDelivered.merge(by, history.sentNs(d.request()), Math::max);
    }

    /**
     * A state installed: each of its entries must agree with what was delivered at its number; the
     * incarnation's application now holds exactly those requests and goes on after the cut.
     */
    void onInstall(final History.Install install)
    {
        final Map<String, Long> holds = new HashMap<>();
        for (final ReplicaLog.Entry e : install.entries())
        {
            final Map<String, List<Incarnation>> here = bySeq.get(e.orderSeq());
            if (here != null && !here.containsKey(e.request()))
            {
                violation(Violation.STATE_DIVERGED, install.by() + " installed a state (cut " + install.cut() + ", " + ms(install.atNs()) + ") with " +
                    e.request() + " at order " + e.orderSeq() + " where " + here + " was delivered");
            }
            holds.put(e.request(), e.orderSeq());
        }
        final Long before = lastSeq.get(install.by());
        if (before != null && before > install.cut())
        {
            violation(Violation.STATE_CUT_WRONG, install.by() + " installed a state after order " + install.cut() + " having executed order " +
                before + " (" + ms(install.atNs()) + ")");
        }
        requestsDelivered.put(install.by(), holds);
        lastSeq.put(install.by(), install.cut());
    }

    void onCompletion(final Completion c)
    {
        newestSentCompleted.merge(c.clientId(), history.sentNs(c.request()), Math::max);
    }

    /** @return true once every live incarnation delivered, and every client completed, a request sent at or after {@code sinceNs}. */
    boolean progressedSince(final long sinceNs, final Collection<Incarnation> live, final Collection<Integer> clientIds)
    {
        for (final Incarnation i : live)
        {
            if (newestSentDelivered.getOrDefault(i, -1L) < sinceNs)
            {
                return false;
            }
        }
        for (final int c : clientIds)
        {
            if (newestSentCompleted.getOrDefault(c, -1L) < sinceNs)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * The final sequence: at each order number, the request that the most incarnations delivered
     * there (the earliest delivered on a tie). Where they disagree, {@link #onDelivery} has
     * counted it already; this picks the order the group adopted, against which replies and
     * successful calls are judged.
     */
    TreeMap<Long, String> finalSequence()
    {
        final TreeMap<Long, String> sequence = new TreeMap<>();
        bySeq.forEach((seq, requests) ->
        {
            String best = null;
            int votes = 0;
            for (final Map.Entry<String, List<Incarnation>> e : requests.entrySet())
            {
                if (e.getValue().size() > votes)
                {
                    best = e.getKey();
                    votes = e.getValue().size();
                }
            }
            sequence.put(seq, best);
        });
        return sequence;
    }

    /**
     * The checks that need the whole run: replies and completions against the final sequence, and
     * liveness after the heal.
     *
     * @param live     incarnations alive at the end.
     * @param healNs   when the last fault was healed.
     * @param boundNs  how long after the heal progress may take.
     * @param reachesAtHeal each live incarnation's admission reach at the heal ({@code MemberEngine.admissionReach}).
     * @param describe the state of a live incarnation, for the report.
     */
    Verdict checkEnd(final Collection<Incarnation> live, final Collection<Integer> clientIds, final long healNs, final long boundNs,
        final Map<Incarnation, Long> reachesAtHeal, final Function<Incarnation, String> describe)
    {
        final TreeMap<Long, String> sequence = finalSequence();
        for (final Reply r : history.replies())
        {
            final String there = sequence.get(r.orderSeq());
            if (!r.request().equals(there))
            {
                violation(Violation.ACCEPTED_REPLY_UNADOPTED, "client " + r.clientId() + " accepted member " + r.memberId() + "'s reply to " +
                    r.request() + " at order " + r.orderSeq() + " (" + ms(r.atNs()) + "); the sequence has " + there + " there");
            }
        }
        for (final Completion c : history.completions())
        {
            final String there = sequence.get(c.orderSeq());
            if (!c.request().equals(there))
            {
                violation(Violation.COMPLETED_CALL_LOST, "client " + c.clientId() + "'s call " + c.request() + " succeeded at order " +
                    c.orderSeq() + " (" + ms(c.atNs()) + "); the sequence has " + there + " there");
            }
        }
        jumps.forEach((by, ranges) ->
        {
            final Map<String, Long> executed = requestsDelivered.getOrDefault(by, Map.of());
            for (final long[] r : ranges)
            {
                for (long seq = r[0]; seq <= r[1]; seq++)
                {
                    // Excused: a number where no incarnation executed anything (each had executed its
                    // request at an earlier number), or a request this one executed at an earlier number.
                    final String there = sequence.get(seq);
                    final Long at = there == null ? null : executed.get(there);
                    if (there != null && (at == null || at >= seq))
                    {
                        violation(Violation.SKIPPED_ORDER, by + " went on at order " + (r[1] + 1) + " (" + ms(r[2]) + ") without order " + seq +
                            " (" + there + ")");
                        break;
                    }
                }
            }
        });
        for (final History.Install install : history.installs())
        {
            final Map<String, Long> holds = new HashMap<>();
            final Map<Long, String> bySeqThere = new HashMap<>();
            for (final ReplicaLog.Entry e : install.entries())
            {
                holds.put(e.request(), e.orderSeq());
                bySeqThere.put(e.orderSeq(), e.request());
            }
            for (final Map.Entry<Long, String> e : sequence.headMap(install.cut(), true).entrySet())
            {
                final Long at = holds.get(e.getValue());
                if (e.getValue() != null && !e.getValue().equals(bySeqThere.get(e.getKey())) && (at == null || at >= e.getKey()))
                {
                    violation(Violation.STATE_CUT_WRONG, install.by() + " installed a state after order " + install.cut() + " (" +
                        ms(install.atNs()) + ") without " + e.getValue() + ", order " + e.getKey() + " of the sequence");
                    break;
                }
            }
        }
        final long memoryless = live.stream()
            .filter(i -> i.number() > 1 && (!knewTheGroupBy(i, healNs) || deliveredBy(i, healNs) < reachesAtHeal.getOrDefault(i, 0L))).count();
        if (memoryless > (live.size() - 1) / 2)
        {
            verdict.outsideModel = memoryless + " of " + live.size() + " members restarted and not readmitted, or not caught up to their admission, at the heal";
        }
        final long deadlineNs = healNs + boundNs;
        for (final Incarnation i : live)
        {
            final boolean progressed = history.deliveries().getOrDefault(i, List.of()).stream()
                .anyMatch(d -> d.atNs() <= deadlineNs && history.sentNs(d.request()) >= healNs);
            if (!progressed)
            {
                violation(Violation.MEMBER_STUCK, i + " delivered no request sent after the heal at " + ms(healNs) + " within " + ms(boundNs) +
                    ": " + describe.apply(i));
            }
        }
        for (final int clientId : clientIds)
        {
            final boolean progressed = history.completions().stream()
                .anyMatch(c -> c.clientId() == clientId && c.atNs() <= deadlineNs && history.sentNs(c.request()) >= healNs);
            if (!progressed)
            {
                violation(Violation.CLIENT_STUCK, "client " + clientId + ": no call made after the heal at " + ms(healNs) + " succeeded within " +
                    ms(boundNs));
            }
        }
        return verdict;
    }

    /** @return the highest order {@code i} delivered, or installed a state at, by {@code atNs} (0 for none). */
    private long deliveredBy(final Incarnation i, final long atNs)
    {
        final long delivered = history.deliveries().getOrDefault(i, List.of()).stream().filter(d -> d.atNs() <= atNs)
            .mapToLong(History.Delivery::orderSeq).max().orElse(0);
        final long installed = history.installs().stream().filter(s -> s.by().equals(i) && s.atNs() <= atNs)
            .mapToLong(History.Install::cut).max().orElse(0);
        return Math.max(delivered, installed);
    }

    /** @return true when {@code i} delivered an order or installed a state by {@code atNs}: it was readmitted, and holds what follows. */
    private boolean knewTheGroupBy(final Incarnation i, final long atNs)
    {
        return history.deliveries().getOrDefault(i, List.of()).stream().anyMatch(d -> d.atNs() <= atNs) ||
            history.installs().stream().anyMatch(s -> s.by().equals(i) && s.atNs() <= atNs);
    }

    static String ms(final long ns)
    {
        return String.format("%.3f ms", ns / 1e6);
    }
}
