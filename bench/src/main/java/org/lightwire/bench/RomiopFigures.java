package org.lightwire.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntConsumer;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.lightwire.it.MiopReplica;
import org.lightwire.it.Orbs;
import org.lightwire.it.ProcessHarness;
import org.lightwire.it.RomiopGroupFixture;
import org.lightwire.it.idl.lwtest.replica_probe;
import org.lightwire.it.idl.lwtest.replica_probeHelper;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.lightwire.romiop.CallPolicy;
import org.lightwire.romiop.CallPolicyInitializer;
import org.omg.CORBA.ORB;

/**
 * The ROMIOP paper's Figures 6 to 11 on this machine, each with its anchor measured in the same
 * run: two-way latency against payload size for groups of 1, 2 and 3 replicas (atomic
 * consolidation) against IIOP to one server (Figures 6-7); for 3 replicas, first reply against
 * atomic against a 51% quorum (Figures 8-9; one client, the policy chosen per call with
 * {@link CallPolicy}); oneway throughput of ROMIOP against JacORB 3.9's own MIOP to 3 members,
 * with what each member received and in which order (Figures 10-11).
 *
 * <p>Latency paths are interleaved in rotating blocks of {@value #BLOCK} calls. Throughput
 * rounds alternate ROMIOP and MIOP; a round's time runs from the first send to the last
 * execution on any member ({@code System.nanoTime()}, one clock for every JVM of a Linux host).
 *
 * <p>Arguments: {@code [callsPerPoint [onewaysPerPoint [outputDir]]]}, default 1000, 3000,
 * {@code bench/target}. Writes {@code romiop-summary.json} and three PNG charts there.
 */
public final class RomiopFigures
{
    private static final int[] LATENCY_SIZES = {0, 1024, 8192, 32768};
    private static final int[] ONEWAY_SIZES = {64, 1024, 8192};
    private static final int BLOCK = 100;
    private static final int ROUNDS = 2;
    /** Warm-up calls per group size, {@code -Dromiop.warmup} (default 10,000, as {@link RomiopLatency}'s rounds). */
    private static final int WARM_UP = Integer.getInteger("romiop.warmup", 10_000);

    private final int calls;
    private final int oneways;
    private final List<Map<String, Object>> rows = new ArrayList<>();
    private int seq;

    private RomiopFigures(final int calls, final int oneways)
    {
        this.calls = calls;
        this.oneways = oneways;
    }

    public static void main(final String[] args) throws Exception
    {
        final int calls = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        final int oneways = args.length > 1 ? Integer.parseInt(args[1]) : 3000;
        final Path dir = Paths.get(args.length > 2 ? args[2] : "bench/target");
        Files.createDirectories(dir);
        final RomiopFigures f = new RomiopFigures(calls, oneways);
        for (int replicas = 1; replicas <= 3; replicas++)
        {
            f.group(replicas);
        }
        final String machine = OrbBenchmark.machine();
        f.writeJson(dir.resolve("romiop-summary.json"), machine);
        f.charts(dir, machine);
        System.out.println("# wrote " + dir.resolve("romiop-summary.json") + " and fig6-7-latency.png, fig8-9-consolidation.png, " +
            "fig10-11-oneway.png; " + machine);
        System.exit(0);
    }

    /** Starts a group of {@code size} replicas, measures what it is measured in, stops it. */
    private void group(final int size) throws Exception
    {
        final String members = RomiopGroupFixture.memberList("multicast", size);
        // Below 32768: JacORB's MIOP profile holds the port in a signed short.
        final int port = 20000 + (int)(ProcessHandle.current().pid() % 10000) + size;
        final List<ProcessHarness> replicas = new ArrayList<>();
        final List<ProcessHarness> miop = new ArrayList<>();
        final List<ORB> orbs = new ArrayList<>();
        try
        {
            for (int id = 1; id <= size; id++)
            {
                replicas.add(RomiopGroupFixture.startReplica(RomiopGroupFixture.orbProperties("multicast"), "figures",
                    "239.255.10." + size + ":" + port, members, id, Map.of()));
            }
            final Map<String, String> groupProps = RomiopGroupFixture.orbProperties("multicast");
            groupProps.put("org.omg.PortableInterceptor.ORBInitializerClass." + CallPolicyInitializer.class.getName(), "");
            final ORB groupOrb = Orbs.init(groupProps);
            orbs.add(groupOrb);
            final ORB iiopOrb = Orbs.init(Map.of());
            orbs.add(iiopOrb);
            final replicated_log group = replicated_logHelper.narrow(groupOrb.string_to_object(replicas.get(0).ior("group")));
            final replicated_log direct = replicated_logHelper.narrow(iiopOrb.string_to_object(replicas.get(0).ior("direct")));
            latency(size, group, direct);
            if (size == 3)
            {
                final String url = "corbaloc:miop:1.0@1.0-figures-1/239.255.11.1:" + (port + 10);
                final Map<String, String> miopProps = new LinkedHashMap<>(MiopReplica.orbProperties());
                for (int i = 0; i < size; i++)
                {
                    final Map<String, String> p = new LinkedHashMap<>(miopProps);
                    p.put(MiopReplica.URL, url);
                    miop.add(ProcessHarness.start(MiopReplica.class, List.of("-Xmx512m"), RomiopGroupFixture.args(p), ProcessHarness.DEFAULT_READY_TIMEOUT));
                }
                final ORB miopOrb = Orbs.init(miopProps);
                orbs.add(miopOrb);
                final replicated_log miopGroup = replicated_logHelper.unchecked_narrow(miopOrb.string_to_object(url));
                throughput(group, probes(iiopOrb, replicas), miopGroup, probes(iiopOrb, miop));
            }
        }
        finally
        {
            orbs.forEach(o -> o.shutdown(false));
            replicas.forEach(ProcessHarness::close);
            miop.forEach(ProcessHarness::close);
        }
    }

    private static List<replica_probe> probes(final ORB orb, final List<ProcessHarness> members)
    {
        final List<replica_probe> probes = new ArrayList<>();
        for (final ProcessHarness h : members)
        {
            probes.add(replica_probeHelper.narrow(orb.string_to_object(h.ior("probe"))));
        }
        return probes;
    }

    /** Figures 6-7 (every group size) and, for 3 replicas, 8-9. */
    private void latency(final int size, final replicated_log group, final replicated_log direct)
    {
        // Warm-up: the JIT of every JVM involved, on every path measured, before the first size is.
        final char[] small = new char[64];
        for (int i = 0; i < WARM_UP; i++)
        {
            group.append_data(1, seq++, small);
            direct.append_data(2, seq++, small);
            if (size == 3 && i % 2 == 0)
            {
                final int s = seq++;
                CallPolicy.with(i % 4 == 0 ? "mode=first_reply" : "quorum=51%", () -> group.append_data(1, s, small));
            }
        }
        for (final int bytes : LATENCY_SIZES)
        {
            final char[] data = new char[bytes];
            Arrays.fill(data, 'x');
            final List<String> names = new ArrayList<>(List.of("atomic", "iiop"));
            final List<IntConsumer> paths = new ArrayList<>(List.of(
                s -> group.append_data(1, s, data),
                s -> direct.append_data(2, s, data)));
            if (size == 3)
            {
                names.add("first_reply");
                paths.add(s -> CallPolicy.with("mode=first_reply", () -> group.append_data(1, s, data)));
                names.add("quorum_51");
                paths.add(s -> CallPolicy.with("quorum=51%", () -> group.append_data(1, s, data)));
            }
            final long[][] ns = interleave(paths);
            final Map<String, Object> row = row("twoway_latency", bytes);
            row.put("replicas", size);
            row.put("calls", calls);
            for (int p = 0; p < names.size(); p++)
            {
                row.put(names.get(p) + "_median_us", percentileUs(ns[p], 0.5));
                row.put(names.get(p) + "_p99_us", percentileUs(ns[p], 0.99));
            }
            row.put("ratio", percentileUs(ns[0], 0.5) / percentileUs(ns[1], 0.5));
            if (size == 3)
            {
                row.put("first_reply_ratio", percentileUs(ns[2], 0.5) / percentileUs(ns[1], 0.5));
                row.put("quorum_51_ratio", percentileUs(ns[3], 0.5) / percentileUs(ns[1], 0.5));
            }
            rows.add(row);
            System.out.println("# " + row);
        }
    }

    /** Runs every path {@link #calls} times after a warm-up, in rotating blocks; @return nanoseconds per call, per path. */
    private long[][] interleave(final List<IntConsumer> paths)
    {
        for (int i = 0; i < 100; i++)
        {
            for (final IntConsumer p : paths)
            {
                p.accept(seq++);
            }
        }
        final long[][] ns = new long[paths.size()][calls];
        for (int start = 0, block = 0; start < calls; start += BLOCK, block++)
        {
            final int end = Math.min(calls, start + BLOCK);
            for (int k = 0; k < paths.size(); k++)
            {
                final int p = (block + k) % paths.size();
                for (int i = start; i < end; i++)
                {
                    final long t0 = System.nanoTime();
                    paths.get(p).accept(seq++);
                    ns[p][i] = System.nanoTime() - t0;
                }
            }
        }
        return ns;
    }

    /** Figures 10-11: rounds of {@link #oneways} oneways, ROMIOP and MIOP alternating. */
    private void throughput(final replicated_log romiop, final List<replica_probe> romiopProbes, final replicated_log miop,
        final List<replica_probe> miopProbes) throws InterruptedException
    {
        for (final int bytes : ONEWAY_SIZES)
        {
            final char[] data = new char[bytes];
            final Map<String, Object> row = row("oneway_throughput", bytes);
            row.put("members", romiopProbes.size());
            row.put("sent_per_round", oneways);
            row.put("rounds", ROUNDS);
            final double[][] rates = new double[2][ROUNDS];
            final long[][] delivered = new long[2][ROUNDS];
            final long[][] inOrder = new long[2][ROUNDS];
            for (int round = 0; round < ROUNDS; round++)
            {
                for (int k = 0; k < 2; k++)
                {
                    final boolean useRomiop = (round + k) % 2 == 0;
                    final int t = useRomiop ? 0 : 1;
                    final long[] got = blast(useRomiop ? romiop : miop, useRomiop ? romiopProbes : miopProbes, data, useRomiop);
                    rates[t][round] = got[0] == 0 ? 0 : got[0] * 1e9 / got[1];
                    delivered[t][round] = got[0];
                    inOrder[t][round] = got[2];
                }
            }
            for (int t = 0; t < 2; t++)
            {
                final String name = t == 0 ? "romiop" : "miop";
                final double rate = OrbBenchmark.median(rates[t]);
                row.put(name + "_msgs_per_s", rate);
                row.put(name + "_mbps", rate * bytes * 8 / 1e6);
                row.put(name + "_delivered", Arrays.stream(delivered[t]).min().orElse(0));
                row.put(name + "_in_order", Arrays.stream(inOrder[t]).min().orElse(0));
            }
            row.put("ratio", (double)row.get("romiop_msgs_per_s") / Math.max(1e-9, (double)row.get("miop_msgs_per_s")));
            rows.add(row);
            System.out.println("# " + row);
        }
    }

    /**
     * Sends {@link #oneways} oneways and waits for the members: every one of them (ROMIOP, which
     * must deliver all), or until no member has executed anything new for a second (MIOP).
     *
     * @return {the fewest messages a member executed, nanoseconds from the first send to the
     *     last execution, the fewest a member executed in order}.
     */
    private long[] blast(final replicated_log target, final List<replica_probe> probes, final char[] data, final boolean reliable)
        throws InterruptedException
    {
        final long[] executedBefore = new long[probes.size()];
        final long[] inOrderBefore = new long[probes.size()];
        for (int i = 0; i < probes.size(); i++)
        {
            executedBefore[i] = ask(probes.get(i)::executed);
            inOrderBefore[i] = ask(probes.get(i)::in_order);
        }
        final long t0 = System.nanoTime();
        for (int i = 0; i < oneways; i++)
        {
            target.append_data_oneway(7, seq++, data);
        }
        long last = -1;
        long quietSince = System.nanoTime();
        final long giveUp = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() - giveUp < 0)
        {
            long fewest = Long.MAX_VALUE;
            long total = 0;
            for (int i = 0; i < probes.size(); i++)
            {
                final long n = ask(probes.get(i)::executed) - executedBefore[i];
                fewest = Math.min(fewest, n);
                total += n;
            }
            if (fewest >= oneways)
            {
                break;
            }
            if (total != last)
            {
                last = total;
                quietSince = System.nanoTime();
            }
            else if (!reliable && System.nanoTime() - quietSince > 1_000_000_000L)
            {
                break;
            }
            Thread.sleep(5);
        }
        long fewest = Long.MAX_VALUE;
        long fewestInOrder = Long.MAX_VALUE;
        long end = t0;
        for (int i = 0; i < probes.size(); i++)
        {
            fewest = Math.min(fewest, ask(probes.get(i)::executed) - executedBefore[i]);
            fewestInOrder = Math.min(fewestInOrder, ask(probes.get(i)::in_order) - inOrderBefore[i]);
            end = Math.max(end, ask(probes.get(i)::last_execution_ns));
        }
        return new long[] {fewest, Math.max(1, end - t0), fewestInOrder};
    }

    /**
     * Asks a member's probe, again while it answers TRANSIENT: a replica runs one POA thread for
     * every servant (serial dispatch), and a flood of oneways fills its POA queue (100).
     */
    private static long ask(final java.util.function.LongSupplier probe) throws InterruptedException
    {
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                return probe.getAsLong();
            }
            catch (final org.omg.CORBA.TRANSIENT e)
            {
                if (attempt == 2000)
                {
                    throw e;
                }
                Thread.sleep(10);
            }
        }
    }

    private static Map<String, Object> row(final String scenario, final int bytes)
    {
        final Map<String, Object> row = new LinkedHashMap<>();
        row.put("scenario", scenario);
        row.put("size_bytes", bytes);
        return row;
    }

    private static double percentileUs(final long[] ns, final double q)
    {
        final long[] sorted = ns.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int)(sorted.length * q))] / 1000.0;
    }

    private void writeJson(final Path file, final String machine) throws IOException
    {
        final StringBuilder b = new StringBuilder("[\n");
        for (final Map<String, Object> row : rows)
        {
            b.append("  {");
            String sep = "";
            for (final Map.Entry<String, Object> e : row.entrySet())
            {
                b.append(sep).append('"').append(e.getKey()).append("\":");
                final Object v = e.getValue();
                b.append(v instanceof String ? "\"" + v + "\"" : v instanceof Double ? String.format(Locale.ROOT, "%.4g", (Double)v) : v);
                sep = ",";
            }
            b.append("},\n");
        }
        b.append("  {\"machine\":\"").append(machine.replace("\"", "'")).append("\"}\n]\n");
        Files.writeString(file, b);
    }

    /** @return {@code field} of the rows of {@code scenario} (and {@code replicas}, when not 0), in size order. */
    private double[] series(final String scenario, final int replicas, final String field)
    {
        return rows.stream().filter(r -> r.get("scenario").equals(scenario) && (replicas == 0 || r.get("replicas").equals(replicas)))
            .mapToDouble(r -> ((Number)r.get(field)).doubleValue()).toArray();
    }

    private void charts(final Path dir, final String machine) throws IOException
    {
        System.setProperty("java.awt.headless", "true");
        final String where = machine.indexOf(", Linux") > 0 ? machine.substring(0, machine.indexOf(", Linux")) : machine;
        final double[] kib = Arrays.stream(LATENCY_SIZES).mapToDouble(s -> s / 1024.0).toArray();

        final XYChart latency = chart("Figures 6-7: two-way latency, atomic consolidation (" + where + ")", "payload (KiB)", "median latency (us)");
        for (int n = 1; n <= 3; n++)
        {
            latency.addSeries("ROMIOP, " + n + " replica" + (n == 1 ? "" : "s"), kib, series("twoway_latency", n, "atomic_median_us"));
        }
        latency.addSeries("IIOP, one server", kib, series("twoway_latency", 3, "iiop_median_us"));
        BitmapEncoder.saveBitmap(latency, dir.resolve("fig6-7-latency.png").toString(), BitmapEncoder.BitmapFormat.PNG);

        final XYChart modes = chart("Figures 8-9: consolidation, 3 replicas (" + where + ")", "payload (KiB)", "median latency (us)");
        modes.addSeries("first reply", kib, series("twoway_latency", 3, "first_reply_median_us"));
        modes.addSeries("51% quorum", kib, series("twoway_latency", 3, "quorum_51_median_us"));
        modes.addSeries("atomic", kib, series("twoway_latency", 3, "atomic_median_us"));
        modes.addSeries("IIOP, one server", kib, series("twoway_latency", 3, "iiop_median_us"));
        BitmapEncoder.saveBitmap(modes, dir.resolve("fig8-9-consolidation.png").toString(), BitmapEncoder.BitmapFormat.PNG);

        final double[] onewayKib = Arrays.stream(ONEWAY_SIZES).mapToDouble(s -> s / 1024.0).toArray();
        final XYChart oneway = chart("Figures 10-11: oneway throughput to 3 members (" + where + ")", "payload (KiB)",
            "messages/s executed by every member");
        oneway.addSeries("ROMIOP (all delivered, in order)", onewayKib, series("oneway_throughput", 0, "romiop_msgs_per_s"));
        oneway.addSeries("JacORB MIOP (counts in the JSON)", onewayKib, series("oneway_throughput", 0, "miop_msgs_per_s"));
        BitmapEncoder.saveBitmap(oneway, dir.resolve("fig10-11-oneway.png").toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private static XYChart chart(final String title, final String x, final String y)
    {
        final XYChart c = new XYChartBuilder().width(800).height(500).title(title).xAxisTitle(x).yAxisTitle(y).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setChartTitleFont(c.getStyler().getChartTitleFont().deriveFont(13f));
        return c;
    }
}
