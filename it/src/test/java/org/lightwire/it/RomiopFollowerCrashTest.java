package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.it.idl.lwtest.replica_probe;
import org.lightwire.it.idl.lwtest.replica_probeHelper;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.lightwire.romiop.RomiopFactories;
import org.omg.CORBA.ORB;

/**
 * kill -9 of a follower in the middle of a run of two-way calls with atomic consolidation: the
 * leader's KeepAlive finds it silent and removes it, the client stops waiting for its reply, and
 * every call succeeds, each exactly once on each survivor, in the same order.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RomiopFollowerCrashTest
{
    private static final int CALLS = 1500;
    private static final int KILL_AT = 400;

    private static Map<String, String> common()
    {
        final Map<String, String> p = new LinkedHashMap<>();
        p.put(Orbs.TRANSPORT_FACTORIES, "org.jacorb.orb.iiop.IIOPFactories," + RomiopFactories.class.getName());
        p.put("jacorb.lightwire.romiop.link", "fanout");
        p.put("jacorb.lightwire.romiop.interface", "lo");
        p.put("jacorb.lightwire.romiop.host", Orbs.LOOPBACK);
        p.put("jacorb.lightwire.romiop.keepalive_ms", "100");
        p.put("jacorb.lightwire.romiop.member_timeout_ms", "500");
        return p;
    }

    private static int freeUdpPort() throws IOException
    {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        {
            return s.getLocalPort();
        }
    }

    @Test
    void everyCallSucceedsAndTheSurvivorsStayIdenticalWhenAFollowerIsKilled() throws Exception
    {
        final StringBuilder members = new StringBuilder();
        for (int id = 1; id <= 3; id++)
        {
            members.append(id == 1 ? "" : ",").append(id).append('@').append(Orbs.LOOPBACK).append(':').append(freeUdpPort());
        }
        final List<ProcessHarness> replicas = new ArrayList<>();
        final ORB client = Orbs.init(common());
        final ORB probeOrb = Orbs.init(Map.of());
        try
        {
            for (int id = 1; id <= 3; id++)
            {
                final Map<String, String> p = common();
                p.put("jacorb.implname", "romiop-crash-it");
                p.put("jacorb.poa.thread_pool_max", "1");
                p.put("jacorb.poa.thread_pool_min", "1");
                p.put("jacorb.poa.queue_wait", "on");
                p.put("jacorb.lightwire.romiop.group", "crash");
                p.put("jacorb.lightwire.romiop.group_address", "239.255.8.8:5000");
                p.put("jacorb.lightwire.romiop.members", members.toString());
                p.put("jacorb.lightwire.romiop.member_id", Integer.toString(id));
                final List<String> args = new ArrayList<>();
                p.forEach((k, v) ->
                {
                    args.add("-p");
                    args.add(k + "=" + v);
                });
                replicas.add(ProcessHarness.start(RomiopReplica.class, List.of(), args, Duration.ofSeconds(60)));
            }
            final replicated_log group = replicated_logHelper.narrow(client.string_to_object(replicas.get(0).ior("group")));
            final List<replica_probe> probes = new ArrayList<>();
            for (final ProcessHarness h : replicas)
            {
                probes.add(replica_probeHelper.narrow(probeOrb.string_to_object(h.ior("probe"))));
            }
            long last = 0;
            int increasing = 0;
            for (int seq = 0; seq < CALLS; seq++)
            {
                if (seq == KILL_AT)
                {
                    replicas.get(2).kill();
                }
                final long length = group.append(1, seq);
                if (length > last)
                {
                    increasing++;
                }
                last = length;
            }
            assertFalse(replicas.get(2).isAlive(), "replica 3 was killed");
            // Atomic consolidation waits for every member: the calls after the kill succeed only
            // because the leader removed replica 3 and the client stopped waiting for it.
            assertEquals(CALLS, increasing, "every call succeeded and the log grew with each");
            assertEquals(CALLS, last, "the consolidated log length after the last call");
            final String digest = probes.get(0).digest();
            for (int i = 0; i < 2; i++)
            {
                assertEquals(CALLS, probes.get(i).executed(), "replica " + (i + 1) + " ran every call once: " + probes.get(i).counters());
                assertEquals(digest, probes.get(i).digest(), "the survivors' logs are identical");
            }
        }
        finally
        {
            client.shutdown(false);
            probeOrb.shutdown(false);
            replicas.forEach(ProcessHarness::close);
        }
    }
}
