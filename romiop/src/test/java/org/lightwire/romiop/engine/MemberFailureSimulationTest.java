package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A follower crashes in the middle of a run over a lossy, duplicating, reordering network: the
 * leader's KeepAlive probes find it silent and remove it, the clients stop waiting for its ACKs,
 * and the survivors go on delivering the identical sequence. A failure names its seed.
 */
class MemberFailureSimulationTest
{
    private static final int LEADER = 1;
    private static final int CRASHED = 3;
    private static final int[] MEMBERS = {1, 2, 3};
    private static final int[] CLIENTS = {101, 102};
    private static final int REQUESTS_PER_CLIENT = 600;
    private static final long MS = 1_000_000L;
    private static final long CRASH_NS = 6 * MS;
    private static final long MAX_SIM_NS = 60_000 * MS;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 11, 20261122})
    void survivorsDeliverEverythingIdenticallyAfterAFollowerCrashes(final long seed) throws Exception
    {
        try
        {
            run(seed);
        }
        catch (final AssertionError | RuntimeException e)
        {
            throw new AssertionError("member failure simulation failed with seed " + seed + ": " + e.getMessage(), e);
        }
    }

    private static void run(final long seed)
    {
        final SimulatedGroupNetwork net = new SimulatedGroupNetwork(seed, MEMBERS, 0.05, 0.03, 50_000L, 400_000L);
        final List<MemberEngine> members = new ArrayList<>();
        final List<List<String>> logs = new ArrayList<>();
        for (final int id : MEMBERS)
        {
            final List<String> log = new ArrayList<>();
            logs.add(log);
            final GroupConfig config = new GroupConfig(id, LEADER, MEMBERS)
                .retransmitTimeoutNs(5 * MS).nakDelayNs(1 * MS).keepAlive(20 * MS, 100 * MS);
            final MemberEngine engine = new MemberEngine(config, net.senderFor(id),
                (orderSeq, senderId, packetId, requestId, payload, offset, length) ->
                {
                    if (orderSeq != log.size() + 1)
                    {
                        throw new AssertionError("member " + id + " delivered order " + orderSeq + " after " + log.size());
                    }
                    log.add(StandardCharsets.US_ASCII.decode(payload.slice(offset, length)).toString());
                });
            members.add(engine);
            net.attach(id, engine::onPacket);
        }
        final List<GroupClientEngine> clients = new ArrayList<>();
        final List<int[]> views = new ArrayList<>();
        for (final int id : CLIENTS)
        {
            final GroupClientEngine client = new GroupClientEngine(
                new GroupConfig(id, LEADER, MEMBERS).retransmitTimeoutNs(5 * MS).maxOutstandingRequests(32), net.senderFor(id));
            client.membershipListener((memberIds, leader) -> views.add(memberIds));
            clients.add(client);
            net.attach(id, client::onPacket);
        }
        final int total = CLIENTS.length * REQUESTS_PER_CLIENT;
        final int[] sent = new int[CLIENTS.length];
        boolean crashed = false;
        long nowNs = 0;
        long nextSendNs = 0;
        while (!done(members, clients, total))
        {
            if (!crashed && nowNs >= CRASH_NS)
            {
                crashed = true;
                net.detach(CRASHED);
            }
            long next = Math.min(net.nextDeliveryNs(), nextSendNs);
            for (int i = 0; i < members.size(); i++)
            {
                if (!(crashed && MEMBERS[i] == CRASHED))
                {
                    next = Math.min(next, members.get(i).nextDeadlineNs());
                }
            }
            for (final GroupClientEngine c : clients)
            {
                next = Math.min(next, c.nextDeadlineNs());
            }
            if (!crashed)
            {
                next = Math.min(next, CRASH_NS);
            }
            if (next == Long.MAX_VALUE)
            {
                fail("stalled at " + nowNs + " ns");
            }
            nowNs = Math.max(nowNs, next);
            if (nowNs > MAX_SIM_NS)
            {
                fail("not done after " + MAX_SIM_NS + " simulated ns; delivered " + members.get(0).deliveredSeq() + ", " +
                    members.get(1).deliveredSeq() + "; outstanding " + clients.get(0).outstandingRequests() + ", " +
                    clients.get(1).outstandingRequests());
            }
            net.deliverDue(nowNs);
            if (nextSendNs <= nowNs)
            {
                boolean more = false;
                for (int c = 0; c < clients.size(); c++)
                {
                    if (sent[c] < REQUESTS_PER_CLIENT && clients.get(c).canMulticast())
                    {
                        final byte[] payload = (CLIENTS[c] + "/" + sent[c]).getBytes(StandardCharsets.US_ASCII);
                        clients.get(c).multicast(sent[c]++, 1, ByteBuffer.wrap(payload), 0, payload.length, nowNs);
                    }
                    more |= sent[c] < REQUESTS_PER_CLIENT;
                }
                nextSendNs = more ? nowNs + 30_000L : Long.MAX_VALUE;
            }
            for (int i = 0; i < members.size(); i++)
            {
                final MemberEngine m = members.get(i);
                if (!(crashed && MEMBERS[i] == CRASHED) && m.nextDeadlineNs() - nowNs <= 0)
                {
                    m.onTimer(nowNs);
                }
            }
            for (final GroupClientEngine c : clients)
            {
                if (c.nextDeadlineNs() - nowNs <= 0)
                {
                    c.onTimer(nowNs);
                }
            }
        }

        final List<String> leaderLog = logs.get(0);
        assertEquals(total, leaderLog.size());
        assertEquals(total, new HashSet<>(leaderLog).size(), "no request delivered twice");
        assertEquals(leaderLog, logs.get(1), "the surviving follower delivered the identical sequence");
        final List<String> crashedLog = logs.get(2);
        assertTrue(crashedLog.size() < total && crashedLog.equals(leaderLog.subList(0, crashedLog.size())),
            "the crashed member delivered a prefix of the same sequence: " + crashedLog.size());
        assertEquals(1, members.get(0).counters().membersRemoved(), "the leader removed exactly the crashed member");
        assertArrayEquals(new int[] {1, 2}, members.get(0).currentMembers());
        assertArrayEquals(new int[] {1, 2}, members.get(1).currentMembers(), "the follower was told");
        for (final GroupClientEngine c : clients)
        {
            assertEquals(REQUESTS_PER_CLIENT, c.counters().requestsCompleted());
            assertArrayEquals(new int[] {1, 2}, c.currentMembers());
        }
        assertEquals(CLIENTS.length, views.size(), "each client's listener heard the change once");
        assertTrue(net.dropped > 0 && net.duplicated > 0, "faults were injected");
    }

    private static boolean done(final List<MemberEngine> members, final List<GroupClientEngine> clients, final int total)
    {
        if (members.get(0).deliveredSeq() < total || members.get(1).deliveredSeq() < total)
        {
            return false;
        }
        for (final GroupClientEngine c : clients)
        {
            if (c.counters().requestsCompleted() < REQUESTS_PER_CLIENT)
            {
                return false;
            }
        }
        return true;
    }
}
