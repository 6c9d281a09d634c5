package org.lightwire.transport.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

class HeaderFlyweightTest
{
    @Test
    void goldenBytesOfEveryField()
    {
        // One byte more than the header, to show that nothing is written beyond it.
        final ByteBuffer buffer = ByteBuffer.allocate(17);
        new HeaderFlyweight().wrap(buffer, 0).set(MessageType.PARTIAL, true, 0x1234, 0x0102_0304_05ABL, 0x0607_08CD, true);
        assertArrayEquals(new byte[] {1, 1, 0x12, 0x34, (byte)0xAB, (byte)0xCD, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0}, buffer.array());
    }

    @Test
    void theExtensionCarriesTheHighBitsOfBothNumbers()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(16);
        final HeaderFlyweight h = new HeaderFlyweight().wrap(buffer, 0);
        h.set(MessageType.COMPLETE, true, 16, HeaderFlyweight.MAX_CALL_NUMBER, HeaderFlyweight.MAX_PACKET_NUMBER, false);
        assertEquals(0xFF, h.callSeq());
        assertEquals(0xFF, h.packetSeq());
        assertEquals(HeaderFlyweight.MAX_CALL_NUMBER, h.callNumber());
        assertEquals(HeaderFlyweight.MAX_PACKET_NUMBER, h.packetNumber());
        h.callNumber(256).packetNumber(257);
        assertEquals(0, h.callSeq(), "call 256's sequence byte is 0, as the paper's 8-bit field wraps");
        assertEquals(1, h.packetSeq());
        assertEquals(256, h.callNumber());
        assertEquals(257, h.packetNumber());
        assertThrows(IllegalArgumentException.class, () -> h.callNumber(HeaderFlyweight.MAX_CALL_NUMBER + 1));
        assertThrows(IllegalArgumentException.class, () -> h.callNumber(-1));
        assertThrows(IllegalArgumentException.class, () -> h.packetNumber(-1));
    }

    @Test
    void byteOrderIsBigEndianWhateverTheBufferSays()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        new HeaderFlyweight().wrap(buffer, 0).set(MessageType.COMPLETE, false, 16, 0x0102_0304_0506L, 0x0A0B_0C0D, false).messageSize(0x0102);
        assertEquals(1, buffer.get(2));
        assertEquals(2, buffer.get(3));
        assertEquals(6, buffer.get(4));
        assertEquals(1, buffer.get(8));
        assertEquals(5, buffer.get(12));
        assertEquals(0x0A, buffer.get(13));
        assertEquals(0x0C, buffer.get(15));
    }

    @Test
    void goldenCodesOfTheMessageTypes()
    {
        assertEquals(1, MessageType.PARTIAL.code());
        assertEquals(2, MessageType.COMPLETE.code());
        assertEquals(3, MessageType.CALL_ACK.code());
        assertEquals(4, MessageType.NACK.code());
        assertEquals(5, MessageType.RECLAIM.code());
        assertEquals(6, MessageType.RECLAIM_ACK.code());
        assertNull(MessageType.fromCode(0));
        assertNull(MessageType.fromCode(7));
        assertNull(MessageType.fromCode(256));
        assertNull(MessageType.fromCode(-1));
        for (final MessageType type : MessageType.values())
        {
            assertSame(type, MessageType.fromCode(type.code()));
            assertEquals(type.code() >= 3, type.isControl());
        }
    }

    @Test
    void roundTripAtAnOffset()
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(24);
        final HeaderFlyweight h = new HeaderFlyweight().wrap(buffer, 5);
        h.set(MessageType.RECLAIM_ACK, true, 65535, 255, 128, false);
        final HeaderFlyweight r = new HeaderFlyweight().wrap(buffer, 5);
        assertEquals(MessageType.RECLAIM_ACK, r.type());
        assertTrue(r.exactlyOnce());
        assertEquals(65535, r.messageSize());
        assertEquals(255, r.callSeq());
        assertEquals(128, r.packetSeq());
        assertFalse(r.fragmented());
        assertEquals(0, r.padding());
        assertEquals(255, r.callNumber());
        assertEquals(128, r.packetNumber());
        assertEquals("Header{type=RECLAIM_ACK, exactlyOnce=1, size=65535, call=255, packet=128, fragmented=0, padding=0}", r.toString());
    }

    @Test
    void validationNamesEachDefect()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(20);
        final HeaderFlyweight h = new HeaderFlyweight().wrap(buffer, 0);
        h.set(MessageType.COMPLETE, true, 20, 1, 0, false);
        assertNull(h.validate(20));
        assertEquals(HeaderFlyweight.Invalid.TRUNCATED, h.validate(15));
        assertEquals(HeaderFlyweight.Invalid.SIZE_MISMATCH, h.validate(19));
        buffer.put(13, (byte)0x80);
        assertEquals(HeaderFlyweight.Invalid.BAD_NUMBER, h.validate(20));
        buffer.put(13, (byte)0);
        buffer.put(1, (byte)2);
        assertEquals(HeaderFlyweight.Invalid.BAD_BOOLEAN, h.validate(20));
        buffer.put(1, (byte)1);
        buffer.put(6, (byte)255);
        assertEquals(HeaderFlyweight.Invalid.BAD_BOOLEAN, h.validate(20));
        buffer.put(0, (byte)0);
        assertEquals(HeaderFlyweight.Invalid.UNKNOWN_TYPE, h.validate(20));
    }

    @Test
    void sizeFieldRejectsValuesItCannotHold()
    {
        final HeaderFlyweight h = new HeaderFlyweight().wrap(ByteBuffer.allocate(16), 0);
        assertThrows(IllegalArgumentException.class, () -> h.messageSize(15));
        assertThrows(IllegalArgumentException.class, () -> h.messageSize(65536));
    }
}
