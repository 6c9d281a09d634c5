package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * State transfer end to end, through the servants' {@code LightwireFT::Checkpointable}: a
 * replica killed with kill -9 and started again with the same id (joining) takes the log of every
 * call ordered before it came back, so after more calls every replica's log is the same, entry
 * for entry and by digest, and atomic consolidation finds every reply the same; a replica whose
 * servant is not Checkpointable cannot take the state, and leaves. A group whose servants are
 * not Checkpointable takes a joiner while it has executed nothing, and refuses one after: the
 * joiner logs and counts the donor's reason and executes nothing.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RomiopStateTransferTest
{
    private static final int PHASE = 150;
    private static final String JOIN = "jacorb.lightwire.romiop.join";
    private static final String NOT_CHECKPOINTABLE = "does not implement LightwireFT::Checkpointable";

    private static Map<String, String> common()
    {
        final Map<String, String> p = RomiopGroupFixture.orbProperties("multicast");
        p.put("jacorb.lightwire.romiop.keepalive_ms", "100");
        p.put("jacorb.lightwire.romiop.keepalive_timeout_ms", "1000");
        return p;
    }

    private static String groupAddress(final int third)
    {
        return "239.255.8." + third + ":" + (20000 + (int)(ProcessHandle.current().pid() % 10000));
    }

    private static void call(final replicated_log group, final int from, final int to)
    {
        for (int seq = from; seq < to; seq++)
        {
            assertEquals(seq + 1, group.append(1, seq), "every member's log held " + seq + " entries before call " + seq);
        }
    }

    private static long counter(final replica_probe p, final String name)
    {
        return RomiopGroupFixture.counter(p.counters(), name);
    }

    private static replica_probe probe(final ORB orb, final ProcessHarness replica)
    {
        return replica_probeHelper.narrow(orb.string_to_object(replica.ior("probe")));
    }

    /** Every log holds exactly the calls 0 to {@code calls - 1}, in order, with one digest. */
    private static void assertSameLogs(final List<replica_probe> probes, final int calls) throws InterruptedException
    {
        for (final replica_probe p : probes)
        {
            Await.until(() -> p.executed() >= calls, () -> "executed " + p.executed() + " of " + calls + ": " + p.counters());
            assertArrayEquals(IntStream.range(0, calls).toArray(), p.execution_seqs(), p.counters());
            assertEquals(probes.get(0).digest(), p.digest(), p.counters());
        }
    }

    @Test
    void aReplicaRestartedAfterKillMinus9TakesTheStateAndEveryLogEndsTheSame() throws Exception
    {
        final String address = groupAddress(40);
        final List<ProcessHarness> replicas = new ArrayList<>();
        final ORB client = Orbs.init(common());
        final ORB probeOrb = Orbs.init(Map.of());
        try
        {
            for (int id = 1; id <= 3; id++)
            {
                replicas.add(RomiopGroupFixture.startReplica(common(), "state", address, "1,2,3", id, Map.of()));
            }
            final replicated_log group = replicated_logHelper.narrow(client.string_to_object(replicas.get(0).ior("group")));
            final List<replica_probe> probes = new ArrayList<>();
            replicas.forEach(r -> probes.add(probe(probeOrb, r)));
            call(group, 0, PHASE);

            // Replica 3 dies mid-run; the group goes on without it; it comes back with the same id.
            replicas.get(2).kill();
            call(group, PHASE, 2 * PHASE);
            replicas.set(2, RomiopGroupFixture.startReplica(common(), "state", address, "1,2,3", 3, Map.of(JOIN, "true")));
            probes.set(2, probe(probeOrb, replicas.get(2)));
            Await.leaderView(probes.get(0), "[1, 2, 3]");
            final replica_probe restarted = probes.get(2);
            Await.until(() -> counter(restarted, "statesApplied") == 1, restarted::counters);
            assertEquals(2 * PHASE, restarted.installed(), "the restarted replica took every entry from before its restart");
            call(group, 2 * PHASE, 3 * PHASE);
            assertSameLogs(probes, 3 * PHASE);
            assertEquals(PHASE, restarted.executed() - restarted.installed(), "it executed the calls after its return");
            assertEquals(1, counter(probes.get(0), "statesServed") + counter(probes.get(1), "statesServed"), "one state given");
            assertEquals(0, counter(restarted, "statesNotApplied") + counter(restarted, "joinsRefused"), restarted.counters());

            // A fourth replica whose servant is not Checkpointable gets the state but cannot take it: it leaves.
            replicas.add(RomiopGroupFixture.startReplica(common(), "state", address, "1,2,3,4", 4,
                Map.of(JOIN, "true", RomiopReplica.CHECKPOINTABLE, "false")));
            final replica_probe plain = probe(probeOrb, replicas.get(3));
            Await.until(() -> counter(plain, "statesNotApplied") == 1, plain::counters);
            assertTrue(plain.counters().contains(NOT_CHECKPOINTABLE + " (BAD_OPERATION from set_state): a replica without it may only " +
                "join an empty group; it leaves the group"), plain.counters());
            assertTrue(replicas.get(3).outputTail().contains(NOT_CHECKPOINTABLE), "logged: " + replicas.get(3).outputTail());
            Await.until(() -> plain.counters().contains("engine LEFT"), plain::counters);
            Await.leaderView(probes.get(0), "[1, 2, 3]");
            call(group, 3 * PHASE, 3 * PHASE + 10);
            assertSameLogs(probes, 3 * PHASE + 10);
            assertEquals(0, plain.executed(), "the replica without the state executed nothing");
            assertEquals(0, counter(plain, "statesApplied"));
        }
        finally
        {
            client.shutdown(false);
            probeOrb.shutdown(false);
            replicas.forEach(ProcessHarness::close);
        }
    }

    @Test
    void withoutCheckpointableAReplicaJoinsAnEmptyGroupButIsRefusedAfterRequests() throws Exception
    {
        final String address = groupAddress(41);
        final Map<String, String> plain = Map.of(RomiopReplica.CHECKPOINTABLE, "false");
        final List<ProcessHarness> replicas = new ArrayList<>();
        final ORB client = Orbs.init(common());
        final ORB probeOrb = Orbs.init(Map.of());
        try
        {
            for (int id = 1; id <= 3; id++)
            {
                replicas.add(RomiopGroupFixture.startReplica(common(), "plain", address, "1,2,3", id, plain));
            }
            final List<replica_probe> probes = new ArrayList<>();
            replicas.forEach(r -> probes.add(probe(probeOrb, r)));
            // Nothing ordered yet (an unchecked narrow asks the group nothing): no state is needed.
            replicas.add(RomiopGroupFixture.startReplica(common(), "plain", address, "1,2,3,4", 4, Map.of(JOIN, "true",
                RomiopReplica.CHECKPOINTABLE, "false")));
            probes.add(probe(probeOrb, replicas.get(3)));
            Await.leaderView(probes.get(0), "[1, 2, 3, 4]");
            final replicated_log group = replicated_logHelper.unchecked_narrow(client.string_to_object(replicas.get(0).ior("group")));
            call(group, 0, PHASE);
            assertSameLogs(probes, PHASE);
            for (final replica_probe p : probes)
            {
                assertEquals(0, counter(p, "statesServed") + counter(p, "statesNotServed") + counter(p, "statesApplied") +
                    counter(p, "joinsRefused"), "no state asked for: " + p.counters());
            }

            // After requests a joiner needs a state, which no member has: refused by each in turn, it stops.
            replicas.add(RomiopGroupFixture.startReplica(common(), "plain", address, "1,2,3,4,5", 5, Map.of(JOIN, "true",
                RomiopReplica.CHECKPOINTABLE, "false")));
            final replica_probe refused = probe(probeOrb, replicas.get(4));
            Await.until(() -> counter(refused, "joinsRefused") == 1, refused::counters);
            assertTrue(refused.counters().contains(NOT_CHECKPOINTABLE + " (BAD_OPERATION from get_state): a replica without it may only " +
                "join an empty group"), refused.counters());
            assertTrue(replicas.get(4).outputTail().contains(NOT_CHECKPOINTABLE), "logged: " + replicas.get(4).outputTail());
            // Each member is asked in turn (one may be asked again while its refusal is on the way): each get_state fails.
            long notServed = 0;
            for (final replica_probe p : probes)
            {
                notServed += counter(p, "statesNotServed");
                assertEquals(0, counter(p, "statesServed"), p.counters());
            }
            assertTrue(notServed >= 1, "a member was asked and could not give its state");
            Await.leaderView(probes.get(0), "[1, 2, 3, 4]");
            call(group, PHASE, PHASE + 10);
            assertSameLogs(probes, PHASE + 10);
            assertEquals(0, refused.executed(), "the refused replica executed nothing: " + refused.counters());
            assertEquals(0, counter(refused, "delivered"), refused.counters());
        }
        finally
        {
            client.shutdown(false);
            probeOrb.shutdown(false);
            replicas.forEach(ProcessHarness::close);
        }
    }
}
