package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.TestInstance;
import org.lightwire.it.idl.lwtest.replica_probe;
import org.lightwire.romiop.CallPolicy;
import org.lightwire.romiop.CallPolicyInitializer;
import org.lightwire.romiop.RomiopConfig;
import org.lightwire.romiop.RomiopExceptions;
import org.lightwire.romiop.RomiopFactories;
import org.lightwire.it.servant.TtcpPattern;
import org.lightwire.it.idl.lwtest.replica_probeHelper;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.IMP_LIMIT;
import org.omg.CORBA.INTERNAL;
import org.omg.CORBA.ORB;
import org.omg.CORBA.SystemException;
import org.omg.CORBA.TRANSIENT;

/**
 * Reply consolidation end to end: three replica JVMs in one group (fan-out on loopback), one of
 * them faulty (it answers 1,000 more than it should) and one late (it answers 1.5 s late), and
 * client ORBs in this JVM, each with its own consolidation policy. Each call's outcome, the CORBA
 * exception and its message are checked exactly; the replicas' execution logs stay identical,
 * since consolidation happens at the client only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RomiopConsolidationTest
{
    private static final int FAULTY = 3;
    private static final int LATE = 2;
    private static final long LATE_MS = 1500;
    /** The late replica also takes this long over each oneway: a slow servant. */
    private static final long ONEWAY_MS = 5;
    private static final int DELIVERY_QUEUE = 8;
    private static final int FLOOD = 300;
    /** The replicas' jacorb.lightwire.romiop.max_reply_bytes. */
    private static final int MAX_REPLY_BYTES = 300_000;

    private final List<ProcessHarness> replicas = new ArrayList<>();
    private final List<ORB> orbs = new ArrayList<>();
    private String groupIor;
    private List<replica_probe> probes;

    private static Map<String, String> common()
    {
        return RomiopGroupFixture.orbProperties("fanout");
    }

    @BeforeAll
    void startReplicas() throws Exception
    {
        final String members = RomiopGroupFixture.memberList("fanout", 3);
        try
        {
            for (int id = 1; id <= 3; id++)
            {
                replicas.add(RomiopGroupFixture.startReplica(common(), "votes", "239.255.7.7:5000", members, id, Map.of(
                    "lightwire.test.reply_offset", id == FAULTY ? "1000" : "0",
                    "lightwire.test.reply_delay_ms", id == LATE ? Long.toString(LATE_MS) : "0",
                    "lightwire.test.oneway_delay_ms", id == LATE ? Long.toString(ONEWAY_MS) : "0",
                    "jacorb.lightwire.romiop.delivery_queue", Integer.toString(DELIVERY_QUEUE),
                    RomiopConfig.MAX_REPLY_BYTES, Integer.toString(MAX_REPLY_BYTES))));
            }
            groupIor = replicas.get(0).ior("group");
            final ORB probeOrb = orb(Map.of());
            probes = new ArrayList<>();
            for (final ProcessHarness h : replicas)
            {
                probes.add(replica_probeHelper.narrow(probeOrb.string_to_object(h.ior("probe"))));
            }
        }
        catch (final Exception | Error e)
        {
            stop();
            throw e;
        }
    }

    @AfterAll
    void stop()
    {
        for (final ORB orb : orbs)
        {
            orb.shutdown(false);
        }
        replicas.forEach(ProcessHarness::close);
    }

    private ORB orb(final Map<String, String> props)
    {
        final ORB orb = Orbs.init(props);
        orbs.add(orb);
        return orb;
    }

    /** @return the group, from a client ORB whose consolidation policy is {@code policy}. */
    private replicated_log client(final Map<String, String> policy)
    {
        final Map<String, String> p = common();
        policy.forEach((k, v) -> p.put("jacorb.lightwire.romiop.group.votes.consolidation." + k, v));
        return replicated_logHelper.narrow(orb(p).string_to_object(groupIor));
    }

    /** Waits until every replica has executed {@code calls} calls, then @return replica 1's log length. */
    private long executedEverywhere(final long calls) throws InterruptedException
    {
        final long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (probes.stream().anyMatch(p -> p.executed() < calls) && System.nanoTime() - end < 0)
        {
            Thread.sleep(20);
        }
        return probes.get(0).executed();
    }

    private static String text(final SystemException e)
    {
        return e.getMessage();
    }

    @Test
    @Order(1)
    void everyPolicyGivesItsOutcomeAndTheReplicasStayIdentical() throws Exception
    {
        // Atomic, all the same (the default): the faulty replica's answer makes it inconsistent.
        final replicated_log atomic = client(Map.of());
        final INTERNAL inconsistent = assertThrows(INTERNAL.class, () -> atomic.append(1, 1));
        assertEquals(0x4C570022, inconsistent.minor);
        // Replicas 1 and 3 answer at once, in either order, replica 2 after 1.5 s.
        final String prefix = "INCONSISTENT_VOTE: 3 of 3 members replied (quorum 3); replies differ (all_same): ";
        assertTrue(text(inconsistent).contains(prefix + "2 x reply#1 from [1, 2]; 1 x reply#2 from [3]") ||
            text(inconsistent).contains(prefix + "1 x reply#1 from [3]; 2 x reply#2 from [1, 2]"), text(inconsistent));
        long calls = executedEverywhere(1);
        assertEquals(1, calls);

        // A majority of the group: the late replica's answer settles it, the faulty one is outvoted.
        final replicated_log majority = client(Map.of("mode", "first_consistent", "consistency", "majority"));
        assertEquals(2, majority.append(1, 2), "the correct log length, as replicas 1 and 2 answer");
        calls = executedEverywhere(2);

        // Atomic with a 500 ms timeout: the late replica misses it.
        final replicated_log impatient = client(Map.of("timeout_ms", "500"));
        final TRANSIENT noQuorum = assertThrows(TRANSIENT.class, () -> impatient.append(1, 3));
        assertEquals(0x4C570021, noQuorum.minor);
        assertTrue(text(noQuorum).contains("NO_QUORUM: 2 of 3 members replied within 500 ms; quorum 3 (atomic) not reached; missing: [2]"),
            text(noQuorum));
        calls = executedEverywhere(3);

        // A key member that is late: the quorum of 2 is met, but member 2 must answer.
        final replicated_log key = client(Map.of("quorum", "2", "key_members", "2", "timeout_ms", "500"));
        final TRANSIENT keyMissing = assertThrows(TRANSIENT.class, () -> key.append(1, 4));
        assertEquals(0x4C570023, keyMissing.minor);
        assertTrue(text(keyMissing).contains("KEY_MEMBER_MISSING: key member(s) [2] did not reply within 500 ms"), text(keyMissing));
        calls = executedEverywhere(4);

        // First reply: replicas 1 and 3 answer at once, so either the right value or the faulty one.
        final long first = client(Map.of("mode", "first_reply")).append(1, 5);
        assertTrue(first == 5 || first == 5 + 1000, "the first reply, from replica 1 or 3: " + first);
        calls = executedEverywhere(5);

        // Last reply: every member is awaited and the late replica's answer, the last, is the result.
        assertEquals(6, client(Map.of("mode", "last_reply")).append(1, 6));
        calls = executedEverywhere(6);

        // 51% of 3 members is 2 identical replies: the faulty one cannot make a pair, the late one does.
        assertEquals(7, client(Map.of("quorum", "51%")).append(1, 7));
        calls = executedEverywhere(7);

        // Atomic, all different: replicas 1 and 2 agree, which this consistency forbids.
        final replicated_log distinct = client(Map.of("consistency", "all_different"));
        final INTERNAL same = assertThrows(INTERNAL.class, () -> distinct.append(1, 8));
        assertEquals(0x4C570022, same.minor);
        assertTrue(text(same).contains("two members gave the same reply (all_different)"), text(same));
        calls = executedEverywhere(8);

        // Per call: the group's policy is atomic, one call says first_consistent + majority
        // (a service context, added by CallPolicyInitializer's interceptor), the next is atomic again.
        final Map<String, String> withInterceptor = common();
        withInterceptor.put("org.omg.PortableInterceptor.ORBInitializerClass." + CallPolicyInitializer.class.getName(), "");
        final replicated_log perCall = replicated_logHelper.narrow(orb(withInterceptor).string_to_object(groupIor));
        assertEquals(9, (long)CallPolicy.with("mode=first_consistent,consistency=majority", () -> perCall.append(1, 9)));
        calls = executedEverywhere(9);
        final INTERNAL atomicAgain = assertThrows(INTERNAL.class, () -> perCall.append(1, 10));
        assertEquals(0x4C570022, atomicAgain.minor);
        calls = executedEverywhere(10);

        final String digest = probes.get(0).digest();
        for (final replica_probe p : probes)
        {
            assertEquals(10, p.executed(), "every call ran on every replica, whatever the client decided: " + p.counters());
            assertEquals(digest, p.digest());
        }
        assertEquals(10, calls);
    }

    /**
     * A slow servant (5 ms a oneway on replica 2) under a burst of oneways: JacORB's POA queue
     * (100) and the plug-in's delivery queue (8 here) fill, and delivery then waits for the
     * servant instead of queueing without bound; no request is lost and the logs stay identical.
     */
    @Test
    @Order(2)
    void aSlowServantHoldsUpDeliveryInsteadOfQueueingWithoutBound() throws Exception
    {
        final long before = executedEverywhere(probes.get(0).executed());
        final replicated_log group = client(Map.of());
        for (int seq = 0; seq < FLOOD; seq++)
        {
            group.append_oneway(2, seq);
        }
        assertEquals(before + FLOOD, executedEverywhere(before + FLOOD));
        final String digest = probes.get(0).digest();
        for (final replica_probe p : probes)
        {
            assertEquals(before + FLOOD, p.executed(), p.counters());
            assertEquals(digest, p.digest());
        }
        final String slow = probes.get(LATE - 1).counters();
        final java.util.regex.Matcher stalls = java.util.regex.Pattern.compile("deliveryStalls=(\\d+)").matcher(slow);
        assertTrue(stalls.find(), slow);
        assertTrue(Long.parseLong(stalls.group(1)) > 0, "the slow replica's delivery waited for its servant: " + slow);
        assertTrue(slow.contains("messagesDropped=0"), slow);
    }

    /**
     * Replies of one packet and of four pieces come back whole from every replica (the consolidation
     * compares them byte for byte). A reply longer than the replicas' {@code max_reply_bytes}: every
     * replica executes the call and answers IMP_LIMIT, with the plug-in's minor code, in place of
     * the reply, so the caller gets that exception from the consolidation instead of waiting out
     * its timeout. JacORB closes a connection after a system exception reply
     * and opens another for the next call; the group's new end must reach the members as a new
     * client (random id) or, with a configured client id, continue the old end's numbering.
     */
    @Test
    @Order(3)
    void aReplyLargerThanAPacketComesInPiecesOneLargerThanMaxReplyBytesIsImpLimitFromEveryReplicaAndTheNextCallGoesThrough()
        throws Exception
    {
        final long before = executedEverywhere(probes.get(0).executed());

        largeRepliesThenMore(client(Map.of()), 3);
        final Map<String, String> configuredId = common();
        configuredId.put(RomiopConfig.CLIENT_ID, "70000");
        largeRepliesThenMore(replicated_logHelper.narrow(orb(configuredId).string_to_object(groupIor)), 4);

        assertEquals(before + 8, executedEverywhere(before + 8));
        final String digest = probes.get(0).digest();
        for (final replica_probe p : probes)
        {
            assertEquals(before + 8, p.executed(), p.counters());
            assertEquals(digest, p.digest());
            assertTrue(p.counters().contains("repliesTooLarge=2,"), p.counters());
            // 200,028 bytes of GIOP reply in pieces of 65,000 - 36 - 16 = 64,948 bytes: 4 pieces, twice.
            assertTrue(p.counters().contains("replyFragmentsSent=8,"), p.counters());
        }
    }

    private void largeRepliesThenMore(final replicated_log group, final int client)
    {
        final RomiopFactories factories = RomiopFactories.of(orbs.get(orbs.size() - 1));
        assertArrayEquals(TtcpPattern.create(1, 60_000), group.append_and_return(client, 1, 60_000));
        assertArrayEquals(TtcpPattern.create(2, 200_000), group.append_and_return(client, 2, 200_000), factories.clientCounters());
        final IMP_LIMIT tooLarge = assertThrows(IMP_LIMIT.class, () -> group.append_and_return(client, 3, 400_000));
        assertEquals(RomiopExceptions.MINOR_REPLY_TOO_LARGE, tooLarge.minor);
        assertEquals(CompletionStatus.COMPLETED_YES, tooLarge.completed);
        // The GIOP reply: 400,000 chars, their length and a 24-byte GIOP 1.2 reply head (no service context).
        assertTrue(tooLarge.getMessage().contains("ROMIOP group votes: ROMIOP: a reply of 400028 bytes is longer than " +
            "jacorb.lightwire.romiop.max_reply_bytes = " + MAX_REPLY_BYTES + ": the call was executed"), tooLarge.getMessage());
        assertTrue(factories.clientCounters().contains("groupsClosed=1"), "JacORB closed the connection: " + factories.clientCounters());

        assertArrayEquals(TtcpPattern.create(4, 100), group.append_and_return(client, 4, 100), factories.clientCounters());
        assertEquals(1, factories.openClientGroups(), factories.clientCounters());
    }
}
