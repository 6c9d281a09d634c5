package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.PacketType;
import org.junit.jupiter.api.Test;

/** Tier 1: which MemberChange LISTs a client takes, and what a view change does to its requests. */
class ClientViewTest
{
    private static final long MS = 1_000_000L;
    private final List<String> views = new ArrayList<>();
    private final List<Integer> sentTo = new ArrayList<>();
    private final GroupClientEngine client = new GroupClientEngine(new GroupConfig(100, 1, 1, 2, 3).retransmitTimeoutNs(20 * MS),
        (to, packet, length) -> sentTo.add(to), (memberId, packetId, requestId, payload, offset, length) -> { },
        (memberIds, leaderId) -> views.add(leaderId + ":" + java.util.Arrays.toString(memberIds)));

    private static ByteBuffer list(final int sender, final int packetId, final int epoch, final int... leaderFirst)
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.listLength(leaderFirst.length));
        final MemberChangeFlyweight mc = new MemberChangeFlyweight();
        mc.wrap(b, 0);
        mc.setList(ByteOrder.BIG_ENDIAN, sender, packetId, sender, leaderFirst.length, epoch);
        for (int i = 0; i < leaderFirst.length; i++)
        {
            mc.member(i, leaderFirst[i]);
        }
        return b;
    }

    private static ByteBuffer ack(final int from, final long ackedId)
    {
        final ByteBuffer b = ByteBuffer.allocate(AckFlyweight.LENGTH);
        ((AckFlyweight)new AckFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, 9, PacketType.REQUEST, 100, ackedId);
        return b;
    }

    private void feed(final ByteBuffer b)
    {
        client.onPacket(b, 0, b.capacity(), 0);
    }

    /** The configuration's members outside the view, after it in the LIST, are no members a client waits for. */
    @Test
    void aClientTakesTheViewOfAListNotTheMembersOutsideIt()
    {
        feed(list(1, 50, 2, 1, 2, 3 | MemberChangeFlyweight.OUTSIDE_VIEW));
        assertEquals(List.of("1:[1, 2]"), views);
        final int packetId = client.multicast(1, 3, ByteBuffer.allocate(1), 0, 1, 0);
        feed(ack(1, packetId));
        feed(ack(2, packetId));
        assertEquals(0, client.outstandingRequests(), "1 and 2 ACKed: all of the view");
    }

    @Test
    void requestStopsWaitingForAMemberTheLeaderRemoved()
    {
        final int packetId = client.multicast(1, 3, ByteBuffer.allocate(1), 0, 1, 0);
        feed(ack(1, packetId));
        feed(ack(2, packetId));
        assertEquals(1, client.outstandingRequests(), "member 3 has not ACKed");
        feed(list(1, 50, 1, 1, 2));
        assertEquals(0, client.outstandingRequests());
        assertEquals(1, client.counters().requestsCompleted());
        assertEquals(List.of("1:[1, 2]"), views);
    }

    @Test
    void staleSameAndForeignListsAreNotTakenButAllAreAcked()
    {
        feed(list(1, 50, 1, 1, 2));
        feed(list(1, 40, 1, 1, 2, 3));
        assertEquals(1, client.counters().staleMemberLists(), "older than the last list from the leader");
        feed(list(1, 60, 1, 1, 2));
        assertEquals(1, views.size(), "the same view again is no change");
        feed(list(2, 70, 1, 2, 1));
        assertEquals(2, client.counters().staleMemberLists(), "another member may not replace a live leader in its epoch");
        feed(list(2, 75, 2, 1, 2));
        assertEquals(3, client.counters().staleMemberLists(), "a list is taken only from the leader it names");
        feed(list(2, 80, 2, 2));
        assertEquals(List.of("1:[1, 2]", "2:[2]"), views, "failover: a newer epoch led by its sender");
        assertArrayEquals(new int[] {2}, client.currentMembers());
        assertEquals(2, client.leaderId());
        feed(list(1, 90, 1, 1, 2, 3));
        assertEquals(4, client.counters().staleMemberLists(), "a deposed leader's list, of an older epoch, newer packet id");
        assertEquals(2, client.leaderId());
        assertEquals(List.of(1, 1, 1, 2, 2, 2, 1), sentTo, "every list ACKed to its sender");
    }

    /**
     * A client whose view shrank with a minority's leader ([1, 2], leader 1) takes the list of the
     * majority's leader 3 after the heal, though 3 is not in its view and the list names its old
     * leader: 3 leads a newer epoch. A sender that is neither configured nor in the view is not
     * followed, whatever epoch it names.
     */
    @Test
    void aViewLeftByAMinorityTakesTheNewerEpochOfAnyConfiguredLeader()
    {
        feed(list(1, 50, 1, 1, 2));
        assertEquals(1, client.leaderId());
        feed(list(9, 60, 7, 9, 1, 2));
        assertEquals(1, client.counters().staleMemberLists(), "9 is not a configured member nor in the view");
        feed(list(3, 90, 3, 3, 1, 2));
        assertEquals(3, client.leaderId());
        assertArrayEquals(new int[] {1, 2, 3}, client.currentMembers());
        assertEquals(List.of("1:[1, 2]", "3:[1, 2, 3]"), views);
        feed(list(1, 95, 2, 1, 2, 3));
        assertEquals(2, client.counters().staleMemberLists(), "an epoch between: older than the one taken");
    }

    @Test
    void cancelIsMulticastUntilEveryMemberAcksOrTheGiveUpTime()
    {
        final GroupClientEngine c = new GroupClientEngine(new GroupConfig(100, 1, 1, 2).retransmitTimeoutNs(20 * MS).replyGiveUpNs(50 * MS),
            (to, packet, length) -> sentTo.add(to));
        final int packetId = c.multicast(1, 3, ByteBuffer.allocate(1), 0, 1, 0);
        c.cancel(packetId, 1 * MS);
        assertEquals(0, c.outstandingRequests(), "the request is no longer retransmitted");
        assertEquals(List.of(GroupSender.GROUP, GroupSender.GROUP), sentTo);
        c.onTimer(21 * MS);
        assertEquals(3, sentTo.size(), "the Cancel, resent after 20 ms");
        assertEquals(61 * MS, c.nextDeadlineNs(), "then after twice as long");
        c.onTimer(41 * MS);
        assertEquals(3, sentTo.size());
        c.onTimer(51 * MS);
        assertEquals(1, c.counters().cancelsAbandoned());
        assertEquals(Long.MAX_VALUE, c.nextDeadlineNs());
    }
}
