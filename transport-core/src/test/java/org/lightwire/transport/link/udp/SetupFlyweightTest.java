package org.lightwire.transport.link.udp;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SetupFlyweightTest
{
    private static final long NONCE = 0x1122334455667788L;
    private static final long ID = 0x99AABBCCDDEEFF01L;

    private static final byte[] GOLDEN_ACCEPT = {
        0x02, 0x01, 0x20, 0x00,                                         // ACCEPT, version 1, 8192
        0x00, 0x00, 0x00, 0x00,                                         // padding
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte)0x88,           // nonce
        (byte)0x99, (byte)0xAA, (byte)0xBB, (byte)0xCC, (byte)0xDD, (byte)0xEE, (byte)0xFF, 0x01, // id
    };

    @Test
    void writesGoldenAcceptInEitherBufferOrder()
    {
        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN})
        {
            final ByteBuffer buffer = ByteBuffer.allocate(SetupFlyweight.HEADER_LENGTH).order(order);
            new SetupFlyweight().wrap(buffer, 0).set(SetupFlyweight.Kind.ACCEPT, 8192, NONCE, ID);
            assertArrayEquals(GOLDEN_ACCEPT, buffer.array(), order.toString());
        }
    }

    @Test
    void writesGoldenConnectAndRejectDatagrams()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(SetupFlyweight.DATAGRAM_LENGTH);
        new UdpPrefixFlyweight().wrap(buffer, 0).connectionId(0);
        final SetupFlyweight setup = new SetupFlyweight().wrap(buffer, UdpPrefixFlyweight.HEADER_LENGTH);

        setup.set(SetupFlyweight.Kind.CONNECT, 65_499, NONCE, 0);
        assertArrayEquals(new byte[] {
            0, 0, 0, 0, 0, 0, 0, 0,
            0x01, 0x01, (byte)0xFF, (byte)0xDB, 0, 0, 0, 0,
            0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte)0x88,
            0, 0, 0, 0, 0, 0, 0, 0}, buffer.array());

        setup.set(SetupFlyweight.Kind.REJECT, 64, 0, ID);
        assertArrayEquals(new byte[] {
            0, 0, 0, 0, 0, 0, 0, 0,
            0x03, 0x01, 0x00, 0x40, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
            (byte)0x99, (byte)0xAA, (byte)0xBB, (byte)0xCC, (byte)0xDD, (byte)0xEE, (byte)0xFF, 0x01}, buffer.array());
    }

    @Test
    void readsGoldenAcceptAndRoundTrips()
    {
        final SetupFlyweight setup = new SetupFlyweight().wrap(ByteBuffer.wrap(GOLDEN_ACCEPT.clone()), 0);
        assertEquals(SetupFlyweight.Kind.ACCEPT, setup.kind());
        assertEquals(1, setup.version());
        assertEquals(8192, setup.maxPacketBytes());
        assertEquals(0, setup.padding());
        assertEquals(NONCE, setup.nonce());
        assertEquals(ID, setup.connectionId());
        assertNull(setup.validate(SetupFlyweight.HEADER_LENGTH));

        setup.set(SetupFlyweight.Kind.CONNECT, 12_345, -2, 0);
        assertEquals(SetupFlyweight.Kind.CONNECT, setup.kind());
        assertEquals(12_345, setup.maxPacketBytes());
        assertEquals(-2, setup.nonce());
        assertEquals(0, setup.connectionId());
    }

    @Test
    void validateNamesEachDefect()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(SetupFlyweight.HEADER_LENGTH);
        final SetupFlyweight setup = new SetupFlyweight().wrap(buffer, 0);

        setup.set(SetupFlyweight.Kind.CONNECT, 8192, NONCE, 0);
        assertNull(setup.validate(24));
        assertEquals(SetupFlyweight.Invalid.TRUNCATED, setup.validate(23));
        assertEquals(SetupFlyweight.Invalid.TOO_LONG, setup.validate(25));

        setup.version(2);
        assertEquals(SetupFlyweight.Invalid.BAD_VERSION, setup.validate(24));

        setup.set(SetupFlyweight.Kind.CONNECT, 8192, NONCE, 0);
        buffer.put(SetupFlyweight.KIND_OFFSET, (byte)4);
        assertEquals(SetupFlyweight.Invalid.UNKNOWN_KIND, setup.validate(24));

        setup.set(SetupFlyweight.Kind.CONNECT, 63, NONCE, 0);
        assertEquals(SetupFlyweight.Invalid.BAD_MAX_PACKET_BYTES, setup.validate(24));
        setup.set(SetupFlyweight.Kind.CONNECT, 65_500, NONCE, 0);
        assertEquals(SetupFlyweight.Invalid.BAD_MAX_PACKET_BYTES, setup.validate(24));

        setup.set(SetupFlyweight.Kind.CONNECT, 8192, NONCE, 0);
        buffer.put(SetupFlyweight.PADDING_OFFSET + 3, (byte)1);
        assertEquals(SetupFlyweight.Invalid.NONZERO_PADDING, setup.validate(24));

        setup.set(SetupFlyweight.Kind.CONNECT, 8192, 0, 0);
        assertEquals(SetupFlyweight.Invalid.ZERO_NONCE, setup.validate(24));
        setup.set(SetupFlyweight.Kind.ACCEPT, 8192, 0, ID);
        assertEquals(SetupFlyweight.Invalid.ZERO_NONCE, setup.validate(24));
        setup.set(SetupFlyweight.Kind.REJECT, 8192, 0, ID);
        assertNull(setup.validate(24));

        setup.set(SetupFlyweight.Kind.CONNECT, 8192, NONCE, ID);
        assertEquals(SetupFlyweight.Invalid.BAD_CONNECTION_ID, setup.validate(24));
        setup.set(SetupFlyweight.Kind.ACCEPT, 8192, NONCE, 0);
        assertEquals(SetupFlyweight.Invalid.BAD_CONNECTION_ID, setup.validate(24));
        setup.set(SetupFlyweight.Kind.REJECT, 8192, 0, 0);
        assertEquals(SetupFlyweight.Invalid.BAD_CONNECTION_ID, setup.validate(24));
    }

    @Test
    void maxPacketBytesMustFitACard16()
    {
        final SetupFlyweight setup = new SetupFlyweight().wrap(ByteBuffer.allocate(24), 0);
        assertThrows(IllegalArgumentException.class, () -> setup.maxPacketBytes(65_536));
        assertThrows(IllegalArgumentException.class, () -> setup.maxPacketBytes(-1));
    }

    @Test
    void toStringPrintsEveryField()
    {
        final SetupFlyweight setup = new SetupFlyweight().wrap(ByteBuffer.wrap(GOLDEN_ACCEPT.clone()), 0);
        assertEquals("Setup{kind=ACCEPT, version=1, maxPacketBytes=8192, padding=0, " +
            "nonce=0x1122334455667788, connectionId=0x99aabbccddeeff01}", setup.toString());
        setup.buffer().put(0, (byte)9);
        assertEquals("Setup{kind=?9, version=1, maxPacketBytes=8192, padding=0, " +
            "nonce=0x1122334455667788, connectionId=0x99aabbccddeeff01}", setup.toString());
    }
}
