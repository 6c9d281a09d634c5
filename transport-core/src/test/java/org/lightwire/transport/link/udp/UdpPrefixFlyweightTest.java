package org.lightwire.transport.link.udp;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UdpPrefixFlyweightTest
{
    private static final byte[] GOLDEN = {(byte)0x80, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, (byte)0xFF};
    private static final long GOLDEN_ID = 0x80010203040506FFL;

    @Test
    void writesConnectionIdBigEndianWhateverTheBufferOrder()
    {
        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN})
        {
            final ByteBuffer buffer = ByteBuffer.allocate(3 + UdpPrefixFlyweight.HEADER_LENGTH).order(order);
            new UdpPrefixFlyweight().wrap(buffer, 3).connectionId(GOLDEN_ID);
            final byte[] bytes = new byte[UdpPrefixFlyweight.HEADER_LENGTH];
            buffer.get(3, bytes);
            assertArrayEquals(GOLDEN, bytes, order.toString());
        }
    }

    @Test
    void readsGoldenBytesInAnyBufferOrder()
    {
        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN})
        {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(8).order(order).put(GOLDEN);
            final UdpPrefixFlyweight prefix = new UdpPrefixFlyweight().wrap(buffer, 0);
            assertEquals(GOLDEN_ID, prefix.connectionId());
            assertFalse(prefix.isSetup());
        }
    }

    @Test
    void roundTripsExtremeIdsAndRecognisesTheSetupPrefix()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(8);
        final UdpPrefixFlyweight prefix = new UdpPrefixFlyweight().wrap(buffer, 0);
        for (final long id : new long[] {1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x0123456789ABCDEFL})
        {
            assertEquals(id, prefix.connectionId(id).connectionId());
        }
        assertTrue(prefix.connectionId(0).isSetup());
        assertArrayEquals(new byte[8], buffer.array());
    }

    @Test
    void toStringPrintsTheId()
    {
        final UdpPrefixFlyweight prefix = new UdpPrefixFlyweight().wrap(ByteBuffer.wrap(GOLDEN.clone()), 0);
        assertEquals("UdpPrefix{connectionId=0x80010203040506ff}", prefix.toString());
        assertEquals("UdpPrefix{unwrapped}", new UdpPrefixFlyweight().toString());
    }
}
