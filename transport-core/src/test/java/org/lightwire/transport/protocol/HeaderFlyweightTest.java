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
        final ByteBuffer buffer = ByteBuffer.allocate(8);
        new HeaderFlyweight().wrap(buffer, 0).set(MessageType.PARTIAL, true, 0x1234, 0xAB, 0xCD, true);
        assertArrayEquals(new byte[] {1, 1, 0x12, 0x34, (byte)0xAB, (byte)0xCD, 1, 0}, buffer.array());
    }

    @Test
    void byteOrderIsBigEndianWhateverTheBufferSays()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        new HeaderFlyweight().wrap(buffer, 0).set(MessageType.COMPLETE, false, 8, 0, 0, false).messageSize(0x0102);
        assertEquals(1, buffer.get(2));
        assertEquals(2, buffer.get(3));
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
        final ByteBuffer buffer = ByteBuffer.allocateDirect(20);
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
        assertEquals("Header{type=RECLAIM_ACK, exactlyOnce=1, size=65535, callSeq=255, packetSeq=128, fragmented=0, padding=0}", r.toString());
    }

    @Test
    void validationNamesEachDefect()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(12);
        final HeaderFlyweight h = new HeaderFlyweight().wrap(buffer, 0);
        h.set(MessageType.COMPLETE, true, 12, 1, 0, false);
        assertNull(h.validate(12));
        assertEquals(HeaderFlyweight.Invalid.TRUNCATED, h.validate(7));
        assertEquals(HeaderFlyweight.Invalid.SIZE_MISMATCH, h.validate(11));
        buffer.put(1, (byte)2);
        assertEquals(HeaderFlyweight.Invalid.BAD_BOOLEAN, h.validate(12));
        buffer.put(1, (byte)1);
        buffer.put(6, (byte)255);
        assertEquals(HeaderFlyweight.Invalid.BAD_BOOLEAN, h.validate(12));
        buffer.put(0, (byte)0);
        assertEquals(HeaderFlyweight.Invalid.UNKNOWN_TYPE, h.validate(12));
    }

    @Test
    void sizeFieldRejectsValuesItCannotHold()
    {
        final HeaderFlyweight h = new HeaderFlyweight().wrap(ByteBuffer.allocate(8), 0);
        assertThrows(IllegalArgumentException.class, () -> h.messageSize(7));
        assertThrows(IllegalArgumentException.class, () -> h.messageSize(65536));
    }

    @Test
    void sequenceSpaceWraps()
    {
        assertEquals(0, SequenceSpace.next(255));
        assertEquals(1, SequenceSpace.distance(255, 0));
        assertEquals(-1, SequenceSpace.distance(0, 255));
        assertEquals(127, SequenceSpace.distance(0, 127));
        assertEquals(-128, SequenceSpace.distance(0, 128));
        assertTrue(SequenceSpace.isAfter(3, 250));
        assertTrue(SequenceSpace.isBefore(250, 3));
        assertFalse(SequenceSpace.isAfter(7, 7));
        assertEquals(4, SequenceSpace.add(250, 10));
    }
}
