package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.CancelFlyweight;
import org.lightwire.romiop.protocol.FragmentHeader;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.ReplyFlyweight;
import org.junit.jupiter.api.Test;

/** Tier 1: a member's Reply reaches its client reliably and is handed on once per member. */
class ReplyPathTest
{
    private static final long MS = 1_000_000L;
    private static final int CLIENT = 100;

    private record Sent(int to, PacketType type, ByteBuffer bytes)
    {
    }

    private final List<Sent> sent = new ArrayList<>();
    private final List<String> replies = new ArrayList<>();

    private GroupSender recorder()
    {
        return (to, packet, length) ->
        {
            final ByteBuffer copy = ByteBuffer.allocate(length);
            copy.put(0, packet, 0, length);
            sent.add(new Sent(to, new PacketHeader_1_0().wrap(copy, 0).type(), copy));
        };
    }

    private MemberEngine member(final int self, final GroupConfig config)
    {
        return OneEngine.founded(new MemberEngine(config, recorder(), (seq, s, p, r, payload, offset, length) -> { }), config, 0);
    }

    /** @return a client engine whose decided replies are recorded in {@link #replies} as "member:packet". */
    private GroupClientEngine client(final GroupConfig config)
    {
        return new GroupClientEngine(config, recorder(),
            (memberId, packetId, requestId, payload, offset, length) -> replies.add(memberId + ":" + packetId));
    }

    /** A client that ACKs each reply at once (the cumulative "calls done" ACK has its own tests). */
    private GroupClientEngine client()
    {
        return new GroupClientEngine(new GroupConfig(CLIENT, 1, 1, 2).retransmitTimeoutNs(20 * MS).replyAckDelayNs(0), recorder(),
            (memberId, packetId, requestId, payload, offset, length) ->
                replies.add(memberId + ":" + packetId + ":" + requestId + ":" +
                    StandardCharsets.US_ASCII.decode(payload.slice(offset, length))));
    }

    private static ByteBuffer ascii(final String text)
    {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static ByteBuffer replyAck(final int from, final int member, final int replyPacketId)
    {
        final ByteBuffer b = ByteBuffer.allocate(AckFlyweight.LENGTH);
        ((AckFlyweight)new AckFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, 77, PacketType.REPLY, member, replyPacketId);
        return b;
    }

    @Test
    void replyIsUnicastToTheClientAndResentUntilAcked()
    {
        final MemberEngine m = member(2, new GroupConfig(2, 1, 1, 2).retransmitTimeoutNs(20 * MS).keepAlive(0, 0));
        m.sendReply(CLIENT, 5, 9, ascii("xok"), 1, 2, 0);
        assertEquals(1, sent.size());
        assertEquals(CLIENT, sent.get(0).to);
        final ReplyFlyweight r = (ReplyFlyweight)new ReplyFlyweight().wrap(sent.get(0).bytes, 0);
        assertEquals(2, r.senderId());
        assertEquals(CLIENT, r.requestSenderId());
        assertEquals(5, r.requestPacketId());
        assertEquals(9, r.requestId());
        assertEquals("ok", StandardCharsets.US_ASCII.decode(sent.get(0).bytes.slice(r.payloadOffset(), r.payloadLength())).toString());
        assertEquals(20 * MS, m.nextDeadlineNs());

        m.onTimer(20 * MS);
        assertEquals(2, sent.size());
        assertEquals(sent.get(0).bytes, sent.get(1).bytes, "the retransmission is the same packet");
        assertEquals(1, m.counters().replyRetransmits());

        m.onPacket(replyAck(CLIENT + 1, 2, r.packetId()), 0, AckFlyweight.LENGTH, 21 * MS);
        assertEquals(1, m.pendingReplies(), "another client's ACK does not clear it");
        m.onPacket(replyAck(CLIENT, 2, r.packetId()), 0, AckFlyweight.LENGTH, 21 * MS);
        assertEquals(0, m.pendingReplies());
        assertEquals(1, m.counters().repliesAcked());
        assertEquals(Long.MAX_VALUE, m.nextDeadlineNs());
    }

    @Test
    void replyIsAbandonedWhenTheClientIsGoneOrTheStoreIsFull()
    {
        final MemberEngine m = member(2, new GroupConfig(2, 1, 1, 2).keepAlive(0, 0).retransmitTimeoutNs(20 * MS).replyGiveUpNs(50 * MS).maxPendingReplies(2));
        m.sendReply(CLIENT, 1, 1, ascii("a"), 0, 1, 0);
        m.sendReply(CLIENT, 2, 2, ascii("b"), 0, 1, 0);
        m.sendReply(CLIENT, 3, 3, ascii("c"), 0, 1, 0);
        assertEquals(2, m.pendingReplies());
        assertEquals(1, m.counters().repliesAbandoned(), "the oldest made room");
        m.onTimer(20 * MS);
        assertEquals(60 * MS, m.nextDeadlineNs(), "the next resend after twice as long");
        m.onTimer(40 * MS);
        assertEquals(2, m.counters().replyRetransmits());
        m.onTimer(60 * MS);
        assertEquals(0, m.pendingReplies());
        assertEquals(3, m.counters().repliesAbandoned());
        assertEquals(5, sent.size());
    }

    @Test
    void anUnackedReplyIsResentAfter20Then40Then80MsUpTo640Ms()
    {
        final MemberEngine m = member(2, new GroupConfig(2, 1, 1, 2).keepAlive(0, 0).retransmitTimeoutNs(20 * MS).replyGiveUpNs(10_000 * MS));
        m.sendReply(CLIENT, 1, 1, ascii("a"), 0, 1, 0);
        assertEquals(Backoff.DOUBLING_FROM_20_MS, Backoff.resendTimesMs(m::onTimer, sent::size));
    }

    @Test
    void aReplySentWhileAnotherWaitsOutItsBackoffIsResentOnItsOwnTime()
    {
        final MemberEngine m = member(2, new GroupConfig(2, 1, 1, 2).keepAlive(0, 0).retransmitTimeoutNs(20 * MS));
        m.sendReply(CLIENT, 1, 1, ascii("a"), 0, 1, 0);
        m.onTimer(20 * MS);
        assertEquals(60 * MS, m.nextDeadlineNs());
        m.sendReply(CLIENT, 2, 2, ascii("b"), 0, 1, 30 * MS);
        assertEquals(50 * MS, m.nextDeadlineNs(), "the new reply's first resend, before the old one's second");
        m.onTimer(50 * MS);
        assertEquals(List.of("1", "1", "2", "2"), repliesSent());
    }

    @Test
    void aReplyLongerThanMaxReplyBytesOrInMorePiecesThanTheStoreKeepsIsRefusedWithTheSettingNamed()
    {
        final MemberEngine m = member(2, new GroupConfig(2, 1, 1, 2).keepAlive(0, 0).maxPacketBytes(512).maxPendingReplies(2).maxReplyBytes(2000));
        // 512 less the 36-byte Reply header less the 16-byte piece header: 460 bytes a piece.
        assertEquals(null, m.replyRefusal(476), "fits one packet");
        assertEquals(null, m.replyRefusal(920), "two pieces");
        assertEquals("a reply of 921 bytes goes in 3 pieces of jacorb.lightwire.romiop.max_packet_bytes = 512, more than " +
            "jacorb.lightwire.romiop.max_pending_replies = 2 keeps", m.replyRefusal(921));
        assertEquals("a reply of 2001 bytes is longer than jacorb.lightwire.romiop.max_reply_bytes = 2000", m.replyRefusal(2001));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> m.sendReply(CLIENT, 4, 4, ByteBuffer.allocate(921), 0, 921, 0));
        assertEquals(m.replyRefusal(921), e.getMessage());
        assertEquals(0, sent.size());
        assertEquals(0, m.counters().repliesSent());
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

    @Test
    void aReplyLargerThanAPacketGoesInPiecesEachAReplyOfItsOwnKeptUntilAcked()
    {
        final MemberEngine m = member(2, new GroupConfig(2, 1, 1, 2).retransmitTimeoutNs(20 * MS).keepAlive(0, 0).maxPacketBytes(512));
        final byte[] giop = pattern(1200);
        m.sendReply(CLIENT, 5, 9, ByteBuffer.wrap(giop), 0, giop.length, 0);

        assertEquals(3, sent.size());
        final int[] offsets = {0, 460, 920};
        final int[] lengths = {460, 460, 280};
        final int[] replyPacketIds = new int[3];
        for (int i = 0; i < 3; i++)
        {
            final Sent s = sent.get(i);
            final ReplyFlyweight r = (ReplyFlyweight)new ReplyFlyweight().wrap(s.bytes, 0);
            assertEquals(CLIENT, s.to);
            assertEquals(0x0A, r.header().flags(), "ACK requested and piece");
            assertEquals(null, r.validate(s.bytes.capacity()));
            assertEquals(5, r.requestPacketId());
            assertEquals(9, r.requestId());
            assertEquals(FragmentHeader.HEADER_LENGTH + lengths[i], r.payloadLength());
            final int at = r.payloadOffset();
            assertEquals(5, FragmentHeader.messageId(s.bytes, at));
            assertEquals(offsets[i], FragmentHeader.offset(s.bytes, at));
            assertEquals(1200, FragmentHeader.totalLength(s.bytes, at));
            final byte[] piece = new byte[lengths[i]];
            s.bytes.get(at + FragmentHeader.HEADER_LENGTH, piece);
            assertArrayEquals(Arrays.copyOfRange(giop, offsets[i], offsets[i] + lengths[i]), piece);
            replyPacketIds[i] = r.packetId();
        }
        assertTrue(replyPacketIds[0] < replyPacketIds[1] && replyPacketIds[1] < replyPacketIds[2], "each piece its own packet id");
        assertEquals(1, m.counters().repliesSent());
        assertEquals(3, m.counters().replyFragmentsSent());
        assertEquals(3, m.pendingReplies());

        m.onPacket(replyAck(CLIENT, 2, replyPacketIds[1]), 0, AckFlyweight.LENGTH, 1 * MS);
        assertEquals(2, m.pendingReplies());
        m.onTimer(20 * MS);
        assertEquals(5, sent.size());
        assertEquals(sent.get(0).bytes, sent.get(3).bytes, "the first piece again, the same packet");
        assertEquals(sent.get(2).bytes, sent.get(4).bytes, "the last piece again");
    }

    /** Packets of 512 bytes (460 bytes of reply a piece) and a reply window of two pieces. */
    private MemberEngine windowOfTwoPieces(final int maxPendingReplies)
    {
        return member(2, new GroupConfig(2, 1, 1, 2).retransmitTimeoutNs(20 * MS).replyGiveUpNs(100 * MS).keepAlive(0, 0)
            .maxPacketBytes(512).replyWindowBytes(1024).maxPendingReplies(maxPendingReplies));
    }

    /** @return (request packet id, piece offset) of each Reply sent, in order, as "5@920"; a whole reply as "7". */
    private List<String> repliesSent()
    {
        final List<String> out = new ArrayList<>();
        for (final Sent x : sent.stream().filter(x -> x.type == PacketType.REPLY).toList())
        {
            final ReplyFlyweight r = (ReplyFlyweight)new ReplyFlyweight().wrap(x.bytes, 0);
            out.add(r.header().piece()
                ? r.requestPacketId() + "@" + FragmentHeader.offset(x.bytes, r.payloadOffset())
                : Integer.toString(r.requestPacketId()));
        }
        return out;
    }

    private int replyPacketId(final int index)
    {
        return ((ReplyFlyweight)new ReplyFlyweight().wrap(sent.get(index).bytes, 0)).packetId();
    }

    private static ByteBuffer callsDone(final int client, final int requestPacketId)
    {
        final ByteBuffer b = ByteBuffer.allocate(AckFlyweight.LENGTH);
        ((AckFlyweight)new AckFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, client, 78, PacketType.REPLY, client, requestPacketId)
            .ackFlags(AckFlyweight.FLAG_CALLS_DONE);
        return b;
    }

    @Test
    void replyPiecesBeyondTheWindowWaitForAcksAndGoOldestFirstWhileWholeRepliesGoAtOnce()
    {
        final MemberEngine m = windowOfTwoPieces(1024);
        m.sendReply(CLIENT, 5, 9, ByteBuffer.wrap(pattern(2300)), 0, 2300, 0);
        assertEquals(List.of("5@0", "5@460"), repliesSent(), "two of five pieces");
        assertEquals(3, m.heldReplyPieces());
        assertEquals(5, m.pendingReplies());
        assertEquals(3, m.counters().replyFragmentsHeld());
        assertEquals(5, m.counters().replyFragmentsSent(), "every piece is made at once; three wait to be sent");

        m.sendReply(CLIENT, 6, 10, ascii("whole"), 0, 5, 1 * MS);
        m.sendReply(CLIENT + 1, 7, 11, ByteBuffer.wrap(pattern(900)), 0, 900, 1 * MS);
        assertEquals(List.of("5@0", "5@460", "6", "7@0", "7@460"), repliesSent(), "a whole reply, and another client's window");

        m.onPacket(replyAck(CLIENT, 2, replyPacketId(1)), 0, AckFlyweight.LENGTH, 2 * MS);
        assertEquals("5@920", repliesSent().get(5), "one ACK, one piece");
        m.onPacket(replyAck(CLIENT, 2, replyPacketId(1)), 0, AckFlyweight.LENGTH, 2 * MS);
        m.onPacket(replyAck(CLIENT + 1, 2, replyPacketId(0)), 0, AckFlyweight.LENGTH, 2 * MS);
        assertEquals(6, sent.size(), "a repeated ACK, and another client's ACK of this client's piece, make no room");
        m.onPacket(replyAck(CLIENT, 2, replyPacketId(2)), 0, AckFlyweight.LENGTH, 2 * MS);
        assertEquals(6, sent.size(), "the whole reply's ACK makes no room for pieces");
        m.onPacket(replyAck(CLIENT, 2, replyPacketId(0)), 0, AckFlyweight.LENGTH, 3 * MS);
        m.onPacket(replyAck(CLIENT, 2, replyPacketId(5)), 0, AckFlyweight.LENGTH, 3 * MS);
        assertEquals(List.of("5@0", "5@460", "6", "7@0", "7@460", "5@920", "5@1380", "5@1840"), repliesSent());
        assertEquals(0, m.heldReplyPieces());

        m.onTimer(21 * MS);
        assertEquals(List.of("7@0", "7@460"), repliesSent().subList(8, 10), "20 ms after they were sent");
        m.onTimer(22 * MS);
        assertEquals(10, sent.size(), "pieces made at 0 ms but sent at 3 ms are not due yet");
        m.onTimer(23 * MS);
        assertEquals(List.of("5@1380", "5@1840"), repliesSent().subList(10, 12));
    }

    @Test
    void heldPiecesAreNeverResentAndAClientGoneForOnePieceIsGoneForThoseHeld()
    {
        final MemberEngine m = windowOfTwoPieces(1024);
        m.sendReply(CLIENT, 5, 9, ByteBuffer.wrap(pattern(2300)), 0, 2300, 0);
        for (long now = 0; now < 100 * MS; now += MS)
        {
            m.onTimer(now);
        }
        assertEquals(List.of("5@0", "5@460", "5@0", "5@460", "5@0", "5@460"), repliesSent(), "resent at 20 and 60 ms");
        assertEquals(4, m.counters().replyRetransmits());
        m.onTimer(140 * MS);
        assertEquals(6, sent.size(), "given up 100 ms after they were sent, instead of a third resend");
        assertEquals(0, m.pendingReplies());
        assertEquals(0, m.heldReplyPieces());
        assertEquals(5, m.counters().repliesAbandoned(), "the two sent and the three held");
        assertEquals(Long.MAX_VALUE, m.nextDeadlineNs());
    }

    @Test
    void aPieceAbandonedToMakeRoomInTheStoreMakesRoomInItsClientsWindow()
    {
        final MemberEngine m = windowOfTwoPieces(5);
        m.sendReply(CLIENT, 5, 9, ByteBuffer.wrap(pattern(2300)), 0, 2300, 0);
        assertEquals(List.of("5@0", "5@460"), repliesSent());
        m.sendReply(CLIENT + 1, 7, 11, ascii("whole"), 0, 5, 1 * MS);
        assertEquals(List.of("5@0", "5@460", "5@920", "7"), repliesSent(),
            "the first piece abandoned (no ACK for it will come), the third sent in its place");
        assertEquals(1, m.counters().repliesAbandoned());
        assertEquals(2, m.heldReplyPieces());
        assertEquals(5, m.pendingReplies());
    }

    @Test
    void cancelledAndCallsDoneRepliesLeaveTheWindowAndTheirHeldPiecesAreNeverSent()
    {
        final MemberEngine m = windowOfTwoPieces(1024);
        m.sendReply(CLIENT, 5, 9, ByteBuffer.wrap(pattern(1000)), 0, 1000, 0);
        m.sendReply(CLIENT, 6, 10, ByteBuffer.wrap(pattern(1000)), 0, 1000, 0);
        m.sendReply(CLIENT, 8, 12, ByteBuffer.wrap(pattern(1000)), 0, 1000, 0);
        assertEquals(List.of("5@0", "5@460"), repliesSent());
        assertEquals(7, m.heldReplyPieces());

        final ByteBuffer cancel = ByteBuffer.allocate(CancelFlyweight.LENGTH);
        ((CancelFlyweight)new CancelFlyweight().wrap(cancel, 0))
            .set(ByteOrder.BIG_ENDIAN, CLIENT, 79, 5, 9);
        m.onPacket(cancel, 0, cancel.capacity(), 1 * MS);
        assertEquals(List.of("5@0", "5@460", "6@0", "6@460"), repliesSent());
        assertEquals(4, m.heldReplyPieces(), "request 5's third piece is never sent");

        m.onPacket(callsDone(CLIENT, 6), 0, AckFlyweight.LENGTH, 2 * MS);
        assertEquals(List.of("8@0", "8@460"), repliesSent().subList(4, 6));
        assertEquals(1, m.heldReplyPieces());
        assertEquals(3, m.pendingReplies());
    }

    @Test
    void aReplyOfFortyPiecesThroughAWindowOfTwoArrivesWholeWithNoResend()
    {
        final MemberEngine m = windowOfTwoPieces(1024);
        final GroupClientEngine c = client();
        final int packetId = c.multicast(9, 3, ascii("req"), 0, 3, 0);
        sent.clear();
        final byte[] giop = pattern(40 * 460);
        m.sendReply(CLIENT, packetId, 9, ByteBuffer.wrap(giop), 0, giop.length, 0);
        int delivered = 0;
        int mostInFlight = 0;
        long now = 0;
        while (delivered < sent.size())
        {
            // Everything sent so far is delivered in order: replies to the client, its ACKs to the member.
            final int upTo = sent.size();
            int inFlight = 0;
            for (; delivered < upTo; delivered++)
            {
                final Sent x = sent.get(delivered);
                inFlight += x.type == PacketType.REPLY ? 1 : 0;
                if (x.to == CLIENT)
                {
                    c.onPacket(x.bytes, 0, x.bytes.capacity(), now);
                }
                else
                {
                    m.onPacket(x.bytes, 0, x.bytes.capacity(), now);
                }
            }
            mostInFlight = Math.max(mostInFlight, inFlight);
            now += MS;
            m.onTimer(now);
        }
        assertEquals(List.of("2:" + packetId + ":9:" + new String(giop, StandardCharsets.US_ASCII)), replies);
        assertEquals(40, m.counters().replyFragmentsSent());
        assertEquals(38, m.counters().replyFragmentsHeld());
        assertEquals(0, m.counters().replyRetransmits());
        assertEquals(40, c.counters().replyFragmentsReceived());
        assertEquals(2, mostInFlight, "never more pieces on their way than the window");
        assertEquals(0, m.pendingReplies());
    }

    /** Member 1's and member 2's pieces of their 1,200-byte replies, as sent. */
    private List<Sent> piecesOfTwoReplies(final int packetId, final byte[] one, final byte[] two)
    {
        final MemberEngine m1 = member(1, new GroupConfig(1, 1, 1, 2).keepAlive(0, 0).maxPacketBytes(512));
        final MemberEngine m2 = member(2, new GroupConfig(2, 1, 1, 2).keepAlive(0, 0).maxPacketBytes(512));
        m1.sendReply(CLIENT, packetId, 9, ByteBuffer.wrap(one), 0, one.length, 0);
        m2.sendReply(CLIENT, packetId, 9, ByteBuffer.wrap(two), 0, two.length, 0);
        final List<Sent> pieces = sent.stream().filter(s -> s.type == PacketType.REPLY).toList();
        assertEquals(6, pieces.size());
        sent.clear();
        return pieces;
    }

    @Test
    void theClientPutsEachMembersReplyTogetherOnceInAnyOrderAndAcksEveryPiece()
    {
        final GroupClientEngine c = client();
        final int packetId = c.multicast(9, 3, ascii("req"), 0, 3, 0);
        final byte[] one = pattern(1200);
        final byte[] two = pattern(1200);
        two[1199] = 'Z';
        final List<Sent> p = piecesOfTwoReplies(packetId, one, two);
        // Member 1: 3, 1, 1 again, 2, then 2 again once whole. Member 2's pieces interleaved, 2 and 3 first.
        for (final Sent s : List.of(p.get(2), p.get(4), p.get(0), p.get(0), p.get(5), p.get(1), p.get(1), p.get(3)))
        {
            c.onPacket(s.bytes, 0, s.bytes.capacity(), 1 * MS);
        }

        assertEquals(List.of("1:" + packetId + ":9:" + new String(one, StandardCharsets.US_ASCII),
            "2:" + packetId + ":9:" + new String(two, StandardCharsets.US_ASCII)), replies);
        assertEquals(2, c.counters().repliesDelivered());
        assertEquals(7, c.counters().replyFragmentsReceived(), "every piece but the one resent after its reply was whole");
        assertEquals(1, c.counters().duplicateReplies(), "member 1's second piece, resent after the reply was whole");
        assertEquals("fragments=7, fragmentedReplies=2, invalidFragments=0, duplicateFragments=1, fragmentsTooLong=0, " +
            "partialRepliesEvicted=0, partialReplies=0", c.replyPieceCounters());
        assertEquals(8, acks().size(), "every piece ACKed, duplicates too");
        for (int i = 0; i < 8; i++)
        {
            assertEquals(PacketType.REPLY, acks().get(i).ackedType());
        }
    }

    @Test
    void piecesOfADecidedCallAreNotKeptAndItsPartialRepliesAreForgotten()
    {
        final GroupClientEngine c = client();
        final int packetId = c.multicast(9, 3, ascii("req"), 0, 3, 0);
        final List<Sent> p = piecesOfTwoReplies(packetId, pattern(1200), pattern(1200));
        c.onPacket(p.get(0).bytes, 0, p.get(0).bytes.capacity(), 1 * MS);
        c.onPacket(p.get(3).bytes, 0, p.get(3).bytes.capacity(), 1 * MS);
        assertTrue(c.replyPieceCounters().endsWith("partialReplies=2"), c.replyPieceCounters());

        c.callDone(packetId);
        assertTrue(c.replyPieceCounters().endsWith("partialReplies=0"), c.replyPieceCounters());
        for (final Sent s : List.of(p.get(1), p.get(2), p.get(4), p.get(5)))
        {
            c.onPacket(s.bytes, 0, s.bytes.capacity(), 2 * MS);
        }
        assertEquals(List.of(), replies);
        assertEquals(4, c.counters().lateReplyFragments());
        assertEquals(6, acks().size(), "the members stop resending");
    }

    @Test
    void aClientRefusesAReplyLongerThanItsMaxReplyBytesPieceByPiece()
    {
        final GroupClientEngine c = new GroupClientEngine(new GroupConfig(CLIENT, 1, 1, 2).replyAckDelayNs(0).maxReplyBytes(1024), recorder(),
            (memberId, packetId, requestId, payload, offset, length) -> replies.add(memberId + ":" + packetId));
        final int packetId = c.multicast(9, 3, ascii("req"), 0, 3, 0);
        for (final Sent s : piecesOfTwoReplies(packetId, pattern(1200), pattern(1200)))
        {
            c.onPacket(s.bytes, 0, s.bytes.capacity(), 1 * MS);
        }
        assertEquals(List.of(), replies);
        assertTrue(c.replyPieceCounters().contains("fragmentsTooLong=6, partialRepliesEvicted=0, partialReplies=0"), c.replyPieceCounters());
        assertEquals(6, acks().size(), "ACKed all the same: resending would not help");
    }

    @Test
    void clientAcksEveryReplyAndHandsEachMembersReplyOnOnce()
    {
        final GroupClientEngine c = client();
        final int packetId = c.multicast(9, 3, ascii("req"), 0, 3, 0);
        final MemberEngine m1 = member(1, new GroupConfig(1, 1, 1, 2));
        final MemberEngine m2 = member(2, new GroupConfig(2, 1, 1, 2));
        final MemberEngine m3 = member(3, new GroupConfig(3, 1, 1, 2, 3));
        m1.sendReply(CLIENT, packetId, 9, ascii("one"), 0, 3, 0);
        m2.sendReply(CLIENT, packetId, 9, ascii("two"), 0, 3, 0);
        m3.sendReply(CLIENT, packetId, 9, ascii("three"), 0, 5, 0);
        final List<Sent> replyPackets = sent.stream().filter(s -> s.type == PacketType.REPLY).toList();
        assertEquals(3, replyPackets.size());
        sent.clear();
        for (final Sent s : List.of(replyPackets.get(0), replyPackets.get(1), replyPackets.get(0), replyPackets.get(2)))
        {
            c.onPacket(s.bytes, 0, s.bytes.capacity(), 1 * MS);
        }
        assertEquals(List.of("1:" + packetId + ":9:one", "2:" + packetId + ":9:two"), replies);
        assertEquals(1, c.counters().duplicateReplies());
        assertEquals(1, c.counters().repliesFromNonMembers(), "member 3 is not in the client's view");
        assertEquals(2, c.counters().repliesDelivered());
        final List<Integer> ackedTo = sent.stream().filter(s -> s.type == PacketType.ACK).map(Sent::to).toList();
        assertEquals(List.of(1, 2, 1), ackedTo, "duplicates ACKed again; non-members not ACKed");
        assertArrayEquals(new int[] {1, 2}, c.currentMembers());
    }

    /** Three members' replies to each of {@code calls} serial calls, fed to the client at 0.1 ms steps. */
    private List<Integer> serialCalls(final GroupClientEngine c, final List<MemberEngine> members, final int calls, final long startNs)
    {
        final List<Integer> packetIds = new ArrayList<>();
        long now = startNs;
        for (int call = 0; call < calls; call++)
        {
            final int packetId = c.multicast(call, 3, ascii("req"), 0, 3, now);
            packetIds.add(packetId);
            for (final MemberEngine m : members)
            {
                final int before = sent.size();
                m.sendReply(CLIENT, packetId, call, ascii("ok"), 0, 2, now);
                final Sent r = sent.get(before);
                now += MS / 10;
                c.onPacket(r.bytes, 0, r.bytes.capacity(), now);
            }
        }
        return packetIds;
    }

    private List<AckFlyweight> acks()
    {
        return sent.stream().filter(x -> x.type == PacketType.ACK).map(x -> (AckFlyweight)new AckFlyweight().wrap(x.bytes, 0)).toList();
    }

    @Test
    void serialCallsAreAcknowledgedByOneCallsDoneAckAndTheMembersForgetEveryReply()
    {
        final GroupClientEngine c = client(new GroupConfig(CLIENT, 1, 1, 2, 3).retransmitTimeoutNs(20 * MS).replyAckDelayNs(MS));
        final List<MemberEngine> members = List.of(member(1, new GroupConfig(1, 1, 1, 2, 3).keepAlive(0, 0)),
            member(2, new GroupConfig(2, 1, 1, 2, 3).keepAlive(0, 0)), member(3, new GroupConfig(3, 1, 1, 2, 3).keepAlive(0, 0)));
        final List<Integer> packetIds = serialCalls(c, members, 3, 0);
        assertEquals(9, replies.size());
        assertEquals(List.of(), acks(), "held back for the delay (1 ms from the first reply, at 0.1 ms)");
        assertEquals(MS / 10 + MS, c.nextDeadlineNs());
        c.onTimer(MS / 10 + MS);
        final List<AckFlyweight> acks = acks();
        assertEquals(1, acks.size(), "one ACK for nine replies");
        assertEquals(PacketType.REPLY, acks.get(0).ackedType());
        assertTrue(acks.get(0).callsDone());
        assertEquals(CLIENT, acks.get(0).ackedSenderId());
        assertEquals(packetIds.get(2).longValue(), acks.get(0).ackedId(), "every call up to the last is done");
        assertEquals(GroupSender.GROUP, sent.stream().filter(x -> x.type == PacketType.ACK).findFirst().orElseThrow().to);
        assertEquals(1, c.counters().callsDoneAcksSent());
        assertEquals(0, c.counters().replyAcksSent());
        final ByteBuffer ack = sent.stream().filter(x -> x.type == PacketType.ACK).findFirst().orElseThrow().bytes;
        for (final MemberEngine m : members)
        {
            assertEquals(3, m.pendingReplies());
            m.onPacket(ack, 0, ack.capacity(), 2 * MS);
            assertEquals(0, m.pendingReplies(), "every reply forgotten");
            assertEquals(3, m.counters().repliesAckedByCallsDone());
            assertEquals(Long.MAX_VALUE, m.nextDeadlineNs(), "nothing left to resend");
        }
    }

    @Test
    void aCallStillWaitingForAMemberHoldsTheCallsDoneAckBackAndLaterRepliesGetAckedOneByOne()
    {
        final List<String> decided = new ArrayList<>();
        final GroupClientEngine c = new GroupClientEngine(new GroupConfig(CLIENT, 1, 1, 2, 3).retransmitTimeoutNs(20 * MS).replyAckDelayNs(MS), recorder(),
            (memberId, packetId, requestId, payload, offset, length) -> decided.add(memberId + ":" + packetId));
        final MemberEngine m1 = member(1, new GroupConfig(1, 1, 1, 2, 3).keepAlive(0, 0));
        final MemberEngine m2 = member(2, new GroupConfig(2, 1, 1, 2, 3).keepAlive(0, 0));
        // Call A: members 1 and 2 reply, member 3 does not (yet). Call B: all three reply.
        final int a = c.multicast(1, 3, ascii("a"), 0, 1, 0);
        final int b = c.multicast(2, 3, ascii("b"), 0, 1, 0);
        for (final MemberEngine m : List.of(m1, m2))
        {
            final int before = sent.size();
            m.sendReply(CLIENT, a, 1, ascii("x"), 0, 1, 0);
            c.onPacket(sent.get(before).bytes, 0, sent.get(before).bytes.capacity(), 0);
        }
        final MemberEngine m3 = member(3, new GroupConfig(3, 1, 1, 2, 3).keepAlive(0, 0));
        for (final MemberEngine m : List.of(m1, m2, m3))
        {
            final int before = sent.size();
            m.sendReply(CLIENT, b, 2, ascii("y"), 0, 1, 0);
            c.onPacket(sent.get(before).bytes, 0, sent.get(before).bytes.capacity(), 0);
        }
        sent.clear();
        c.onTimer(MS);
        // A is open: no calls-done ACK can cover it, nor B after it; all five replies are ACKed one by one.
        assertEquals(List.of(1, 2, 1, 2, 3), sent.stream().filter(x -> x.type == PacketType.ACK).map(Sent::to).toList());
        assertTrue(acks().stream().noneMatch(AckFlyweight::callsDone));
        assertEquals(a - 1, c.callsDoneThrough());

        // The caller decides A (say, first reply): now everything through B is done.
        c.callDone(a);
        assertEquals(b, c.callsDoneThrough());
        sent.clear();
        final int before = sent.size();
        m3.sendReply(CLIENT, a, 1, ascii("x"), 0, 1, 2 * MS);
        c.onPacket(sent.get(before).bytes, 0, sent.get(before).bytes.capacity(), 2 * MS);
        c.onTimer(3 * MS);
        final List<AckFlyweight> acks = acks();
        assertEquals(1, acks.size(), "member 3's late reply to A is covered by the calls-done ACK");
        assertTrue(acks.get(0).callsDone());
        assertEquals(b, acks.get(0).ackedId());
    }

    @Test
    void aLostCallsDoneAckLeadsToAResentReplyThatIsAckedAgainAndNoReplyIsLost()
    {
        final GroupClientEngine c = client(new GroupConfig(CLIENT, 1, 1).retransmitTimeoutNs(20 * MS).replyAckDelayNs(MS));
        final MemberEngine m1 = member(1, new GroupConfig(1, 1, 1).retransmitTimeoutNs(20 * MS).keepAlive(0, 0));
        final int call = serialCalls(c, List.of(m1), 1, 0).get(0);
        c.onTimer(2 * MS);
        assertEquals(1, acks().size());
        // The ACK is lost: the member resends its reply after retransmit_ms.
        sent.clear();
        m1.onTimer(20 * MS);
        final List<Sent> resent = sent.stream().filter(x -> x.type == PacketType.REPLY).toList();
        assertEquals(1, resent.size());
        assertEquals(1, m1.counters().replyRetransmits());
        sent.clear();
        c.onPacket(resent.get(0).bytes, 0, resent.get(0).bytes.capacity(), 21 * MS);
        assertEquals(List.of("1:" + call), replies, "handed on once");
        assertEquals(1, c.counters().duplicateReplies());
        final List<Sent> ackNow = sent.stream().filter(x -> x.type == PacketType.ACK).toList();
        assertEquals(1, ackNow.size(), "a duplicate is ACKed at once, by itself");
        m1.onPacket(ackNow.get(0).bytes, 0, ackNow.get(0).bytes.capacity(), 22 * MS);
        assertEquals(0, m1.pendingReplies());
        assertEquals(1, m1.counters().repliesAcked());
    }

    @Test
    void callsDoneIsComparedInSerialOrderAcrossThePacketIdWrap()
    {
        final MemberEngine m1 = member(1, new GroupConfig(1, 1, 1).keepAlive(0, 0));
        m1.sendReply(CLIENT, Integer.MAX_VALUE, 1, ascii("x"), 0, 1, 0);
        m1.sendReply(CLIENT, Integer.MIN_VALUE, 2, ascii("y"), 0, 1, 0);
        m1.sendReply(CLIENT, Integer.MIN_VALUE + 5, 3, ascii("z"), 0, 1, 0);
        m1.sendReply(CLIENT + 1, Integer.MIN_VALUE, 4, ascii("w"), 0, 1, 0);
        final ByteBuffer b = ByteBuffer.allocate(AckFlyweight.LENGTH);
        ((AckFlyweight)new AckFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, CLIENT, 88, PacketType.REPLY, CLIENT, Integer.MIN_VALUE & 0xFFFF_FFFFL)
            .ackFlags(AckFlyweight.FLAG_CALLS_DONE);
        m1.onPacket(b, 0, b.capacity(), MS);
        assertEquals(2, m1.pendingReplies(), "the reply past the wrapped id, and the other client's, stay");
        assertEquals(2, m1.counters().repliesAckedByCallsDone());
        // A calls-done ACK naming another client is refused.
        final ByteBuffer forged = ByteBuffer.allocate(AckFlyweight.LENGTH);
        ((AckFlyweight)new AckFlyweight().wrap(forged, 0)).set(ByteOrder.BIG_ENDIAN, CLIENT, 89, PacketType.REPLY, CLIENT + 1, Integer.MAX_VALUE)
            .ackFlags(AckFlyweight.FLAG_CALLS_DONE);
        m1.onPacket(forged, 0, forged.capacity(), MS);
        assertEquals(2, m1.pendingReplies());
        assertEquals(1, m1.counters().unexpectedPackets());
    }

    @Test
    void anOpenCallHoldsBackCallsDoneUntilItIsDecidedOrNoLongerTracked()
    {
        final GroupClientEngine c = client(new GroupConfig(CLIENT, 1, 1).maxTrackedReplies(2).maxOutstandingRequests(8));
        final int open = c.multicast(1, 3, ascii("a"), 0, 1, 0);
        final int oneway = c.multicast(2, 0, ascii("b"), 0, 1, 0);
        final int decided = c.multicast(3, 3, ascii("c"), 0, 1, 0);
        c.callDone(decided);
        assertEquals(open - 1, c.callsDoneThrough(), "the open call holds back the oneway and the decided call after it");
        assertEquals(open - 1, c.callsDoneThrough(), "asking again changes nothing");
        c.callDone(open);
        assertEquals(decided, c.callsDoneThrough());
        final int third = c.multicast(4, 3, ascii("d"), 0, 1, 0);
        final int fourth = c.multicast(5, 3, ascii("e"), 0, 1, 0);
        c.callDone(fourth);
        assertEquals(third - 1, c.callsDoneThrough(), "the third call is open");
        // A fifth two-way evicts the third call's record (two are tracked): no longer tracked, it holds nothing back.
        final int fifth = c.multicast(6, 3, ascii("f"), 0, 1, 0);
        assertEquals(fifth - 1, c.callsDoneThrough());
        c.callDone(fifth);
        assertEquals(fifth, c.callsDoneThrough());
        assertTrue(oneway - open > 0 && decided - oneway > 0, "packet ids ascend");
    }

    @Test
    void repliesToEvictedRequestsAreStaleAndToOnewaysUnexpected()
    {
        final GroupClientEngine c = client(new GroupConfig(CLIENT, 1, 1).maxTrackedReplies(1).maxOutstandingRequests(8));
        final int first = c.multicast(1, 3, ascii("a"), 0, 1, 0);
        final int oneway = c.multicast(2, 0, ascii("b"), 0, 1, 0);
        final int second = c.multicast(3, 3, ascii("c"), 0, 1, 0);
        final MemberEngine m1 = member(1, new GroupConfig(1, 1, 1));
        sent.clear();
        m1.sendReply(CLIENT, first, 1, ascii("x"), 0, 1, 0);
        m1.sendReply(CLIENT, oneway, 2, ascii("x"), 0, 1, 0);
        m1.sendReply(CLIENT, second, 3, ascii("x"), 0, 1, 0);
        for (final Sent s : List.copyOf(sent))
        {
            c.onPacket(s.bytes, 0, s.bytes.capacity(), 0);
        }
        assertEquals(List.of("1:" + second), replies);
        assertEquals(1, c.counters().staleReplies(), "the evicted two-way");
        assertEquals(1, c.counters().unexpectedPackets(), "a reply to a oneway");
    }
}
