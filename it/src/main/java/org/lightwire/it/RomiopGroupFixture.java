package org.lightwire.it;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the ROMIOP tests and benchmarks share: the ORB properties of a group's ends on loopback,
 * a member list, and a replica JVM ({@link RomiopReplica}) with serial dispatch.
 */
public final class RomiopGroupFixture
{
    private RomiopGroupFixture()
    {
    }

    /** @return properties every ORB of a group on loopback shares: both transports, IIOP first. */
    public static Map<String, String> orbProperties(final String link)
    {
        final Map<String, String> p = new LinkedHashMap<>();
        p.put(Orbs.TRANSPORT_FACTORIES, "org.jacorb.orb.iiop.IIOPFactories,org.lightwire.romiop.RomiopFactories");
        p.put("jacorb.lightwire.romiop.link", link);
        p.put("jacorb.lightwire.romiop.interface", "lo");
        p.put("jacorb.lightwire.romiop.host", Orbs.LOOPBACK);
        return p;
    }

    /**
     * @return {@link #orbProperties} over multicast for replicas that count their starts in
     *     {@code startCountDir}, with a 100 ms KeepAlive and a 1 s KeepAlive timeout (a killed
     *     replica is removed, and a restarted one admitted, within seconds).
     */
    public static Map<String, String> countedStartProperties(final java.nio.file.Path startCountDir)
    {
        final Map<String, String> p = orbProperties("multicast");
        p.put("jacorb.lightwire.romiop.keepalive_ms", "100");
        p.put("jacorb.lightwire.romiop.keepalive_timeout_ms", "1000");
        p.put("jacorb.lightwire.romiop.start_count_dir", startCountDir.toString());
        return p;
    }

    /** @return "1,2,3" for multicast, "1@127.0.0.1:p1,..." with free UDP ports for fan-out. */
    public static String memberList(final String link, final int replicas) throws IOException
    {
        final StringBuilder m = new StringBuilder();
        for (int id = 1; id <= replicas; id++)
        {
            m.append(id == 1 ? "" : ",").append(id);
            if ("fanout".equals(link))
            {
                try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
                {
                    m.append('@').append(Orbs.LOOPBACK).append(':').append(s.getLocalPort());
                }
            }
        }
        return m.toString();
    }

    /**
     * Starts replica {@code id} of {@code group} with serial dispatch (one POA thread, waiting queue).
     *
     * @param shared properties every end shares ({@link #orbProperties} and more).
     * @param extra  properties of this replica only (test knobs, for example).
     */
    public static ProcessHarness startReplica(final Map<String, String> shared, final String group, final String groupAddress,
        final String members, final int id, final Map<String, String> extra) throws IOException
    {
        return startReplicaUnder(List.of(), shared, group, groupAddress, members, id, extra);
    }

    /** As {@link #startReplica}, under a command prefix such as {@code ip netns exec NAME}. */
    public static ProcessHarness startReplicaUnder(final List<String> commandPrefix, final Map<String, String> shared, final String group,
        final String groupAddress, final String members, final int id, final Map<String, String> extra) throws IOException
    {
        return startReplicaUnder(commandPrefix, List.of("-Xmx512m"), Duration.ofSeconds(60), shared, group, groupAddress, members, id,
            extra);
    }

    /**
     * As {@link #startReplicaUnder(List, Map, String, String, String, int, Map)}, with the replica
     * JVM's options (its heap, for example) and how long it may take to be ready.
     */
    public static ProcessHarness startReplicaUnder(final List<String> commandPrefix, final List<String> jvmArgs, final Duration readyTimeout,
        final Map<String, String> shared, final String group, final String groupAddress, final String members, final int id,
        final Map<String, String> extra) throws IOException
    {
        final Map<String, String> p = new LinkedHashMap<>(shared);
        p.put("jacorb.implname", "romiop-" + group);
        p.put("jacorb.poa.thread_pool_max", "1");
        p.put("jacorb.poa.thread_pool_min", "1");
        p.put("jacorb.poa.queue_wait", "on");
        p.put("jacorb.lightwire.romiop.group", group);
        p.put("jacorb.lightwire.romiop.group_address", groupAddress);
        p.put("jacorb.lightwire.romiop.members", members);
        p.put("jacorb.lightwire.romiop.member_id", Integer.toString(id));
        p.putAll(extra);
        return ProcessHarness.startUnder(commandPrefix, RomiopReplica.class, jvmArgs, args(p), readyTimeout);
    }

    /** @return {@code -p key=value} arguments of a {@link TestServer}-style main. */
    public static List<String> args(final Map<String, String> props)
    {
        final List<String> a = new ArrayList<>();
        props.forEach((k, v) ->
        {
            a.add("-p");
            a.add(k + "=" + v);
        });
        return a;
    }

    /**
     * @param counters a replica's or client's counters, as {@code name=value} pairs.
     * @return the named counter's value.
     * @throws AssertionError when there is none.
     */
    public static long counter(final String counters, final String name)
    {
        final Matcher m = Pattern.compile("\\b" + name + "=(\\d+)").matcher(counters);
        if (!m.find())
        {
            throw new AssertionError("no counter " + name + " in " + counters);
        }
        return Long.parseLong(m.group(1));
    }
}
