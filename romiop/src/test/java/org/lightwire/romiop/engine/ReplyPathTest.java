package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;

/**
 * A member's reply reaches its client reliably (paper, Figure 4 line 40): kept and resent until
 * the client ACKs it, delivered to the client's handler once per member and request, bounded on
 * both sides.
 */
class ReplyPathTest
{
    private static final long MS = 1_000_000L;

    /** A packet one engine sent, with its destination. */
    private record Sent(int to, byte[] bytes)
    {
        PacketType type()
        {
            final PacketHeader_1_0 h = new PacketHeader_1_0();
            h.wrap(ByteBuffer.wrap(bytes), 0);
            return h.type();
        }
    }

    private final List<Sent> fromMember = new ArrayList<>();
    private final List<Sent> fromClient = new ArrayList<>();
    private final List<String> replies = new ArrayList<>();
    private final MemberEngine member = new MemberEngine(new GroupConfig(2, 1, 1, 2).retransmitTimeoutNs(20 * MS).replies(2, 3, 4096),
        (to, packet, length) -> fromMember.add(new Sent(to, copy(packet, length))), (seq, s, p, r, b, o, l) -> { });
    private final GroupClientEngine client = new GroupClientEngine(new GroupConfig(100, 1, 1, 2).retransmitTimeoutNs(20 * MS),
        (to, packet, length) -> fromClient.add(new Sent(to, copy(packet, length))),
        (memberId, packetId, requestId, payload, offset, length) ->
        {
            final byte[] b = new byte[length];
            payload.get(offset, b);
            replies.add(memberId + "/" + packetId + "/" + requestId + ":" + new String(b, StandardCharsets.US_ASCII));
        });

    private static byte[] copy(final ByteBuffer packet, final int length)
    {
        final byte[] b = new byte[length];
        packet.get(0, b);
        return b;
    }

    private static ByteBuffer text(final String s)
    {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static void deliver(final Sent packet, final MemberEngine to, final long nowNs)
    {
        to.onPacket(ByteBuffer.wrap(packet.bytes), 0, packet.bytes.length, nowNs);
    }

    private static void deliver(final Sent packet, final GroupClientEngine to, final long nowNs)
    {
        to.onPacket(ByteBuffer.wrap(packet.bytes), 0, packet.bytes.length, nowNs);
    }

    @Test
    void aLostReplyIsSentAgainUntilTheClientAcksItAndDeliveredOnce()
    {
        member.sendReply(100, 5, 7, text("ok"), 0, 2, 0);
        assertEquals(1, fromMember.size());
        assertEquals(100, fromMember.get(0).to());
        assertEquals(PacketType.REPLY, fromMember.get(0).type());
        assertEquals(20 * MS, member.nextDeadlineNs());

        // The first transmission is lost: the timer sends it again.
        member.onTimer(20 * MS);
        assertEquals(2, fromMember.size());
        assertEquals(1, member.counters().replyRetransmits());

        deliver(fromMember.get(1), client, 21 * MS);
        assertEquals(List.of("2/5/7:ok"), replies);
        assertEquals(1, fromClient.size());
        assertEquals(2, fromClient.get(0).to());
        assertEquals(PacketType.ACK, fromClient.get(0).type());

        // A duplicate (the first transmission, late) is ACKed again, not delivered again.
        deliver(fromMember.get(0), client, 22 * MS);
        assertEquals(1, replies.size());
        assertEquals(1, client.counters().duplicateReplies());
        assertEquals(2, fromClient.size());

        deliver(fromClient.get(0), member, 23 * MS);
        assertEquals(0, member.unackedReplies());
        assertEquals(1, member.counters().repliesAcked());
        assertEquals(Long.MAX_VALUE, member.nextDeadlineNs());
        deliver(fromClient.get(1), member, 23 * MS);
        assertEquals(1, member.counters().repliesAcked(), "the second ACK finds nothing left to confirm");
        member.onTimer(100 * MS);
        assertEquals(2, fromMember.size(), "nothing sent after the ACK");
        assertEquals(1, client.counters().repliesReceived());
    }

    @Test
    void aClientThatNeverAcksIsGivenUpOnAfterTheRetransmitLimit()
    {
        member.sendReply(101, 9, 1, text("x"), 0, 1, 0);
        for (int i = 1; i <= 5; i++)
        {
            member.onTimer(i * 20 * MS);
        }
        assertEquals(3, member.counters().replyRetransmits(), "replies(2, 3, ...): three retransmissions");
        assertEquals(1, member.counters().repliesAbandoned());
        assertEquals(0, member.unackedReplies());
        assertEquals(4, fromMember.size());
    }

    @Test
    void theReplyStoreIsBoundedAndGivesUpTheOldest()
    {
        member.sendReply(100, 1, 1, text("a"), 0, 1, 0);
        member.sendReply(100, 2, 2, text("b"), 0, 1, 0);
        member.sendReply(100, 3, 3, text("c"), 0, 1, 0);
        assertEquals(2, member.unackedReplies());
        assertEquals(1, member.counters().repliesAbandoned());
        member.onTimer(20 * MS);
        assertEquals(5, fromMember.size(), "3 first sends, then only replies 2 and 3 again");
    }

    @Test
    void repliesForAnotherClientOrFromANonMemberAreCountedAndDropped()
    {
        member.sendReply(55, 4, 4, text("z"), 0, 1, 0);
        deliver(fromMember.get(0), client, 0);
        final MemberEngine stranger = new MemberEngine(new GroupConfig(9, 9, 9), (to, packet, length) ->
            fromMember.add(new Sent(to, copy(packet, length))), (seq, s, p, r, b, o, l) -> { });
        stranger.sendReply(100, 4, 4, text("z"), 0, 1, 0);
        deliver(fromMember.get(1), client, 0);
        assertEquals(0, replies.size());
        assertEquals(2, client.counters().unexpectedPackets());
        assertEquals(0, fromClient.size(), "neither is ACKed");
    }

    @Test
    void aReplyLargerThanOnePacketIsRefusedWithTheReason()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> member.sendReply(100, 1, 1, ByteBuffer.allocate(9000), 0, 9000, 0));
        assertEquals("reply of 9000 bytes exceeds maxPacketBytes 8192 less the 36-byte reply header; fragmentation is not implemented yet",
            e.getMessage());
    }
}
