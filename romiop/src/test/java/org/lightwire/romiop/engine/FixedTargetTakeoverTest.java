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
}
