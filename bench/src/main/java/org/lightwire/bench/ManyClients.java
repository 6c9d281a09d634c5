package org.lightwire.bench;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.HdrHistogram.Histogram;
import org.lightwire.it.Orbs;
import org.lightwire.it.ProcessHarness;
import org.lightwire.it.TestServer;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.server_probe;
import org.lightwire.it.idl.lwtest.server_probeHelper;
import org.omg.CORBA.ORB;

/**
 * Many client ORBs against one JacORB server on loopback, each ORB with one caller making null
 * calls: client JVMs each holding a share of the ORBs start together at an agreed time and run for
 * a fixed time; the server's threads, heap and direct memory are read halfway through (over IIOP,
 * from its probe object). Lightwire and IIOP run one after the other, a fresh server each, the
 * order alternating from round to round. Printed per run: calls per second, the median, p99 and
 * p99.9 over every call, the calls that failed (a caller counts a failed call, and goes on) with
 * the first failure's message, and the server's figures. The server's POA queue holds twice the
 * ORBs' calls ({@code jacorb.poa.queue_max}; JacORB's default of 100 refuses calls past it with
 * TRANSIENT, on either transport), and its 20 request processors stay ({@code jacorb.poa.thread_pool_min}
 * = {@code thread_pool_max}: JacORB ends each one beyond the minimum when it is released, and at its
 * defaults, 5 and 20, a loaded server started and ended about 2,700 threads a second).
 *
 * <p>Arguments: {@code [orbs [jvms [seconds [rounds [outFile]]]]]}, default 256 ORBs in 4 JVMs, 20 s,
 * 1 round, {@code bench/target/many-clients.json}.
 */
public final class ManyClients
{
    private static final String RESULT = "many";

    private ManyClients()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int orbs = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        final int jvms = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        final int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        final int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        final Path out = Path.of(args.length > 4 ? args[4] : "bench/target/many-clients.json");
        final String[] transports = {"lightwire", "iiop"};
        final StringBuilder json = new StringBuilder();
        json.append("{\n  \"machine\": \"").append(OrbBenchmark.machine()).append("\",\n  \"orbs\": ").append(orbs)
            .append(",\n  \"client_jvms\": ").append(jvms).append(",\n  \"seconds\": ").append(seconds).append(",\n  \"runs\": [\n");
        System.out.printf(Locale.ROOT, "# %s%n# %d client ORBs in %d JVMs, one caller each, %d s per run; Lightwire settings given: %s%n",
            OrbBenchmark.machine(), orbs, jvms, seconds, OrbBenchmark.lightwireSystemProperties());
        final List<String> rows = new ArrayList<>();
        for (int r = 0; r < rounds; r++)
        {
            for (int k = 0; k < 2; k++)
            {
                rows.add(run(transports[(k + r) % 2], orbs, jvms, seconds));
            }
        }
        json.append(String.join(",\n", rows)).append("\n  ]\n}\n");
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, json);
        System.out.println("# wrote " + out);
        System.exit(0);
    }

    private static String run(final String transport, final int orbs, final int jvms, final int seconds) throws Exception
    {
        final Map<String, String> given = OrbBenchmark.lightwireSystemProperties();
        final List<String> serverProps = new ArrayList<>();
        Orbs.lightwire(given).forEach((k, v) ->
        {
            serverProps.add("-p");
            serverProps.add(k + "=" + v);
        });
        // Room in the server's POA queue for every client's call, on either transport: at JacORB's
        // default (100) the queue overflows with 256 callers, and JacORB refuses calls with TRANSIENT.
        serverProps.add("-p");
        serverProps.add("jacorb.poa.queue_max=" + Math.max(100, 2 * orbs));
        // And request processors that stay: JacORB ends every one beyond thread_pool_min when it is
        // released, so under load at its defaults (5 and 20) it starts and ends thousands of threads a second.
        serverProps.add("-p");
        serverProps.add("jacorb.poa.thread_pool_min=20");
        serverProps.add("-p");
        serverProps.add("jacorb.poa.thread_pool_max=20");
        final ORB probeOrb = Orbs.init(Map.of());
        final List<ProcessHarness> clients = new ArrayList<>();
        // JVM options for the server alone, e.g. -Dmany.serverJvmArgs=-XX:StartFlightRecording=filename=server-%t.jfr (%t: the transport).
        final String serverJvmArgs = System.getProperty("many.serverJvmArgs", "").replace("%t", transport).trim();
        final List<String> serverJvm = serverJvmArgs.isEmpty() ? List.of() : List.of(serverJvmArgs.split("\\s+"));
        try (ProcessHarness server = ProcessHarness.start(TestServer.class, serverJvm, serverProps, ProcessHarness.DEFAULT_READY_TIMEOUT))
        {
            final server_probe probe = server_probeHelper.narrow(probeOrb.string_to_object(server.ior("probe")));
            final int threadsBefore = probe.thread_count();
            // Every client JVM starts its callers at this instant (each makes its ORBs and one call per ORB first).
            final long startAtMs = System.currentTimeMillis() + 20_000L * jvms;
            for (int j = 0; j < jvms; j++)
            {
                final int share = orbs / jvms + (j < orbs % jvms ? 1 : 0);
                final List<String> jvmArgs = new ArrayList<>(List.of("-Xss512k"));
                given.forEach((k, v) -> jvmArgs.add("-D" + k + "=" + v));
                clients.add(ProcessHarness.start(ManyClients.Client.class, jvmArgs,
                    List.of(server.ior("echo"), transport, Integer.toString(share), Long.toString(startAtMs), Integer.toString(seconds)),
                    Duration.ofSeconds(120)));
            }
            final long untilMiddleMs = startAtMs + seconds * 500L - System.currentTimeMillis();
            if (untilMiddleMs < seconds * 250L)
            {
                throw new IllegalStateException("the client JVMs took too long to start: raise the start margin");
            }
            Thread.sleep(untilMiddleMs);
            final int threads = probed(probe::thread_count);
            final long heap = probed(probe::heap_used_after_gc);
            final long direct = probed(probe::direct_memory_used);
            final Histogram all = new Histogram(3);
            long calls = 0;
            long failed = 0;
            String firstFailure = "";
            for (final ProcessHarness c : clients)
            {
                final String[] f = c.awaitAnnouncement(RESULT, Duration.ofSeconds(seconds + 120L)).split(" ", 4);
                calls += Long.parseLong(f[0]);
                all.add(Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(f[1])), 0));
                failed += Long.parseLong(f[2]);
                if (firstFailure.isEmpty() && f.length > 3)
                {
                    firstFailure = f[3];
                }
            }
            System.out.printf(Locale.ROOT, "%-9s %d ORBs: %8.0f calls/s  median %8.1f us  p99 %9.1f us  p99.9 %9.1f us  failed %d  server threads %d "
                    + "(%d before) heap %.1f MB direct %.1f MB%s%n", transport, orbs, calls / (double)seconds, all.getValueAtPercentile(50) / 1e3,
                all.getValueAtPercentile(99) / 1e3, all.getValueAtPercentile(99.9) / 1e3, failed, threads, threadsBefore, heap / 1e6, direct / 1e6,
                failed == 0 ? "" : "\n          first failure: " + firstFailure);
            return String.format(Locale.ROOT,
                "    {\"transport\": \"%s\", \"calls_per_s\": %.0f, \"median_us\": %.1f, \"p99_us\": %.1f, \"p999_us\": %.1f, \"failed\": %d, "
                    + "\"server_threads\": %d, \"server_threads_before\": %d, \"server_heap_mb\": %.1f, \"server_direct_mb\": %.1f}",
                transport, calls / (double)seconds, all.getValueAtPercentile(50) / 1e3, all.getValueAtPercentile(99) / 1e3,
                all.getValueAtPercentile(99.9) / 1e3, failed, threads, threadsBefore, heap / 1e6, direct / 1e6);
        }
        finally
        {
            for (final ProcessHarness c : clients)
            {
                c.close();
            }
            probeOrb.shutdown(false);
        }
    }

    /**
     * Asks the server's probe, again while JacORB refuses it with TRANSIENT ("resource limit
     * reached": its POA queue, {@code jacorb.poa.queue_max}, is full of the callers' requests),
     * for at most ten seconds.
     */
    private static <T> T probed(final java.util.function.Supplier<T> ask) throws InterruptedException
    {
        final long endNs = System.nanoTime() + 10_000_000_000L;
        while (true)
        {
            try
            {
                return ask.get();
            }
            catch (final org.omg.CORBA.TRANSIENT e)
            {
                if (System.nanoTime() - endNs > 0)
                {
                    throw e;
                }
                Thread.sleep(5);
            }
        }
    }

    /**
     * A client JVM: {@code ior transport orbs startAtMs seconds}. Makes its ORBs and one call on
     * each, prints {@link TestServer#READY_LINE}, runs one caller per ORB from {@code startAtMs} for
     * {@code seconds}, and announces {@code LW-IOR many <calls> <histogram> <failed> [first failure]}
     * (HdrHistogram, compressed, base64): a call that fails is counted (not timed) and the caller goes on.
     */
    public static final class Client
    {
        private Client()
        {
        }

        public static void main(final String[] args) throws Exception
        {
            final boolean lightwire = "lightwire".equals(args[1]);
            final int n = Integer.parseInt(args[2]);
            final long startAtMs = Long.parseLong(args[3]);
            final long runNs = Long.parseLong(args[4]) * 1_000_000_000L;
            final List<echo> echos = new ArrayList<>();
            final List<ORB> made = new ArrayList<>();
            for (int i = 0; i < n; i++)
            {
                final ORB orb = Orbs.init(lightwire ? Orbs.lightwire(OrbBenchmark.lightwireSystemProperties()) : Map.of());
                made.add(orb);
                final echo e = echoHelper.narrow(orb.string_to_object(args[0]));
                e.echoString("");
                echos.add(e);
            }
            System.out.println(TestServer.READY_LINE);
            final Histogram[] histograms = new Histogram[n];
            final long[] counts = new long[n];
            final long[] failures = new long[n];
            final java.util.concurrent.atomic.AtomicReference<String> firstFailure = new java.util.concurrent.atomic.AtomicReference<>("");
            final List<Thread> callers = new ArrayList<>();
            for (int i = 0; i < n; i++)
            {
                final int k = i;
                histograms[k] = new Histogram(3);
                callers.add(new Thread(() ->
                {
                    final long endNs = System.nanoTime() + runNs;
                    while (System.nanoTime() - endNs < 0)
                    {
                        final long t0 = System.nanoTime();
                        try
                        {
                            echos.get(k).echoString("");
                        }
                        catch (final org.omg.CORBA.SystemException e)
                        {
                            failures[k]++;
                            firstFailure.compareAndSet("", e.toString().replaceAll("\\s+", " "));
                            continue;
                        }
                        histograms[k].recordValue(System.nanoTime() - t0);
                        counts[k]++;
                    }
                }, "caller-" + k));
            }
            Thread.sleep(Math.max(0, startAtMs - System.currentTimeMillis()));
            callers.forEach(Thread::start);
            final Histogram all = new Histogram(3);
            long calls = 0;
            long failed = 0;
            for (int i = 0; i < n; i++)
            {
                callers.get(i).join();
                all.add(histograms[i]);
                calls += counts[i];
                failed += failures[i];
            }
            final ByteBuffer b = ByteBuffer.allocate(all.getNeededByteBufferCapacity());
            final int length = all.encodeIntoCompressedByteBuffer(b);
            final byte[] bytes = new byte[length];
            b.flip().get(bytes);
            System.out.println(TestServer.IOR_LINE_PREFIX + RESULT + " " + calls + " " + Base64.getEncoder().encodeToString(bytes) + " " + failed
                + (failed == 0 ? "" : " " + firstFailure.get()));
            System.out.flush();
            made.forEach(o -> o.shutdown(false));
            System.exit(0);
        }
    }
}
