package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.FragmentHeader;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.ReplyFlyweight;

/** Tier 1: a servant's reply written as one Reply or as pieces, and the replies the settings refuse; a recording sender. */
class ReplyWriterTest
{
    private static final int SELF = 2;
    private static final int CLIENT = 100;
    /** 512-byte packets: 476 bytes of reply in one Reply (36-byte header), 460 in a piece (and its 16-byte header). */
    private static final int PACKET = 512;
    private static final int WHOLE_ROOM = PACKET - ReplyFlyweight.HEADER_LENGTH;
    private static final int PIECE_ROOM = PACKET - ReplyFlyweight.HEADER_LENGTH - FragmentHeader.HEADER_LENGTH;

    private final SentPackets sent = new SentPackets();
    private final GroupCounters counters = new GroupCounters();
    private ReplyStore replies;
    private ReplyWriter writer;

    private void member(final GroupConfig config)
    {
        replies = new ReplyStore(config, counters, sent);
        writer = new ReplyWriter(config, counters, new Outbox(config, sent), replies);
    }

    private static GroupConfig config()
    {
        return new GroupConfig(SELF, 1, 1, 2).maxPacketBytes(PACKET).maxReplyBytes(2000).maxPendingReplies(3);
    }

    private static byte[] pattern(final int length)
    {
        final byte[] b = new byte[length];
        for (int i = 0; i < length; i++)
        {
            b[i] = (byte)('a' + i % 26);
        }
        return b;
    }

    private List<ReplyFlyweight> sentReplies()
    {
        final List<ReplyFlyweight> list = new ArrayList<>();
        for (final SentPackets.Sent s : sent.ofType(PacketType.REPLY))
        {
            list.add((ReplyFlyweight)new ReplyFlyweight().wrap(s.bytes(), 0));
        }
        return list;
    }

    private static byte[] payload(final SentPackets.Sent s, final ReplyFlyweight r)
    {
        final byte[] b = new byte[r.payloadLength()];
        s.bytes().get(r.payloadOffset(), b);
        return b;
    }

    @Test
    void aReplyThatFillsOnePacketExactlyGoesWholeWithNoPieceHeader()
    {
        member(config());
        final byte[] giop = pattern(WHOLE_ROOM + 7);
        // Bytes [7, 483) of the buffer: the offset is honoured.
        writer.write(CLIENT, 5, 9, ByteBuffer.wrap(giop), 7, WHOLE_ROOM, 0);

        assertEquals(1, sent.size());
        final SentPackets.Sent s = sent.all.get(0);
        assertEquals(CLIENT, s.to());
        assertEquals(PACKET, s.bytes().capacity());
        final ReplyFlyweight r = sentReplies().get(0);
        assertNull(r.validate(s.bytes().capacity()));
        assertEquals(0x02, r.header().flags(), "ACK requested, not a piece");
        assertEquals(SELF, r.senderId());
        assertEquals(CLIENT, r.requestSenderId());
        assertEquals(5, r.requestPacketId());
        assertEquals(9, r.requestId());
        assertEquals(0, r.replyStatus());
        assertArrayEquals(Arrays.copyOfRange(giop, 7, 7 + WHOLE_ROOM), payload(s, r));
        assertEquals(1, counters.repliesSent());
        assertEquals(0, counters.replyFragmentsSent());
        assertEquals(1, replies.size(), "kept until the client ACKs it");
    }

    @Test
    void aReplyOneByteTooLongForAPacketGoesInTwoPiecesEachNamingTheRequest()
    {
        member(config());
        // The reply is bytes [3, 480) of the buffer: each piece is copied from past the offset.
        final byte[] buffer = pattern(3 + WHOLE_ROOM + 1);
        final byte[] giop = Arrays.copyOfRange(buffer, 3, buffer.length);
        writer.write(CLIENT, 5, 9, ByteBuffer.wrap(buffer), 3, giop.length, 0);

        assertEquals(2, sent.size());
        final List<ReplyFlyweight> pieces = sentReplies();
        final int[] offsets = {0, PIECE_ROOM};
        final int[] lengths = {PIECE_ROOM, WHOLE_ROOM + 1 - PIECE_ROOM};
        for (int i = 0; i < 2; i++)
        {
            final SentPackets.Sent s = sent.all.get(i);
            final ReplyFlyweight r = pieces.get(i);
            assertEquals(CLIENT, s.to());
            assertNull(r.validate(s.bytes().capacity()));
            assertEquals(0x0A, r.header().flags(), "ACK requested and piece");
            assertEquals(5, r.requestPacketId());
            assertEquals(9, r.requestId());
            assertEquals(FragmentHeader.HEADER_LENGTH + lengths[i], r.payloadLength());
            final byte[] p = payload(s, r);
            final ByteBuffer header = ByteBuffer.wrap(p);
            assertTrue(FragmentHeader.isFragment(header, 0, p.length));
            assertEquals(5, FragmentHeader.messageId(header, 0), "a reply piece names its request's packet id");
            assertEquals(offsets[i], FragmentHeader.offset(header, 0));
            assertEquals(giop.length, FragmentHeader.totalLength(header, 0));
            assertArrayEquals(Arrays.copyOfRange(giop, offsets[i], offsets[i] + lengths[i]),
                Arrays.copyOfRange(p, FragmentHeader.HEADER_LENGTH, p.length));
        }
        assertEquals(pieces.get(0).packetId() + 1, pieces.get(1).packetId(), "each piece its own packet id");
        assertEquals(1, counters.repliesSent());
        assertEquals(2, counters.replyFragmentsSent());
        assertEquals(2, replies.size());
    }

    @Test
    void aReplyOfWholePiecesGoesInExactlyThatManyPieces()
    {
        member(config());
        final byte[] giop = pattern(2 * PIECE_ROOM);
        writer.write(CLIENT, 5, 9, ByteBuffer.wrap(giop), 0, giop.length, 0);

        assertEquals(2, sent.size(), "no empty third piece");
        final List<ReplyFlyweight> pieces = sentReplies();
        assertEquals(List.of(FragmentHeader.HEADER_LENGTH + PIECE_ROOM, FragmentHeader.HEADER_LENGTH + PIECE_ROOM),
            List.of(pieces.get(0).payloadLength(), pieces.get(1).payloadLength()));
        assertEquals(List.of(PACKET, PACKET), List.of(sent.all.get(0).bytes().capacity(), sent.all.get(1).bytes().capacity()));
        assertEquals(2, counters.replyFragmentsSent());
    }

    @Test
    void anEmptyReplyGoesWhole()
    {
        member(config());
        writer.write(CLIENT, 5, 9, ByteBuffer.allocate(0), 0, 0, 0);
        assertEquals(1, sent.size());
        assertEquals(0, sentReplies().get(0).payloadLength());
        assertFalse(sentReplies().get(0).header().piece());
        assertEquals(1, counters.repliesSent());
        assertEquals(0, counters.replyFragmentsSent());
    }

    @Test
    void theCountersAddUpOverReplies()
    {
        member(config().maxPendingReplies(10));
        writer.write(CLIENT, 5, 9, ByteBuffer.wrap(pattern(10)), 0, 10, 0);
        writer.write(CLIENT + 1, 6, 10, ByteBuffer.wrap(pattern(1200)), 0, 1200, 0);
        writer.write(CLIENT, 7, 11, ByteBuffer.wrap(pattern(WHOLE_ROOM + 1)), 0, WHOLE_ROOM + 1, 0);
        assertEquals(3, counters.repliesSent());
        assertEquals(3 + 2, counters.replyFragmentsSent());
        assertEquals(List.of(CLIENT, CLIENT + 1, CLIENT + 1, CLIENT + 1, CLIENT, CLIENT),
            sent.all.stream().map(SentPackets.Sent::to).toList());
        assertEquals(6, replies.size());
    }

    @Test
    void aReplyLongerThanMaxReplyBytesIsRefusedNamingTheSetting()
    {
        member(config().maxPendingReplies(1024));
        assertNull(writer.refusal(2000), "exactly max_reply_bytes");
        assertEquals("a reply of 2001 bytes is longer than jacorb.lightwire.romiop.max_reply_bytes = 2000", writer.refusal(2001));
        assertEquals(0, sent.size());
        assertEquals(0, counters.repliesSent());
    }

    @Test
    void aReplyInMorePiecesThanMaxPendingRepliesKeepsIsRefusedNamingBothSettings()
    {
        member(config());
        assertNull(writer.refusal(3 * PIECE_ROOM), "three pieces, three kept");
        assertEquals("a reply of 1381 bytes goes in 4 pieces of jacorb.lightwire.romiop.max_packet_bytes = 512, more than " +
            "jacorb.lightwire.romiop.max_pending_replies = 3 keeps", writer.refusal(3 * PIECE_ROOM + 1));
        // Too long and in too many pieces: the length is named first.
        assertEquals("a reply of 2001 bytes is longer than jacorb.lightwire.romiop.max_reply_bytes = 2000", writer.refusal(2001));
    }

    @Test
    void aReplyThatFitsOnePacketNeedsOnlyOneKeptEvenWhenOneIsAllThatIsKept()
    {
        member(config().maxPendingReplies(1));
        assertNull(writer.refusal(WHOLE_ROOM));
        assertEquals("a reply of 477 bytes goes in 2 pieces of jacorb.lightwire.romiop.max_packet_bytes = 512, more than " +
            "jacorb.lightwire.romiop.max_pending_replies = 1 keeps", writer.refusal(WHOLE_ROOM + 1));
    }

    /** A packet too small for a piece refuses what does not fit whole, naming the setting, instead of dividing by zero. */
    @Test
    void aPacketWithNoRoomForAPieceRefusesAReplyThatDoesNotFitWhole()
    {
        final int packet = ReplyFlyweight.HEADER_LENGTH + FragmentHeader.HEADER_LENGTH;
        member(config().maxPacketBytes(packet));
        assertNull(writer.refusal(packet - ReplyFlyweight.HEADER_LENGTH), "fits whole");
        assertEquals("a reply of 17 bytes does not fit in one packet of jacorb.lightwire.romiop.max_packet_bytes = 52, which leaves no room " +
            "for a piece (at least 53 bytes are needed)", writer.refusal(17));
    }

    /** Lengths near 2^31 are counted in longs: refused, not taken for a few pieces. */
    @Test
    void aReplyNearTwoGigabytesIsRefusedForItsPieces()
    {
        member(config().maxReplyBytes(Integer.MAX_VALUE).maxPendingReplies(1024));
        final long pieces = (Integer.MAX_VALUE - 10L + PIECE_ROOM - 1) / PIECE_ROOM;
        assertEquals("a reply of " + (Integer.MAX_VALUE - 10) + " bytes goes in " + pieces + " pieces of jacorb.lightwire.romiop.max_packet_bytes = 512, " +
            "more than jacorb.lightwire.romiop.max_pending_replies = 1024 keeps", writer.refusal(Integer.MAX_VALUE - 10));
    }
}
