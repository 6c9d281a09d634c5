package org.lightwire.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.lightwire.etf.LightwireConfig;
import org.lightwire.it.LossyNamespace;
import org.lightwire.it.Orbs;
import org.lightwire.it.ProcessHarness;
import org.lightwire.it.idl.lwtest.TtcpStats;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.idl.lwtest.ttcpHelper;
import org.lightwire.it.servant.TtcpPattern;
import org.omg.CORBA.ORB;

/**
 * Head-of-line blocking under loss: callers that share one client ORB (so one IIOP connection, or
 * one Lightwire GIOP connection over a transport connection per concurrent call) make small calls
 * while one more caller moves 1 MiB exactly-once calls, against a JacORB server in a network
 * namespace that drops a fraction of its port's datagrams and TCP segments each way. For each
 * transport, phases with and without the bulk caller alternate; printed: the small calls' median,
 * p99 and p99.9 and count, and the bulk caller's throughput. The server counts every 1 MiB
 * buffer: a lost, doubled or altered call fails the run.
 *
 * <p>Arguments: {@code [secondsPerPhase [lossPercent [smallCallers [rounds [outFile]]]]]}, default
 * 15 s, 2%, 15 callers, 2 rounds, {@code bench/target/head-of-line.json}. Needs root.
 */
public final class HeadOfLine
{
    private static final int BULK_CHARS = 1 << 20;

    private HeadOfLine()
    {
    }

    /** What one phase measured. */
    private record Phase(String transport, boolean bulk, long[] smallNs, long bulkCalls, double bulkSeconds)
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        final double loss = args.length > 1 ? Double.parseDouble(args[1]) : 2;
        final int callers = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        final int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 2;
        final Path out = Path.of(args.length > 4 ? args[4] : "bench/target/head-of-line.json");
        final int port = 20_000 + (int)(ProcessHandle.current().pid() % 20_000);
        final List<Phase> phases = new ArrayList<>();
        try (LossyNamespace ns = new LossyNamespace("10.202"))
        {
            final Map<String, String> serverProps = new java.util.HashMap<>(Map.of(Orbs.LISTEN_ADDRESS, ns.innerAddress(),
                "OAPort", Integer.toString(port)));
            try (ProcessHarness server = ProcessHarness.startTestServerUnder(ns.prefix(), Orbs.lightwire(serverProps)))
            {
                final ORB lwOrb = Orbs.init(Orbs.lightwire(Map.of(LightwireConfig.PEER_TIMEOUT_MS, "60000")));
                final ORB iiopOrb = Orbs.init(Map.of());
                try
                {
                    final ORB[] orbs = {lwOrb, iiopOrb};
                    final String[] names = {"lightwire", "iiop"};
                    final int[] nextBuffer = {0, 1};
                    System.out.printf(Locale.ROOT, "# %s%n# %d s per phase, %.1f%% loss each way, %d small callers and one 1 MiB caller "
                        + "sharing one ORB per transport, %d rounds%n", OrbBenchmark.machine(), seconds, loss, callers, rounds);
                    // Warm both paths up without loss.
                    for (int t = 0; t < 2; t++)
                    {
                        phase(orbs[t], names[t], server, true, 5, callers, nextBuffer, t);
                    }
                    ns.drop(port, loss / 100);
                    for (int r = 0; r < rounds; r++)
                    {
                        for (int k = 0; k < 4; k++)
                        {
                            final int t = (k + r) % 2;
                            final boolean bulk = k / 2 == r % 2;
                            final Phase p = phase(orbs[t], names[t], server, bulk, seconds, callers, nextBuffer, t);
                            phases.add(p);
                            print("round " + (r + 1), p);
                        }
                    }
                    ns.drop(port, 0);
                }
                finally
                {
                    lwOrb.shutdown(false);
                    iiopOrb.shutdown(false);
                }
            }
        }
        final StringBuilder json = new StringBuilder();
        json.append("{\n  \"machine\": \"").append(OrbBenchmark.machine().replace(", loopback", ", veth pair to a network namespace"))
            .append("\",\n  \"loss_percent\": ").append(loss).append(",\n  \"seconds_per_phase\": ").append(seconds)
            .append(",\n  \"small_callers\": ").append(callers).append(",\n  \"phases\": [\n");
        System.out.println("# all rounds together:");
        int i = 0;
        for (final String transport : List.of("lightwire", "iiop"))
        {
            for (final boolean bulk : List.of(false, true))
            {
                final long[] all = phases.stream().filter(p -> p.transport.equals(transport) && p.bulk == bulk)
                    .flatMapToLong(p -> Arrays.stream(p.smallNs)).sorted().toArray();
                final long bulkCalls = phases.stream().filter(p -> p.transport.equals(transport) && p.bulk == bulk).mapToLong(Phase::bulkCalls).sum();
                final double bulkSeconds = phases.stream().filter(p -> p.transport.equals(transport) && p.bulk == bulk).mapToDouble(Phase::bulkSeconds).sum();
                final Phase merged = new Phase(transport, bulk, all, bulkCalls, bulkSeconds);
                print("all", merged);
                json.append(String.format(Locale.ROOT,
                    "    {\"transport\": \"%s\", \"bulk_caller\": %s, \"small_calls\": %d, \"small_median_us\": %.1f, \"small_p99_us\": %.1f, "
                        + "\"small_p999_us\": %.1f, \"bulk_mbit_per_s\": %.1f}%s%n",
                    transport, bulk, all.length, pct(all, 0.5) / 1e3, pct(all, 0.99) / 1e3, pct(all, 0.999) / 1e3, mbps(merged), ++i < 4 ? "," : ""));
            }
        }
        json.append("  ]\n}\n");
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, json);
        System.out.println("# wrote " + out);
        System.exit(0);
    }

    private static Phase phase(final ORB orb, final String transport, final ProcessHarness server, final boolean bulk, final int seconds,
        final int callers, final int[] nextBuffer, final int t) throws InterruptedException
    {
        final echo e = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
        final ttcp tt = ttcpHelper.narrow(orb.string_to_object(server.ior("ttcp")));
        final TtcpStats before = tt.stats();
        final AtomicBoolean stop = new AtomicBoolean();
        final List<long[]> samples = new ArrayList<>();
        final AtomicInteger[] counts = new AtomicInteger[callers];
        final List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < callers; c++)
        {
            final long[] s = new long[200_000];
            final AtomicInteger n = new AtomicInteger();
            samples.add(s);
            counts[c] = n;
            threads.add(new Thread(() ->
            {
                while (!stop.get() && n.get() < s.length)
                {
                    final long t0 = System.nanoTime();
                    e.echoString("");
                    s[n.getAndIncrement()] = System.nanoTime() - t0;
                }
            }, "small-" + c));
        }
        final long[] bulkCalls = {0};
        final long[] bulkNs = {0};
        if (bulk)
        {
            threads.add(new Thread(() ->
            {
                final long start = System.nanoTime();
                while (!stop.get())
                {
                    final int sequence;
                    synchronized (nextBuffer)
                    {
                        sequence = nextBuffer[t];
                        nextBuffer[t] += 2;
                    }
                    tt.receive_exactly_once(TtcpPattern.create(sequence, BULK_CHARS));
                    bulkCalls[0]++;
                }
                bulkNs[0] = System.nanoTime() - start;
            }, "bulk"));
        }
        threads.forEach(Thread::start);
        Thread.sleep(seconds * 1000L);
        stop.set(true);
        for (final Thread th : threads)
        {
            th.join();
        }
        final TtcpStats after = tt.stats();
        if (after.calls - before.calls != bulkCalls[0] || after.duplicates != before.duplicates || after.corrupt != before.corrupt)
        {
            throw new IllegalStateException(String.format(Locale.ROOT, "%s: the server counted %d 1 MiB calls of %d, %d duplicates, %d corrupt",
                transport, after.calls - before.calls, bulkCalls[0], after.duplicates - before.duplicates, after.corrupt - before.corrupt));
        }
        final long[] all = new long[Arrays.stream(counts).mapToInt(AtomicInteger::get).sum()];
        int k = 0;
        for (int c = 0; c < callers; c++)
        {
            System.arraycopy(samples.get(c), 0, all, k, counts[c].get());
            k += counts[c].get();
        }
        Arrays.sort(all);
        return new Phase(transport, bulk, all, bulkCalls[0], bulkNs[0] / 1e9);
    }

    private static double mbps(final Phase p)
    {
        return p.bulkSeconds == 0 ? 0 : p.bulkCalls * (double)BULK_CHARS * 8 / p.bulkSeconds / 1e6;
    }

    private static void print(final String label, final Phase p)
    {
        System.out.printf(Locale.ROOT, "%-8s %-9s %-12s small calls %7d  median %9.1f us  p99 %10.1f us  p99.9 %10.1f us  bulk %6.1f Mbit/s%n",
            label, p.transport, p.bulk ? "with 1 MiB" : "alone", p.smallNs.length, pct(p.smallNs, 0.5) / 1e3, pct(p.smallNs, 0.99) / 1e3,
            pct(p.smallNs, 0.999) / 1e3, mbps(p));
    }

    private static double pct(final long[] sorted, final double q)
    {
        return sorted.length == 0 ? Double.NaN : sorted[Math.min(sorted.length - 1, (int)Math.ceil(q * sorted.length) - 1)];
    }
}
