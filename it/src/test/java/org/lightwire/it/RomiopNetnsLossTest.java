package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lightwire.it.idl.lwtest.replica_probe;
import org.lightwire.it.idl.lwtest.replica_probeHelper;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.lightwire.it.partition.FaultInjector;
import org.lightwire.it.partition.NetnsNetwork;
import org.lightwire.it.servant.ReplicatedLogServant;
import org.lightwire.it.servant.TtcpPattern;
import org.lightwire.romiop.RomiopConfig;
import org.omg.CORBA.ORB;

/**
 * Replicas as separate hosts: each of three replica JVMs in its own network namespace, joined to
 * the client's by a bridge (multicast snooping off), the group multicast across it, and iptables
 * in every replica's namespace dropping 5% of its UDP datagrams at random in each direction
 * ({@code -m statistic}). Two-way calls with atomic consolidation and oneways from one client,
 * then requests of five pieces each (larger than a packet), then calls whose replies come in five
 * pieces from each replica: every two-way call gets its reply (byte for byte), and every replica executes every call once, in the client's order, every byte intact (its
 * execution log's digest equals the one the test computes). Needs root, {@code ip} and {@code iptables}; skipped with the reason
 * otherwise. The network is a {@link NetnsNetwork}: its addresses exist only on the bridge and veths
 * it makes, and it deletes them, the namespaces and their rules afterwards. Run twice:
 * with the client multicasting its requests (Figure 4), and sending them to the sequencer alone
 * ({@code requests_to_sequencer}), which carries them in its orders.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RomiopNetnsLossTest
{
    private static final int REPLICAS = 3;
    private static final int CALLS = 1200;
    private static final int ONEWAY_EVERY = 3;
    /** Then requests of five pieces each (300,000 bytes), whose pieces are lost and resent like any request. */
    private static final int LARGE_CALLS = 20;
    private static final int LARGE_BYTES = 300_000;
    /** Calls whose replies go in pieces (300,028 bytes of GIOP reply: 5 pieces from each replica). */
    private static final int LARGE_REPLY_CALLS = 10;
    private static final int REPLY_WINDOW_BYTES = 131_072;
    private static final String DROP_PROBABILITY = "0.05";

    @ParameterizedTest(name = "requests_to_sequencer={0}")
    @ValueSource(booleans = {false, true})
    void replicasOnSeparateHostsWithFivePercentLossStayIdentical(final boolean toSequencer) throws Exception
    {
        Shell.assumeRootNetworking("network namespaces, a bridge and iptables rules");
        final long pid = ProcessHandle.current().pid();
        final List<ProcessHarness> replicas = new ArrayList<>();
        ORB client = null;
        ORB probeOrb = null;
        NetnsNetwork network = null;
        try
        {
            network = NetnsNetwork.create(REPLICAS);
            for (int id = 1; id <= REPLICAS; id++)
            {
                for (final String chain : new String[] {"INPUT", "OUTPUT"})
                {
                    network.inside(id, "iptables", "-A", chain, "-p", "udp", "-m", "statistic", "--mode", "random",
                        "--probability", DROP_PROBABILITY, "-j", "DROP");
                }
            }
            final String groupAddress = "239.255." + (pid % 250 + 1) + ".9:" + (21000 + pid % 20000);
            final String members = RomiopGroupFixture.memberList("multicast", REPLICAS);
            for (int id = 1; id <= REPLICAS; id++)
            {
                final String address = network.address(id);
                final Map<String, String> p = RomiopGroupFixture.orbProperties("multicast");
                p.put("jacorb.lightwire.romiop.interface", network.device(id));
                p.put("jacorb.lightwire.romiop.host", address);
                p.put(Orbs.LISTEN_ADDRESS, address);
                // A FIFO wait long enough for many retransmissions: at 5% loss a request lost 25
                // times in a row is beyond this test, so the client's order must hold exactly.
                replicas.add(RomiopGroupFixture.startReplicaUnder(network.prefix(id), p, "lossy", groupAddress,
                    members, id, Map.of("jacorb.lightwire.romiop.fifo_wait_ms", "500",
                        // Two pieces of 65,000 bytes in flight: each 5-piece reply goes through the window.
                        RomiopConfig.REPLY_WINDOW_BYTES, Integer.toString(REPLY_WINDOW_BYTES))));
            }
            final Map<String, String> c = RomiopGroupFixture.orbProperties("multicast");
            c.put("jacorb.lightwire.romiop.interface", network.bridge());
            c.put("jacorb.lightwire.romiop.host", network.bridgeAddress());
            c.put("jacorb.lightwire.romiop.requests_to_sequencer", Boolean.toString(toSequencer));
            client = Orbs.init(c);
            probeOrb = Orbs.init(Map.of());
            final replicated_log group = replicated_logHelper.narrow(client.string_to_object(replicas.get(0).ior("group")));
            long last = 0;
            int increasing = 0;
            int twoWays = 0;
            for (int seq = 0; seq < CALLS; seq++)
            {
                if (seq % ONEWAY_EVERY == ONEWAY_EVERY - 1)
                {
                    group.append_oneway(1, seq);
                    continue;
                }
                twoWays++;
                final long length = group.append(1, seq);
                if (length > last)
                {
                    increasing++;
                }
                last = length;
            }
            assertEquals(twoWays, increasing, "every two-way call got its consolidated reply, the log growing each time");
            final java.security.MessageDigest expected = java.security.MessageDigest.getInstance("SHA-256");
            for (int seq = 0; seq < CALLS; seq++)
            {
                expected.update(ReplicatedLogServant.line(1, seq, "").getBytes(StandardCharsets.US_ASCII));
            }
            for (int seq = CALLS; seq < CALLS + LARGE_CALLS; seq++)
            {
                assertEquals(seq + 1, group.append_checked(1, seq, TtcpPattern.create(seq, LARGE_BYTES)), "the log's length after call " + seq);
                expected.update(ReplicatedLogServant.line(1, seq, ReplicatedLogServant.checkedLine(LARGE_BYTES, true))
                    .getBytes(StandardCharsets.US_ASCII));
            }
            for (int seq = CALLS + LARGE_CALLS; seq < CALLS + LARGE_CALLS + LARGE_REPLY_CALLS; seq++)
            {
                assertArrayEquals(TtcpPattern.create(seq, LARGE_BYTES), group.append_and_return(1, seq, LARGE_BYTES), "the reply to call " + seq);
                expected.update(ReplicatedLogServant.line(1, seq, "").getBytes(StandardCharsets.US_ASCII));
            }
            final int all = CALLS + LARGE_CALLS + LARGE_REPLY_CALLS;
            final String expectedDigest = java.util.HexFormat.of().formatHex(expected.digest());
            final List<replica_probe> probes = new ArrayList<>();
            for (final ProcessHarness h : replicas)
            {
                probes.add(replica_probeHelper.narrow(probeOrb.string_to_object(h.ior("probe"))));
            }
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (probes.stream().anyMatch(p -> p.executed() < all) && System.nanoTime() - end < 0)
            {
                Thread.sleep(50);
            }
            for (int i = 0; i < REPLICAS; i++)
            {
                assertEquals(all, probes.get(i).executed(), "replica " + (i + 1) + " ran every call once: " + probes.get(i).counters());
                assertEquals(expectedDigest, probes.get(i).digest(), "replica " + (i + 1) + " ran every call once, in order, every byte intact: " +
                    probes.get(i).counters());
                final String counters = probes.get(i).counters();
                org.junit.jupiter.api.Assertions.assertTrue(counters.contains("replyFragmentsSent=" + 5 * LARGE_REPLY_CALLS + ","), counters);
                // At least 3 of each reply's 5 pieces waited for ACKs (more when the last reply's were not all ACKed yet).
                org.junit.jupiter.api.Assertions.assertTrue(RomiopGroupFixture.counter(counters, "replyFragmentsHeld") >= 3 * LARGE_REPLY_CALLS, counters);
                assertEquals(all, probes.get(i).in_order(), "replica " + (i + 1) + " ran the client's calls in the order it made them");
                // The loss must really have happened, or the test proves nothing.
                final long dropped = FaultInjector.droppedBy(network.inside(i + 1, "iptables", "-L", "-v", "-x", "-n"));
                org.junit.jupiter.api.Assertions.assertTrue(dropped > 0, "no datagram dropped in " + network.namespace(i + 1));
            }
            final String leader = probes.get(0).counters();
            final boolean carried = leader.matches("(?s).*\\brequestsCarried=[1-9].*");
            assertEquals(toSequencer, carried, "the leader carried requests in its orders only when sent them alone: " + leader);
        }
        finally
        {
            if (client != null)
            {
                client.shutdown(false);
            }
            if (probeOrb != null)
            {
                probeOrb.shutdown(false);
            }
            replicas.forEach(ProcessHarness::close);
            if (network != null)
            {
                // Deleting the namespaces deletes their veths and rules.
                network.close();
            }
        }
    }
}
