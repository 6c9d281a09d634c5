package org.lightwire.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.lightwire.it.Orbs;
import org.lightwire.it.ProcessHarness;
import org.lightwire.it.TestServer;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.ORB;

/**
 * Latency against call number from a cold start: each round starts a fresh server JVM and a fresh
 * client JVM for Lightwire, then the same for IIOP (the order alternating from round to round),
 * and the client times its first calls one by one, echoes of 0, 64, 1,024 and 8,192 characters in
 * turn. Printed per window of call numbers (1-10, 11-100, 101-1,000, 1,001-10,000): the median of
 * the rounds' medians and of their p99s, for both transports, and their ratio. The first call
 * includes the connection's set-up (Lightwire's CONNECT exchange, IIOP's TCP connect).
 *
 * <p>Arguments: {@code [rounds [calls [outFile]]]}, default 6 rounds of 10,000 calls, and
 * {@code bench/target/cold-start.json}.
 */
public final class ColdStart
{
    /** The first call number of each window, and one past the last of the last. */
    static final int[] WINDOWS = {1, 11, 101, 1_001, 10_001};
    private static final int[] SIZES = {0, 64, 1_024, 8_192};
    private static final String RESULT = "cold";

    private ColdStart()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 6;
        final int calls = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        final Path out = Path.of(args.length > 2 ? args[2] : "bench/target/cold-start.json");
        final String[] transports = {"lightwire", "iiop"};
        final int windows = windowsWithin(calls);
        // [transport][round][window] median and p99, in microseconds.
        final double[][][] medians = new double[2][rounds][windows];
        final double[][][] p99s = new double[2][rounds][windows];
        System.out.printf(Locale.ROOT, "# %s%n# %d rounds; each a fresh server and client JVM per transport, %d calls%n",
            OrbBenchmark.machine(), rounds, calls);
        for (int r = 0; r < rounds; r++)
        {
            for (int k = 0; k < 2; k++)
            {
                final int t = (k + r) % 2;
                final double[][] stats = oneColdPair(transports[t], calls, windows);
                medians[t][r] = stats[0];
                p99s[t][r] = stats[1];
                System.out.printf(Locale.ROOT, "round %d %-9s medians %s p99 %s%n", r + 1, transports[t], Arrays.toString(stats[0]),
                    Arrays.toString(stats[1]));
            }
        }
        final StringBuilder json = new StringBuilder();
        json.append("{\n  \"machine\": \"").append(OrbBenchmark.machine()).append("\",\n  \"rounds\": ").append(rounds)
            .append(",\n  \"calls\": ").append(calls).append(",\n  \"windows\": [\n");
        System.out.printf(Locale.ROOT, "%-13s %12s %12s %8s %12s %12s %8s%n", "calls", "LW median", "IIOP median", "ratio",
            "LW p99", "IIOP p99", "ratio");
        for (int w = 0; w < windows; w++)
        {
            final double lwMedian = medianOver(medians[0], w);
            final double iiopMedian = medianOver(medians[1], w);
            final double lwP99 = medianOver(p99s[0], w);
            final double iiopP99 = medianOver(p99s[1], w);
            final String range = WINDOWS[w] + "-" + (WINDOWS[w + 1] - 1);
            System.out.printf(Locale.ROOT, "%-13s %10.1f us %10.1f us %8.2f %10.1f us %10.1f us %8.2f%n", range, lwMedian, iiopMedian,
                lwMedian / iiopMedian, lwP99, iiopP99, lwP99 / iiopP99);
            json.append(String.format(Locale.ROOT,
                "    {\"calls\": \"%s\", \"lightwire_median_us\": %.1f, \"iiop_median_us\": %.1f, \"lightwire_p99_us\": %.1f, \"iiop_p99_us\": %.1f}%s%n",
                range, lwMedian, iiopMedian, lwP99, iiopP99, w + 1 < windows ? "," : ""));
        }
        json.append("  ]\n}\n");
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, json);
        System.out.println("# wrote " + out + " (each figure: the median over the rounds of that round's median or p99)");
        System.exit(0);
    }

    private static int windowsWithin(final int calls)
    {
        int n = 0;
        while (n + 1 < WINDOWS.length && WINDOWS[n + 1] - 1 <= calls)
        {
            n++;
        }
        return n;
    }

    /** @return {medians, p99s} per window of one cold client JVM's calls to one cold server JVM. */
    private static double[][] oneColdPair(final String transport, final int calls, final int windows) throws Exception
    {
        final List<String> serverProps = new ArrayList<>();
        Orbs.lightwire().forEach((k, v) ->
        {
            serverProps.add("-p");
            serverProps.add(k + "=" + v);
        });
        try (ProcessHarness server = ProcessHarness.start(TestServer.class, List.of(), serverProps, ProcessHarness.DEFAULT_READY_TIMEOUT);
             ProcessHarness client = ProcessHarness.start(ColdStart.Client.class, List.of(),
                 List.of(server.ior("echo"), transport, Integer.toString(calls)), ProcessHarness.DEFAULT_READY_TIMEOUT))
        {
            final String[] fields = client.awaitAnnouncement(RESULT, Duration.ofMinutes(10)).trim().split(" ");
            final double[][] stats = new double[2][windows];
            for (int w = 0; w < windows; w++)
            {
                stats[0][w] = Double.parseDouble(fields[2 * w]);
                stats[1][w] = Double.parseDouble(fields[2 * w + 1]);
            }
            return stats;
        }
    }

    private static double medianOver(final double[][] perRound, final int window)
    {
        return OrbBenchmark.median(Arrays.stream(perRound).mapToDouble(r -> r[window]).toArray());
    }

    static double percentile(final long[] sorted, final double q)
    {
        return sorted[Math.min(sorted.length - 1, (int)Math.ceil(q * sorted.length) - 1)];
    }

    /**
     * The cold client JVM: {@code ior transport calls}. Prints {@link TestServer#READY_LINE}, times
     * each call, and announces {@code LW-IOR cold} followed by each window's median and p99 in
     * microseconds.
     */
    public static final class Client
    {
        private Client()
        {
        }

        public static void main(final String[] args)
        {
            final ORB orb = Orbs.init("lightwire".equals(args[1]) ? Orbs.lightwire() : Map.of());
            final echo e = echoHelper.narrow(orb.string_to_object(args[0]));
            final int calls = Integer.parseInt(args[2]);
            final String[] messages = Arrays.stream(SIZES).mapToObj(n -> "x".repeat(n)).toArray(String[]::new);
            System.out.println(TestServer.READY_LINE);
            final long[] latencyNs = new long[calls];
            for (int i = 0; i < calls; i++)
            {
                final String m = messages[i % messages.length];
                final long t0 = System.nanoTime();
                final String back = e.echoString(m);
                latencyNs[i] = System.nanoTime() - t0;
                if (back.length() != m.length())
                {
                    throw new IllegalStateException("call " + (i + 1) + " came back altered");
                }
            }
            final StringBuilder result = new StringBuilder();
            for (int w = 0; w < windowsWithin(calls); w++)
            {
                final long[] window = Arrays.copyOfRange(latencyNs, WINDOWS[w] - 1, WINDOWS[w + 1] - 1);
                Arrays.sort(window);
                result.append(String.format(Locale.ROOT, "%.1f %.1f ", percentile(window, 0.5) / 1e3, percentile(window, 0.99) / 1e3));
            }
            System.out.println("LW-IOR " + RESULT + " " + result.toString().trim());
            System.out.flush();
            orb.shutdown(false);
            System.exit(0);
        }
    }
}
