package org.lightwire.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.lightwire.it.Orbs;
import org.lightwire.it.ProcessHarness;
import org.lightwire.it.RomiopGroupFixture;
import org.lightwire.it.RomiopReplica;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.omg.CORBA.ORB;

/**
 * Issue 4's latency requirement, measured: a two-way call to a group of 3 replicas (ROMIOP, atomic
 * consolidation by default) against the same call to one replica over IIOP, interleaved in
 * blocks of {@value OrbBenchmark#BLOCK} calls in one run. The replicas are JVMs of the it module's
 * {@link RomiopReplica} (fan-out or multicast on loopback); the IIOP baseline calls replica 1's
 * servant directly, through the same single-threaded POA.
 *
 * <p>Arguments: {@code calls link [consolidation spec]}, e.g. {@code 5000 multicast} or
 * {@code 5000 fanout mode=first}; system property {@code romiop.replica} adds replica properties
 * ({@code key=value,key=value}), {@code romiop.client} client properties likewise, {@code romiop.replicas} the
 * group's size (default 3).
 */
public final class RomiopLatency
{
    private RomiopLatency()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int calls = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        final String link = args.length > 1 ? args[1] : "multicast";
        final String spec = args.length > 2 ? args[2] : "";
        final int size = Integer.getInteger("romiop.replicas", 3);
        final String members = RomiopGroupFixture.memberList(link, size);
        final List<ProcessHarness> replicas = new ArrayList<>();
        try
        {
            final String groupAddress = "239.255.9." + (1 + (int)(ProcessHandle.current().pid() % 200)) + ":" +
                (30000 + (int)(ProcessHandle.current().pid() % 20000));
            // Extra replica properties, e.g. -Dromiop.replica=jacorb.lightwire.romiop.order_interval_ms=1
            final Map<String, String> extra = keyValues(System.getProperty("romiop.replica", ""));
            for (int id = 1; id <= size; id++)
            {
                replicas.add(RomiopGroupFixture.startReplica(RomiopGroupFixture.orbProperties(link), "bench", groupAddress, members, id, extra));
            }
            final Map<String, String> clientProps = RomiopGroupFixture.orbProperties(link);
            // Extra client properties, e.g. -Dromiop.client=jacorb.lightwire.romiop.driver=thread
            clientProps.putAll(keyValues(System.getProperty("romiop.client", "")));
            if (!spec.isEmpty())
            {
                for (final String kv : spec.split(","))
                {
                    final int eq = kv.indexOf('=');
                    clientProps.put("jacorb.lightwire.romiop.group.bench.consolidation." + kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
            final ORB groupOrb = Orbs.init(clientProps);
            final ORB iiopOrb = Orbs.init(Map.of());
            try
            {
                final replicated_log group = replicated_logHelper.narrow(groupOrb.string_to_object(replicas.get(0).ior("group")));
                final replicated_log direct = replicated_logHelper.narrow(iiopOrb.string_to_object(replicas.get(0).ior("direct")));
                int seq = 0;
                for (int i = 0; i < 2000; i++)
                {
                    group.append(1, seq++);
                    direct.append(2, seq++);
                }
                final long[] groupNs = new long[calls];
                final long[] iiopNs = new long[calls];
                for (int start = 0, block = 0; start < calls; start += OrbBenchmark.BLOCK, block++)
                {
                    final int end = Math.min(calls, start + OrbBenchmark.BLOCK);
                    for (int k = 0; k < 2; k++)
                    {
                        final boolean groupFirst = block % 2 == 0;
                        final boolean useGroup = k == 0 ? groupFirst : !groupFirst;
                        final replicated_log target = useGroup ? group : direct;
                        final long[] samples = useGroup ? groupNs : iiopNs;
                        for (int i = start; i < end; i++)
                        {
                            final long t0 = System.nanoTime();
                            target.append(useGroup ? 1 : 2, seq++);
                            samples[i] = System.nanoTime() - t0;
                        }
                    }
                }
                Arrays.sort(groupNs);
                Arrays.sort(iiopNs);
                System.out.println("# " + OrbBenchmark.machine() + "; " + calls + " two-way calls each, interleaved; link " + link +
                    (spec.isEmpty() ? ", consolidation atomic (default)" : ", consolidation " + spec));
                System.out.printf(Locale.ROOT, "%-26s %10s %10s%n", "path", "median us", "p99 us");
                System.out.printf(Locale.ROOT, "%-26s %10.1f %10.1f%n", "ROMIOP group of " + size, pct(groupNs, 0.5) / 1e3, pct(groupNs, 0.99) / 1e3);
                System.out.printf(Locale.ROOT, "%-26s %10.1f %10.1f%n", "IIOP to one replica", pct(iiopNs, 0.5) / 1e3, pct(iiopNs, 0.99) / 1e3);
                System.out.printf(Locale.ROOT, "ratio (median) %.2f, ratio (p99) %.2f; issue 4 requires at most 3 (median)%n",
                    pct(groupNs, 0.5) / pct(iiopNs, 0.5), pct(groupNs, 0.99) / pct(iiopNs, 0.99));
            }
            finally
            {
                groupOrb.shutdown(false);
                iiopOrb.shutdown(false);
            }
        }
        finally
        {
            replicas.forEach(ProcessHarness::close);
        }
        System.exit(0);
    }

    /** @return {@code k=v,k=v} as a map, in order. */
    private static Map<String, String> keyValues(final String text)
    {
        final Map<String, String> m = new LinkedHashMap<>();
        for (final String kv : text.split(","))
        {
            if (kv.indexOf('=') > 0)
            {
                m.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
        }
        return m;
    }

    private static double pct(final long[] sorted, final double p)
    {
        return sorted[Math.min(sorted.length - 1, (int)Math.floor(p * sorted.length))];
    }
}
