package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;
import org.junit.jupiter.api.Test;

/** Tier 1: the client's reliable multicast of one request (Figure 4 lines 6-11, 41-45). */
class GroupClientEngineTest
{
    private static final long MS = 1_000_000L;
    private final List<Integer> sentTo = new ArrayList<>();
    private final GroupClientEngine client = new GroupClientEngine(
        new GroupConfig(100, 1, 1, 2).retransmitTimeoutNs(20 * MS).maxOutstandingRequests(1),
        (to, packet, length) -> sentTo.add(to));

    private static ByteBuffer ack(final int from, final int ackedSender, final long ackedId)
    {
        final ByteBuffer b = ByteBuffer.allocate(AckFlyweight.LENGTH);
        ((AckFlyweight)new AckFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, 9, PacketType.REQUEST, ackedSender, ackedId);
        return b;
    }

    @Test
    void requestIsMulticastAgainUntilEveryMemberAcks()
    {
        final int packetId = client.multicast(7, 1, ByteBuffer.allocate(3), 0, 3, 0);
        assertEquals(List.of(GroupSender.GROUP), sentTo);
        assertFalse(client.canMulticast());
        assertThrows(IllegalStateException.class, () -> client.multicast(8, 1, ByteBuffer.allocate(3), 0, 3, 0));

        client.onPacket(ack(1, 100, packetId), 0, AckFlyweight.LENGTH, 1 * MS);
        assertEquals(20 * MS, client.nextDeadlineNs());
        client.onTimer(20 * MS);
        assertEquals(2, sentTo.size());
        assertEquals(1, client.counters().requestRetransmits());
        assertEquals(60 * MS, client.nextDeadlineNs(), "the next resend after twice as long");

        client.onPacket(ack(2, 101, packetId), 0, AckFlyweight.LENGTH, 21 * MS);
        client.onPacket(ack(3, 100, packetId), 0, AckFlyweight.LENGTH, 21 * MS);
        assertEquals(2, client.counters().unexpectedPackets(), "another client's ACK and a non-member's ACK");
        assertEquals(1, client.outstandingRequests());

        client.onPacket(ack(2, 100, packetId), 0, AckFlyweight.LENGTH, 22 * MS);
        assertEquals(0, client.outstandingRequests());
        assertEquals(1, client.counters().requestsCompleted());
        assertEquals(Long.MAX_VALUE, client.nextDeadlineNs());
    }

    @Test
    void anUnackedRequestIsResentAfter20Then40Then80MsUpTo640Ms()
    {
        client.multicast(7, 1, ByteBuffer.allocate(3), 0, 3, 0);
        assertEquals(Backoff.DOUBLING_FROM_20_MS, Backoff.resendTimesMs(client::onTimer, sentTo::size));
    }

    @Test
    void withRequestsToSequencerAFittingRequestGoesToTheLeaderAloneOnceItIsHeardAndEveryResendToTheGroup()
    {
        final List<Integer> to = new ArrayList<>();
        final List<Boolean> flagged = new ArrayList<>();
        final GroupClientEngine c = new GroupClientEngine(
            new GroupConfig(100, 1, 1, 2).retransmitTimeoutNs(20 * MS).maxPacketBytes(512).requestsToSequencer(true),
            (destination, packet, length) ->
            {
                to.add(destination);
                flagged.add(new PacketHeader_1_0().wrap(packet, 0).toSequencer());
            });
        final int first = c.multicast(1, 1, ByteBuffer.allocate(3), 0, 3, 0);
        assertEquals(List.of(GroupSender.GROUP), to, "nothing heard from the leader yet: its address may be unknown");
        c.onPacket(ack(1, 100, first), 0, AckFlyweight.LENGTH, 1 * MS);

        c.multicast(2, 1, ByteBuffer.allocate(3), 0, 3, 1 * MS);
        // 512 bytes less a one-entry MsgOrder (52) less the request header (28): 432 bytes is the largest that is carried.
        c.multicast(3, 1, ByteBuffer.allocate(432), 0, 432, 1 * MS);
        c.multicast(4, 1, ByteBuffer.allocate(433), 0, 433, 1 * MS);
        assertEquals(List.of(GroupSender.GROUP, 1, 1, GroupSender.GROUP), to);
        assertEquals(List.of(false, true, true, false), flagged);
        assertEquals(2, c.counters().requestsToSequencer());

        to.clear();
        flagged.clear();
        c.onTimer(21 * MS);
        assertEquals(List.of(GroupSender.GROUP, GroupSender.GROUP, GroupSender.GROUP, GroupSender.GROUP), to,
            "every unACKed request is resent to the whole group (the first lacks member 2's ACK)");
        assertTrue(flagged.stream().noneMatch(f -> f), "a resend never asks the sequencer to carry it");
    }

    @Test
    void aSecondEndOfTheSameClientContinuesItsPacketIdsAndSequenceNumbers()
    {
        final List<ByteBuffer> sent = new ArrayList<>();
        final GroupClientEngine c = new GroupClientEngine(new GroupConfig(100, 1, 1, 2).retransmitTimeoutNs(20 * MS),
            (to, packet, length) -> sent.add(ByteBuffer.wrap(java.util.Arrays.copyOf(packet.array(), length))));
        c.resumeAfter(1000, 77);

        assertEquals(1001, c.multicast(5, 1, ByteBuffer.allocate(3), 0, 3, 0));
        final org.lightwire.romiop.protocol.RequestFlyweight r = new org.lightwire.romiop.protocol.RequestFlyweight();
        r.wrap(sent.get(0), 0);
        assertEquals(1001, r.packetId());
        assertEquals(78, r.clientSeq());
        assertEquals(1001, c.lamport());
        assertEquals(78, c.clientSeq());
        assertThrows(IllegalStateException.class, () -> c.resumeAfter(2000, 1));
    }
}
