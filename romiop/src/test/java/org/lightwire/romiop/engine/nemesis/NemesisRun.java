package org.lightwire.romiop.engine.nemesis;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.lightwire.romiop.engine.nemesis.History.Incarnation;
import org.lightwire.romiop.engine.nemesis.NemesisChecker.Verdict;

/**
 * One run, everything derived from its seed: a group of 3, 4 or 5 members and 2 or 3 clients
 * calling all along; 100 ms without faults; 2 s of the nemesis; every fault healed; then the
 * liveness probe (clients go on calling, one call every 50 ms, until every live member delivered, and every client
 * completed, a call made after the heal, for at most {@link #LIVENESS_BOUND_NS}); 200 ms more; then
 * the checker's verdict. {@code scripts/romiop-nemesis.sh 1 SEED NEMESIS} replays it exactly.
 */
final class NemesisRun
{
    static final long MS = NemesisCluster.MS;
    static final long WARM_UP_NS = 100 * MS;
    /** System property: every run's group size (3 to 9) instead of 3, 4 and 5 by seed. */
    static final String MEMBERS = "romiop.nemesis.members";
    static final long FAULT_PHASE_NS = 2_000 * MS;
    static final long LIVENESS_BOUND_NS = 10_000 * MS;
    static final long SETTLE_NS = 200 * MS;
    static final long PROBE_SEND_INTERVAL_NS = 50 * MS;
    /** The latest first start of {@link Nemesis#STAGGERED} but the founding leader's, who may start up to a quarter of it later still. */
    static final long STAGGER_NS = 800 * MS;
    /** Packets {@link Nemesis#REPLAY} may deliver again: the last this many sent. */
    static final int REPLAY_KEPT = 200_000;
    private static final int FAULTS_SHOWN = 12;
    private static final long FAULTS_BEFORE_VIOLATION_NS = 500 * MS;

    /** What a run did and found. */
    record Result(long seed, Nemesis nemesis, int members, int clients, Verdict verdict, String report)
    {
        boolean ok()
        {
            return verdict.ok();
        }
    }

    private NemesisRun()
    {
    }

    /** Groups of 3, 4 and 5 by seed, or of {@code romiop.nemesis.members} (3 to 9) when that is set. */
    static int membersFor(final long seed)
    {
        final int fixed = Integer.getInteger(MEMBERS, 0);
        if (fixed != 0 && (fixed < 3 || fixed > 9))
        {
            throw new IllegalArgumentException(MEMBERS + " must be 3 to 9, got " + fixed);
        }
        return fixed != 0 ? fixed : 3 + (int)Math.floorMod(seed, 3L);
    }

    static int clientsFor(final long seed)
    {
        return 2 + (int)Math.floorMod(Math.floorDiv(seed, 3L), 2L);
    }

    static String replayCommand(final long seed, final Nemesis nemesis, final boolean countingStarts)
    {
        return (countingStarts ? "START_COUNTS=1 " : "") + (Integer.getInteger(MEMBERS, 0) != 0 ? "MEMBERS=" + Integer.getInteger(MEMBERS) + " " : "") +
            "scripts/romiop-nemesis.sh 1 " + seed + " " + nemesis;
    }

    private static void appendFaults(final StringBuilder report, final List<History.Fault> faults)
    {
        for (final History.Fault f : faults)
        {
            report.append("\n    ").append(NemesisChecker.ms(f.atNs())).append("  ").append(f.what());
        }
    }

    /** A quarter of the members start at once, the others in the first 800 ms; the founding leader (the first) last half the time. */
    private static void staggeredStarts(final SplittableRandom random, final long[] startNs)
    {
        long last = 0;
        for (int i = 0; i < startNs.length; i++)
        {
            startNs[i] = random.nextInt(4) == 0 ? 0 : random.nextLong(STAGGER_NS + 1);
            last = Math.max(last, startNs[i]);
        }
        if (random.nextBoolean())
        {
            startNs[0] = last + random.nextLong(STAGGER_NS / 4 + 1);
        }
    }

    /** A run whose processes know their start counts when the system property {@code romiop.nemesis.startCounts} is true. */
    static Result run(final long seed, final Nemesis nemesis)
    {
        return run(seed, nemesis, Boolean.getBoolean("romiop.nemesis.startCounts"));
    }

    /** @param countingStarts every process knows its start count (its incarnation number), as with {@code start_count_dir}. */
    static Result run(final long seed, final Nemesis nemesis, final boolean countingStarts)
    {
        return run(seed, nemesis, countingStarts, membersFor(seed));
    }

    /** As {@link #run(long, Nemesis, boolean)}, with a group of {@code members}. */
    static Result run(final long seed, final Nemesis nemesis, final boolean countingStarts, final int members)
    {
        final int clientCount = clientsFor(seed);
        final SplittableRandom random = new SplittableRandom(seed ^ 0x6E656D65L);
        double drop = 0.02;
        double dup = 0.02;
        long jitterNs = 400_000L;
        if (nemesis == Nemesis.LOSS || nemesis == Nemesis.MIXED || nemesis == Nemesis.STAGGERED || nemesis == Nemesis.REPLAY ||
            nemesis == Nemesis.HOSTILE || nemesis == Nemesis.FOUNDING)
        {
            drop = 0.02 + 0.18 * random.nextDouble();
            dup = 0.10 * random.nextDouble();
            jitterNs = 400_000L + random.nextLong(2_600_000L);
        }
        final long[] startNs = new long[members];
        if (nemesis == Nemesis.STAGGERED || nemesis == Nemesis.FOUNDING)
        {
            staggeredStarts(random, startNs);
        }
        final NemesisCluster cluster = new NemesisCluster(seed, members, clientCount, drop, dup, jitterNs, startNs, countingStarts);
        if (nemesis == Nemesis.REPLAY || nemesis == Nemesis.HOSTILE || nemesis == Nemesis.FOUNDING)
        {
            cluster.net.keepForReplay(REPLAY_KEPT);
        }
        final NemesisSchedule schedule = new NemesisSchedule(cluster, nemesis, seed);
        final long faultsEndNs = WARM_UP_NS + FAULT_PHASE_NS;
        schedule.begin(nemesis == Nemesis.FOUNDING ? 0 : WARM_UP_NS, faultsEndNs);
        cluster.runUntil(() -> false, faultsEndNs);
        schedule.healAll();
        final long healNs = cluster.nowNs;
        final List<Incarnation> live = cluster.live();
        final Map<Incarnation, Long> reachesAtHeal = cluster.admissionReaches();
        // Fewer calls while probing: one a client is enough to see progress, and a stuck group holds every one of them.
        cluster.sendIntervalNs = PROBE_SEND_INTERVAL_NS;
        cluster.runUntil(() -> cluster.checker.progressedSince(healNs, live, cluster.clients.keySet()), healNs + LIVENESS_BOUND_NS);
        cluster.clientsSending(false);
        cluster.runUntil(() -> false, cluster.nowNs + SETTLE_NS);
        final Verdict verdict = cluster.checker.checkEnd(cluster.live(), cluster.clients.keySet(), healNs, LIVENESS_BOUND_NS, reachesAtHeal,
            cluster::describe);
        final String header = (verdict.ok() ? "ok" : "FAIL") + " seed " + seed + " nemesis " + nemesis + (countingStarts ? " (start counts)" : "") + " members=" + members + " clients=" +
            clientCount + String.format(" loss=%.3f dup=%.3f jitter=%d us", drop, dup, jitterNs / 1000) + ": " +
            (verdict.ok() ? "no violation" : verdict.counts().entrySet().stream().map(e -> e.getKey() + " x" + e.getValue())
                .collect(Collectors.joining(", "))) +
            (verdict.outsideModel() == null ? "" : " (outside the failure model: " + verdict.outsideModel() + ")");
        final StringBuilder report = new StringBuilder(header);
        report.append("\n  replay: ").append(replayCommand(seed, nemesis, countingStarts));
        if (!verdict.ok())
        {
            report.append("\n  ").append(verdict.toString().replace("\n", "\n  "));
        }
        if (cluster.firstViolationNs >= 0 && cluster.firstViolationNs < healNs)
        {
            final long since = cluster.firstViolationNs - FAULTS_BEFORE_VIOLATION_NS;
            report.append("\n  first violation at ").append(NemesisChecker.ms(cluster.firstViolationNs)).append("; the faults in the ")
                .append(NemesisChecker.ms(FAULTS_BEFORE_VIOLATION_NS)).append(" before it:");
            appendFaults(report, cluster.history.faults().stream().filter(f -> f.atNs() >= since && f.atNs() <= cluster.firstViolationNs).toList());
            report.append("\n  then:").append(cluster.stateAtFirstViolation.replace("\n", "\n    "));
        }
        report.append("\n  last faults (").append(cluster.history.faults().size()).append(" in all):");
        appendFaults(report, cluster.history.lastFaults(FAULTS_SHOWN));
        report.append("\n  at the end (").append(NemesisChecker.ms(cluster.nowNs)).append(", healed at ").append(NemesisChecker.ms(healNs)).append("):")
            .append(cluster.describeAll().replace("\n", "\n    "));
        return new Result(seed, nemesis, members, clientCount, verdict, report.toString());
    }
}
