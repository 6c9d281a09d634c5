package org.lightwire.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.lightwire.it.Orbs;
import org.lightwire.it.ProcessHarness;
import org.lightwire.it.idl.lwtest.Pair;
import org.lightwire.it.idl.lwtest.TtcpStats;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.pairs;
import org.lightwire.it.idl.lwtest.pairsHelper;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.idl.lwtest.ttcpHelper;
import org.lightwire.it.servant.TtcpPattern;
import org.omg.CORBA.ORB;

/**
 * The paper's ORB experiments (section 5), Lightwire and IIOP side by side: Table 3 (null echo
 * latency), Figures 10 and 11 (ttcp throughput against sequence size, one-way and exactly-once)
 * and Figure 12 (a marshalled sequence of structs). One server JVM per run
 * ({@link ProcessHarness}, the it module's {@code TestServer}, publishing both profiles), one
 * client ORB per transport in this JVM, and the two transports interleaved within the run in
 * ABBA order (latency: blocks of {@value #BLOCK} calls; throughput: which transport goes first
 * alternates from one size to the next), because on a shared machine only measurements taken
 * side by side compare.
 *
 * <p>Not JMH: JMH runs one benchmark after another, each in its own fork, so the two transports
 * would never be measured side by side, and its per-invocation timing would add nothing here.
 *
 * <p>One-way throughput is what the server received (its {@code ttcp.stats()} bytes, read once
 * they stop growing), divided by the time from the first send to the last byte's arrival: one-way
 * calls overrun the receiver's socket buffer and are lost (at-most-once allows it), so the rate at
 * which they were offered would flatter the transport that loses most.
 *
 * <p>Writes {@code summary.json} (see {@link Summary}) and the three figures as PNG files
 * ({@link Charts}) into the output directory.
 */
public final class OrbBenchmark
{
    static final int BLOCK = 500;
    static final String LIGHTWIRE = "lightwire";
    static final String IIOP = "iiop";

    /** What to measure, and how much. */
    record Plan(int runs, int echoCalls, int warmupCalls, long warmupNs, long bytesPerPoint, int chunks, int[] sizes, Path outputDir)
    {
        static Plan full(final Path outputDir)
        {
            final String only = System.getProperty("bench.sizes");
            final int[] sizes;
            if (only != null)
            {
                // A subset of the points, for a longer look at one of them: -Dbench.sizes=65536,131072
                sizes = java.util.Arrays.stream(only.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
            }
            else
            {
                sizes = new int[11];
                for (int i = 0; i < sizes.length; i++)
                {
                    sizes[i] = 1024 << i;
                }
            }
            return new Plan(3, 10_000, 5_000, Long.getLong("bench.warmupSeconds", 30) * 1_000_000_000L, 10_000_000L,
                Integer.getInteger("bench.chunks", 8), sizes, outputDir);
        }
    }

    private final Plan plan;
    private final Summary summary = new Summary();

    OrbBenchmark(final Plan plan)
    {
        this.plan = plan;
    }

    /**
     * Arguments: {@code [outputDir [runs [echoCalls [bytesPerPoint]]]]}; defaults
     * {@code bench/target}, 3, 10000 and 10 MB.
     */
    public static void main(final String[] args) throws Exception
    {
        final Plan full = Plan.full(Path.of(args.length > 0 ? args[0] : "bench/target"));
        final Plan plan = new Plan(
            args.length > 1 ? Integer.parseInt(args[1]) : full.runs(),
            args.length > 2 ? Integer.parseInt(args[2]) : full.echoCalls(),
            full.warmupCalls(),
            full.warmupNs(),
            args.length > 3 ? Long.parseLong(args[3]) : full.bytesPerPoint(),
            full.chunks(),
            full.sizes(),
            full.outputDir());
        new OrbBenchmark(plan).run();
        // JacORB leaves non-daemon threads behind.
        System.exit(0);
    }

    /** Runs every scenario {@code plan.runs()} times, then writes the summary and the charts. */
    Summary run() throws Exception
    {
        Files.createDirectories(plan.outputDir());
        for (int run = 1; run <= plan.runs(); run++)
        {
            System.out.printf("# run %d of %d%n", run, plan.runs());
            runOnce();
        }
        summary.writeJson(plan.outputDir().resolve("summary.json"), machine());
        Charts.draw(summary, plan.outputDir(), machine());
        summary.print(System.out);
        return summary;
    }

    private void runOnce() throws Exception
    {
        try (ProcessHarness server = ProcessHarness.start(org.lightwire.it.TestServer.class, List.of("-Xmx512m"),
            propertyArgs(serverProperties()), ProcessHarness.DEFAULT_READY_TIMEOUT))
        {
            final ORB lwOrb = Orbs.init(Orbs.lightwire());
            final ORB iiopOrb = Orbs.init(Map.of());
            try
            {
                final Map<String, ORB> orbs = new LinkedHashMap<>();
                orbs.put(LIGHTWIRE, lwOrb);
                orbs.put(IIOP, iiopOrb);
                final Map<String, echo> echos = new LinkedHashMap<>();
                final Map<String, ttcp> ttcps = new LinkedHashMap<>();
                final Map<String, pairs> pairss = new LinkedHashMap<>();
                for (final Map.Entry<String, ORB> e : orbs.entrySet())
                {
                    echos.put(e.getKey(), echoHelper.narrow(e.getValue().string_to_object(server.ior("echo"))));
                    ttcps.put(e.getKey(), ttcpHelper.narrow(e.getValue().string_to_object(server.ior("ttcp"))));
                    pairss.put(e.getKey(), pairsHelper.narrow(e.getValue().string_to_object(server.ior("pairs"))));
                }
                warmUp(echos, ttcps, pairss);
                nullEcho(echos);
                for (int i = 0; i < plan.sizes().length; i++)
                {
                    throughputs(plan.sizes()[i], i % 2 == 0 ? new String[] {LIGHTWIRE, IIOP} : new String[] {IIOP, LIGHTWIRE}, ttcps, pairss);
                }
            }
            finally
            {
                lwOrb.shutdown(false);
                lwOrb.destroy();
                iiopOrb.shutdown(false);
                iiopOrb.destroy();
            }
        }
    }

    /**
     * The three throughput scenarios at one size. Each point's bytes go in {@code plan.chunks()}
     * chunks (default 8, {@code -Dbench.chunks}), the two transports alternating chunk by chunk in
     * ABBA order, and each transport's throughput is its bytes over its time summed over its
     * chunks: on a shared VM the machine's speed drifts within a point, and one transfer of 10 MB
     * after the other would give the drift to one of them.
     */
    private void throughputs(final int size, final String[] order, final Map<String, ttcp> ttcps, final Map<String, pairs> pairss)
        throws InterruptedException
    {
        final int chunks = Math.min(plan.chunks(), calls(size));
        final Map<String, Transfer> oneway = new LinkedHashMap<>();
        final Map<String, Transfer> exactlyOnce = new LinkedHashMap<>();
        final Map<String, Transfer> structs = new LinkedHashMap<>();
        for (int c = 0; c < chunks; c++)
        {
            final int count = calls(size) / chunks + (c < calls(size) % chunks ? 1 : 0);
            final List<String> turn = c % 2 == 0 ? List.of(order) : List.of(order[1], order[0]);
            for (final String t : turn)
            {
                oneway.merge(t, oneway(ttcps.get(t), size, count), Transfer::plus);
            }
            for (final String t : List.of(turn.get(1), turn.get(0)))
            {
                exactlyOnce.merge(t, exactlyOnce(ttcps.get(t), size, count), Transfer::plus);
            }
            for (final String t : turn)
            {
                structs.merge(t, structs(pairss.get(t), size, count), Transfer::plus);
            }
        }
        for (final String t : order)
        {
            summary.addThroughput("oneway", size, t, oneway.get(t).throughput());
            summary.addThroughput("exactly_once", size, t, exactlyOnce.get(t).throughput());
            summary.addThroughput("struct_sequence", size, t, structs.get(t).throughput());
        }
    }

    /**
     * Bytes moved and the time they took, summed over chunks. One-way: {@code bytes} is what the
     * server received, {@code ns} until its last buffer arrived, {@code offeredBytes} what was
     * sent, {@code sendNs} how long sending took. Two-way: both pairs alike.
     */
    record Transfer(long bytes, long ns, long offeredBytes, long sendNs)
    {
        static Transfer twoWay(final long bytes, final long ns)
        {
            return new Transfer(bytes, ns, bytes, ns);
        }

        Transfer plus(final Transfer o)
        {
            return new Transfer(bytes + o.bytes, ns + o.ns, offeredBytes + o.offeredBytes, sendNs + o.sendNs);
        }

        Summary.Throughput throughput()
        {
            return new Summary.Throughput(mbps(bytes, ns), mbps(offeredBytes, sendNs), (double)bytes / offeredBytes);
        }
    }

    /**
     * Runs every measured path of both transports, in turns, for {@code plan.warmupNs()}
     * ({@code -Dbench.warmupSeconds}, default 30 s): null echoes, and each scenario at each size in
     * round robin. Nothing is recorded. Both JVMs' JITs are still compiling long after a few
     * thousand calls; measured before they settle, the transport with more code of its own on the
     * path pays for its compilation (on this VM, 5,000 warm-up calls gave a null-echo ratio of
     * 1.03-1.06 where 200,000 gave 0.96-0.98, and a 16 KiB struct call 1.30 against 1.02).
     */
    private void warmUp(final Map<String, echo> echos, final Map<String, ttcp> ttcps, final Map<String, pairs> pairss)
        throws InterruptedException
    {
        final long endNs = System.nanoTime() + plan.warmupNs();
        int round = 0;
        do
        {
            final int size = plan.sizes()[round % plan.sizes().length];
            for (final String t : round % 2 == 0 ? List.of(LIGHTWIRE, IIOP) : List.of(IIOP, LIGHTWIRE))
            {
                for (int i = 0; i < BLOCK; i++)
                {
                    echos.get(t).echoString("");
                }
                structCall(pairss.get(t), size).run();
                exactlyOnce(ttcps.get(t), size, 2);
                oneway(ttcps.get(t), size, 2);
            }
            round++;
        }
        while (System.nanoTime() - endNs < 0);
    }

    private void nullEcho(final Map<String, echo> echos)
    {
        final echo lw = echos.get(LIGHTWIRE);
        final echo iiop = echos.get(IIOP);
        for (int i = 0; i < plan.warmupCalls(); i++)
        {
            lw.echoString("");
            iiop.echoString("");
        }
        final long[] lwNs = new long[plan.echoCalls()];
        final long[] iiopNs = new long[plan.echoCalls()];
        for (int start = 0, block = 0; start < plan.echoCalls(); start += BLOCK, block++)
        {
            final int end = Math.min(plan.echoCalls(), start + BLOCK);
            if (block % 2 == 0)
            {
                time(lw, lwNs, start, end);
                time(iiop, iiopNs, start, end);
            }
            else
            {
                time(iiop, iiopNs, start, end);
                time(lw, lwNs, start, end);
            }
        }
        summary.addLatency("null_echo", plan.echoCalls(), lwNs, iiopNs);
    }

    private static void time(final echo e, final long[] samples, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            final long t0 = System.nanoTime();
            e.echoString("");
            samples[i] = System.nanoTime() - t0;
        }
    }

    private int calls(final int size)
    {
        return (int)Math.max(1, (plan.bytesPerPoint() + size - 1) / size);
    }

    private static char[][] buffers(final int size, final int count)
    {
        // A handful of distinct buffers, reused: the server checks each against its sequence
        // number and counts duplicates, which are expected here and ignored.
        final char[][] data = new char[Math.min(count, 8)][];
        for (int i = 0; i < data.length; i++)
        {
            data[i] = TtcpPattern.create(i, size);
        }
        return data;
    }

    /** @return bytes the server received and the time from the first send to the last arrival, and what was sent. */
    private Transfer oneway(final ttcp t, final int size, final int count) throws InterruptedException
    {
        final char[][] data = buffers(size, count);
        t.reset();
        final long t0 = System.nanoTime();
        for (int i = 0; i < count; i++)
        {
            t.receive_at_most_once(data[i % data.length]);
        }
        final long sentNs = System.nanoTime();
        // The server may still be working through queued one-ways. The transfer ends when the
        // server counted its last buffer (its own clock: System.nanoTime() is CLOCK_MONOTONIC on
        // Linux, the same in both JVMs on this host).
        final TtcpStats last = quietStats(t, 50_000_000L, "one-way ttcp of " + size + " bytes");
        final long offered = (long)count * size;
        final long endNs = last.bytes == 0 ? sentNs : Math.max(t0 + 1, last.last_call_ns);
        return new Transfer(last.bytes, endNs - t0, offered, sentNs - t0);
    }

    /**
     * @return the server's stats once its byte count has held still for {@code quietNs}: asked
     *     again while {@code stats()} fails with TRANSIENT (a POA queue that does not wait is full).
     * @throws IllegalStateException when the server did not answer for 60 s ({@code what} says of what).
     */
    static TtcpStats quietStats(final ttcp t, final long quietNs, final String what) throws InterruptedException
    {
        TtcpStats last = null;
        long lastChangeNs = System.nanoTime();
        final long giveUpNs = lastChangeNs + 60_000_000_000L;
        while (last == null || System.nanoTime() - lastChangeNs < quietNs)
        {
            if (System.nanoTime() - giveUpNs > 0)
            {
                throw new IllegalStateException(what + ": the server's stats() failed for 60 s");
            }
            try
            {
                final TtcpStats s = t.stats();
                if (last == null || s.bytes != last.bytes)
                {
                    last = s;
                    lastChangeNs = System.nanoTime();
                }
            }
            catch (final org.omg.CORBA.TRANSIENT e)
            {
                // The POA's request queue is full of one-ways still to run: ask again.
            }
            Thread.sleep(2);
        }
        return last;
    }

    private Transfer exactlyOnce(final ttcp t, final int size, final int count)
    {
        final char[][] data = buffers(size, count);
        t.reset();
        final long t0 = System.nanoTime();
        for (int i = 0; i < count; i++)
        {
            t.receive_exactly_once(data[i % data.length]);
        }
        final long elapsedNs = System.nanoTime() - t0;
        final TtcpStats s = t.stats();
        if (s.calls != count || s.corrupt != 0)
        {
            throw new IllegalStateException("exactly-once ttcp: " + s.calls + " of " + count + " calls arrived, " + s.corrupt + " corrupt");
        }
        return Transfer.twoWay((long)count * size, elapsedNs);
    }

    private Transfer structs(final pairs p, final int size, final int count)
    {
        final Runnable call = structCall(p, size);
        final long t0 = System.nanoTime();
        for (int i = 0; i < count; i++)
        {
            call.run();
        }
        return Transfer.twoWay((long)count * size, System.nanoTime() - t0);
    }

    /** @return one struct-sequence call of {@code size} bytes of pairs, which checks the server's sum. */
    static Runnable structCall(final pairs p, final int size)
    {
        final Pair[] seq = new Pair[size / 8];
        long sum = 0;
        for (int i = 0; i < seq.length; i++)
        {
            seq[i] = new Pair(i, 2 * i);
            sum -= i;
        }
        final long expected = sum;
        return () ->
        {
            if (p.sumOfDifferences(seq) != expected)
            {
                throw new IllegalStateException("struct sequence: wrong sum from the server");
            }
        };
    }

    private static double mbps(final long bytes, final long ns)
    {
        return ns <= 0 ? 0 : bytes * 8.0 / (ns / 1e9) / 1e6;
    }

    /**
     * The server's ORB: Lightwire's listener beside IIOP's, and {@code jacorb.poa.queue_wait=on}
     * ({@code -Dbench.poaQueueWait=off} to leave JacORB's default): with the default, a stream of
     * one-ways fills the POA's request queue ({@code jacorb.poa.queue_max}, 100) and JacORB throws
     * away most of the calls below 64 KiB over either transport, so the one-way figure measured
     * which calls the POA refused rather than what the transport carried. Waiting, the reader
     * thread stops reading: IIOP's sender then waits for TCP's window, Lightwire's for the
     * exactly-once call it makes after 64 one-ways (docs/protocol.md).
     */
    static Map<String, String> serverProperties()
    {
        final Map<String, String> p = new LinkedHashMap<>(Orbs.lightwire());
        p.put("jacorb.poa.queue_wait", System.getProperty("bench.poaQueueWait", "on"));
        return p;
    }

    static List<String> propertyArgs(final Map<String, String> props)
    {
        final List<String> args = new ArrayList<>();
        props.forEach((k, v) ->
        {
            args.add("-p");
            args.add(k + "=" + v);
        });
        return args;
    }

    /** @return the {@code jacorb.lightwire.*} system properties this JVM was given, for the ORBs a benchmark makes. */
    static java.util.Map<String, String> lightwireSystemProperties()
    {
        final java.util.Map<String, String> props = new java.util.TreeMap<>();
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("jacorb.lightwire."))
            .forEach(k -> props.put(k, System.getProperty(k)));
        return props;
    }

    /** @return a one-line description of where this ran. */
    static String machine()
    {
        String cpu = "unknown CPU";
        try
        {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse(cpu);
        }
        catch (final IOException e)
        {
            // Not Linux: the OS name below still says something.
        }
        return String.format(Locale.ROOT, "%s, %d cores, %s %s, Java %s, loopback", cpu, Runtime.getRuntime().availableProcessors(),
            System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("java.version"));
    }

    static double median(final double[] values)
    {
        final double[] v = values.clone();
        Arrays.sort(v);
        return v.length == 0 ? Double.NaN : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
