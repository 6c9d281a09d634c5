package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tier 2: one leader and three members, two clients multicasting 2,000 requests over a seeded lossy,
 * duplicating, reordering network. Every member must deliver the identical sequence, with no gap
 * and no duplicate. A failure names its seed; rerun with that seed to replay it exactly.
 */
class GroupSimulationTest
{
    private static final int LEADER = 1;
    private static final int[] MEMBERS = {1, 2, 3, 4};
    private static final int[] CLIENTS = {101, 102};
    private static final int REQUESTS_PER_CLIENT = 1000;
    private static final long MAX_SIM_NS = 120_000_000_000L;
    /** At least the clients' window (32): the duplicate filter then never forgets a request still new to a member. */
    private static final int DUPLICATE_WINDOW = 32;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42, 20261122})
    void everyMemberDeliversTheSameSequenceDespiteLossDuplicationAndReordering(final long seed) throws Exception
    {
        try
        {
            run(seed, 0.05, 0.03, 1_000_000L, true, false);
        }
        catch (final AssertionError | RuntimeException e)
        {
            throw new AssertionError("group simulation failed with seed " + seed + " (replay: run(" + seed + ", ...)): " + e.getMessage(), e);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 8})
    void paperModeOrderIntervalStillDeliversEverythingInOrder(final long seed) throws Exception
    {
        try
        {
            run(seed, 0.05, 0.03, 10_000_000L, false, false);
        }
        catch (final AssertionError | RuntimeException e)
        {
            throw new AssertionError("group simulation failed with seed " + seed + ": " + e.getMessage(), e);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42})
    void requestsSentToTheSequencerAloneGiveTheSameGuarantees(final long seed) throws Exception
    {
        try
        {
            run(seed, 0.05, 0.03, 1_000_000L, true, true);
        }
        catch (final AssertionError | RuntimeException e)
        {
            throw new AssertionError("group simulation failed with seed " + seed + ": " + e.getMessage(), e);
        }
    }

    private static void run(final long seed, final double drop, final double dup, final long orderIntervalNs, final boolean atOnce,
        final boolean toSequencer) throws Exception
    {
        final SimulatedGroupNetwork net = new SimulatedGroupNetwork(seed, MEMBERS, drop, dup, 50_000L, 400_000L);
        final List<MemberEngine> members = new ArrayList<>();
        final List<List<String>> logs = new ArrayList<>();
        for (final int id : MEMBERS)
        {
            final List<String> log = new ArrayList<>();
            logs.add(log);
            final GroupConfig config = new GroupConfig(id, LEADER, MEMBERS)
                .orderInterval(orderIntervalNs, atOnce).retransmitTimeoutNs(5_000_000L).nakDelayNs(1_000_000L)
                .duplicateWindow(DUPLICATE_WINDOW);
            final MemberEngine[] self = new MemberEngine[1];
            final MemberEngine engine = new MemberEngine(config, net.senderFor(id),
                (orderSeq, senderId, packetId, requestId, payload, offset, length) ->
                {
                    if (orderSeq != log.size() + 1)
                    {
                        throw new AssertionError("member " + id + " delivered order " + orderSeq + " after " + log.size());
                    }
                    final String text = StandardCharsets.US_ASCII.decode(payload.slice(offset, length)).toString();
                    if (!text.equals(senderId + "/" + requestId))
                    {
                        throw new AssertionError("member " + id + " delivered payload " + text + " for " + senderId + "/" + requestId);
                    }
                    log.add(text);
                    // Every member answers each request with its own id, as a servant would.
                    final byte[] answer = (id + ":" + text).getBytes(StandardCharsets.US_ASCII);
                    self[0].sendReply(senderId, packetId, requestId, ByteBuffer.wrap(answer), 0, answer.length, net.nowNs());
                });
            self[0] = engine;
            members.add(engine);
            net.attach(id, engine::onPacket);
        }
        final List<GroupClientEngine> clients = new ArrayList<>();
        final int[] sentByClient = new int[CLIENTS.length];
        final List<Set<String>> repliesByClient = new ArrayList<>();
        for (final int id : CLIENTS)
        {
            final Set<String> replies = new HashSet<>();
            repliesByClient.add(replies);
            final GroupClientEngine client = new GroupClientEngine(
                new GroupConfig(id, LEADER, MEMBERS).retransmitTimeoutNs(5_000_000L).maxOutstandingRequests(32)
                    .requestsToSequencer(toSequencer), net.senderFor(id),
                (memberId, packetId, requestId, payload, offset, length) ->
                {
                    final String text = StandardCharsets.US_ASCII.decode(payload.slice(offset, length)).toString();
                    if (!text.equals(memberId + ":" + id + "/" + requestId) || !replies.add(text))
                    {
                        throw new AssertionError("client " + id + " got reply " + text + " from " + memberId + " for request " + requestId);
                    }
                });
            clients.add(client);
            net.attach(id, client::onPacket);
        }

        final long sendIntervalNs = 30_000L;
        long nextSendNs = 0;
        long nowNs = 0;
        final int total = CLIENTS.length * REQUESTS_PER_CLIENT;
        while (!done(members, clients, total))
        {
            long next = Math.min(net.nextDeliveryNs(), nextSendNs);
            for (final MemberEngine m : members)
            {
                next = Math.min(next, m.nextDeadlineNs());
            }
            for (final GroupClientEngine c : clients)
            {
                next = Math.min(next, c.nextDeadlineNs());
            }
            if (next == Long.MAX_VALUE)
            {
                fail("stalled at " + nowNs + " ns with nothing scheduled: " + state(members, clients));
            }
            nowNs = Math.max(nowNs, next);
            if (nowNs > MAX_SIM_NS)
            {
                fail("not done after " + MAX_SIM_NS + " simulated ns: " + state(members, clients));
            }
            net.deliverDue(nowNs);
            if (nextSendNs <= nowNs)
            {
                boolean more = false;
                for (int c = 0; c < clients.size(); c++)
                {
                    final GroupClientEngine client = clients.get(c);
                    if (sentByClient[c] < REQUESTS_PER_CLIENT && client.canMulticast())
                    {
                        final int requestId = sentByClient[c]++;
                        final byte[] payload = (CLIENTS[c] + "/" + requestId).getBytes(StandardCharsets.US_ASCII);
                        client.multicast(requestId, 1, ByteBuffer.wrap(payload), 0, payload.length, nowNs);
                    }
                    more |= sentByClient[c] < REQUESTS_PER_CLIENT;
                }
                nextSendNs = more ? nowNs + sendIntervalNs : Long.MAX_VALUE;
            }
            for (final MemberEngine m : members)
            {
                if (m.nextDeadlineNs() - nowNs <= 0)
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

        final String reference = digest(logs.get(0));
        for (int i = 0; i < MEMBERS.length; i++)
        {
            final List<String> log = logs.get(i);
            assertEquals(total, log.size(), "member " + MEMBERS[i] + " delivered count");
            final Set<String> distinct = new HashSet<>(log);
            assertEquals(total, distinct.size(), "member " + MEMBERS[i] + " delivered a duplicate");
            assertEquals(reference, digest(log), "member " + MEMBERS[i] + " delivered a different sequence");
            assertEquals(total, members.get(i).counters().delivered());
            assertEquals(CLIENTS.length * DUPLICATE_WINDOW, members.get(i).duplicateFilterSize(), "the filter is bounded, not the history");
        }
        for (int c = 0; c < clients.size(); c++)
        {
            assertEquals(REQUESTS_PER_CLIENT, clients.get(c).counters().requestsCompleted());
            assertEquals(MEMBERS.length * REQUESTS_PER_CLIENT, repliesByClient.get(c).size(), "client " + CLIENTS[c] + " replies");
            assertEquals(MEMBERS.length * REQUESTS_PER_CLIENT, clients.get(c).counters().repliesDelivered());
        }
        for (final MemberEngine m : members)
        {
            assertEquals(total, m.counters().repliesSent());
            assertEquals(0, m.counters().repliesAbandoned());
        }
        // The faults must really have been exercised, or the test proves nothing.
        assertTrue(net.dropped > 0 && net.duplicated > 0, "no faults injected: " + net.dropped + " dropped, " + net.duplicated + " duplicated");
        long recoveries = 0;
        for (final MemberEngine m : members)
        {
            recoveries += m.counters().orderNaksSent() + m.counters().requestNaksSent() + m.counters().duplicateRequests();
        }
        assertTrue(recoveries > 0, "no NAK or duplicate ever happened: " + state(members, clients));

        final GroupCounters leader = members.get(0).counters();
        long toLeader = 0;
        for (final GroupClientEngine c : clients)
        {
            toLeader += c.counters().requestsToSequencer();
        }
        if (toSequencer)
        {
            // Most requests went to the leader alone and reached the others inside its orders.
            assertTrue(toLeader > total / 2, toLeader + " of " + total + " requests sent to the sequencer alone");
            assertTrue(leader.requestsCarried() > total / 2, "carried: " + leader.requestsCarried());
            for (int i = 1; i < MEMBERS.length; i++)
            {
                assertTrue(members.get(i).counters().carriedRequestsReceived() > total / 2,
                    "member " + MEMBERS[i] + " received carried: " + members.get(i).counters().carriedRequestsReceived());
            }
        }
        else
        {
            assertEquals(0, toLeader);
            assertEquals(0, leader.requestsCarried());
        }

        // Per-client FIFO: each client's requests are delivered in the order it sent them, although
        // loss made some of them reach the leader after later ones (held back, then released).
        assertEquals(0, leader.fifoGapsSkipped(), "a lost request was always retransmitted within the FIFO wait");
        assertTrue(leader.requestsHeldForFifo() > 0, "no request ever overtook an earlier one: FIFO not exercised");
        for (final String clientPrefix : java.util.Arrays.stream(CLIENTS).mapToObj(c -> c + "/").toArray(String[]::new))
        {
            int last = -1;
            for (final String entry : logs.get(0))
            {
                if (entry.startsWith(clientPrefix))
                {
                    final int requestId = Integer.parseInt(entry.substring(clientPrefix.length()));
                    assertEquals(last + 1, requestId, "client " + clientPrefix + " delivered out of its order");
                    last = requestId;
                }
            }
        }
    }

    private static boolean done(final List<MemberEngine> members, final List<GroupClientEngine> clients, final int total)
    {
        for (final MemberEngine m : members)
        {
            if (m.deliveredSeq() < total)
            {
                return false;
            }
        }
        for (final GroupClientEngine c : clients)
        {
            if (c.counters().requestsCompleted() < REQUESTS_PER_CLIENT || c.counters().repliesDelivered() < (long)MEMBERS.length * REQUESTS_PER_CLIENT)
            {
                return false;
            }
        }
        for (final MemberEngine m : members)
        {
            if (m.pendingReplies() > 0)
            {
                return false;
            }
        }
        return true;
    }

    private static String digest(final List<String> log) throws Exception
    {
        final MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (final String entry : log)
        {
            sha.update(entry.getBytes(StandardCharsets.US_ASCII));
            sha.update((byte)'\n');
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static String state(final List<MemberEngine> members, final List<GroupClientEngine> clients)
    {
        final StringBuilder sb = new StringBuilder();
        for (final MemberEngine m : members)
        {
            sb.append("\n member delivered=").append(m.deliveredSeq()).append(' ').append(m.state()).append(' ').append(m.counters());
        }
        for (final GroupClientEngine c : clients)
        {
            sb.append("\n client outstanding=").append(c.outstandingRequests()).append(' ').append(c.counters());
        }
        return sb.toString();
    }
}
