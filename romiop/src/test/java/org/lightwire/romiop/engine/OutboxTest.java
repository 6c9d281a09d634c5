package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.RequestFlyweight;

/** Tier 1: a member's packet ids and the small packets it writes; a recording sender. */
class OutboxTest
{
    private static final int SELF = 2;
    private static final int CLIENT = 100;

    private final SentPackets sent = new SentPackets();

    @Test
    void eachPacketTakesTheNextIdAndALargerIdSeenRaisesTheCounter()
    {
        final Outbox outbox = new Outbox(new GroupConfig(SELF, 1, 1, 2, 3), sent);
        assertEquals(1, outbox.nextPacketId());
        outbox.observe(41);
        outbox.keepAlive(GroupSender.GROUP, 7);
        outbox.observe(5);
        outbox.ack(CLIENT, PacketType.REQUEST, CLIENT, 9);
        assertEquals(42, sent.keepAlives().get(0).packetId());
        assertEquals(43, sent.acks().get(0).packetId(), "a smaller id seen changes nothing");
        outbox.observe(0xFFFF_FFF0);
        assertEquals(0xFFFF_FFF1, outbox.nextPacketId(), "ids compare unsigned");
    }

    @Test
    void theSmallPacketsNameThisMemberAndWhatTheyAreAbout()
    {
        final Outbox outbox = new Outbox(new GroupConfig(SELF, 1, 1, 2, 3), sent);
        outbox.ack(CLIENT, PacketType.CANCEL, CLIENT, 9);
        outbox.keepAlive(GroupSender.GROUP, 7);
        outbox.memberChange(GroupSender.GROUP, 3, MemberChangeFlyweight.STATUS_REMOVED);
        final AckFlyweight ack = sent.acks().get(0);
        assertEquals(CLIENT, sent.all.get(0).to());
        assertEquals(SELF, ack.senderId());
        assertEquals(PacketType.CANCEL, ack.ackedType());
        assertEquals(CLIENT, ack.ackedSenderId());
        assertEquals(9, ack.ackedId());
        assertEquals(7, sent.keepAlives().get(0).lastOrderSeq());
        final MemberChangeFlyweight change = sent.memberChanges().get(0);
        assertEquals(GroupSender.GROUP, sent.all.get(2).to());
        assertEquals(3, change.memberId());
        assertEquals(MemberChangeFlyweight.STATUS_REMOVED, change.status());
        assertEquals(0, change.memberCount());
    }

    @Test
    void aHeldRequestGoesOutAsItsClientSentItNotAsSentToTheSequencerAlone()
    {
        final Outbox outbox = new Outbox(new GroupConfig(SELF, 1, 1, 2, 3), sent);
        final HeldRequest held = new HeldRequest(HeldRequest.key(CLIENT, 77), 5, 1, 3, new byte[] {9, 8, 7});
        held.toCarry = true;
        outbox.request(1, held);
        final RequestFlyweight request = sent.requests().get(0);
        assertEquals(CLIENT, request.senderId());
        assertEquals(77, request.packetId());
        assertEquals(5, request.requestId());
        assertEquals(3, request.clientSeq());
        assertEquals(3, request.payloadLength());
        assertFalse(request.header().toSequencer());
    }

    @Test
    void anOrderHoldsAtMostMaxOrderEntriesAndNoMoreThanFitInAPacket()
    {
        assertEquals(4, new Outbox(new GroupConfig(SELF, 1, 1, 2, 3).maxOrderEntries(4), sent).maxEntriesPerOrder());
        final int bytes = 600;
        assertEquals((bytes - MsgOrderFlyweight.HEADER_LENGTH) / MsgOrderFlyweight.ENTRY_LENGTH,
            new Outbox(new GroupConfig(SELF, 1, 1, 2, 3).maxOrderEntries(10_000).maxPacketBytes(bytes), sent).maxEntriesPerOrder());
    }
}
