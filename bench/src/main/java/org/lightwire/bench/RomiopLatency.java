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
 * The ROMIOP latency requirement, measured: a two-way call to a group of N replicas (ROMIOP, atomic
 * consolidation by default), N of 2 or more, costs at most {@value #MAX_GROUP_OVER_IN_TURN} of N
 * plain IIOP calls to the same replicas made in turn, and a group of 1 at most {@value #MAX_GROUP_OF_ONE_OVER_IIOP}
 * times one IIOP call. Four paths, interleaved in blocks of {@value OrbBenchmark#BLOCK} calls
 * whose order rotates from block to block, in one run: the group; IIOP to replica 1; IIOP to every
 * replica at once; IIOP to replica 1, 2, ..., N in turn, timed as one sample. The replicas are JVMs
 * of the it module's {@link RomiopReplica} (fan-out or multicast on loopback); the IIOP paths call
 * each replica's own servant (its {@code direct} IOR) through its root POA.
 *
 * <p>Before the warm-up, the first {@code romiop.cold} calls of each path after start are timed
 * too (a cold JVM's figures), one call of each path a round in rotating order.
 *
 * <p>Prints, per path, the median and p99 of the warm calls and of the cold ones, and the group's
 * median and p99 over the in-turn path's and over the one-replica path's, each with the bound it
 * is judged against.
 *
 * <p>Arguments: {@code calls link [consolidation spec]}, e.g. {@code 5000 multicast} or
 * {@code 5000 fanout mode=first}; system property {@code romiop.replica} adds replica properties
 * ({@code key=value,key=value}), {@code romiop.client} client properties likewise, {@code romiop.replicas} the
 * group's size (default 3), {@code romiop.cold} the cold calls timed per path (default 200),
 * {@code romiop.warmup} the warm-up rounds (default 10,000, each path once a round),
 * {@code romiop.counters=true} prints each replica's counters at the end.
 */
public final class RomiopLatency
{
    /** The group's cost over N IIOP calls to its replicas in turn may be at most this, for N of 2 or more. */
    static final double MAX_GROUP_OVER_IN_TURN = 0.8;
    /** A group of 1's cost over one IIOP call to its replica may be at most this. */
    static final double MAX_GROUP_OF_ONE_OVER_IIOP = 1.25;

    private static final int GROUP = 0;
    private static final int ONE = 1;
    private static final int IN_TURN = 3;

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
                final List<replicated_log> everyReplica = new ArrayList<>();
                for (final ProcessHarness r : replicas)
                {
                    everyReplica.add(replicated_logHelper.narrow(iiopOrb.string_to_object(r.ior("direct"))));
                }
                final int[] seq = {0};
                // The paths, measured in rotating order, block by block: the group; IIOP to one
                // replica; IIOP to every replica, at once (deferred synchronous DII) and one after
                // another (the requirement's anchor): what a client without ROMIOP pays to have
                // every replica run the call, with no ordering among clients at all.
                final String[] names = {"ROMIOP group of " + size, "IIOP to one replica", "IIOP to all " + size + " at once",
                    "IIOP to all " + size + ", in turn"};
                final Runnable[] paths = {
                    () -> group.append(1, seq[0]++),
                    () -> direct.append(2, seq[0]++),
                    () -> appendEverywhere(everyReplica, 3, seq[0]++),
                    () ->
                    {
                        final int n = seq[0]++;
                        everyReplica.forEach(r -> r.append(4, n));
                    }};
                // -Dromiop.only=K times path K (0: the group, 1: IIOP to one replica, ...) alone, for
                // per-thread CPU accounting (scripts/thread-cpu.sh); the others are then left out of the tables.
                final int only = Integer.getInteger("romiop.only", -1);
                if (only >= paths.length)
                {
                    throw new IllegalArgumentException("-Dromiop.only=" + only + ": the paths are 0 to " + (paths.length - 1));
                }
                // Cold: each path's first calls after start, before any warm-up. One call of each path a
                // round, the order rotating each round, so that no path takes more than its share of the
                // JIT's first compilations (a block of 500 would give all of them to the first path).
                final int cold = Integer.getInteger("romiop.cold", 200);
                final long[][] coldSamples = new long[paths.length][cold];
                for (int round = 0; round < cold; round++)
                {
                    for (int k = 0; k < paths.length; k++)
                    {
                        final int path = (round + k) % paths.length;
                        if (only < 0 || path == only)
                        {
                            final long t0 = System.nanoTime();
                            paths[path].run();
                            coldSamples[path][round] = System.nanoTime() - t0;
                        }
                    }
                }
                // Warm-up rounds (every path once each), -Dromiop.warmup, default 10,000: after only 2,000 the
                // ROMIOP median was 10 to 25% higher and its p99 about 4.8 ms (1.5 to 2.2 ms after 10,000), as if
                // the four JVMs were still compiling (not checked per process).
                final int warmup = Integer.getInteger("romiop.warmup", 10_000);
                for (int i = 0; i < warmup; i++)
                {
                    for (final Runnable path : paths)
                    {
                        path.run();
                    }
                }
                final long pauseNs = Long.getLong("romiop.pauseUs", 0) * 1000;
                final long[][] samples = new long[paths.length][calls];
                for (int start = 0, block = 0; start < calls; start += OrbBenchmark.BLOCK, block++)
                {
                    final int end = Math.min(calls, start + OrbBenchmark.BLOCK);
                    for (int k = 0; k < paths.length; k++)
                    {
                        final int path = (block + k) % paths.length;
                        if (only >= 0 && path != only)
                        {
                            continue;
                        }
                        for (int i = start; i < end; i++)
                        {
                            if (pauseNs > 0)
                            {
                                java.util.concurrent.locks.LockSupport.parkNanos(pauseNs);
                            }
                            final long t0 = System.nanoTime();
                            paths[path].run();
                            samples[path][i] = System.nanoTime() - t0;
                        }
                    }
                }
                for (final long[] ns : samples)
                {
                    Arrays.sort(ns);
                }
                for (final long[] ns : coldSamples)
                {
                    Arrays.sort(ns);
                }
                System.out.println("# " + OrbBenchmark.machine() + "; " + calls + " two-way calls each, interleaved, after " + cold +
                    " cold rounds and " + warmup + " warm-up rounds; link " + link +
                    (spec.isEmpty() ? ", consolidation atomic (default)" : ", consolidation " + spec) + "; " +
                    Runtime.getRuntime().availableProcessors() + " CPUs for " + (size + 1) + " JVMs");
                System.out.printf(Locale.ROOT, "%-26s %10s %10s %14s%n", "path", "median us", "p99 us", "median ratio");
                for (int path = 0; path < paths.length; path++)
                {
                    if (only < 0 || path == only)
                    {
                        System.out.printf(Locale.ROOT, "%-26s %10.1f %10.1f %14s%n", names[path], pct(samples[path], 0.5) / 1e3,
                            pct(samples[path], 0.99) / 1e3,
                            only < 0 ? String.format(Locale.ROOT, "%.2f", pct(samples[path], 0.5) / pct(samples[ONE], 0.5)) : "alone");
                    }
                }
                if (cold > 0)
                {
                    System.out.println("# cold: each path's first " + cold + " calls after start, before the warm-up");
                    System.out.printf(Locale.ROOT, "%-26s %10s %10s%n", "path (cold)", "median us", "p99 us");
                    for (int path = 0; path < paths.length; path++)
                    {
                        if (only < 0 || path == only)
                        {
                            System.out.printf(Locale.ROOT, "%-26s %10.1f %10.1f%n", names[path], pct(coldSamples[path], 0.5) / 1e3,
                                pct(coldSamples[path], 0.99) / 1e3);
                        }
                    }
                }
                if (only < 0)
                {
                    // The requirement bounds the group against N calls in turn for N of 2 or more, and a
                    // group of 1 against one IIOP call (its "in turn" is that same single call).
                    final double inTurnBound = size == 1 ? MAX_GROUP_OF_ONE_OVER_IIOP : MAX_GROUP_OVER_IN_TURN;
                    System.out.printf(Locale.ROOT, "%-40s %8s %8s  %s%n", "ratio (warm)", "median", "p99", "requirement");
                    System.out.printf(Locale.ROOT, "%-40s %8.2f %8.2f  at most %.2f%n", "group / IIOP to all " + size + ", in turn",
                        ratio(samples, GROUP, IN_TURN, 0.5), ratio(samples, GROUP, IN_TURN, 0.99), inTurnBound);
                    System.out.printf(Locale.ROOT, "%-40s %8.2f %8.2f  %s%n", "group / IIOP to one replica",
                        ratio(samples, GROUP, ONE, 0.5), ratio(samples, GROUP, ONE, 0.99),
                        size == 1 ? String.format(Locale.ROOT, "at most %.2f", MAX_GROUP_OF_ONE_OVER_IIOP)
                            : "none for a group of " + size + " (at most " + MAX_GROUP_OF_ONE_OVER_IIOP + " for a group of 1)");
                }
                if (Boolean.getBoolean("romiop.counters"))
                {
                    // Datagrams per call and the like: each replica's plug-in counters after the run.
                    for (final ProcessHarness r : replicas)
                    {
                        System.out.println("# " + org.lightwire.it.idl.lwtest.replica_probeHelper.narrow(
                            iiopOrb.string_to_object(r.ior("probe"))).counters());
                    }
                }
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

    /** Calls append on every replica at once (deferred synchronous DII), then waits for every reply. */
    private static void appendEverywhere(final List<replicated_log> replicas, final int client, final int seq)
    {
        final org.omg.CORBA.TypeCode longLong = ORB.init().get_primitive_tc(org.omg.CORBA.TCKind.tk_longlong);
        final org.omg.CORBA.Request[] requests = new org.omg.CORBA.Request[replicas.size()];
        for (int i = 0; i < requests.length; i++)
        {
            final org.omg.CORBA.Request r = replicas.get(i)._request("append");
            r.add_in_arg().insert_long(client);
            r.add_in_arg().insert_long(seq);
            r.set_return_type(longLong);
            r.send_deferred();
            requests[i] = r;
        }
        for (final org.omg.CORBA.Request r : requests)
        {
            try
            {
                r.get_response();
            }
            catch (final org.omg.CORBA.WrongTransaction e)
            {
                throw new IllegalStateException("no transactions here: " + e, e);
            }
        }
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

    /** @return percentile {@code p} of path {@code of}'s sorted samples over path {@code over}'s. */
    private static double ratio(final long[][] sorted, final int of, final int over, final double p)
    {
        return pct(sorted[of], p) / pct(sorted[over], p);
    }

    private static double pct(final long[] sorted, final double p)
    {
        return sorted[Math.min(sorted.length - 1, (int)Math.floor(p * sorted.length))];
    }
}
