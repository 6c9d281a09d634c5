package org.lightwire.romiop.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Golden bytes, round trips and validation for every ROMIOP body (docs/romiop.md). */
class PacketFlyweightsTest
{
    private static final String BE_PREFIX_S1_P2 = "00000001" + "00000002";

    private static String header(final String flags, final String type, final int size)
    {
        return "524d4f50" + "11" + flags + type + String.format("%08x", size);
    }

    @Test
    void requestGoldenBytesAndRoundTrip()
    {
        final ByteBuffer payload = ByteBuffer.wrap("GIOP".getBytes(StandardCharsets.US_ASCII));
        final ByteBuffer b = ByteBuffer.allocate(RequestFlyweight.HEADER_LENGTH + 4);
        final RequestFlyweight w = (RequestFlyweight)new RequestFlyweight().wrap(b, 0);
        w.set(ByteOrder.BIG_ENDIAN, 1, 2, 0x0A0B0C0D, 1, 4).payload(payload, 0, 4);
        assertEquals(header("02", "0000", 32) + BE_PREFIX_S1_P2 + "0a0b0c0d" + "01000000" + "47494f50", Hex.of(b, 32));

        final RequestFlyweight r = (RequestFlyweight)new RequestFlyweight().wrap(Hex.parse(Hex.of(b, 32)), 0);
        assertNull(r.validate(32));
        assertEquals(1, r.senderId());
        assertEquals(2, r.packetId());
        assertEquals(0x0A0B0C0D, r.requestId());
        assertEquals(1, r.responseFlags());
        assertEquals(4, r.payloadLength());
        assertEquals(RequestFlyweight.HEADER_LENGTH, r.payloadOffset());
        assertEquals(0, r.clientSeq(), "unnumbered");
        assertEquals(Invalid.SIZE_MISMATCH, r.validate(27));
        r.buffer.putInt(PacketHeader_1_0.SIZE_OFFSET, 20);
        assertEquals(Invalid.TRUNCATED, r.validate(20));

        // client_seq in the three bytes after response_flags, in the packet's byte order.
        w.clientSeq(0x123456);
        assertEquals(header("02", "0000", 32) + BE_PREFIX_S1_P2 + "0a0b0c0d" + "01123456" + "47494f50", Hex.of(b, 32));
        assertEquals(0x123456, w.clientSeq());
        assertEquals(1, w.responseFlags());
        final ByteBuffer le = ByteBuffer.allocate(RequestFlyweight.HEADER_LENGTH);
        final RequestFlyweight l = (RequestFlyweight)new RequestFlyweight().wrap(le, 0);
        l.set(ByteOrder.LITTLE_ENDIAN, 1, 2, 3, 1, 0).clientSeq(0x123456);
        assertEquals("01563412", Hex.of(le, RequestFlyweight.HEADER_LENGTH).substring(2 * (PacketHeader_1_0.HEADER_LENGTH + 12)));
        assertEquals(0x123456, ((RequestFlyweight)new RequestFlyweight().wrap(le, 0)).clientSeq());
    }

    @Test
    void replyGoldenBytes()
    {
        final ByteBuffer b = ByteBuffer.allocate(ReplyFlyweight.HEADER_LENGTH);
        ((ReplyFlyweight)new ReplyFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, 1, 2, 3, 4, 5, 2, 0);
        assertEquals(header("02", "0001", 36) + BE_PREFIX_S1_P2 + "00000003" + "00000004" + "00000005" + "02000000", Hex.of(b, 36));
        final ReplyFlyweight r = (ReplyFlyweight)new ReplyFlyweight().wrap(b, 0);
        assertNull(r.validate(36));
        assertEquals(3, r.requestSenderId());
        assertEquals(4, r.requestPacketId());
        assertEquals(5, r.requestId());
        assertEquals(2, r.replyStatus());
        assertEquals(0, r.payloadLength());
    }

    @Test
    void ackGoldenBytesBigAndLittleEndian()
    {
        final ByteBuffer b = ByteBuffer.allocate(AckFlyweight.LENGTH);
        final AckFlyweight a = new AckFlyweight();
        a.wrap(b, 0);
        a.set(ByteOrder.BIG_ENDIAN, 1, 2, PacketType.MSG_ORDER, 9, 0x0102030405060708L);
        assertEquals(header("00", "0002", 36) + BE_PREFIX_S1_P2 + "0007" + "0000" + "00000009" + "0102030405060708", Hex.of(b, 36));

        a.set(ByteOrder.LITTLE_ENDIAN, 1, 2, PacketType.MSG_ORDER, 9, 0x0102030405060708L);
        assertEquals("524d4f50" + "11" + "01" + "0200" + "24000000" + "01000000" + "02000000" + "0700" + "0000" + "09000000" + "0807060504030201",
            Hex.of(b, 36));
        final AckFlyweight r = (AckFlyweight)new AckFlyweight().wrap(Hex.parse(Hex.of(b, 36)), 0);
        assertNull(r.validate(36));
        assertEquals(PacketType.MSG_ORDER, r.ackedType());
        assertEquals(9, r.ackedSenderId());
        assertEquals(0x0102030405060708L, r.ackedId());
    }

    @Test
    void callsDoneAckGoldenBytesAndFlagsOnlyOnReplyAcks()
    {
        final ByteBuffer b = ByteBuffer.allocate(AckFlyweight.LENGTH);
        final AckFlyweight a = new AckFlyweight();
        a.wrap(b, 0);
        a.set(ByteOrder.BIG_ENDIAN, 1, 2, PacketType.REPLY, 1, 0x7FFF_FFF0L).ackFlags(AckFlyweight.FLAG_CALLS_DONE);
        assertEquals(header("00", "0002", 36) + BE_PREFIX_S1_P2 + "0001" + "0001" + "00000001" + "000000007ffffff0", Hex.of(b, 36));
        final AckFlyweight r = (AckFlyweight)new AckFlyweight().wrap(Hex.parse(Hex.of(b, 36)), 0);
        assertNull(r.validate(36));
        assertTrue(r.callsDone());
        assertEquals(0x7FFF_FFF0L, r.ackedId());

        a.set(ByteOrder.BIG_ENDIAN, 1, 2, PacketType.MSG_ORDER, 1, 5).ackFlags(AckFlyweight.FLAG_CALLS_DONE);
        assertEquals(Invalid.BAD_FIELD, new AckFlyweight().wrap(b, 0).validate(36), "calls done names replies only");
        a.set(ByteOrder.BIG_ENDIAN, 1, 2, PacketType.REPLY, 1, 5).ackFlags(2);
        assertEquals(Invalid.BAD_FIELD, new AckFlyweight().wrap(b, 0).validate(36), "unknown flags are refused");
        a.set(ByteOrder.BIG_ENDIAN, 1, 2, PacketType.REPLY, 1, 5);
        assertNull(new AckFlyweight().wrap(b, 0).validate(36));
        assertFalse(((AckFlyweight)new AckFlyweight().wrap(b, 0)).callsDone());
    }

    @Test
    void ackOfAnAckIsRejected()
    {
        final ByteBuffer b = ByteBuffer.allocate(AckFlyweight.LENGTH);
        ((AckFlyweight)new AckFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, 1, 2, PacketType.ACK, 9, 1);
        assertEquals(Invalid.BAD_FIELD, new AckFlyweight().wrap(b, 0).validate(AckFlyweight.LENGTH));
        assertEquals(Invalid.WRONG_TYPE, new NakFlyweight().wrap(b, 0).validate(AckFlyweight.LENGTH));
    }

    @Test
    void nakGoldenBytesBothForms()
    {
        final ByteBuffer b = ByteBuffer.allocate(NakFlyweight.length(2));
        final NakFlyweight n = new NakFlyweight();
        n.wrap(b, 0);
        n.setOrderNak(ByteOrder.BIG_ENDIAN, 1, 2, 5);
        assertEquals(header("00", "0003", 36) + BE_PREFIX_S1_P2 + "0007" + "0000" + "00000000" + "0000000000000005", Hex.of(b, 36));
        assertNull(n.validate(36));

        n.setRequestNak(ByteOrder.BIG_ENDIAN, 1, 2, 2).entry(0, 7, 8).entry(1, 9, 10);
        assertEquals(header("00", "0003", 52) + BE_PREFIX_S1_P2 + "0000" + "0002" + "00000000" + "0000000000000000"
            + "00000007" + "00000008" + "00000009" + "0000000a", Hex.of(b, 52));
        final NakFlyweight r = (NakFlyweight)new NakFlyweight().wrap(b, 0);
        assertNull(r.validate(52));
        assertEquals(PacketType.REQUEST, r.nakType());
        assertEquals(2, r.entryCount());
        assertEquals(9, r.entrySenderId(1));
        assertEquals(10, r.entryPacketId(1));
        b.putShort(12 + NakFlyweight.ENTRY_COUNT_OFFSET, (short)3);
        assertEquals(Invalid.BAD_COUNT, r.validate(52));
    }

    @Test
    void keepAliveGoldenBytes()
    {
        final ByteBuffer b = ByteBuffer.allocate(KeepAliveFlyweight.LENGTH);
        ((KeepAliveFlyweight)new KeepAliveFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, 1, 2, 3, 42, 40);
        assertEquals(header("02", "0004", 44) + BE_PREFIX_S1_P2 + "000000000000002a" + "00000003" + "00000000" + "0000000000000028",
            Hex.of(b, 44));
        final KeepAliveFlyweight r = (KeepAliveFlyweight)new KeepAliveFlyweight().wrap(b, 0);
        assertNull(r.validate(44));
        assertEquals(42, r.lastOrderSeq());
        assertEquals(3, r.epoch());
        assertEquals(40, r.commit());
        assertEquals("KeepAlive{PacketHeader_1_0{magic=RMOP, version=0x11, flags=0x2, order=BIG_ENDIAN, type=KEEP_ALIVE, size=44},"
            + " sender=1, packetId=2, epoch=3, lastOrderSeq=42, commit=40}", r.toString());
        // A commit past the order's end, and epoch 0, are refused.
        b.putLong(12 + KeepAliveFlyweight.COMMIT_OFFSET, 43);
        assertEquals(Invalid.BAD_FIELD, r.validate(44));
        b.putLong(12 + KeepAliveFlyweight.COMMIT_OFFSET, 40);
        b.putInt(12 + KeepAliveFlyweight.EPOCH_OFFSET, 0);
        assertEquals(Invalid.BAD_FIELD, r.validate(44));
    }

    @Test
    void reportTailGoldenBytesAndChecks()
    {
        final int length = KeepAliveFlyweight.reportLength(2);
        assertEquals(44 + 32 + 24, length);
        final ByteBuffer b = ByteBuffer.allocate(length);
        final KeepAliveFlyweight k = (KeepAliveFlyweight)new KeepAliveFlyweight().wrap(b, 0);
        k.set(ByteOrder.BIG_ENDIAN, 1, 2, 3, 42, 40).reportEntries(5);
        k.header().packetSize(length);
        k.reportTail(0x4000_0000_0000_0002L, 3, 41, 44, 2).known(0, 4, 7).known(1, 5, 0x1_0000_0001L);
        k.header().report(true);
        assertEquals(header("12", "0004", length) + BE_PREFIX_S1_P2 + "000000000000002a" + "00000003" + "00000005" + "0000000000000028"
            + "4000000000000002" + "00000003" + "0000000000000029" + "000000000000002c" + "00000002"
            + "00000004" + "0000000000000007" + "00000005" + "0000000100000001", Hex.of(b, length));
        final KeepAliveFlyweight r = (KeepAliveFlyweight)new KeepAliveFlyweight().wrap(b, 0);
        assertNull(r.validate(length));
        assertEquals(List.of(0x4000_0000_0000_0002L, 3L, 41L, 44L, 2L), List.of(r.incarnation(), (long)r.reachEpoch(), r.reach(), r.fixed(),
            (long)r.knownCount()));
        assertEquals(List.of(4L, 7L, 5L, 0x1_0000_0001L), List.of((long)r.knownMember(0), r.knownIncarnation(0), (long)r.knownMember(1),
            r.knownIncarnation(1)));
        // A count that does not match the length, a negative incarnation, and a tail on a KeepAlive that is no report are refused.
        b.putInt(12 + KeepAliveFlyweight.KNOWN_COUNT_OFFSET, 3);
        assertEquals(Invalid.BAD_COUNT, r.validate(length));
        b.putInt(12 + KeepAliveFlyweight.KNOWN_COUNT_OFFSET, 2);
        b.putLong(12 + KeepAliveFlyweight.INCARNATION_OFFSET, -1);
        assertEquals(Invalid.BAD_FIELD, r.validate(length));
        b.putLong(12 + KeepAliveFlyweight.INCARNATION_OFFSET, 9);
        assertNull(r.validate(length));
        // Fixed below the commit (what its sender delivered is committed) is refused; at the commit it is not.
        b.putLong(12 + KeepAliveFlyweight.FIXED_OFFSET, 39);
        assertEquals(Invalid.BAD_FIELD, r.validate(length));
        b.putLong(12 + KeepAliveFlyweight.FIXED_OFFSET, 40);
        assertNull(r.validate(length));
        r.header().report(false);
        assertEquals(Invalid.SIZE_MISMATCH, r.validate(length));
        // A report without a tail reads as incarnation 0, no reach, fixed at its commit, nothing known.
        final ByteBuffer plain = ByteBuffer.allocate(KeepAliveFlyweight.LENGTH);
        final KeepAliveFlyweight p = (KeepAliveFlyweight)new KeepAliveFlyweight().wrap(plain, 0);
        p.set(ByteOrder.BIG_ENDIAN, 1, 2, 3, 42, 40).header().report(true);
        assertNull(p.validate(KeepAliveFlyweight.LENGTH));
        assertEquals(List.of(0L, 0L, 0L, 40L, 0L), List.of(p.incarnation(), (long)p.reachEpoch(), p.reach(), p.fixed(), (long)p.knownCount()));
    }

    @Test
    void epochAsksCarryTheAskersIncarnation()
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(MemberChangeFlyweight.ASK_ENTRIES + 1));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, 1, 2, 1, MemberChangeFlyweight.STATUS_EPOCH_ASK, MemberChangeFlyweight.ASK_ENTRIES + 1)
            .ask(99, 5, 0x4000_0000_0000_0003L).member(MemberChangeFlyweight.ASK_ENTRIES, 1);
        final int length = MemberChangeFlyweight.length(MemberChangeFlyweight.ASK_ENTRIES + 1);
        assertNull(m.validate(length), "a founding leader's: nonce, proposal, incarnation, configuration");
        assertEquals(List.of(99L, 5L, 0x4000_0000_0000_0003L, 1L), List.of((long)m.askNonce(), (long)m.askProposal(), m.askIncarnation(),
            (long)m.askListed()));
        m.member(1, 0);
        assertEquals(Invalid.BAD_COUNT, m.validate(length), "a recovery ask (proposal 0) lists nobody");
        final ByteBuffer r = ByteBuffer.allocate(MemberChangeFlyweight.length(MemberChangeFlyweight.ASK_ENTRIES));
        m.wrap(r, 0);
        m.set(ByteOrder.BIG_ENDIAN, 1, 2, 1, MemberChangeFlyweight.STATUS_EPOCH_ASK, MemberChangeFlyweight.ASK_ENTRIES).ask(99, 0, 7);
        assertNull(m.validate(MemberChangeFlyweight.length(MemberChangeFlyweight.ASK_ENTRIES)));
        assertEquals(7, m.askIncarnation());
        m.member(1, 5);
        assertEquals(Invalid.BAD_COUNT, m.validate(MemberChangeFlyweight.length(MemberChangeFlyweight.ASK_ENTRIES)), "a founding ask lists its configuration");
        m.member(1, 0).member(2, -1);
        assertEquals(Invalid.BAD_FIELD, m.validate(MemberChangeFlyweight.length(MemberChangeFlyweight.ASK_ENTRIES)), "a negative incarnation");
    }

    @Test
    void epochAnswersMayCarryTheOrdersAndIncarnationsTheirSenderKnows()
    {
        final int entries = MemberChangeFlyweight.TOLD_TAIL_ENTRIES + 3;
        final int length = MemberChangeFlyweight.length(entries);
        final ByteBuffer b = ByteBuffer.allocate(length);
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, 2, 9, 4, MemberChangeFlyweight.STATUS_EPOCH_TOLD, entries).member(0, 77).member(1, 3).member(2, 1)
            .member(3, 1).member(4, 0).toldTail(0x1_0000_0005L, 0x4000_0000_0000_0001L, 6).toldKnown(0, 4, 0x4000_0000_0000_0002L);
        assertNull(m.validate(length));
        assertEquals(List.of(0x1_0000_0005L, 0x4000_0000_0000_0001L, 6L, 1L, 4L, 0x4000_0000_0000_0002L), List.of(m.toldLastOrderSeq(),
            m.toldIncarnation(), (long)m.toldLeadingEpoch(), (long)m.toldKnownCount(), (long)m.toldKnownMember(0), m.toldKnownIncarnation(0)));
        m.member(5, -1);
        assertEquals(Invalid.BAD_FIELD, m.validate(length), "a negative order number");
        final ByteBuffer partTail = ByteBuffer.allocate(MemberChangeFlyweight.length(9));
        m.wrap(partTail, 0);
        m.set(ByteOrder.BIG_ENDIAN, 2, 9, 4, MemberChangeFlyweight.STATUS_EPOCH_TOLD, 9);
        assertEquals(Invalid.BAD_COUNT, m.validate(MemberChangeFlyweight.length(9)), "a tail cut short");
        final ByteBuffer noTail = ByteBuffer.allocate(MemberChangeFlyweight.length(5));
        m.wrap(noTail, 0);
        m.set(ByteOrder.BIG_ENDIAN, 2, 9, 4, MemberChangeFlyweight.STATUS_EPOCH_TOLD, 5).member(0, 77).member(1, 3);
        assertNull(m.validate(MemberChangeFlyweight.length(5)));
        assertEquals(List.of(0L, 0L, 0L), List.of(m.toldLastOrderSeq(), m.toldIncarnation(), (long)m.toldKnownCount()), "no tail: nothing told");
    }

    @Test
    void cancelGoldenBytes()
    {
        final ByteBuffer b = ByteBuffer.allocate(CancelFlyweight.LENGTH);
        ((CancelFlyweight)new CancelFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, 1, 2, 3, 4);
        assertEquals(header("02", "0005", 28) + BE_PREFIX_S1_P2 + "00000003" + "00000004", Hex.of(b, 28));
        final CancelFlyweight r = (CancelFlyweight)new CancelFlyweight().wrap(b, 0);
        assertNull(r.validate(28));
        assertEquals(3, r.requestPacketId());
        assertEquals(4, r.requestId());
    }

    @Test
    void memberChangeGoldenBytesAndStatusCheck()
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(2));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, 1, 2, 1, MemberChangeFlyweight.STATUS_EPOCH_TOLD, 2).member(0, 1).member(1, 3);
        assertEquals(header("02", "0006", 36) + BE_PREFIX_S1_P2 + "00000001" + "05" + "00" + "0002" + "00000001" + "00000003", Hex.of(b, 36));
        assertNull(m.validate(36));
        assertEquals(3, m.member(1));
        b.put(12 + MemberChangeFlyweight.STATUS_OFFSET, (byte)6);
        assertEquals(Invalid.BAD_FIELD, m.validate(36));
        b.put(12 + MemberChangeFlyweight.STATUS_OFFSET, (byte)MemberChangeFlyweight.STATUS_EPOCH_TOLD);
        assertNull(m.validate(36), "an epoch answer: nonce and epoch");
        b.put(12 + MemberChangeFlyweight.STATUS_OFFSET, (byte)MemberChangeFlyweight.STATUS_EPOCH_ASK);
        assertEquals(Invalid.BAD_COUNT, m.validate(36), "an ask carries its nonce, or its nonce, an epoch and at least one member");
        b.put(12 + MemberChangeFlyweight.STATUS_OFFSET, (byte)MemberChangeFlyweight.STATUS_ADDED);
        assertEquals(Invalid.BAD_COUNT, m.validate(36));
    }

    @Test
    void listGoldenBytesEndWithTheEpoch()
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.listLength(2));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.setList(ByteOrder.BIG_ENDIAN, 1, 2, 1, 2, 7).member(0, 1).member(1, 3);
        assertEquals(header("02", "0006", 40) + BE_PREFIX_S1_P2 + "00000001" + "03" + "00" + "0003" + "00000001" + "00000003"
            + "00000007", Hex.of(b, 40));
        assertNull(m.validate(40));
        assertEquals(2, m.listSize());
        assertEquals(7, m.listEpoch());
        assertEquals(3, m.member(1));
        b.putInt(12 + MemberChangeFlyweight.MEMBERS_OFFSET + 8, 0);
        assertEquals(Invalid.BAD_FIELD, m.validate(40), "epoch 0");
        final ByteBuffer epochOnly = ByteBuffer.allocate(MemberChangeFlyweight.length(1));
        final MemberChangeFlyweight e = new MemberChangeFlyweight();
        e.wrap(epochOnly, 0);
        e.set(ByteOrder.BIG_ENDIAN, 1, 2, 1, MemberChangeFlyweight.STATUS_LIST, 1).member(0, 7);
        assertEquals(Invalid.BAD_COUNT, e.validate(32), "a list with no member");
    }

    @Test
    void listNamesTheConfigurationsMembersOutsideTheViewMarkedAfterIt()
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.listLength(4));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.setList(ByteOrder.BIG_ENDIAN, 2, 9, 2, 4, 3).member(0, 2).member(1, 5)
            .member(2, 1 | MemberChangeFlyweight.OUTSIDE_VIEW).member(3, 4 | MemberChangeFlyweight.OUTSIDE_VIEW);
        assertEquals(header("02", "0006", 48) + "00000002" + "00000009" + "00000002" + "03" + "00" + "0005" + "00000002" + "00000005"
            + "80000001" + "80000004" + "00000003", Hex.of(b, 48));
        assertNull(m.validate(48));
        assertEquals(4, m.listSize());
        assertEquals(2, m.listViewSize());
        assertEquals(List.of(2, 5, 1, 4), List.of(m.listMember(0), m.listMember(1), m.listMember(2), m.listMember(3)));
        assertEquals(3, m.listEpoch());
        m.member(3, 4);
        assertEquals(Invalid.BAD_FIELD, m.validate(48), "a view member after one outside the view");
        m.member(3, 4 | MemberChangeFlyweight.OUTSIDE_VIEW).member(0, 2 | MemberChangeFlyweight.OUTSIDE_VIEW).member(1, 5 | MemberChangeFlyweight.OUTSIDE_VIEW);
        assertEquals(Invalid.BAD_FIELD, m.validate(48), "no view: no leader");
    }

    @Test
    void msgOrderGoldenBytesAndRoundTrip()
    {
        final ByteBuffer b = ByteBuffer.allocate(MsgOrderFlyweight.length(2));
        final MsgOrderFlyweight o = new MsgOrderFlyweight();
        o.wrap(b, 0);
        o.set(ByteOrder.BIG_ENDIAN, 1, 2, 3, 100, 2, 99).entry(0, 5, 6).entry(1, 7, 0xFFFFFFFF);
        assertEquals(header("02", "0007", 60) + BE_PREFIX_S1_P2 + "0000000000000064" + "0002" + "0000" + "00000003"
            + "0000000000000063" + "00000005" + "00000006" + "00000007" + "ffffffff", Hex.of(b, 60));
        final MsgOrderFlyweight r = (MsgOrderFlyweight)new MsgOrderFlyweight().wrap(b, 0);
        assertNull(r.validate(60));
        assertEquals(3, r.epoch());
        assertEquals(99, r.commit());
        assertEquals(100, r.firstOrderSeq());
        assertEquals(2, r.entryCount());
        assertEquals(7, r.entrySenderId(1));
        assertEquals(0xFFFFFFFF, r.entryPacketId(1));
        assertEquals("MsgOrder{PacketHeader_1_0{magic=RMOP, version=0x11, flags=0x2, order=BIG_ENDIAN, type=MSG_ORDER, size=60},"
            + " sender=1, packetId=2, epoch=3, commit=99, firstOrderSeq=100, entries=[5:6, 7:4294967295]}", r.toString());
        assertEquals(Invalid.SIZE_MISMATCH, r.validate(59));
        b.putInt(12 + MsgOrderFlyweight.EPOCH_OFFSET, 0);
        assertEquals(Invalid.BAD_FIELD, r.validate(60), "epoch 0");
    }

    @Test
    void msgOrderCarryingARequestGoldenBytesAndValidation()
    {
        final int requestSize = RequestFlyweight.HEADER_LENGTH + 2;
        final int size = MsgOrderFlyweight.length(2) + requestSize;
        final ByteBuffer b = ByteBuffer.allocate(size + 8);
        final MsgOrderFlyweight o = new MsgOrderFlyweight();
        o.wrap(b, 0);
        o.set(ByteOrder.BIG_ENDIAN, 1, 2, 3, 100, 2, 99).entry(0, 5, 6).entry(1, 7, 8);
        final RequestFlyweight carried = new RequestFlyweight();
        carried.wrap(b, o.end());
        carried.set(ByteOrder.BIG_ENDIAN, 7, 8, 9, 3, 2).clientSeq(4).payload(ByteBuffer.wrap(new byte[] {(byte)0xAB, (byte)0xCD}), 0, 2);
        o.carried(carried.packetSize());
        assertEquals(header("02", "0007", size) + BE_PREFIX_S1_P2 + "0000000000000064" + "0002" + "0001" + "00000003"
            + "0000000000000063" + "00000005" + "00000006" + "00000007" + "00000008"
            + header("02", "0000", requestSize) + "00000007" + "00000008" + "00000009" + "03000004" + "abcd", Hex.of(b, size));
        final MsgOrderFlyweight r = (MsgOrderFlyweight)new MsgOrderFlyweight().wrap(b, 0);
        assertNull(r.validate(size));
        assertEquals(1, r.carriedCount());
        assertEquals(MsgOrderFlyweight.length(2), r.firstCarried());
        assertEquals(size, r.end());
        assertTrue(r.toString().endsWith("entries=[5:6, 7:8], carried=1}"), r.toString());

        // What a receiver must refuse: each is counted by its reason, never thrown.
        b.putInt(PacketHeader_1_0.SIZE_OFFSET, size + 1);
        assertEquals(Invalid.BAD_COUNT, r.validate(size + 1), "bytes after the last carried request");
        b.putInt(PacketHeader_1_0.SIZE_OFFSET, size);
        b.putInt(MsgOrderFlyweight.length(2) + PacketHeader_1_0.SIZE_OFFSET, requestSize + 1);
        assertEquals(Invalid.BAD_FIELD, r.validate(size), "a carried request longer than what is left");
        b.putInt(MsgOrderFlyweight.length(2) + PacketHeader_1_0.SIZE_OFFSET, requestSize);
        b.putShort(MsgOrderFlyweight.length(2) + PacketHeader_1_0.TYPE_OFFSET, (short)PacketType.REPLY.code());
        assertEquals(Invalid.BAD_FIELD, r.validate(size), "a carried packet that is not a Request");
        b.putShort(MsgOrderFlyweight.length(2) + PacketHeader_1_0.TYPE_OFFSET, (short)PacketType.REQUEST.code());
        b.putShort(PacketHeader_1_0.HEADER_LENGTH + MsgOrderFlyweight.CARRIED_COUNT_OFFSET, (short)3);
        assertEquals(Invalid.BAD_COUNT, r.validate(size), "more carried requests than entries");
        b.putShort(PacketHeader_1_0.HEADER_LENGTH + MsgOrderFlyweight.CARRIED_COUNT_OFFSET, (short)2);
        assertEquals(Invalid.BAD_COUNT, r.validate(size), "a second carried request that is not there");
        b.putShort(PacketHeader_1_0.HEADER_LENGTH + MsgOrderFlyweight.CARRIED_COUNT_OFFSET, (short)1);
        assertNull(r.validate(size));
    }

    @Test
    void garbageNeverThrowsOnValidate()
    {
        final java.util.Random random = new java.util.Random(4);
        final PacketFlyweight[] all = {new RequestFlyweight(), new ReplyFlyweight(), new AckFlyweight(), new NakFlyweight(),
            new KeepAliveFlyweight(), new CancelFlyweight(), new MemberChangeFlyweight(), new MsgOrderFlyweight()};
        for (int i = 0; i < 20_000; i++)
        {
            final byte[] bytes = new byte[random.nextInt(80)];
            random.nextBytes(bytes);
            if (bytes.length >= 12 && random.nextBoolean())
            {
                System.arraycopy(PacketHeader_1_0.MAGIC, 0, bytes, 0, 4);
                bytes[4] = PacketHeader_1_0.VERSION_1_1;
                bytes[5] = (byte)(bytes[5] & 1);
                bytes[6] = 0;
                bytes[7] = (byte)random.nextInt(8);
                ByteBuffer.wrap(bytes).putInt(8, bytes.length);
            }
            final ByteBuffer b = ByteBuffer.wrap(bytes);
            for (final PacketFlyweight f : all)
            {
                f.wrap(b, 0);
                if (f.validate(bytes.length) == null)
                {
                    f.toString();
                }
            }
        }
    }
}
