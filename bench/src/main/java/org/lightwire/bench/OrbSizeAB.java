package org.lightwire.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.lightwire.it.Orbs;
import org.lightwire.it.ProcessHarness;
import org.lightwire.it.servant.TtcpPattern;
import org.lightwire.it.idl.lwtest.pairsHelper;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.idl.lwtest.ttcpHelper;
import org.omg.CORBA.ORB;

/**
 * One two-way call of a given size, timed call by call, Lightwire and IIOP alternating call by
 * call (so each pair of samples is taken side by side): median and p90 per transport, and the
 * ratio. For finding where a bulk call's time goes at one size; {@link OrbBenchmark} gives the
 * figures.
 *
 * <p>Arguments: {@code scenario size calls}, scenario {@code struct} (the struct sequence,
 * {@code size} bytes of pairs) or {@code exactly_once} (ttcp, {@code size} chars); defaults
 * {@code struct 65536 2000}. System properties: {@code ab.block} calls per turn (default 1, call
 * by call); {@code ab.only=lightwire} or {@code iiop} times one transport alone (for a profiler,
 * or to compare with the alternating run).
 */
public final class OrbSizeAB
{
    private static final String[] NAMES = {"lightwire", "iiop"};

    private OrbSizeAB()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String scenario = args.length > 0 ? args[0] : "struct";
        final int size = args.length > 1 ? Integer.parseInt(args[1]) : 65536;
        final int calls = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        final String only = System.getProperty("ab.only", "");
        if (!only.isEmpty() && !Arrays.asList(NAMES).contains(only))
        {
            throw new IllegalArgumentException("-Dab.only=" + only + ": lightwire or iiop");
        }
        // Calls per turn: 1 alternates call by call; more alternates in blocks.
        final int block = Integer.getInteger("ab.block", 1);
        try (ProcessHarness server = ProcessHarness.start(org.lightwire.it.TestServer.class, List.of("-Xmx512m"),
            OrbBenchmark.propertyArgs(Orbs.lightwire()), ProcessHarness.DEFAULT_READY_TIMEOUT))
        {
            final ORB[] orbs = {Orbs.init(Orbs.lightwire()), Orbs.init(Map.of())};
            final Runnable[] call = new Runnable[2];
            for (int t = 0; t < 2; t++)
            {
                call[t] = call(scenario, size, orbs[t], server);
            }
            final long[][] ns = new long[2][calls];
            final int warmup = Math.max(200, calls / 5) / block * block;
            for (int from = -warmup, turn = 0; from < calls; from += block, turn++)
            {
                for (int k = 0; k < 2; k++)
                {
                    final int t = (turn + k) & 1;
                    if (only.isEmpty() || only.equals(NAMES[t]))
                    {
                        timeTurn(call[t], ns[t], from, Math.min(calls, from + block));
                    }
                }
            }
            System.out.printf(Locale.ROOT, "# %s, %s of %d bytes, %d calls per transport, %s%n", OrbBenchmark.machine(), scenario,
                size, calls, only.isEmpty() ? "alternating in turns of " + block : only + " alone");
            System.out.printf(Locale.ROOT, "%-10s %11s %11s %11s%n", "transport", "median us", "p90 us", "Mbit/s");
            final double[] medians = new double[2];
            for (int t = 0; t < 2; t++)
            {
                if (!only.isEmpty() && !only.equals(NAMES[t]))
                {
                    continue;
                }
                Arrays.sort(ns[t]);
                medians[t] = ns[t][calls / 2] / 1e3;
                System.out.printf(Locale.ROOT, "%-10s %11.1f %11.1f %11.0f%n", NAMES[t], medians[t],
                    ns[t][calls * 9 / 10] / 1e3, size * 8.0 / medians[t]);
            }
            if (only.isEmpty())
            {
                System.out.printf(Locale.ROOT, "ratio (median time, Lightwire / IIOP) %.3f%n", medians[0] / medians[1]);
            }
            for (final ORB o : orbs)
            {
                o.shutdown(false);
                o.destroy();
            }
        }
        System.exit(0);
    }

    /** Times calls {@code from} to {@code to} (negative: warm-up, not kept). */
    private static void timeTurn(final Runnable call, final long[] ns, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            final long t0 = System.nanoTime();
            call.run();
            if (i >= 0)
            {
                ns[i] = System.nanoTime() - t0;
            }
        }
    }

    private static Runnable call(final String scenario, final int size, final ORB orb, final ProcessHarness server) throws Exception
    {
        if (scenario.equals("struct"))
        {
            return OrbBenchmark.structCall(pairsHelper.narrow(orb.string_to_object(server.ior("pairs"))), size);
        }
        if (scenario.equals("exactly_once"))
        {
            final ttcp t = ttcpHelper.narrow(orb.string_to_object(server.ior("ttcp")));
            final char[] data = TtcpPattern.create(0, size);
            return () -> t.receive_exactly_once(data);
        }
        throw new IllegalArgumentException("scenario " + scenario + ": struct or exactly_once");
    }
}
