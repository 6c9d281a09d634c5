package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.romiop.engine.OneEngine.feed;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.CancelFlyweight;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.RequestFlyweight;

/**
 * A follower that enters a takeover's new epoch (on its KeepAlive, before the new leader has sent
 * it the orders past the fixed target) still reports the older epoch's orders it accepted, each
 * under the epoch it accepted it in. Forgetting them lost committed orders: if the new leader
 * failed before it committed them in its epoch, a later takeover whose majority were such
 * followers fixed less than was committed.
 */
class FollowerReportTest
{
    private static final long MS = OneEngine.MS;
    private final SentPackets sent = new SentPackets();

    /** @return {epoch, client, request packet id} of each report entry to {@code to} at order {@code seq}, in the order sent. */
    private static List<List<Integer>> reported(final List<SentPackets.Sent> all, final int to, final long seq)
    {
        final List<List<Integer>> found = new ArrayList<>();
        for (final SentPackets.Sent s : all)
        {
            if (s.to() != to || s.type() != PacketType.MSG_ORDER)
            {
                continue;
            }
            final MsgOrderFlyweight o = new MsgOrderFlyweight();
            o.wrap(s.bytes(), 0);
            if (o.header().report() && o.firstOrderSeq() <= seq && seq < o.firstOrderSeq() + o.entryCount())
            {
                final int i = (int)(seq - o.firstOrderSeq());
                found.add(List.of(o.epoch(), o.entrySenderId(i), o.entryPacketId(i)));
            }
        }
        return found;
    }

    private static ByteBuffer cancel(final int client, final int cancelPacketId, final int requestPacketId)
    {
        final ByteBuffer b = ByteBuffer.allocate(CancelFlyweight.LENGTH);
        ((CancelFlyweight)new CancelFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, client, cancelPacketId, requestPacketId, requestPacketId);
        return b;
    }

    /** @return true when request {@code client}/{@code packetId} was sent to {@code to} (a report carries the requests it names). */
    private boolean requestSentTo(final int to, final int client, final int packetId)
    {
        return sent.all.stream().filter(s -> s.to() == to && s.type() == PacketType.REQUEST).anyMatch(s ->
        {
            final RequestFlyweight r = new RequestFlyweight();
            r.wrap(s.bytes(), 0);
            return r.senderId() == client && r.packetId() == packetId;
        });
    }

    /** Member 3 of five, led by {@code leader} in epoch 1, holding requests 100/1..n and orders 1..n of them. */
    private MemberEngine accepted(final int leader, final int n)
    {
        final MemberEngine m = OneEngine.started(new GroupConfig(3, leader, 1, 2, 3, 4, 5).cancelHoldNs(10 * MS), sent);
        for (int i = 1; i <= n; i++)
        {
            feed(m, WirePackets.request(100, i), MS);
            feed(m, WirePackets.order(leader, 69 + i, 1, i, 100, i, 0), MS);
        }
        return m;
    }

    /** Member 3 reported order 1 to 1's takeover; 1's KeepAlive of epoch 2 comes before 1 sends order 1 again. */
    @Test
    void aFollowerOfADecidedTakeoverStillReportsWhatItAccepted()
    {
        final MemberEngine m = accepted(5, 1);
        feed(m, WirePackets.takeover(1, 5, 2, 1, 0), 2 * MS);
        assertEquals(1, m.leaderId());
        assertEquals(List.of(List.of(1, 100, 1)), reported(sent.all, 1, 1), "reported to 1");
        // 1 decided epoch 2 and catches up: its KeepAlives carry epoch 2.
        feed(m, WirePackets.keepAlive(1, 90, 2, 0, 0), 3 * MS);
        sent.clear();
        feed(m, WirePackets.takeover(2, 1, 3, 2, 0), 4 * MS);
        assertEquals(2, m.leaderId());
        assertEquals(List.of(List.of(1, 100, 1)), reported(sent.all, 2, 1), "3's report to 2 names order 1, of epoch 1");
    }

    /**
     * An order the new epoch's leader sends at a number replaces the older epoch's there; the
     * report sends each run of one epoch in its own MsgOrder, under that epoch.
     */
    @Test
    void aNewerEpochsOrderReplacesTheOlderAndEachGoesUnderItsEpoch()
    {
        final MemberEngine m = accepted(5, 2);
        feed(m, WirePackets.request(100, 3), MS);
        feed(m, WirePackets.takeover(1, 5, 2, 1, 0), 2 * MS);
        feed(m, WirePackets.keepAlive(1, 90, 2, 0, 0), 3 * MS);
        // Epoch 2's leader orders request 3 at number 2 (2 was not committed in epoch 1).
        feed(m, WirePackets.order(1, 91, 2, 2, 100, 3, 0), 3 * MS);
        sent.clear();
        feed(m, WirePackets.takeover(2, 1, 3, 2, 0), 4 * MS);
        assertEquals(2, m.leaderId());
        assertEquals(List.of(List.of(1, 100, 1)), reported(sent.all, 2, 1), "order 1 as accepted in epoch 1");
        assertEquals(List.of(List.of(2, 100, 3)), reported(sent.all, 2, 2), "order 2 as accepted in epoch 2, epoch 1's gone");
        assertEquals(2, sent.keepAlives().stream().filter(k -> k.header().report()).mapToLong(k -> k.reportEntries()).sum(),
            "the report's KeepAlive announces both entries");
    }

    /** Its own leader moved to a newer epoch (a takeover of its own this member never saw): the older entries stay. */
    @Test
    void aFollowerThatMissedItsLeadersTakeoverStillReportsWhatItAccepted()
    {
        final MemberEngine m = accepted(1, 1);
        feed(m, WirePackets.keepAlive(1, 90, 2, 0, 0), 2 * MS);
        sent.clear();
        feed(m, WirePackets.takeover(2, 1, 3, 2, 0), 3 * MS);
        assertEquals(2, m.leaderId());
        assertEquals(List.of(List.of(1, 100, 1)), reported(sent.all, 2, 1), "order 1, of epoch 1");
    }

    /**
     * A client's Cancel does not drop the request of an order kept for a report (after following a
     * takeover, or entering a newer epoch before its leader sent that order again): a report that
     * names an order without its request lets a takeover order another request at its number.
     */
    @Test
    void aCancelKeepsTheRequestOfAnOrderKeptForAReport()
    {
        final MemberEngine followed = accepted(5, 1);
        feed(followed, WirePackets.takeover(1, 5, 2, 1, 0), 2 * MS);
        cancelThenFollowEpochTwo(followed);
        assertEquals(List.of(List.of(1, 100, 1)), reported(sent.all, 2, 1), "order 1, of epoch 1");
        assertTrue(requestSentTo(2, 100, 1), "and its request");

        sent.clear();
        final MemberEngine entered = accepted(1, 1);
        feed(entered, WirePackets.keepAlive(1, 89, 2, 0, 0), 2 * MS);
        cancelThenFollowEpochTwo(entered);
        assertEquals(List.of(List.of(1, 100, 1)), reported(sent.all, 2, 1), "order 1, of epoch 1");
        assertTrue(requestSentTo(2, 100, 1), "and its request");
    }

    /** Cancel of 100/1 at 3 ms, leader 1's KeepAlives of epoch 2 past the cancel hold, then 2's takeover (epoch 3) at 31 ms. */
    private void cancelThenFollowEpochTwo(final MemberEngine m)
    {
        feed(m, cancel(100, 2, 1), 3 * MS);
        for (long t = 4; t <= 30; t += 2)
        {
            feed(m, WirePackets.keepAlive(1, 90 + (int)t, 2, 0, 0), t * MS);
            m.onTimer(t * MS);
        }
        sent.clear();
        feed(m, WirePackets.takeover(2, 1, 3, 2, 0), 31 * MS);
        assertEquals(2, m.leaderId());
    }

    /** Cancelled before its order came, then the order, then removed from the view: the rejoin keeps the request for its report. */
    @Test
    void aRejoinKeepsTheCancelledRequestOfAnAcceptedOrder()
    {
        final MemberEngine m = OneEngine.started(new GroupConfig(3, 5, 1, 2, 3, 4, 5), sent);
        feed(m, WirePackets.request(100, 1), MS);
        feed(m, cancel(100, 2, 1), MS);
        feed(m, WirePackets.order(5, 70, 1, 1, 100, 1, 0), 2 * MS);
        feed(m, WirePackets.list(5, 80, 1, 2, 4), 3 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        sent.clear();
        feed(m, WirePackets.takeover(1, 5, 2, 1, 0), 4 * MS);
        assertEquals(List.of(List.of(1, 100, 1)), reported(sent.all, 1, 1), "order 1, of epoch 1");
        assertTrue(requestSentTo(1, 100, 1), "and its request");
    }
}
