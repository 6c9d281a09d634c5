package org.lightwire.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
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
 * Latency under real kernel packet loss, Lightwire against IIOP in the same run: a JacORB server
 * in a network namespace ({@link LossyNamespace}) drops each way, at random, the given fraction
 * of the UDP datagrams and TCP segments of its port (Lightwire and IIOP listen on the same
 * number). At each loss rate, null calls and 64 KiB exactly-once calls alternate between the
 * transports in blocks; each call is timed. Every 64 KiB buffer is self-describing, and the server
 * counts duplicates and corrupt buffers: the run fails if a call was lost, doubled or altered.
 *
 * <p>Arguments: {@code [nullCalls [bulkCalls [rates [outDir]]]]}: calls per transport and rate
 * (default 2000 and 200), loss rates in per cent (default {@code 0,0.5,1,2,5,10}), where
 * {@code loss-summary.json} and {@code loss-sweep.png} go (default {@code bench/target}).
 * {@code -Dloss.warmupCalls} (default 20,000) null calls and a tenth as many 64 KiB calls per
 * transport warm both JVMs up before the first rate. {@code -Dloss.rawDir=DIR} also writes every
 * call's latency in nanoseconds, one per line, to {@code DIR/loss-RATE-TRANSPORT-CALL.txt}. Needs root.
 */
public final class LossSweep
{
    private static final int NULL_BLOCK = 100;
    private static final int BULK_BLOCK = 10;
    private static final int BULK_CHARS = 64 * 1024;

    private final List<Map<String, Object>> rows = new ArrayList<>();
    private final echo[] echos = new echo[2];
    private final ttcp[] ttcps = new ttcp[2];
    private final String[] names = {"lightwire", "iiop"};
    /** The next ttcp sequence number of each transport: Lightwire's even, IIOP's odd, never repeated. */
    private final int[] nextBuffer = {0, 1};

    private LossSweep()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int nullCalls = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        final int bulkCalls = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        final double[] rates = Arrays.stream((args.length > 2 ? args[2] : "0,0.5,1,2,5,10").split(",")).mapToDouble(Double::parseDouble).toArray();
        final Path out = Path.of(args.length > 3 ? args[3] : "bench/target");
        final int warmup = Integer.getInteger("loss.warmupCalls", 20_000);
        final LossSweep sweep = new LossSweep();
        final int port = 20_000 + (int)(ProcessHandle.current().pid() % 20_000);
        final Map<String, String> serverProps = OrbBenchmark.lightwireSystemProperties();
        final Map<String, String> clientProps = OrbBenchmark.lightwireSystemProperties();
        // Bounds that only stop a hang: loss is recovered by retransmission long before.
        clientProps.putIfAbsent(LightwireConfig.PEER_TIMEOUT_MS, "60000");
        try (LossyNamespace ns = new LossyNamespace("10.201"))
        {
            serverProps.put(Orbs.LISTEN_ADDRESS, ns.innerAddress());
            serverProps.put("OAPort", Integer.toString(port));
            try (ProcessHarness server = ProcessHarness.startTestServerUnder(ns.prefix(), Orbs.lightwire(serverProps)))
            {
                sweep.run(server, clientProps, warmup, rates, nullCalls, bulkCalls, ns, port);
            }
        }
        Files.createDirectories(out);
        final String machine = OrbBenchmark.machine().replace(", loopback", ", veth pair to a network namespace");
        sweep.write(out.resolve("loss-summary.json"), machine, warmup);
        sweep.chart(out.resolve("loss-sweep.png"), machine);
        System.out.println("# wrote " + out.resolve("loss-summary.json") + " and " + out.resolve("loss-sweep.png"));
        System.exit(0);
    }

    private void run(final ProcessHarness server, final Map<String, String> clientProps, final int warmup, final double[] rates,
        final int nullCalls, final int bulkCalls, final LossyNamespace ns, final int port) throws Exception
    {
        final ORB lwOrb = Orbs.init(Orbs.lightwire(clientProps));
        final ORB iiopOrb = Orbs.init(Map.of());
        try
        {
            connect(lwOrb, iiopOrb, server);
            warmUp(warmup);
            for (final double rate : rates)
            {
                ns.drop(port, rate / 100);
                measure(rate, nullCalls, bulkCalls);
            }
            ns.drop(port, 0);
        }
        finally
        {
            lwOrb.shutdown(false);
            iiopOrb.shutdown(false);
        }
    }

    private void connect(final ORB lwOrb, final ORB iiopOrb, final ProcessHarness server)
    {
        final ORB[] orbs = {lwOrb, iiopOrb};
        for (int t = 0; t < 2; t++)
        {
            echos[t] = echoHelper.narrow(orbs[t].string_to_object(server.ior("echo")));
            ttcps[t] = ttcpHelper.narrow(orbs[t].string_to_object(server.ior("ttcp")));
        }
        ttcps[0].reset();
    }

    private void warmUp(final int calls)
    {
        System.out.printf(Locale.ROOT, "# %s%n# Lightwire settings given (both ORBs): %s%n# warming up: %d null calls and %d 64 KiB calls per transport, no loss%n",
            OrbBenchmark.machine(), OrbBenchmark.lightwireSystemProperties(), calls, calls / 10);
        for (int i = 0; i < calls; i++)
        {
            for (int t = 0; t < 2; t++)
            {
                echos[t].echoString("");
                if (i % 10 == 0)
                {
                    bulk(t);
                }
            }
        }
    }

    private void measure(final double rate, final int nullCalls, final int bulkCalls) throws IOException
    {
        final long[][] nulls = {new long[nullCalls], new long[nullCalls]};
        final long[][] bulks = {new long[bulkCalls], new long[bulkCalls]};
        final TtcpStats before = ttcps[0].stats();
        for (int start = 0, round = 0; start < nullCalls; start += NULL_BLOCK, round++)
        {
            for (int k = 0; k < 2; k++)
            {
                final int t = (k + round) % 2;
                for (int i = start; i < Math.min(nullCalls, start + NULL_BLOCK); i++)
                {
                    final long t0 = System.nanoTime();
                    echos[t].echoString("");
                    nulls[t][i] = System.nanoTime() - t0;
                }
            }
        }
        for (int start = 0, round = 0; start < bulkCalls; start += BULK_BLOCK, round++)
        {
            for (int k = 0; k < 2; k++)
            {
                final int t = (k + round) % 2;
                for (int i = start; i < Math.min(bulkCalls, start + BULK_BLOCK); i++)
                {
                    final long t0 = System.nanoTime();
                    bulk(t);
                    bulks[t][i] = System.nanoTime() - t0;
                }
            }
        }
        final TtcpStats after = ttcps[0].stats();
        if (after.calls - before.calls != 2L * bulkCalls || after.duplicates != before.duplicates || after.corrupt != before.corrupt)
        {
            throw new IllegalStateException(String.format(Locale.ROOT, "at %.1f%% loss the server counted %d 64 KiB calls of %d, %d duplicates, %d corrupt",
                rate, after.calls - before.calls, 2L * bulkCalls, after.duplicates - before.duplicates, after.corrupt - before.corrupt));
        }
        for (int t = 0; t < 2; t++)
        {
            row(rate, names[t], "null", nulls[t], 0);
            row(rate, names[t], "64KiB", bulks[t], BULK_CHARS);
        }
    }

    private void bulk(final int transport)
    {
        final int sequence = nextBuffer[transport];
        nextBuffer[transport] += 2;
        ttcps[transport].receive_exactly_once(TtcpPattern.create(sequence, BULK_CHARS));
    }

    private void row(final double rate, final String transport, final String call, final long[] samples, final int bytes) throws IOException
    {
        final String rawDir = System.getProperty("loss.rawDir");
        if (rawDir != null)
        {
            final StringBuilder raw = new StringBuilder();
            Arrays.stream(samples).forEach(ns -> raw.append(ns).append('\n'));
            Files.createDirectories(Path.of(rawDir));
            Files.writeString(Path.of(rawDir, String.format(Locale.ROOT, "loss-%s-%s-%s.txt", rate, transport, call)), raw);
        }
        final long[] s = samples.clone();
        Arrays.sort(s);
        final double sumNs = Arrays.stream(s).asDoubleStream().sum();
        final Map<String, Object> r = Map.of(
            "loss_percent", rate, "transport", transport, "call", call, "calls", s.length,
            "median_us", pct(s, 0.5) / 1e3, "mean_us", sumNs / s.length / 1e3, "p99_us", pct(s, 0.99) / 1e3,
            "p999_us", pct(s, 0.999) / 1e3, "max_us", s[s.length - 1] / 1e3,
            "throughput", bytes == 0 ? s.length / (sumNs / 1e9) : (double)bytes * 8 * s.length / (sumNs / 1e9) / 1e6);
        rows.add(r);
        System.out.printf(Locale.ROOT, "loss %4.1f%% %-9s %-5s median %9.1f us  mean %9.1f us  p99 %9.1f us  p99.9 %9.1f us  max %9.1f us  %s %.1f%n",
            rate, transport, call, r.get("median_us"), r.get("mean_us"), r.get("p99_us"), r.get("p999_us"), r.get("max_us"),
            bytes == 0 ? "calls/s" : "Mbit/s", r.get("throughput"));
    }

    private static double pct(final long[] sorted, final double q)
    {
        return sorted[Math.min(sorted.length - 1, (int)Math.ceil(q * sorted.length) - 1)];
    }

    private void write(final Path file, final String machine, final int warmup) throws IOException
    {
        final StringBuilder b = new StringBuilder();
        b.append("{\n  \"machine\": \"").append(machine.replace("\"", "'")).append("\",\n");
        b.append("  \"lightwire_settings\": \"").append(OrbBenchmark.lightwireSystemProperties().toString().replace("\"", "'")).append("\",\n");
        b.append("  \"warmup_null_calls_per_transport\": ").append(warmup).append(",\n  \"rows\": [\n");
        for (int i = 0; i < rows.size(); i++)
        {
            final Map<String, Object> r = rows.get(i);
            b.append(String.format(Locale.ROOT,
                "    {\"loss_percent\": %s, \"transport\": \"%s\", \"call\": \"%s\", \"calls\": %d, \"median_us\": %.1f, \"mean_us\": %.1f, "
                    + "\"p99_us\": %.1f, \"p999_us\": %.1f, \"max_us\": %.1f, \"%s\": %.1f}%s%n",
                r.get("loss_percent"), r.get("transport"), r.get("call"), r.get("calls"), r.get("median_us"), r.get("mean_us"),
                r.get("p99_us"), r.get("p999_us"), r.get("max_us"), "null".equals(r.get("call")) ? "calls_per_s" : "mbit_per_s",
                r.get("throughput"), i + 1 < rows.size() ? "," : ""));
        }
        b.append("  ]\n}\n");
        Files.writeString(file, b);
    }

    private void chart(final Path file, final String machine) throws IOException
    {
        System.setProperty("java.awt.headless", "true");
        final String where = machine.indexOf(", Linux") > 0 ? machine.substring(0, machine.indexOf(", Linux")) : machine;
        final XYChart c = new XYChartBuilder().width(800).height(500).title("Null call under kernel packet loss each way (" + where + ")")
            .xAxisTitle("loss each way (%)").yAxisTitle("latency (us, log)").build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setChartTitleFont(c.getStyler().getChartTitleFont().deriveFont(13f));
        c.getStyler().setYAxisLogarithmic(true);
        for (final String transport : names)
        {
            for (final String field : List.of("median_us", "p99_us", "p999_us"))
            {
                final List<Map<String, Object>> rs = rows.stream().filter(r -> r.get("transport").equals(transport) && r.get("call").equals("null")).toList();
                c.addSeries(transport + " " + field.replace("_us", ""), rs.stream().mapToDouble(r -> (Double)r.get("loss_percent")).toArray(),
                    rs.stream().mapToDouble(r -> (Double)r.get(field)).toArray());
            }
        }
        BitmapEncoder.saveBitmap(c, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
