package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.it.idl.lwtest.replica_probe;
import org.lightwire.it.idl.lwtest.replica_probeHelper;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.omg.CORBA.ORB;

/**
 * Membership end to end (paper, section 4.1): a fourth replica joins a running group of three
 * ({@code jacorb.lightwire.romiop.join=true}), takes the group's state (the log of the calls
 * ordered before it joined, through {@code LightwireFT::Checkpointable}) and executes exactly the
 * calls ordered after; then a replica leaves in order and announces it, and the leader removes it
 * long before its KeepAlive timeout (60 s) could; then it returns, rejoins and takes the state
 * again. Every replica's log is the whole log, so the calls use atomic consolidation: every
 * member's reply (the log's length) must agree.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RomiopJoinTest
{
    private static final int PHASE = 300;

    private static Map<String, String> common()
    {
        final Map<String, String> p = RomiopGroupFixture.orbProperties("multicast");
        p.put("jacorb.lightwire.romiop.keepalive_ms", "100");
        p.put("jacorb.lightwire.romiop.keepalive_timeout_ms", "60000");
        return p;
    }

    private static void call(final replicated_log group, final int from, final int to)
    {
        for (int seq = from; seq < to; seq++)
        {
            group.append(1, seq);
        }
    }

    private static void awaitExecuted(final replica_probe probe, final long calls) throws InterruptedException
    {
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (probe.executed() < calls && System.nanoTime() - end < 0)
        {
            Thread.sleep(20);
        }
        assertEquals(calls, probe.executed(), probe.counters());
    }

    private static int[] range(final int from, final int to)
    {
        return IntStream.range(from, to).toArray();
    }

    /** @return the states the replicas at {@code indexes} gave to joiners. */
    private static long statesGiven(final List<replica_probe> probes, final int... indexes)
    {
        long given = 0;
        for (final int i : indexes)
        {
            given += RomiopGroupFixture.counter(probes.get(i).counters(), "statesServed");
        }
        return given;
    }

    /** The joiner took the log of the first {@code installed} calls as its state and executed the rest. */
    private static void assertTookState(final replica_probe joiner, final int installed, final int total, final String who)
    {
        assertEquals(installed, joiner.installed(), who + " took the log before it joined: " + joiner.counters());
        assertEquals(1, RomiopGroupFixture.counter(joiner.counters(), "statesApplied"), who + ": " + joiner.counters());
        assertArrayEquals(range(0, total), joiner.execution_seqs(), who + " holds the whole log");
    }

    @Test
    void aJoinerTakesTheGroupsStateAndRunsWhatIsOrderedAfterAndALeaverIsRemovedAtOnce() throws Exception
    {
        final String groupAddress = "239.255.8.30:" + (20000 + (int)(ProcessHandle.current().pid() % 10000));
        final List<ProcessHarness> replicas = new ArrayList<>();
        final ORB client = Orbs.init(common());
        final ORB probeOrb = Orbs.init(Map.of());
        try
        {
            for (int id = 1; id <= 3; id++)
            {
                replicas.add(RomiopGroupFixture.startReplica(common(), "joining", groupAddress, "1,2,3", id, Map.of()));
            }
            final replicated_log group = replicated_logHelper.narrow(client.string_to_object(replicas.get(0).ior("group")));
            final List<replica_probe> probes = new ArrayList<>();
            for (final ProcessHarness h : replicas)
            {
                probes.add(replica_probeHelper.narrow(probeOrb.string_to_object(h.ior("probe"))));
            }
            call(group, 0, PHASE);

            replicas.add(RomiopGroupFixture.startReplica(common(), "joining", groupAddress, "1,2,3,4", 4,
                Map.of("jacorb.lightwire.romiop.join", "true")));
            probes.add(replica_probeHelper.narrow(probeOrb.string_to_object(replicas.get(3).ior("probe"))));
            Await.leaderView(probes.get(0), "[1, 2, 3, 4]");
            call(group, PHASE, 2 * PHASE);
            for (int i = 0; i < 3; i++)
            {
                awaitExecuted(probes.get(i), 2 * PHASE);
                assertArrayEquals(range(0, 2 * PHASE), probes.get(i).execution_seqs(), "replica " + (i + 1));
            }
            awaitExecuted(probes.get(3), 2 * PHASE);
            assertTookState(probes.get(3), PHASE, 2 * PHASE, "the joiner");
            assertEquals(probes.get(0).digest(), probes.get(3).digest());
            assertEquals(1, statesGiven(probes, 0, 1, 2, 3), "one state given for the join");
            final long givenBefore = statesGiven(probes, 0, 2, 3);

            // Replica 2 leaves in order: its announcement, not the 60 s KeepAlive timeout, removes it.
            probes.get(1).leave();
            Await.leaderView(probes.get(0), "[1, 3, 4]");
            call(group, 2 * PHASE, 3 * PHASE);
            for (final int i : new int[] {0, 2})
            {
                awaitExecuted(probes.get(i), 3 * PHASE);
                assertArrayEquals(range(0, 3 * PHASE), probes.get(i).execution_seqs(), "replica " + (i + 1));
            }
            awaitExecuted(probes.get(3), 3 * PHASE);
            assertTookState(probes.get(3), PHASE, 3 * PHASE, "the joiner after the leave");

            // Replica 2 returns (a new process, the same member id) and rejoins.
            replicas.get(1).close();
            replicas.set(1, RomiopGroupFixture.startReplica(common(), "joining", groupAddress, "1,2,3,4", 2,
                Map.of("jacorb.lightwire.romiop.join", "true")));
            probes.set(1, replica_probeHelper.narrow(probeOrb.string_to_object(replicas.get(1).ior("probe"))));
            Await.leaderView(probes.get(0), "[1, 2, 3, 4]");
            call(group, 3 * PHASE, 4 * PHASE);
            awaitExecuted(probes.get(0), 4 * PHASE);
            assertArrayEquals(range(0, 4 * PHASE), probes.get(0).execution_seqs());
            awaitExecuted(probes.get(1), 4 * PHASE);
            assertTookState(probes.get(1), 3 * PHASE, 4 * PHASE, "the returning replica");
            for (final replica_probe p : probes)
            {
                assertEquals(probes.get(0).digest(), p.digest(), "every log the same: " + p.counters());
            }
            assertEquals(1, statesGiven(probes, 0, 2, 3) - givenBefore, "one state given for the rejoin");
        }
        finally
        {
            client.shutdown(false);
            probeOrb.shutdown(false);
            replicas.forEach(ProcessHarness::close);
        }
    }
}
