package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
 * kill -9 of one of three replicas in the middle of a run of calls with atomic consolidation.
 * Atomic consolidation waits for every member of the client's view, so the calls after the kill
 * succeed only once the group has removed the dead replica and told the client: a follower is
 * removed by the leader's KeepAlive probes; a dead leader is replaced by the lowest surviving id,
 * which agrees with the other survivor on the last ordered request and orders what was held but
 * not ordered. Every call succeeds, and the survivors execute every call once, in the same order.
 * (With {@code keepalive_ms=0} both tests fail after the 10 s consolidation timeout: checked.)
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RomiopCrashTest
{
    private static final int CALLS = 1500;
    private static final int KILL_AT = 400;

    @Test
    void everyCallSucceedsAndTheSurvivorsStayIdenticalWhenAFollowerIsKilled() throws Exception
    {
        killMidRun("fanout", 3, 0);
    }

    @Test
    void everyCallSucceedsAndTheSurvivorsStayIdenticalWhenTheLeaderIsKilled() throws Exception
    {
        // Every fifth call a oneway: it must reach the survivors once, in order, across the failover.
        killMidRun("multicast", 1, 5);
    }

    private static Map<String, String> common(final String link)
    {
        final Map<String, String> p = RomiopGroupFixture.orbProperties(link);
        p.put("jacorb.lightwire.romiop.keepalive_ms", "100");
        p.put("jacorb.lightwire.romiop.keepalive_timeout_ms", "500");
        return p;
    }

    private static String survivorCounters(final List<replica_probe> probes, final int killed)
    {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < probes.size(); i++)
        {
            if (i != killed - 1)
            {
                b.append(probes.get(i).counters()).append("; ");
            }
        }
        return b.toString();
    }

    /**
     * @param killed      the replica killed after {@link #KILL_AT} calls (1 is the leader).
     * @param onewayEvery every n-th call is a oneway (0: none); the last call stays two-way.
     */
    private static void killMidRun(final String link, final int killed, final int onewayEvery) throws Exception
    {
        final String members = RomiopGroupFixture.memberList(link, 3);
        final String groupAddress = "239.255.8." + (8 + killed) + ":" + (20000 + (int)(ProcessHandle.current().pid() % 20000));
        final List<ProcessHarness> replicas = new ArrayList<>();
        final ORB client = Orbs.init(common(link));
        final ORB probeOrb = Orbs.init(Map.of());
        try
        {
            for (int id = 1; id <= 3; id++)
            {
                replicas.add(RomiopGroupFixture.startReplica(common(link), "crash" + killed, groupAddress, members, id, Map.of()));
            }
            final int firstSurvivor = killed == 1 ? 1 : 0;
            final replicated_log group = replicated_logHelper.narrow(client.string_to_object(replicas.get(firstSurvivor).ior("group")));
            final List<replica_probe> probes = new ArrayList<>();
            for (final ProcessHarness h : replicas)
            {
                probes.add(replica_probeHelper.narrow(probeOrb.string_to_object(h.ior("probe"))));
            }
            long last = 0;
            int increasing = 0;
            int oneways = 0;
            for (int seq = 0; seq < CALLS; seq++)
            {
                if (seq == KILL_AT)
                {
                    replicas.get(killed - 1).kill();
                }
                if (onewayEvery > 0 && seq % onewayEvery == onewayEvery - 2)
                {
                    group.append_oneway(1, seq);
                    oneways++;
                    continue;
                }
                final long length;
                try
                {
                    length = group.append(1, seq);
                }
                catch (final org.omg.CORBA.SystemException e)
                {
                    throw new AssertionError("call " + seq + " failed: " + e.getMessage() + "; " + survivorCounters(probes, killed) +
                        "; client " + org.lightwire.romiop.RomiopFactories.of(client).clientCounters(), e);
                }
                if (length > last)
                {
                    increasing++;
                }
                last = length;
            }
            assertFalse(replicas.get(killed - 1).isAlive(), "replica " + killed + " was killed");
            assertEquals(CALLS - oneways, increasing, "every two-way call succeeded and the log grew with each");
            assertEquals(CALLS, last, "the consolidated log length after the last call, which is two-way");
            final String digest = probes.get(firstSurvivor).digest();
            final int[] order = probes.get(firstSurvivor).execution_clients();
            for (int i = 0; i < 3; i++)
            {
                if (i != killed - 1)
                {
                    assertEquals(CALLS, probes.get(i).executed(), "replica " + (i + 1) + " ran every call once: " + probes.get(i).counters());
                    assertEquals(digest, probes.get(i).digest(), "the survivors' logs are identical");
                    assertArrayEquals(order, probes.get(i).execution_clients());
                }
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
