package org.lightwire.romiop.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class PacketHeader_1_0Test
{
    private final PacketHeader_1_0 header = new PacketHeader_1_0();

    @Test
    void bigEndianGoldenBytes()
    {
        final ByteBuffer b = ByteBuffer.allocate(12);
        header.wrap(b, 0).set(ByteOrder.BIG_ENDIAN, true, PacketType.MSG_ORDER, 0x01020304);
        assertEquals("524d4f50" + "11" + "02" + "0007" + "01020304", Hex.of(b, 12));
    }

    @Test
    void littleEndianGoldenBytesWhateverTheBufferOrder()
    {
        for (final ByteOrder bufferOrder : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN})
        {
            final ByteBuffer b = ByteBuffer.allocate(12).order(bufferOrder);
            header.wrap(b, 0).set(ByteOrder.LITTLE_ENDIAN, false, PacketType.NAK, 0x01020304);
            assertEquals("524d4f50" + "11" + "01" + "0300" + "04030201", Hex.of(b, 12));
            assertEquals(ByteOrder.LITTLE_ENDIAN, header.byteOrder());
            assertEquals(PacketType.NAK, header.type());
            assertEquals(0x01020304L, header.packetSize());
            assertFalse(header.ackRequested());
        }
    }

    @Test
    void roundTripAtAnOffset()
    {
        final ByteBuffer b = ByteBuffer.allocate(40);
        header.wrap(b, 7).set(ByteOrder.BIG_ENDIAN, true, PacketType.REQUEST, 33);
        final PacketHeader_1_0 read = new PacketHeader_1_0().wrap(b, 7);
        assertTrue(read.magicMatches());
        assertEquals(0x11, read.version());
        assertTrue(read.ackRequested());
        assertEquals(PacketType.REQUEST, read.type());
        assertEquals(33, read.packetSize());
        assertNull(read.validate(33));
        assertEquals("PacketHeader_1_0{magic=RMOP, version=0x11, flags=0x2, order=BIG_ENDIAN, type=REQUEST, size=33}", read.toString());
    }

    @Test
    void validationNamesEachReason()
    {
        final ByteBuffer b = ByteBuffer.allocate(12);
        header.wrap(b, 0).set(ByteOrder.BIG_ENDIAN, false, PacketType.ACK, 12);
        assertNull(header.validate(12));
        assertEquals(Invalid.TRUNCATED, header.validate(11));
        assertEquals(Invalid.SIZE_MISMATCH, header.validate(13));
        b.put(PacketHeader_1_0.FLAGS_OFFSET, (byte)0x04);
        assertEquals(Invalid.BAD_FLAGS, header.validate(12));
        b.put(PacketHeader_1_0.FLAGS_OFFSET, (byte)0);
        b.putShort(PacketHeader_1_0.TYPE_OFFSET, (short)11);
        assertEquals(Invalid.UNKNOWN_TYPE, header.validate(12));
        b.put(PacketHeader_1_0.VERSION_OFFSET, (byte)0x10);
        assertEquals(Invalid.BAD_VERSION, header.validate(12), "wire 1.0 is not spoken");
        b.put(0, (byte)'M');
        assertEquals(Invalid.BAD_MAGIC, header.validate(12));
    }

    @Test
    void flagsBit2IsARequestsOnly()
    {
        final ByteBuffer b = ByteBuffer.allocate(12);
        final PacketHeader_1_0 header = new PacketHeader_1_0();
        header.wrap(b, 0).set(ByteOrder.BIG_ENDIAN, true, PacketType.REQUEST, 12).toSequencer(true);
        assertEquals(0x06, header.flags());
        assertTrue(header.toSequencer());
        assertNull(header.validate(12));
        header.set(ByteOrder.BIG_ENDIAN, true, PacketType.MSG_ORDER, 12).toSequencer(true);
        assertEquals(Invalid.BAD_FLAGS, header.validate(12));
        header.toSequencer(false);
        assertFalse(header.toSequencer());
        assertEquals(0x02, header.flags());
    }

    @Test
    void flagsBit3IsARepliesOnlyBit4AnOrdersOrKeepAlivesOnlyBits5To7KeepAlivesOnly()
    {
        final ByteBuffer b = ByteBuffer.allocate(12);
        final PacketHeader_1_0 header = new PacketHeader_1_0();
        header.wrap(b, 0).set(ByteOrder.BIG_ENDIAN, true, PacketType.REPLY, 12).piece(true);
        assertEquals(0x0A, header.flags());
        assertTrue(header.piece());
        assertNull(header.validate(12));
        for (final int bit : new int[] {0x20, 0x40, 0x80})
        {
            b.put(PacketHeader_1_0.FLAGS_OFFSET, (byte)(0x0A | bit));
            assertEquals(Invalid.BAD_FLAGS, header.validate(12), "flags 0x" + Integer.toHexString(0x0A | bit));
        }
        b.put(PacketHeader_1_0.FLAGS_OFFSET, (byte)0x0E);
        assertEquals(Invalid.BAD_FLAGS, header.validate(12), "bits 2 and 3 on a Reply");
        for (final PacketType type : PacketType.values())
        {
            header.set(ByteOrder.BIG_ENDIAN, true, type, 12).piece(true);
            assertEquals(type == PacketType.REPLY ? null : Invalid.BAD_FLAGS, header.validate(12), type.toString());
        }
        header.piece(false);
        assertFalse(header.piece());
        assertEquals(0x02, header.flags());
        for (final PacketType type : PacketType.values())
        {
            header.set(ByteOrder.BIG_ENDIAN, false, type, 12).report(true);
            assertEquals(0x10, header.flags());
            assertTrue(header.report());
            assertEquals(type == PacketType.MSG_ORDER || type == PacketType.KEEP_ALIVE ? null : Invalid.BAD_FLAGS, header.validate(12),
                type.toString());
        }
        for (final PacketType type : PacketType.values())
        {
            header.set(ByteOrder.BIG_ENDIAN, false, type, 12).report(true).unproven(true).foundingPromise(true);
            assertEquals(0x70, header.flags());
            assertTrue(header.unproven());
            assertTrue(header.foundingPromise());
            assertEquals(type == PacketType.KEEP_ALIVE ? null : Invalid.BAD_FLAGS, header.validate(12), type.toString());
            header.report(false);
            assertEquals(Invalid.BAD_FLAGS, header.validate(12), type + " without the report bit");
            header.report(true).foundingPromise(false);
            assertEquals(0x30, header.flags());
            assertEquals(type == PacketType.KEEP_ALIVE ? null : Invalid.BAD_FLAGS, header.validate(12), type + ", bit 5 alone");
            header.unproven(false).provesNothing(true);
            assertEquals(0x90, header.flags());
            assertTrue(header.provesNothing());
            assertEquals(type == PacketType.KEEP_ALIVE ? null : Invalid.BAD_FLAGS, header.validate(12), type + ", bit 7");
            header.report(false);
            assertEquals(Invalid.BAD_FLAGS, header.validate(12), type + ", bit 7 without the report bit");
            header.set(ByteOrder.BIG_ENDIAN, false, type, 12).told(true);
            assertEquals(0x20, header.flags());
            assertTrue(header.told(), type + ": told");
            assertEquals(type == PacketType.KEEP_ALIVE ? null : Invalid.BAD_FLAGS, header.validate(12), type + ", bit 5 without the report bit (told)");
            header.set(ByteOrder.BIG_ENDIAN, false, type, 12).start(true);
            assertEquals(0x40, header.flags());
            assertTrue(header.start(), type + ": start");
            assertEquals(type == PacketType.KEEP_ALIVE ? null : Invalid.BAD_FLAGS, header.validate(12), type + ", bit 6 without the report bit (start)");
            header.told(true);
            assertEquals(Invalid.BAD_FLAGS, header.validate(12), type + ": start and told at once");
            header.set(ByteOrder.BIG_ENDIAN, false, type, 12).report(true).foundingPromise(true);
            assertFalse(header.start(), type + ": bit 6 of a report is its founding promise, no start");
        }
    }
}
