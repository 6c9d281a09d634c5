package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.romiop.engine.OneEngine.feed;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;

/**
 * A takeover that knows an order number committed past what every reporter delivered: a takeover
 * fixed it from a member that delivered it and failed since (restarted, say), and a reporter names
 * it as fixed. Nobody can send those orders, but the reports name them: past what its sender
 * delivered, a report names each order it accepted, and a majority reported, so the newest epoch's
 * entry at each number is the committed one (Paxos's rule). The takeover catches up to what the
 * reporters delivered and keeps those orders in their places; it never gives a number known
 * committed to another request, and waits when the reports do not name them all. (Before, the
 * reporter named the fixed number as delivered, and a takeover catching up from it waited for
 * good: nemesis mixed 172.)
 */
class FixedTargetTakeoverTest
{
    private static final long MS = GroupHarness.MS;

    private final SentPackets sent = new SentPackets();
    private final List<String> executed = new ArrayList<>();

    /** Member 2 of five takes over from leader 1 after delivering 1..5 (client 100's requests 1..5), proposing epoch 2. */
    private MemberEngine takeoverByMember2()
    {
        return OneEngine.takingOverAfterFive(OneEngine.started(new GroupConfig(2, 1, 1, 2, 3, 4, 5), sent,
            (seq, client, packetId, requestId, payload, offset, length) -> executed.add(seq + ":" + client + "/" + packetId), null));
    }

    /** @return order number to "client/packet" of every order {@code from} multicast in {@code epoch} (the last at each number). */
    private TreeMap<Long, String> ordersOfEpoch(final int epoch)
    {
        final TreeMap<Long, String> orders = new TreeMap<>();
        for (final MsgOrderFlyweight o : sent.orders())
        {
            if (o.epoch() == epoch && !o.header().report())
            {
                for (int i = 0; i < o.entryCount(); i++)
                {
                    orders.put(o.firstOrderSeq() + i, o.entrySenderId(i) + "/" + o.entryPacketId(i));
                }
            }
        }
        return orders;
    }

    /**
     * Member 3 reports delivered 5, fixed 7, and the orders it accepted at 6 and 7 (client 100's
     * requests 7 and 6, in that order: not the order they arrived in); 4 and 5 report delivered 5
     * and nothing accepted. Member 2 also holds client 100's request 8. It keeps 6 and 7 in their
     * places and orders request 8 after them.
     */
    @Test
    void keepsTheReportedOrdersThroughANumberKnownCommittedThatNoReporterDelivered()
    {
        final MemberEngine m = takeoverByMember2();
        final long t = 400 * MS;
        for (int i = 6; i <= 8; i++)
        {
            feed(m, WirePackets.request(100, i), t);
        }
        feed(m, WirePackets.reportEntry(3, 500, 1, 6, 100, 7), t);
        feed(m, WirePackets.reportEntry(3, 501, 1, 7, 100, 6), t);
        feed(m, WirePackets.reportEnd(3, 502, 2, 5, 7, 2, 7), t);
        feed(m, WirePackets.reportEnd(4, 503, 2, 5, 5, 0), t);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state(), "not a majority yet");
        feed(m, WirePackets.reportEnd(5, 504, 2, 5, 5, 0), t);
        assertEquals(1, m.counters().fixedTargetsFromReports());
        for (long u = t + MS; u < t + 50 * MS; u += MS)
        {
            m.onTimer(u);
        }
        assertEquals("{6=100/7, 7=100/6, 8=100/8}", ordersOfEpoch(2).toString(), "the committed orders in their places, then the rest");
        assertEquals(2, m.leaderId());
    }

    /**
     * As above, but no report names an order at 6 (member 3 reports only the one at 7): the
     * takeover cannot tell what was committed at 6, so it waits and proposes newer epochs (4 and 5
     * report to each), never ordering anything at 6 or 7.
     */
    @Test
    void waitsWhenTheReportsDoNotNameEveryOrderKnownCommitted()
    {
        final MemberEngine m = takeoverByMember2();
        final long t = 400 * MS;
        for (int i = 6; i <= 8; i++)
        {
            feed(m, WirePackets.request(100, i), t);
        }
        feed(m, WirePackets.reportEntry(3, 500, 1, 7, 100, 6), t);
        feed(m, WirePackets.reportEnd(3, 502, 2, 5, 5, 1, 7), t);
        feed(m, WirePackets.reportEnd(4, 503, 2, 5, 5, 0), t);
        feed(m, WirePackets.reportEnd(5, 504, 2, 5, 5, 0), t);
        int pid = 600;
        for (long u = t + MS; u < t + 3_000 * MS; u += MS)
        {
            final String proposing = m.deliverySummary().replaceAll(".*proposing epoch ", "");
            if (u % (20 * MS) == 0 && !proposing.equals(m.deliverySummary()))
            {
                final int epoch = Integer.parseInt(proposing);
                feed(m, WirePackets.reportEnd(4, pid++, epoch, 5, 5, 0), u);
                feed(m, WirePackets.reportEnd(5, pid++, epoch, 5, 5, 0), u);
            }
            m.onTimer(u);
        }
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        assertEquals(0, m.counters().fixedTargetsFromReports());
        assertTrue(m.counters().takeoversRetried() > 0, "it proposed newer epochs");
        assertTrue(m.deliverySummary().contains("catching up to 7") || m.deliverySummary().contains("proposing epoch"), m.deliverySummary());
        for (int epoch = 2; epoch < 200; epoch++)
        {
            assertEquals("{}", ordersOfEpoch(epoch).toString(), "nothing ordered in epoch " + epoch);
        }
        assertEquals(5, m.deliveredSeq());
    }

    /**
     * Member 4 delivered 6 and serves it; member 3 knows 8 committed and reports the orders at 7
     * and 8. Member 2 catches up to 6 from member 4, then keeps 7 and 8 in their places.
     */
    @Test
    void catchesUpFromTheReporterThatDeliveredMostThenKeepsTheRest()
    {
        final MemberEngine m = takeoverByMember2();
        final long t = 400 * MS;
        for (int i = 6; i <= 9; i++)
        {
            feed(m, WirePackets.request(100, i), t);
        }
        feed(m, WirePackets.reportEntry(3, 500, 1, 7, 100, 8), t);
        feed(m, WirePackets.reportEntry(3, 501, 1, 8, 100, 7), t);
        feed(m, WirePackets.reportEnd(3, 502, 2, 6, 8, 2, 8), t);
        feed(m, WirePackets.reportEnd(4, 503, 2, 6, 6, 0), t);
        feed(m, WirePackets.reportEnd(5, 504, 2, 5, 5, 0), t);
        assertEquals(1, m.counters().fixedTargetsFromReports());
        assertEquals(5, m.deliveredSeq(), "6 comes from a member that delivered it");
        // Member 3, the first that delivered 6, answers the order NAK with the order it delivered there.
        assertTrue(m.deliverySummary().endsWith("catching up to 6 from 3"), m.deliverySummary());
        feed(m, WirePackets.order(3, 90, 1, 6, 100, 6, 6), t + MS);
        for (long u = t + 2 * MS; u < t + 50 * MS; u += MS)
        {
            m.onTimer(u);
        }
        // (6 again for member 5, which reported delivering only 5.)
        assertEquals("{6=100/6, 7=100/8, 8=100/7, 9=100/9}", ordersOfEpoch(2).toString());
        assertTrue(executed.contains("6:100/6"), executed.toString());
    }

    /**
     * Five members. Epoch 1 (leader 1): 1..5 delivered everywhere; 1 orders 100/7 at 6, accepted by
     * 1 alone, and is cut off. 3 takes over (epoch 2, reports from 2, 4, 5: nothing at 6) and orders
     * 100/6 at 6; 2 and 4 accept, 3 commits with them, 4 delivers 6; 3 crashes before 2 hears the
     * commit. 2 takes over (epoch 3): 4 reports delivered 6, 5 delivered 5; 2 fixes 6, holder 4, and
     * drops every reported entry through 6 (its own 100/6 of epoch 2 too). 4 crashes before serving.
     * 2 proposes epoch 4: 5 (delivered 5, nothing) and 1 (back, delivered 5, 100/7 at 6 of epoch 1)
     * report; 4 is removed. Committed = 6 (its own fixed), target 5: the only entry at 6 left is
     * 1's 100/7 of epoch 1, and 2 ordered it at 6, where 4 delivered 100/6 (its own entry, the
     * one the commit quorum and its reporters share, had gone with the decision). It now adds its
     * own entries again with each proposal, as at the start.
     */
    @Test
    void aTakeoverThatProposesAgainAfterDecidingStillKnowsWhatItAcceptedBelowTheOldTarget()
    {
        final MemberEngine m = OneEngine.started(new GroupConfig(2, 1, 1, 2, 3, 4, 5), sent);
        long t = MS;
        for (int i = 1; i <= 5; i++)
        {
            feed(m, WirePackets.request(100, i), t);
            feed(m, WirePackets.order(1, 80 + i, 1, i, 100, i, i), t);
            t += MS;
        }
        assertEquals(5, m.deliveredSeq());
        // 100/7 reaches 2 (a client's multicast), its order at 6 in epoch 1 does not.
        feed(m, WirePackets.request(100, 7), t);
        // 3 takes over from 1, proposing epoch 2; 2, which has not heard 1 for the KeepAlive timeout, follows and reports.
        t = 150 * MS;
        feed(m, WirePackets.takeover(3, 1, 2, 1, 5), t);
        assertEquals(3, m.leaderId());
        t += MS;
        // 3 decided epoch 2 and orders 100/6 at 6 (commit still 5 as far as 2 knows).
        feed(m, WirePackets.keepAlive(3, 200, 2, 5, 5), t);
        feed(m, WirePackets.request(100, 6), t);
        feed(m, WirePackets.order(3, 201, 2, 6, 100, 6, 5), t);
        assertEquals(5, m.deliveredSeq(), "6 accepted, not known committed");
        // 3 crashes: 2 takes over (4 and 5 still alive).
        int pid = 300;
        for (t += MS; t < 600 * MS && m.state() != MemberEngine.State.LEADER_RECOVERING; t += MS)
        {
            feed(m, WirePackets.orderAck(4, pid++, 2, 6), t);
            feed(m, WirePackets.orderAck(5, pid++, 2, 5), t);
            m.onTimer(t);
        }
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        final String proposing = m.deliverySummary().replaceAll(".*proposing epoch ", "");
        final int first = Integer.parseInt(proposing);
        // 4 delivered 6 (it heard 3's commit), 5 delivered 5: 2 fixes 6 with holder 4.
        feed(m, WirePackets.reportEnd(4, pid++, first, 6, 6, 0), t);
        feed(m, WirePackets.reportEnd(5, pid++, first, 5, 5, 0), t);
        assertTrue(m.deliverySummary().contains("catching up to 6 from 4"), m.deliverySummary());
        // 4 crashes before serving: 2 gives the round up and proposes the next epoch.
        final long t0 = t;
        for (; t < t0 + 1_000 * MS && !m.deliverySummary().contains("proposing epoch " + (first + 1)); t += MS)
        {
            m.onTimer(t);
        }
        assertTrue(m.deliverySummary().contains("proposing epoch " + (first + 1)), m.deliverySummary());
        // 5 reports again, and 1 (the epoch-1 leader, back) reports its own order at 6.
        feed(m, WirePackets.reportEnd(5, pid++, first + 1, 5, 5, 0), t);
        feed(m, WirePackets.reportEntry(1, pid++, 1, 6, 100, 7), t);
        feed(m, WirePackets.reportEnd(1, pid++, first + 1, 5, 6, 1), t);
        for (final long t1 = t; t < t1 + 500 * MS; t += MS)
        {
            m.onTimer(t);
        }
        // 100/6 was committed at 6 (4 delivered it): it keeps its place, and 1's 100/7 goes after it.
        assertEquals(1, m.counters().fixedTargetsFromReports());
        assertEquals("{6=100/6, 7=100/7}", ordersOfEpoch(first + 1).toString(), "100/6 in its place, 100/7 after it");
        for (int epoch = first; epoch < first + 50; epoch++)
        {
            if (epoch != first + 1)
            {
                assertEquals("{}", ordersOfEpoch(epoch).toString(), "epoch " + epoch);
            }
        }
    }

    /**
     * The run kept through the number known committed is checked again once caught up: here the
     * holder serves, at 6, the request a report names at 7 (two entries for one request, which
     * cannot both be committed). Delivered at 6, it is no longer held for 7: the takeover gathers
     * reports again instead of ordering the rest of the run, and never orders that request twice.
     */
    @Test
    void aKeptRunBrokenWhileCatchingUpIsNotOrdered()
    {
        final MemberEngine m = takeoverByMember2();
        final long t = 400 * MS;
        for (int i = 6; i <= 9; i++)
        {
            feed(m, WirePackets.request(100, i), t);
        }
        feed(m, WirePackets.reportEntry(3, 500, 1, 7, 100, 8), t);
        feed(m, WirePackets.reportEntry(3, 501, 1, 8, 100, 7), t);
        feed(m, WirePackets.reportEnd(3, 502, 2, 6, 8, 2, 8), t);
        feed(m, WirePackets.reportEnd(4, 503, 2, 6, 6, 0), t);
        feed(m, WirePackets.reportEnd(5, 504, 2, 5, 5, 0), t);
        assertEquals(1, m.counters().fixedTargetsFromReports());
        assertTrue(m.deliverySummary().endsWith("catching up to 6 from 3"), m.deliverySummary());
        feed(m, WirePackets.order(3, 90, 1, 6, 100, 8, 6), t + MS);
        for (long u = t + 2 * MS; u < t + 50 * MS; u += MS)
        {
            m.onTimer(u);
        }
        assertEquals(List.of("6:100/8"), executed.subList(5, executed.size()));
        assertEquals(1, m.counters().takeoversRetried());
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        assertEquals("{}", ordersOfEpoch(2).toString(), "nothing ordered in the epoch of the decision");
    }
}
