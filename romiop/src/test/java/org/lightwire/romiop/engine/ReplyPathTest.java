package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.lightwire.romiop.protocol.AckFlyweight;
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
        return new MemberEngine(config, recorder(), (seq, s, p, r, payload, offset, length) -> { });
    }

    /** A client that ACKs each reply at once (the cumulative "calls done" ACK has its own tests). */
    /** @return a client engine whose decided replies are recorded in {@link #replies} as "member:packet". */
    private GroupClientEngine client(final GroupConfig config)
    {
        return new GroupClientEngine(config, recorder(),
            (memberId, packetId, requestId, payload, offset, length) -> replies.add(memberId + ":" + packetId));
    }

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
        m.onTimer(40 * MS);
        assertEquals(4, m.counters().replyRetransmits());
        m.onTimer(60 * MS);
        assertEquals(0, m.pendingReplies());
        assertEquals(3, m.counters().repliesAbandoned());
        assertEquals(7, sent.size());
        assertThrows(IllegalArgumentException.class,
            () -> m.sendReply(CLIENT, 4, 4, ByteBuffer.allocate(GroupConfig.DEFAULT_MAX_PACKET_BYTES), 0, GroupConfig.DEFAULT_MAX_PACKET_BYTES, 0));
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
        final GroupClientEngine c = client(new GroupConfig(CLIENT, 1, 1, 2, 3).retransmitTimeoutNs(20 * MS));
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
        final GroupClientEngine c = new GroupClientEngine(new GroupConfig(CLIENT, 1, 1, 2, 3).retransmitTimeoutNs(20 * MS), recorder(),
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
        final GroupClientEngine c = client(new GroupConfig(CLIENT, 1, 1).retransmitTimeoutNs(20 * MS));
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
