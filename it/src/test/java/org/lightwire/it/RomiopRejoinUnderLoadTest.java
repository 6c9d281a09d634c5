package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.lightwire.it.idl.lwtest.replica_probe;
import org.lightwire.it.idl.lwtest.replica_probeHelper;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.omg.CORBA.ORB;

/**
 * A soak (not in the test run): a group of three real replicas with start counts, one client
 * appending without pause (atomic calls, 3 s consolidation timeout), and replica 1, a member
 * (not the leader), started again {@code -Dromiop.rejoins=N} times, killed (kill -9) between. Each time it rejoins, takes a state and is
 * counted by the client from the LIST that admits it: every call must succeed, whatever part of
 * the rejoin it overlaps, and at the end replica 1 has executed what replica 2 did. About 4 s a
 * rejoin: {@code mvn -pl it -am test -Dtest=RomiopRejoinUnderLoadTest -Dromiop.rejoins=30}.
 */
@EnabledIfSystemProperty(named = "romiop.rejoins", matches = "\\d+", disabledReason = "a soak: set -Dromiop.rejoins=N")
@Timeout(value = 1, unit = TimeUnit.HOURS)
class RomiopRejoinUnderLoadTest
{
    @TempDir
    Path dir;

    private Map<String, String> common()
    {
        final Map<String, String> p = RomiopGroupFixture.countedStartProperties(dir);
        p.put("jacorb.lightwire.romiop.consolidation.timeout_ms", "3000");
        return p;
    }

    @Test
    void everyCallSucceedsWhileAReplicaRejoinsAgainAndAgain() throws Exception
    {
        final int rejoins = Integer.getInteger("romiop.rejoins");
        final String address = "239.255.8.52:" + (20000 + (int)(ProcessHandle.current().pid() % 10000));
        final List<ProcessHarness> replicas = new ArrayList<>();
        final ORB client = Orbs.init(common());
        final ORB probeOrb = Orbs.init(Map.of());
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger calls = new AtomicInteger();
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        Thread caller = null;
        try
        {
            for (int id = 1; id <= 3; id++)
            {
                replicas.add(RomiopGroupFixture.startReplica(common(), "counted", address, "1,2,3", id, Map.of()));
            }
            final replica_probe two = replica_probeHelper.narrow(probeOrb.string_to_object(replicas.get(1).ior("probe")));
            final replicated_log group = replicated_logHelper.narrow(client.string_to_object(replicas.get(1).ior("group")));
            // Replica 1 leads first: killed before the first call (which starts 2's and 3's
            // clocks; it fails until they take over), 2 leads from then on, and every rejoin of 1
            // is a member's (a leader's failover is another test's).
            replicas.get(0).kill();
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            boolean first = false;
            while (!first)
            {
                try
                {
                    group.append(1, 0);
                    first = true;
                }
                catch (final org.omg.CORBA.SystemException e)
                {
                    assertTrue(System.nanoTime() < deadlineNs, "no call succeeded in 60 s: " + e + "; " + two.counters());
                }
            }
            Await.leaderView(two, "[2, 3]");
            final int[] rejoin = {0};
            caller = new Thread(() ->
            {
                while (!stop.get())
                {
                    final int seq = calls.getAndIncrement();
                    try
                    {
                        group.append(2, seq);
                    }
                    catch (final org.omg.CORBA.SystemException e)
                    {
                        failures.add("call " + seq + " during rejoin " + rejoin[0] + ": " + e.getMessage());
                    }
                }
            }, "caller");
            caller.start();
            for (rejoin[0] = 1; rejoin[0] <= rejoins; rejoin[0]++)
            {
                replicas.set(0, RomiopGroupFixture.startReplica(common(), "counted", address, "1,2,3", 1, Map.of()));
                Await.leaderView(two, "[1, 2, 3]");
                // Calls go on with the rejoined replica counted before it is killed again.
                final int counted = calls.get() + 200;
                Await.until(() -> calls.get() >= counted || stop.get(), () -> "200 calls with replica 1 rejoined: " + failures);
                if (rejoin[0] < rejoins)
                {
                    replicas.get(0).kill();
                    Await.leaderView(two, "[2, 3]");
                }
            }
            stop.set(true);
            caller.join();
            final replica_probe one = replica_probeHelper.narrow(probeOrb.string_to_object(replicas.get(0).ior("probe")));
            Await.until(() -> one.executed() == two.executed(), () -> "replica 1 " + one.counters() + " / replica 2 " + two.counters());
            System.out.println("RomiopRejoinUnderLoadTest: " + rejoins + " rejoins, " + calls.get() + " calls, " + failures.size() + " failed");
            assertEquals(List.of(), List.copyOf(failures), failures.size() + " of " + calls.get() + " calls failed");
        }
        finally
        {
            stop.set(true);
            if (caller != null)
            {
                caller.join(TimeUnit.SECONDS.toMillis(30));
            }
            client.shutdown(false);
            probeOrb.shutdown(false);
            replicas.forEach(ProcessHarness::close);
        }
    }
}
