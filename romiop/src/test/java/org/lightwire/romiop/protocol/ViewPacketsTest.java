package org.lightwire.romiop.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Golden bytes, round trips and validation of the view packets: ViewChange (8) and OrderAck (9). */
class ViewPacketsTest
{
    private static final String BE_PREFIX_S1_P2 = "00000001" + "00000002";

    private static String header(final String flags, final String type, final int size)
    {
        return "524d4f50" + "10" + flags + type + String.format("%08x", size);
    }

    @Test
    void orderAckGoldenBytesRoundTripAndValidation()
    {
        final ByteBuffer b = ByteBuffer.allocate(OrderAckFlyweight.LENGTH);
        final OrderAckFlyweight w = (OrderAckFlyweight)new OrderAckFlyweight().wrap(b, 0);
        w.set(ByteOrder.BIG_ENDIAN, 1, 2, 7, 0x0102030405060708L, 0x0102030405060700L);
        assertEquals(44, OrderAckFlyweight.LENGTH);
        assertEquals(header("00", "0009", 44) + BE_PREFIX_S1_P2 + "00000007" + "00000000" + "0102030405060708" + "0102030405060700",
            Hex.of(b, 44));

        final OrderAckFlyweight r = (OrderAckFlyweight)new OrderAckFlyweight().wrap(Hex.parse(Hex.of(b, 44)), 0);
        assertNull(r.validate(44));
        assertEquals(7, r.epoch());
        assertEquals(0x0102030405060708L, r.accepted());
        assertEquals(0x0102030405060700L, r.delivered());
        assertTrue(r.toString().contains("epoch=7"), r.toString());

        final OrderAckFlyweight le = (OrderAckFlyweight)new OrderAckFlyweight().wrap(ByteBuffer.allocate(44), 0);
        le.set(ByteOrder.LITTLE_ENDIAN, 1, 2, 7, 9, 8);
        final OrderAckFlyweight leRead = (OrderAckFlyweight)new OrderAckFlyweight().wrap(Hex.parse(Hex.of(le.buffer, 44)), 0);
        assertNull(leRead.validate(44));
        assertEquals(7, leRead.epoch());
        assertEquals(9, leRead.accepted());
        assertEquals(8, leRead.delivered());

        assertEquals(Invalid.SIZE_MISMATCH, r.validate(45));
        final OrderAckFlyweight beyond = (OrderAckFlyweight)new OrderAckFlyweight().wrap(ByteBuffer.allocate(44), 0);
        beyond.set(ByteOrder.BIG_ENDIAN, 1, 2, 7, 5, 6);
        assertEquals(Invalid.BAD_FIELD, beyond.validate(44), "delivered beyond accepted");
        beyond.set(ByteOrder.BIG_ENDIAN, 1, 2, 7, 6, 5);
        beyond.buffer.put(PacketHeader_1_0.FLAGS_OFFSET, (byte)0x02);
        assertEquals(Invalid.BAD_FIELD, beyond.validate(44), "an OrderAck asks for no ACK");
        beyond.set(ByteOrder.BIG_ENDIAN, 1, 2, 7, 6, 5);
        beyond.buffer.putInt(PacketHeader_1_0.HEADER_LENGTH + OrderAckFlyweight.RESERVED_OFFSET, 1);
        assertEquals(Invalid.BAD_FIELD, beyond.validate(44), "reserved must be 0");
    }

    @Test
    void startViewGoldenBytesWithItsConfiguration()
    {
        final int size = ViewChangeFlyweight.length(2);
        assertEquals(60 + 32, size);
        final ByteBuffer b = ByteBuffer.allocate(size);
        final ViewChangeFlyweight w = (ViewChangeFlyweight)new ViewChangeFlyweight().wrap(b, 0);
        w.set(ByteOrder.BIG_ENDIAN, 1, 2, ViewChangeFlyweight.KIND_START_VIEW, 5, 4, 0xA1A2A3A4A5A6A7A8L, 100, 90, 2)
            .member(0, 1, 0, 0xA1A2A3A4A5A6A7A8L).member(1, 3, 0, 0x0B);
        assertEquals(header("02", "0008", size) + BE_PREFIX_S1_P2
            + "04" + "00" + "0002" + "00000005" + "00000004" + "00000000" + "a1a2a3a4a5a6a7a8"
            + "0000000000000064" + "000000000000005a"
            + "00000001" + "00000000" + "a1a2a3a4a5a6a7a8"
            + "00000003" + "00000000" + "000000000000000b", Hex.of(b, size));

        final ViewChangeFlyweight r = (ViewChangeFlyweight)new ViewChangeFlyweight().wrap(Hex.parse(Hex.of(b, size)), 0);
        assertNull(r.validate(size));
        assertEquals(ViewChangeFlyweight.KIND_START_VIEW, r.kind());
        assertEquals(5, r.epoch());
        assertEquals(4, r.lastNormalEpoch());
        assertEquals(0xA1A2A3A4A5A6A7A8L, r.incarnation());
        assertEquals(100, r.logEnd());
        assertEquals(90, r.commit());
        assertEquals(2, r.memberCount());
        assertEquals(3, r.memberId(1));
        assertEquals(0x0B, r.memberIncarnation(1));
        assertEquals(0, r.memberFlags(1));
        assertTrue(r.toString().contains("kind=START_VIEW") && r.toString().contains("3/b"), r.toString());
    }

    @Test
    void everyKindValidatesItsOwnShape()
    {
        final ViewChangeFlyweight v = (ViewChangeFlyweight)new ViewChangeFlyweight().wrap(ByteBuffer.allocate(256), 0);
        for (final int kind : new int[] {ViewChangeFlyweight.KIND_PRE_VOTE, ViewChangeFlyweight.KIND_VOTE,
            ViewChangeFlyweight.KIND_PRE_VOTE_GRANTED, ViewChangeFlyweight.KIND_VOTE_GRANTED, ViewChangeFlyweight.KIND_JOIN})
        {
            v.set(ByteOrder.BIG_ENDIAN, 1, 2, kind, 3, 2, 9, 10, 10, 0);
            assertNull(v.validate(ViewChangeFlyweight.length(0)), "kind " + kind);
            v.set(ByteOrder.BIG_ENDIAN, 1, 2, kind, 3, 2, 9, 10, 10, 1).member(0, 1, 0, 9);
            assertEquals(Invalid.BAD_COUNT, v.validate(ViewChangeFlyweight.length(1)), "kind " + kind + " lists no members");
        }
        v.set(ByteOrder.BIG_ENDIAN, 1, 2, ViewChangeFlyweight.KIND_START_VIEW, 3, 2, 9, 10, 10, 0);
        assertEquals(Invalid.BAD_COUNT, v.validate(ViewChangeFlyweight.length(0)), "a START_VIEW lists its configuration");
        v.set(ByteOrder.BIG_ENDIAN, 1, 2, ViewChangeFlyweight.KIND_VOTE, 3, 2, 9, 10, 11, 0);
        assertEquals(Invalid.BAD_FIELD, v.validate(ViewChangeFlyweight.length(0)), "commit beyond the log");
        v.set(ByteOrder.BIG_ENDIAN, 1, 2, 7, 3, 2, 9, 10, 10, 0);
        assertEquals(Invalid.BAD_FIELD, v.validate(ViewChangeFlyweight.length(0)), "unknown kind");
        v.set(ByteOrder.BIG_ENDIAN, 1, 2, ViewChangeFlyweight.KIND_UNAVAILABLE, 3, 2, 9, 10, 10, 2)
            .member(0, 1, ViewChangeFlyweight.MEMBER_PRESENT, 9).member(1, 2, 0, 8);
        assertNull(v.validate(ViewChangeFlyweight.length(2)));
        v.member(1, 2, 2, 8);
        assertEquals(Invalid.BAD_FIELD, v.validate(ViewChangeFlyweight.length(2)), "an undefined member flag");
        v.set(ByteOrder.BIG_ENDIAN, 1, 2, ViewChangeFlyweight.KIND_START_VIEW, 3, 2, 9, 10, 10, 1)
            .member(0, 1, ViewChangeFlyweight.MEMBER_PRESENT, 9);
        assertEquals(Invalid.BAD_FIELD, v.validate(ViewChangeFlyweight.length(1)), "present is an UNAVAILABLE flag");
        v.buffer.putInt(PacketHeader_1_0.SIZE_OFFSET, ViewChangeFlyweight.length(2));
        assertEquals(Invalid.BAD_COUNT, v.validate(ViewChangeFlyweight.length(2)), "count and length disagree");
        v.buffer.putInt(PacketHeader_1_0.SIZE_OFFSET, ViewChangeFlyweight.HEADER_LENGTH - 1);
        assertEquals(Invalid.TRUNCATED, v.validate(ViewChangeFlyweight.HEADER_LENGTH - 1));
    }
}
