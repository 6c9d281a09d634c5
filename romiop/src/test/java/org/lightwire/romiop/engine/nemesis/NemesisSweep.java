package org.lightwire.romiop.engine.nemesis;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.lightwire.romiop.engine.nemesis.NemesisChecker.Violation;
import org.lightwire.romiop.engine.nemesis.NemesisRun.Result;

/**
 * The nemesis sweep: {@code NemesisSweep seeds first nemesis|all [threads]} runs seeds
 * {@code first .. first+seeds-1} of one nemesis (or of each), on a thread per core, prints each
 * failure as it comes (its verdict, the command that replays it, the first examples of each
 * violation), then a table per nemesis and group size: runs, failed runs, the failed runs outside
 * the failure model (more members restarted and not readmitted at the heal than the group
 * tolerates, (n-1)/2, and only what such a group may show: stuck, or orders lost with their
 * holders' memory; see NemesisChecker.Verdict#outsideModel), and the runs with each kind of violation, with the first seed
 * that showed it. A single seed
 * ({@code seeds} = 1) prints its whole report, history included, pass or fail. Exits 1 when a run
 * failed. Only a run's verdict outlives it, so memory stays bounded whatever the seed count.
 */
public final class NemesisSweep
{
    private NemesisSweep()
    {
    }

    private static final class Tally
    {
        long runs;
        long failed;
        /** Failed runs that only got stuck, with more members restarted without memory than the group tolerates. */
        long outsideModel;
        final EnumMap<Violation, Long> runsWith = new EnumMap<>(Violation.class);
        long firstFailedSeed = Long.MIN_VALUE;
        final EnumMap<Violation, Long> exampleSeed = new EnumMap<>(Violation.class);
    }

    public static void main(final String[] args) throws Exception
    {
        final long seeds = args.length > 0 ? Long.parseLong(args[0]) : 10_000;
        final long first = args.length > 1 ? Long.parseLong(args[1]) : 1;
        final String which = args.length > 2 ? args[2] : "mixed";
        final int threads = args.length > 3 ? Integer.parseInt(args[3]) : Runtime.getRuntime().availableProcessors();
        final List<Nemesis> nemeses = which.equals("all") ? List.of(Nemesis.values()) : List.of(Nemesis.parse(which));
        if (seeds == 1)
        {
            boolean ok = true;
            for (final Nemesis n : nemeses)
            {
                final Result r = NemesisRun.run(first, n);
                System.out.println(r.report());
                ok &= r.ok();
            }
            System.exit(ok ? 0 : 1);
        }
        final Map<String, Tally> tallies = new TreeMap<>();
        final long startNs = System.nanoTime();
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try
        {
            for (final Nemesis n : nemeses)
            {
                // In batches, so that only a batch's results are held at once.
                for (long from = first; from < first + seeds; from += 1000)
                {
                    final List<Future<Result>> batch = new ArrayList<>();
                    for (long seed = from; seed < Math.min(first + seeds, from + 1000); seed++)
                    {
                        final long s = seed;
                        batch.add(pool.submit(() -> NemesisRun.run(s, n)));
                    }
                    for (final Future<Result> f : batch)
                    {
                        final Result r = f.get();
                        final Tally t = tallies.computeIfAbsent(n + " n=" + r.members(), k -> new Tally());
                        t.runs++;
                        if (!r.ok())
                        {
                            t.failed++;
                            t.outsideModel += r.verdict().outsideModel() != null ? 1 : 0;
                            if (t.firstFailedSeed == Long.MIN_VALUE)
                            {
                                t.firstFailedSeed = r.seed();
                            }
                            for (final Violation v : r.verdict().counts().keySet())
                            {
                                t.runsWith.merge(v, 1L, Long::sum);
                                t.exampleSeed.putIfAbsent(v, r.seed());
                            }
                            final String report = r.report();
                            System.out.println(report.substring(0, report.indexOf('\n', report.indexOf('\n') + 1)));
                            System.out.println("    " + r.verdict().summary().replace("\n", "\n    "));
                        }
                    }
                    System.err.printf("... %s: seeds %d..%d done, %.0f s%n", n, from, Math.min(first + seeds, from + 1000) - 1,
                        (System.nanoTime() - startNs) / 1e9);
                }
            }
        }
        finally
        {
            pool.shutdownNow();
        }
        System.out.println();
        System.out.printf("%-22s %7s %7s %7s %8s  %s%n", "nemesis, members", "runs", "failed", "rate", "outside", "runs with each violation (example seed)");
        long failed = 0;
        for (final Map.Entry<String, Tally> e : tallies.entrySet())
        {
            final Tally t = e.getValue();
            failed += t.failed;
            final StringBuilder kinds = new StringBuilder();
            t.runsWith.forEach((v, count) -> kinds.append(v).append(' ').append(count).append(" (").append(t.exampleSeed.get(v)).append(")  "));
            System.out.printf("%-22s %7d %7d %6.1f%% %8d  %s%n", e.getKey(), t.runs, t.failed, 100.0 * t.failed / t.runs, t.outsideModel,
                kinds.toString().trim());
        }
        System.out.printf("%d runs in %.0f s; replay any seed with scripts/romiop-nemesis.sh 1 SEED NEMESIS%n",
            tallies.values().stream().mapToLong(t -> t.runs).sum(), (System.nanoTime() - startNs) / 1e9);
        System.exit(failed == 0 ? 0 : 1);
    }
}
