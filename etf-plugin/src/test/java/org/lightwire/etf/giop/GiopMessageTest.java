package org.lightwire.etf.giop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;

import org.junit.jupiter.api.Test;

class GiopMessageTest
{
    /** GIOP 1.2 Request, big-endian: id 7, response_flags as given, then 4 body bytes. */
    private static byte[] request12(final int flags, final int id, final int responseFlags)
    {
        return bytes(0x47, 0x49, 0x4F, 0x50, 1, 2, flags, 0, 0, 0, 0, 12,
            0, 0, 0, id, responseFlags, 0, 0, 0, 0xA, 0xB, 0xC, 0xD);
    }

    @Test
    void giop12RequestGivesItsIdAndResponseFlags()
    {
        final byte[] m = request12(0, 7, 3);
        assertTrue(GiopMessage.isGiop(m, m.length));
        assertEquals(GiopMessage.REQUEST, GiopMessage.type(m));
        assertEquals(7, GiopMessage.requestId(m, m.length));
        assertEquals(1, GiopMessage.responseExpected(m, m.length));
        assertTrue(GiopMessage.expectsGiopReply(m, m.length));
        assertEquals(12, GiopMessage.bodySize(m));
        final byte[] oneway = request12(0, 8, 0);
        assertEquals(0, GiopMessage.responseExpected(oneway, oneway.length));
        assertFalse(GiopMessage.expectsGiopReply(oneway, oneway.length));
    }

    @Test
    void giop10RequestSkipsServiceContextsLittleEndian()
    {
        // 1 context: id 1, 5 data bytes (then 3 padding), request id 0x01020304, response_expected 1.
        final byte[] m = bytes(0x47, 0x49, 0x4F, 0x50, 1, 0, 1, 0, 28, 0, 0, 0,
            1, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 9, 9, 9, 9, 9, 0, 0, 0,
            4, 3, 2, 1, 1);
        assertTrue(GiopMessage.littleEndian(m));
        assertEquals(0x01020304, GiopMessage.requestId(m, m.length));
        assertEquals(1, GiopMessage.responseExpected(m, m.length));
    }

    @Test
    void setRequestIdRewritesTheIdInPlaceInTheMessagesByteOrder()
    {
        final byte[] m12 = request12(0, 7, 3);
        assertTrue(GiopMessage.setRequestId(m12, m12.length, 0x0A0B0C0DL));
        assertArrayEquals(bytes(0, 0, 0, 12, 0x0A, 0x0B, 0x0C, 0x0D), java.util.Arrays.copyOfRange(m12, 8, 16));
        assertEquals(0x0A0B0C0DL, GiopMessage.requestId(m12, m12.length));
        final byte[] m10 = bytes(0x47, 0x49, 0x4F, 0x50, 1, 0, 1, 0, 28, 0, 0, 0,
            1, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 9, 9, 9, 9, 9, 0, 0, 0,
            4, 3, 2, 1, 1);
        assertEquals(32, GiopMessage.requestIdOffset(m10, m10.length));
        assertTrue(GiopMessage.setRequestId(m10, m10.length, 0xFFFF_FFFEL));
        assertArrayEquals(bytes(0xFE, 0xFF, 0xFF, 0xFF, 1), java.util.Arrays.copyOfRange(m10, 32, 37));
        final byte[] close = bytes(0x47, 0x49, 0x4F, 0x50, 1, 2, 0, 5, 0, 0, 0, 0);
        assertFalse(GiopMessage.setRequestId(close, close.length, 1));
        assertEquals(-1, GiopMessage.requestIdOffset(m12, 14));
    }

    @Test
    void truncatedOrForeignMessagesAreUnknownNeverThrown()
    {
        final byte[] m = request12(0, 7, 1);
        assertEquals(GiopMessage.UNKNOWN, GiopMessage.requestId(m, 14));
        assertEquals(GiopMessage.UNKNOWN, GiopMessage.responseExpected(m, 16));
        assertFalse(GiopMessage.isGiop(new byte[] {1, 2, 3}, 3));
        assertFalse(GiopMessage.expectsGiopReply(new byte[0], 0));
        final byte[] hugeContexts = bytes(0x47, 0x49, 0x4F, 0x50, 1, 1, 0, 0, 0, 0, 0, 8, 0x7F, 0, 0, 0, 0, 0, 0, 1);
        assertEquals(GiopMessage.UNKNOWN, GiopMessage.requestId(hugeContexts, hugeContexts.length));
    }

    @Test
    void fragmentsAreJoinedIntoOneUnfragmentedMessage()
    {
        final FragmentJoiner joiner = new FragmentJoiner();
        final byte[] first = request12(2, 7, 1);
        // Fragment 1.2: header, request id 7, then 3 bytes; the second (last) one 2 bytes.
        final byte[] mid = bytes(0x47, 0x49, 0x4F, 0x50, 1, 2, 2, 7, 0, 0, 0, 7, 0, 0, 0, 7, 1, 2, 3);
        final byte[] last = bytes(0x47, 0x49, 0x4F, 0x50, 1, 2, 0, 7, 0, 0, 0, 6, 0, 0, 0, 7, 4, 5);
        assertNull(joiner.offer(first));
        assertNull(joiner.offer(mid));
        final byte[] whole = joiner.offer(last);
        final ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes(request12(0, 7, 1));
        expected.writeBytes(new byte[] {1, 2, 3, 4, 5});
        final byte[] want = expected.toByteArray();
        GiopMessage.setBodySize(want, want.length - 12);
        assertArrayEquals(want, whole);
        assertFalse(GiopMessage.moreFragments(whole));
        assertEquals(1, joiner.joined());
        final byte[] plain = request12(0, 9, 1);
        assertEquals(plain, joiner.offer(plain));
    }

    @Test
    void systemExceptionReplyCarriesTheRequestIdAndException()
    {
        for (int minor = 0; minor <= 2; minor++)
        {
            final byte[] r = SystemExceptionReply.build(minor, 42, "IDL:omg.org/CORBA/COMM_FAILURE:1.0", 0x4C570002, 2, new byte[] {0, 0, 0, 0});
            assertTrue(GiopMessage.isGiop(r, r.length));
            assertEquals(GiopMessage.REPLY, GiopMessage.type(r));
            assertEquals(42, GiopMessage.requestId(r, r.length));
            assertEquals(r.length - 12, GiopMessage.bodySize(r));
            // The last two ulongs: minor code and COMPLETED_MAYBE.
            assertEquals(0x4C570002, GiopMessage.readULong(r, r.length - 8, false));
            assertEquals(2, GiopMessage.readULong(r, r.length - 4, false));
        }
    }

    @Test
    void inboundMessagesPresentHeaderThenBodyAndFailOnClose()
    {
        final InboundMessages in = new InboundMessages();
        final long gen = in.open();
        final byte[] m = request12(0, 1, 1);
        assertTrue(in.offer(gen, m));
        assertFalse(in.offer(gen + 1, m), "a message of another generation is dropped");
        final byte[] dst = new byte[m.length];
        assertEquals(12, in.read(dst, 0, 12, 12));
        assertEquals(m.length - 12, in.read(dst, 12, m.length - 12, m.length - 12));
        assertArrayEquals(m, dst);
        assertFalse(in.hasData());
        in.close(() -> new IllegalStateException("closed for the test"));
        assertThrows(IllegalStateException.class, () -> in.read(dst, 0, 12, 12));
    }

    private static byte[] bytes(final int... values)
    {
        final byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++)
        {
            b[i] = (byte)values[i];
        }
        return b;
    }
}
