package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.it.idl.lwtest.replica_probe;
import org.lightwire.it.idl.lwtest.replica_probeHelper;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
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
        final Map<String, String> p = RomiopGroupFixture.orbProperties("fanout");
        p.put("jacorb.lightwire.romiop.keepalive_ms", "100");
        p.put("jacorb.lightwire.romiop.member_timeout_ms", "500");
        return p;
    }

    @Test
    void everyCallSucceedsAndTheSurvivorsStayIdenticalWhenAFollowerIsKilled() throws Exception
    {
        final String members = RomiopGroupFixture.memberList("fanout", 3);
        final List<ProcessHarness> replicas = new ArrayList<>();
        final ORB client = Orbs.init(common());
        final ORB probeOrb = Orbs.init(Map.of());
        try
        {
            for (int id = 1; id <= 3; id++)
            {
                replicas.add(RomiopGroupFixture.startReplica(common(), "crash", "239.255.8.8:5000", members, id, Map.of()));
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
