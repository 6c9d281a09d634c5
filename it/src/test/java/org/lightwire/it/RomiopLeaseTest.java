package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import org.lightwire.romiop.RomiopExceptions;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.ORB;
import org.omg.CORBA.TRANSIENT;

/**
 * The leader's lease over real processes: a group of five loses two followers (kill -9; the
 * leader removes them from its view, its configuration keeps them) and calls go on; then a third
 * (removed too: most of the view still answers, so the leader does not step down). The leader now
 * hears two of five, orders nothing and answers the next call with UNAVAILABLE: the call fails
 * with TRANSIENT 0x4C570107, COMPLETED_MAYBE, at once rather than at the consolidation timeout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RomiopLeaseTest
{
    @Test
    void aLeaderHearingTwoOfFiveFailsTheNextCallAtOnceWithTransient() throws Exception
    {
        final String link = "fanout";
        final Map<String, String> p = RomiopGroupFixture.orbProperties(link);
        p.put("jacorb.lightwire.romiop.keepalive_ms", "100");
        p.put("jacorb.lightwire.romiop.keepalive_timeout_ms", "500");
        final String members = RomiopGroupFixture.memberList(link, 5);
        final String groupAddress = "239.255.8.30:" + (20000 + (int)(ProcessHandle.current().pid() % 20000));
        final List<ProcessHarness> replicas = new ArrayList<>();
        final ORB client = Orbs.init(p);
        try
        {
            for (int id = 1; id <= 5; id++)
            {
                replicas.add(RomiopGroupFixture.startReplica(p, "lease", groupAddress, members, id, Map.of()));
            }
            final replicated_log group = replicated_logHelper.narrow(client.string_to_object(replicas.get(0).ior("group")));
            assertEquals(1, group.append(1, 0));
            final replica_probe leader = replica_probeHelper.narrow(client.string_to_object(replicas.get(0).ior("probe")));
            replicas.get(4).kill();
            replicas.get(3).kill();
            awaitCounters(leader, "membersRemoved=2");
            assertEquals(2, group.append(1, 1), "three of five are a majority: the group goes on");
            replicas.get(2).kill();
            awaitCounters(leader, "leaseLost=1");
            final long startNs = System.nanoTime();
            try
            {
                group.append(1, 2);
                fail("a leader that hears two of five ordered a call");
            }
            catch (final TRANSIENT e)
            {
                final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
                assertEquals(RomiopExceptions.MINOR_GROUP_UNAVAILABLE, e.minor, e.getMessage());
                assertEquals(CompletionStatus.COMPLETED_MAYBE, e.completed);
                assertTrue(e.getMessage().contains("members present [1, 2] of [1, 2, 3, 4, 5], a majority needs 3"), e.getMessage());
                assertTrue(elapsedMs < 3_000, "failed after " + elapsedMs + " ms; the consolidation timeout is 10 s");
            }
        }
        finally
        {
            client.shutdown(false);
            replicas.forEach(ProcessHarness::close);
        }
    }

    /** Waits, at most 10 s, until the replica's counters (read over IIOP) say {@code what}. */
    private static void awaitCounters(final replica_probe probe, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String counters = probe.counters();
        while (!counters.contains(what))
        {
            assertTrue(System.nanoTime() - deadline < 0, "timed out waiting for " + what + ": " + counters);
            Thread.sleep(20);
            counters = probe.counters();
        }
    }
}
