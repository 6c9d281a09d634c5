package org.lightwire.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.lightwire.it.Orbs;
import org.lightwire.it.ProcessHarness;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.ORB;

/**
 * Null echo (Table 3) of several server configurations side by side: one server JVM per
 * configuration, each named by a set of JacORB properties, and IIOP to the first server as the
 * anchor; one client ORB per transport; every variant measured in blocks of
 * {@value OrbBenchmark#BLOCK} calls, the order of the blocks rotating from round to round, so
 * that each comparison is between measurements taken side by side.
 *
 * <p>Arguments: {@code calls variant...} where a variant is {@code name} or
 * {@code name:key=value,key=value} of server properties added to the Lightwire defaults, e.g.
 * {@code 20000 own shared:jacorb.lightwire.server.socket_per_connection=false}. Prints the
 * median and p99 of each variant and its ratio to IIOP.
 */
public final class OrbNullEchoAB
{
    private OrbNullEchoAB()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        final int warmup = Integer.getInteger("echo.warmup", 100_000);
        final Map<String, Map<String, String>> variants = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++)
        {
            final int colon = args[i].indexOf(':');
            final Map<String, String> props = new LinkedHashMap<>();
            if (colon > 0)
            {
                for (final String kv : args[i].substring(colon + 1).split(","))
                {
                    final int eq = kv.indexOf('=');
                    props.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
            variants.put(colon > 0 ? args[i].substring(0, colon) : args[i], props);
        }
        if (variants.isEmpty())
        {
            variants.put("lightwire", Map.of());
        }
        final List<ProcessHarness> servers = new ArrayList<>();
        final ORB lwOrb = Orbs.init(Orbs.lightwire());
        final ORB iiopOrb = Orbs.init(Map.of());
        try
        {
            final Map<String, echo> echos = new LinkedHashMap<>();
            for (final Map.Entry<String, Map<String, String>> v : variants.entrySet())
            {
                final List<String> props = new ArrayList<>();
                Orbs.lightwire(v.getValue()).forEach((k, value) ->
                {
                    props.add("-p");
                    props.add(k + "=" + value);
                });
                final ProcessHarness server = ProcessHarness.start(org.lightwire.it.TestServer.class, List.of("-Xmx512m"), props,
                    ProcessHarness.DEFAULT_READY_TIMEOUT);
                servers.add(server);
                echos.put(v.getKey(), echoHelper.narrow(lwOrb.string_to_object(server.ior("echo"))));
                if (servers.size() == 1 && !Boolean.getBoolean("echo.noIiop"))
                {
                    echos.put("iiop", echoHelper.narrow(iiopOrb.string_to_object(servers.get(0).ior("echo"))));
                }
            }
            final List<String> names = new ArrayList<>(echos.keySet());
            // -Decho.only=NAME measures one path alone (for per-thread CPU accounting, not for ratios).
            final String only = System.getProperty("echo.only");
            if (only != null)
            {
                if (!names.contains(only))
                {
                    throw new IllegalArgumentException("-Decho.only=" + only + ": not one of the paths " + names);
                }
                names.retainAll(List.of(only));
            }
            final Map<String, long[]> samples = new LinkedHashMap<>();
            for (final String n : names)
            {
                samples.put(n, new long[calls]);
                for (int i = 0; i < warmup; i++)
                {
                    echos.get(n).echoString("");
                }
            }
            for (int start = 0, round = 0; start < calls; start += OrbBenchmark.BLOCK, round++)
            {
                final int end = Math.min(calls, start + OrbBenchmark.BLOCK);
                for (int k = 0; k < names.size(); k++)
                {
                    final String n = names.get((k + round) % names.size());
                    final echo e = echos.get(n);
                    final long[] s = samples.get(n);
                    for (int i = start; i < end; i++)
                    {
                        final long t0 = System.nanoTime();
                        e.echoString("");
                        s[i] = System.nanoTime() - t0;
                    }
                }
            }
            // Ratios are to IIOP, or (with -Decho.noIiop=true) to the first variant.
            final long[] iiop = samples.getOrDefault("iiop", samples.get(names.get(0))).clone();
            Arrays.sort(iiop);
            System.out.println("# " + OrbBenchmark.machine() + "; " + calls + " null echoes per variant, interleaved");
            System.out.printf(Locale.ROOT, "%-12s %10s %10s %12s %10s%n", "variant", "median us", "p99 us", "ratio median", "ratio p99");
            for (final String n : names)
            {
                final long[] s = samples.get(n).clone();
                Arrays.sort(s);
                System.out.printf(Locale.ROOT, "%-12s %10.1f %10.1f %12.3f %10.3f%n", n, pct(s, 0.5) / 1e3, pct(s, 0.99) / 1e3,
                    pct(s, 0.5) / pct(iiop, 0.5), pct(s, 0.99) / pct(iiop, 0.99));
            }
        }
        finally
        {
            lwOrb.shutdown(false);
            iiopOrb.shutdown(false);
            for (final ProcessHarness s : servers)
            {
                s.close();
            }
        }
        System.exit(0);
    }

    private static double pct(final long[] sorted, final double p)
    {
        return sorted[Math.min(sorted.length - 1, (int)Math.floor(p * sorted.length))];
    }
}
