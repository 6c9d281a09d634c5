package org.lightwire.it.partition;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.lightwire.it.Orbs;
import org.lightwire.it.RomiopGroupFixture;

/**
 * One run of the nemesis: five replica JVMs, each in a network namespace of its own on one bridge
 * ({@link NetnsNetwork}, {@link ReplicaGroup}); two clients in this JVM, in the root namespace,
 * appending unique entries all the time ({@link AppendWorkload}); once appends are acknowledged, a
 * {@link Fault}, bounded and healed; appends for {@link #AFTER_HEAL} more; then every live
 * replica's log, read once the replicas are quiet, judged by the {@link HistoryChecker}.
 * Namespaces, bridge, rules and processes are gone when {@link #run} returns, whatever happened.
 */
public final class PartitionScenario
{
    public static final int REPLICAS = 5;
    public static final int CLIENTS = 2;
    /** Acknowledged appends before the fault begins, then {@link #STEADY} more of appending. */
    static final int WARM_UP_ACKED = 100;
    static final Duration WARM_UP_LIMIT = Duration.ofSeconds(90);
    static final Duration STEADY = Duration.ofSeconds(3);
    /** Appending goes on this long after the last heal. */
    static final Duration AFTER_HEAL = Duration.ofSeconds(12);
    /** When after the last heal each replica's engine state goes into the timeline. */
    static final Duration SETTLE = Duration.ofSeconds(3);
    /** After the last heal, an append must be acknowledged within this. */
    public static final Duration LIVENESS_BOUND = Duration.ofSeconds(10);
    static final Duration STOP_LIMIT = Duration.ofSeconds(45);

    /** A run's outcome: its summary line's name, the verdict, and the full report. */
    public record Result(String name, Verdict verdict, String report)
    {
        public String line()
        {
            return verdict.line(name);
        }
    }

    private PartitionScenario()
    {
    }

    /** @return the run's name in its summary line: fault and consolidation, e.g. {@code partition/majority}. */
    public static String name(final Fault fault, final Consolidation consolidation)
    {
        return fault.label() + "/" + consolidation.label();
    }

    /**
     * Runs {@code fault} once against a fresh group.
     *
     * @param seed the random choices of the fault (flapping's sides and durations).
     * @throws Exception when the run could not be set up (namespaces, replicas); the clean-up has been done.
     */
    public static Result run(final Fault fault, final Consolidation consolidation, final long seed) throws Exception
    {
        final StringBuilder report = new StringBuilder();
        final String name = name(fault, consolidation);
        report.append("run ").append(name).append(", seed ").append(seed).append(", pid ").append(ProcessHandle.current().pid()).append('\n');
        for (final String stale : NetnsNetwork.removeStale())
        {
            report.append("removed stale ").append(stale).append('\n');
        }
        final Path startCounts = "1".equals(System.getenv("START_COUNTS")) ? Files.createTempDirectory("romiop-starts") : null;
        if (startCounts != null)
        {
            report.append("start counts in ").append(startCounts).append('\n');
        }
        try (NetnsNetwork network = NetnsNetwork.create(REPLICAS);
             ReplicaGroup group = ReplicaGroup.start(network, startCounts == null ? Map.of() :
                 Map.of("jacorb.lightwire.romiop.start_count_dir", startCounts.toString()));
             FaultInjector injector = new FaultInjector(network);
             AppendWorkload workload = new AppendWorkload(group.groupIor(), clientProperties(network, consolidation), CLIENTS))
        {
            final long t0 = System.nanoTime();
            workload.start();
            final long warmEnd = System.nanoTime() + WARM_UP_LIMIT.toNanos();
            while (workload.acked() < WARM_UP_ACKED && System.nanoTime() - warmEnd < 0)
            {
                Thread.sleep(50);
            }
            if (workload.acked() < WARM_UP_ACKED)
            {
                workload.stop(STOP_LIMIT);
                throw new IllegalStateException("only " + workload.acked() + " appends acknowledged in " + WARM_UP_LIMIT.toSeconds() +
                    " s before any fault: " + workload.appends().stream().filter(a -> !a.acked()).findFirst().map(a -> a.failure().toString())
                    .orElse("no failure either") + "; replicas: " + group.counters());
            }
            Thread.sleep(STEADY.toMillis());
            report.append("warm-up: ").append(workload.acked()).append(" appends acknowledged in ")
                .append(Verdict.seconds(System.nanoTime() - t0)).append('\n');

            final FaultContext context = new FaultContext(injector, group, seed);
            fault.inject(context);
            // Where each replica stands a while after the heal: a replica that is stuck, behind or
            // in a group of its own shows here, before the end's reading blurs it. Each is noted
            // when it answers: probes wait for the POA thread that executes the group's requests.
            sleepUntil(context.lastHealNs() + SETTLE.toNanos());
            for (int id = 1; id <= REPLICAS; id++)
            {
                context.note("replica " + id + ": " + group.state(id));
            }
            sleepUntil(context.lastHealNs() + AFTER_HEAL.toNanos());
            final List<Integer> stuck = workload.stop(STOP_LIMIT);
            context.note("appending stopped" + (stuck.isEmpty() ? "" : "; clients " + stuck + " still in a call after " + STOP_LIMIT.toSeconds() + " s"));
            final boolean quiet = group.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(30));
            context.note(quiet ? "replicas quiet" : "replicas still executing after 30 s");

            final List<ReplicaLog> logs = new ArrayList<>(context.snapshots());
            final Map<Integer, String> unreadable = new java.util.TreeMap<>();
            for (int id = 1; id <= REPLICAS; id++)
            {
                if (!group.alive(id))
                {
                    unreadable.put(id, "its process is gone: " + lastLines(group.outputTail(id), 5));
                    continue;
                }
                try
                {
                    logs.add(group.read(id, true));
                }
                catch (final org.omg.CORBA.SystemException e)
                {
                    unreadable.put(id, e.toString());
                }
            }
            final List<Append> appends = workload.appends();
            final History history = new History(appends, logs, unreadable, context.startNs(), context.lastHealNs(), context.acted(),
                context.evidence());
            final Verdict verdict = new HistoryChecker(LIVENESS_BOUND.toNanos()).check(history);

            report.append("timeline (from the choice of the fault):\n");
            context.timeline().forEach(e -> report.append("  ").append(e).append('\n'));
            report.append(phases(appends, context.startNs(), context.lastHealNs()));
            report.append(verdict.report());
            report.append("clients:\n");
            workload.clientCounters().forEach(c -> report.append("  ").append(c).append('\n'));
            report.append("replicas:\n");
            for (final ReplicaLog l : logs)
            {
                if (l.last())
                {
                    report.append("  ").append(l.name()).append(": ").append(l.counters()).append('\n');
                }
            }
            if (!verdict.passed())
            {
                for (int id = 1; id <= REPLICAS; id++)
                {
                    report.append("replica ").append(id).append(" output, last lines:\n").append(indent(lastLines(group.outputTail(id), 15)));
                }
            }
            return new Result(name, verdict, report.toString());
        }
        finally
        {
            if (startCounts != null)
            {
                try (var files = Files.list(startCounts))
                {
                    for (final Path f : files.toList())
                    {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(startCounts);
            }
        }
    }

    /** @return the client ORBs' properties: the ROMIOP factory on the bridge's address, and the consolidation. */
    private static Map<String, String> clientProperties(final NetnsNetwork network, final Consolidation consolidation)
    {
        final Map<String, String> c = RomiopGroupFixture.orbProperties("multicast");
        c.put("jacorb.lightwire.romiop.interface", network.bridge());
        c.put("jacorb.lightwire.romiop.host", network.bridgeAddress());
        c.put(Orbs.LISTEN_ADDRESS, network.bridgeAddress());
        c.putAll(consolidation.properties());
        return c;
    }

    /** @return appends made and acknowledged before, during and after the fault. */
    private static String phases(final List<Append> appends, final long faultStartNs, final long lastHealNs)
    {
        final long[] made = new long[3];
        final long[] acked = new long[3];
        for (final Append a : appends)
        {
            final int phase = a.startNs() - faultStartNs < 0 ? 0 : a.startNs() - lastHealNs < 0 ? 1 : 2;
            made[phase]++;
            acked[phase] += a.acked() ? 1 : 0;
        }
        return "appends made / acknowledged: before the fault " + made[0] + " / " + acked[0] + ", during it " + made[1] + " / " + acked[1] +
            ", after the last heal " + made[2] + " / " + acked[2] + "\n";
    }

    private static void sleepUntil(final long deadlineNs) throws InterruptedException
    {
        final long leftNs = deadlineNs - System.nanoTime();
        if (leftNs > 0)
        {
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(leftNs));
        }
    }

    private static String lastLines(final String text, final int lines)
    {
        final String[] all = text.split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(all, Math.max(0, all.length - lines), all.length));
    }

    private static String indent(final String text)
    {
        final StringBuilder b = new StringBuilder();
        for (final String l : text.split("\n"))
        {
            b.append("    ").append(l).append('\n');
        }
        return b.toString();
    }
}
