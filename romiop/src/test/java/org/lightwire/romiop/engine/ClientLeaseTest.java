package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.RequestFlyweight;

/**
 * Requests of crashed clients: a request that reached only a follower, from a client silent for
 * {@code reply_give_up_ms} since, is dropped there and never ordered by a later leader; one whose
 * client is still heard, or that an order names, is kept. One MemberEngine, member 2 of [1, 2, 3]
 * (of [1..5] where a commit must be waited for), a hand-advanced clock and a recording sender.
 */
class ClientLeaseTest
{
    private static final int LEADER = 1;
    private static final int CLIENT = 100;
    private static final long MS = 1_000_000L;
    private static final long LEASE = 300 * MS;
    private static final long KEY = MemberEngine.key(CLIENT, 1);

    private final SentPackets sent = new SentPackets();
    private final List<Long> executed = new ArrayList<>();

    private MemberEngine member(final int... members)
    {
        final MemberEngine e = new MemberEngine(new GroupConfig(2, LEADER, members).keepAlive(20 * MS, 100 * MS).retransmitTimeoutNs(20 * MS)
            .nakDelayNs(2 * MS).requestAckDelayNs(0).orderAckDelayNs(0).replyGiveUpNs(LEASE), sent,
            (seq, sender, packetId, requestId, payload, offset, length) -> executed.add(MemberEngine.key(sender, packetId)));
        e.start(0);
        return e;
    }

    private static void feed(final MemberEngine e, final ByteBuffer b, final long nowNs)
    {
        e.onPacket(b, 0, b.capacity(), nowNs);
    }

    private static ByteBuffer keepAlive(final int from, final long lastOrderSeq, final long commit)
    {
        final ByteBuffer b = ByteBuffer.allocate(KeepAliveFlyweight.LENGTH);
        ((KeepAliveFlyweight)new KeepAliveFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, 50, 1, lastOrderSeq, commit);
        return b;
    }

    /** Member {@code from}'s report to the member taking over (proposing epoch 2): nothing undelivered, delivered up to {@code deliveredSeq}. */
    private static ByteBuffer report(final int from, final long deliveredSeq)
    {
        return WirePackets.reportEnd(from, 60, 2, deliveredSeq, deliveredSeq, 0);
    }

    private static ByteBuffer request()
    {
        final ByteBuffer b = ByteBuffer.allocate(RequestFlyweight.HEADER_LENGTH + 1);
        ((RequestFlyweight)new RequestFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, CLIENT, 1, 1, 1, 1);
        return b;
    }

    private static ByteBuffer orderOfRequest1(final long commit)
    {
        final ByteBuffer b = ByteBuffer.allocate(MsgOrderFlyweight.length(1));
        final MsgOrderFlyweight o = new MsgOrderFlyweight();
        o.wrap(b, 0);
        o.set(ByteOrder.BIG_ENDIAN, LEADER, 90, 1, 1, 1, commit);
        o.entry(0, CLIENT, 1);
        return b;
    }

    /**
     * Member 2 holds the client's request 1, which the leader never got; the leader is heard until
     * {@code leaderUntilNs}, the client (retransmitting) every 50 ms until {@code clientUntilNs};
     * then the leader fails, member 2 takes over with member 3's report (member 3 goes on being
     * heard), and time runs to 1.5 s.
     */
    private MemberEngine failoverAfter(final long leaderUntilNs, final long clientUntilNs)
    {
        final MemberEngine m = member(1, 2, 3);
        // Member 2 delivered an order of another client first: a history, so its takeover counts
        // itself (one that may be a restarted process needs a majority of others' reports).
        feed(m, WirePackets.request(200, 1), MS / 2);
        feed(m, WirePackets.order(LEADER, 90, 1, 1, 200, 1, 1), MS / 2);
        boolean tookOver = false;
        for (long t = MS; t <= 1_500 * MS; t += MS)
        {
            if (t == MS || t <= clientUntilNs && t % (50 * MS) == 0)
            {
                feed(m, request(), t);
            }
            if (t <= leaderUntilNs && t % (20 * MS) == 0)
            {
                feed(m, keepAlive(LEADER, 0, 0), t);
            }
            tookOver |= m.state() == MemberEngine.State.LEADER_RECOVERING;
            if (tookOver && t % (20 * MS) == 0)
            {
                feed(m, report(3, 0), t);
            }
            m.onTimer(t);
        }
        return m;
    }

    private boolean ordered(final long key)
    {
        return sent.orders().stream().anyMatch(o -> o.entryCount() > 0 && MemberEngine.key(o.entrySenderId(0), o.entryPacketId(0)) == key);
    }

    @Test
    void aRequestOfAClientSilentForTheLeaseIsDroppedAndNeverOrderedAtTheNextFailover()
    {
        final MemberEngine m = failoverAfter(600 * MS, MS);
        assertEquals(MemberEngine.State.LEADER_IDLE, m.state(), "member 2 took over: " + m.deliverySummary());
        assertEquals(1, m.counters().requestsOfGoneClientsExpired());
        assertEquals(1, m.counters().recoveries(), "one takeover");
        assertTrue(!ordered(KEY), "the new leader never orders the gone client's request");
        assertEquals(List.of(MemberEngine.key(200, 1)), executed, "only the order it delivered before the failover");
    }

    @Test
    void aRequestOfAClientStillHeardIsKeptAndOrderedAtTheNextFailover()
    {
        final MemberEngine m = failoverAfter(600 * MS, 1_500 * MS);
        assertEquals(MemberEngine.State.LEADER_IDLE, m.state(), "member 2 took over: " + m.deliverySummary());
        assertEquals(0, m.counters().requestsOfGoneClientsExpired());
        assertTrue(ordered(KEY), "the held request of a live client is ordered by the new leader");
    }

    @Test
    void aRequestAnOrderNamesNeverExpiresWhileItWaitsForItsCommit()
    {
        final MemberEngine m = member(1, 2, 3, 4, 5);
        feed(m, request(), MS);
        feed(m, orderOfRequest1(0), 2 * MS);
        for (long t = 3 * MS; t <= 2 * LEASE; t += MS)
        {
            if (t % (20 * MS) == 0)
            {
                feed(m, keepAlive(LEADER, 1, 0), t);
            }
            m.onTimer(t);
        }
        assertEquals(0, m.counters().requestsOfGoneClientsExpired());
        assertEquals(List.of(), executed, "not committed yet");
        feed(m, keepAlive(LEADER, 1, 1), 2 * LEASE + MS);
        assertEquals(List.of(KEY), executed, "delivered at its commit, its request still held");
    }

    @Test
    void aLateCopyOfAnExpiredRequestIsADuplicateNotANewRequest()
    {
        final MemberEngine m = member(1, 2, 3);
        feed(m, request(), MS);
        for (long t = 2 * MS; t <= LEASE + 20 * MS; t += MS)
        {
            if (t % (20 * MS) == 0)
            {
                feed(m, keepAlive(LEADER, 0, 0), t);
            }
            m.onTimer(t);
        }
        assertEquals(1, m.counters().requestsOfGoneClientsExpired());
        final long duplicates = m.counters().duplicateRequests();
        feed(m, request(), LEASE + 21 * MS);
        assertEquals(duplicates + 1, m.counters().duplicateRequests());
        assertTrue(m.deliverySummary().contains("held 0"), m.deliverySummary());
    }
}
