package org.lightwire.it.partition;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import org.lightwire.it.HostCommands;

/**
 * {@code scripts/romiop-partition.sh}: runs faults against fresh groups, {@code runs} times each,
 * and prints one line per run:
 *
 * <pre>
 * PARTITION fault/consolidation: PASS|FAIL acked=… lost=… diverged_at=… double=… stalled=… errors=… [failed=checks]
 * </pre>
 *
 * and writes each run's full report (timeline, every check's findings, counters) to a file of
 * {@code -Dromiop.partition.reports} (default {@code it/target/romiop-partition}). A run that
 * could not be set up prints {@code PARTITION name: ERROR reason}.
 *
 * <p>Arguments: {@code [fault|all] [runs] [majority|atomic|both]} (defaults: all, 1, both). Exits 1
 * when a run failed, 0 otherwise; without root, {@code ip} or {@code iptables} it says why and
 * exits 0. {@code clean} instead of a fault deletes what runs whose JVM is gone left behind
 * (namespaces and the processes in them, veths, bridges; {@link NetnsNetwork#removeStale()}): the
 * script does that after every run, however it ended.
 */
public final class PartitionRun
{
    private PartitionRun()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String faultArg = args.length > 0 ? args[0] : "all";
        final int runs = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        final String consolidationArg = args.length > 2 ? args[2] : "both";
        final String missing = missingTools();
        if ("clean".equals(faultArg))
        {
            if (missing == null)
            {
                NetnsNetwork.removeStale().forEach(s -> System.out.println("romiop-partition: removed " + s + ", left by a run that was killed"));
            }
            return;
        }
        if (missing != null)
        {
            System.out.println("romiop-partition: skipped: " + missing);
            return;
        }
        final List<Fault> faults = "all".equals(faultArg) ? List.of(Fault.values()) : parseFaults(faultArg);
        final List<Consolidation> consolidations = "both".equals(consolidationArg) ? List.of(Consolidation.values()) :
            List.of(Consolidation.of(consolidationArg));
        final Path dir = Path.of(System.getProperty("romiop.partition.reports", "it/target/romiop-partition"));
        Files.createDirectories(dir);
        final String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        System.out.println("# reports in " + dir.toAbsolutePath() + "/" + stamp + "-*.txt");
        int failed = 0;
        for (final Fault fault : faults)
        {
            for (final Consolidation consolidation : consolidations)
            {
                for (int run = 1; run <= runs; run++)
                {
                    final long seed = Long.getLong("romiop.partition.seed", System.nanoTime());
                    final String name = PartitionScenario.name(fault, consolidation);
                    final Path file = dir.resolve(stamp + "-" + fault.label() + "-" + consolidation.label() + "-" + run + ".txt");
                    String line;
                    String report;
                    try
                    {
                        final PartitionScenario.Result r = PartitionScenario.run(fault, consolidation, seed);
                        line = r.line();
                        report = r.report();
                        failed += r.verdict().passed() ? 0 : 1;
                    }
                    catch (final Exception e)
                    {
                        line = "PARTITION " + name + ": ERROR " + String.valueOf(e.getMessage()).replace('\n', ' ');
                        final StringWriter w = new StringWriter();
                        e.printStackTrace(new PrintWriter(w));
                        report = w.toString();
                        failed++;
                    }
                    Files.writeString(file, line + "\n" + report);
                    System.out.println(line);
                    System.out.flush();
                }
            }
        }
        // The ORBs' non-daemon threads would keep the JVM alive.
        System.exit(failed == 0 ? 0 : 1);
    }

    private static List<Fault> parseFaults(final String text)
    {
        final List<Fault> faults = new ArrayList<>();
        for (final String f : text.split(","))
        {
            faults.add(Fault.of(f.trim()));
        }
        return faults;
    }

    /** @return why the nemesis cannot run here, or null when it can. */
    static String missingTools()
    {
        if (!"root".equals(System.getProperty("user.name")))
        {
            return "needs root to make network namespaces, a bridge and iptables rules";
        }
        if (HostCommands.run(List.of("ip", "-V")) != 0)
        {
            return "the ip command (iproute2) is missing";
        }
        if (HostCommands.run(List.of("iptables", "--version")) != 0 || HostCommands.run(List.of("iptables-restore", "--version")) != 0)
        {
            return "iptables is missing (apt-get install -y iptables)";
        }
        return null;
    }
}
