package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lightwire.romiop.protocol.FragmentHeader;

class FragmentAssemblerTest
{
    private static final int CLIENT = 70_000;

    private static byte[] message(final int length)
    {
        final byte[] m = new byte[length];
        for (int i = 0; i < length; i++)
        {
            m[i] = (byte)(i * 31 + 7);
        }
        return m;
    }

    /** @return the piece of {@code m} at {@code at}, {@code length} bytes, as a Request payload. */
    private static ByteBuffer piece(final byte[] m, final int messageId, final int at, final int length)
    {
        final byte[] p = new byte[FragmentHeader.HEADER_LENGTH + length];
        FragmentHeader.write(p, 0, messageId, at, m.length);
        System.arraycopy(m, at, p, FragmentHeader.HEADER_LENGTH, length);
        return ByteBuffer.wrap(p);
    }

    private static FragmentAssembler.Message offer(final FragmentAssembler a, final int packetId, final ByteBuffer piece)
    {
        return a.offer(CLIENT, packetId, piece, 0, piece.capacity());
    }

    @Test
    void theHeaderHasItsGoldenBytes()
    {
        final byte[] h = new byte[FragmentHeader.HEADER_LENGTH];
        FragmentHeader.write(h, 0, 0x01020304, 0x0000FFFF, 0x00010000);

        assertArrayEquals(new byte[] {'R', 'F', 'R', 'G', 1, 2, 3, 4, 0, 0, (byte)0xFF, (byte)0xFF, 0, 1, 0, 0}, h);
        assertEquals(0x01020304, FragmentHeader.messageId(ByteBuffer.wrap(h), 0));
        assertEquals(0xFFFF, FragmentHeader.offset(ByteBuffer.wrap(h), 0));
        assertEquals(0x10000, FragmentHeader.totalLength(ByteBuffer.wrap(h), 0));
        assertEquals(false, FragmentHeader.isFragment(ByteBuffer.wrap("GIOP\1\2\0\0\0\0\0\0\0\0\0\0".getBytes()), 0, 16));
    }

    /** The three pieces of one 2,500-byte message: packet ids 41, 42, 43. */
    @ParameterizedTest(name = "delivered as packets {0}")
    @ValueSource(strings = {"41,42,43", "43,42,41", "42,41,43"})
    void thePiecesMakeTheMessageAtTheLastDeliveredNamedByTheFirstPacketId(final String deliveryOrder)
    {
        final FragmentAssembler a = new FragmentAssembler(1 << 20, 1 << 22);
        final byte[] m = message(2500);
        final Map<Integer, ByteBuffer> pieces = Map.of(41, piece(m, 0, 0, 1000), 42, piece(m, 41, 1000, 1000), 43, piece(m, 41, 2000, 500));
        final int[] order = Arrays.stream(deliveryOrder.split(",")).mapToInt(Integer::parseInt).toArray();

        assertNull(offer(a, order[0], pieces.get(order[0])));
        assertNull(offer(a, order[1], pieces.get(order[1])));
        final FragmentAssembler.Message whole = offer(a, order[2], pieces.get(order[2]));

        assertArrayEquals(m, whole.bytes());
        assertEquals(41, whole.messageId());
        assertEquals(CLIENT, whole.senderId());
        assertEquals(1, a.messages());
        assertEquals(0, a.partials());
        assertEquals(0, a.partialBytes());
    }

    @Test
    void twoClientsMessagesDoNotMix()
    {
        final FragmentAssembler a = new FragmentAssembler(1 << 20, 1 << 22);
        final byte[] m1 = message(300);
        final byte[] m2 = Arrays.copyOf(message(400), 400);
        m2[0] = 99;

        assertNull(a.offer(1_000_000, 5, piece(m1, 0, 0, 200), 0, 216));
        assertNull(a.offer(2_000_000, 5, piece(m2, 0, 0, 200), 0, 216));
        assertArrayEquals(m2, a.offer(2_000_000, 6, piece(m2, 5, 200, 200), 0, 216).bytes());
        assertArrayEquals(m1, a.offer(1_000_000, 6, piece(m1, 5, 200, 100), 0, 116).bytes());
    }

    @Test
    void malformedPiecesAreCountedAndDropped()
    {
        final FragmentAssembler a = new FragmentAssembler(1 << 20, 1 << 22);
        final byte[] m = message(2000);

        assertNull(a.offer(CLIENT, 1, ByteBuffer.wrap(new byte[10]), 0, 10));               // shorter than the header
        assertNull(offer(a, 2, ByteBuffer.wrap(new byte[40])));                             // no magic
        assertNull(offer(a, 3, piece(m, 0, 1000, 1000)));                                   // offset without message id
        assertNull(offer(a, 4, piece(m, 9, 0, 1000)));                                      // message id at offset 0
        final ByteBuffer past = piece(m, 0, 0, 1000);
        FragmentHeader.write(past.array(), 0, 0, 0, 999);                                  // longer than its total
        assertNull(offer(a, 5, past));
        assertEquals(5, a.invalid());

        assertNull(offer(a, 10, piece(m, 0, 0, 1000)));
        assertNull(offer(a, 11, piece(m, 10, 0 + 1000, 500)));
        final ByteBuffer again = piece(m, 10, 1000, 500);
        assertNull(offer(a, 12, again));                                                    // the same piece again
        assertEquals(1, a.duplicates());
        final ByteBuffer otherTotal = piece(message(3000), 10, 1500, 500);
        assertNull(offer(a, 13, otherTotal));                                               // another total length
        assertNull(offer(a, 15, piece(m, 10, 1400, 200)));                                  // overlaps the piece at 1000
        assertNull(offer(a, 16, piece(m, 10, 900, 200)));                                   // overlaps both earlier pieces
        assertNull(offer(a, 17, piece(m, 10, 1500, 0)));                                    // no bytes
        assertEquals(9, a.invalid());
        assertEquals(1, a.duplicates());
        assertArrayEquals(m, offer(a, 14, piece(m, 10, 1500, 500)).bytes());
    }

    @Test
    void aMessageLongerThanTheMaximumIsRefusedWithAllItsPieces()
    {
        final FragmentAssembler a = new FragmentAssembler(1000, 4000);
        final byte[] m = message(1500);

        assertNull(offer(a, 1, piece(m, 0, 0, 800)));
        assertNull(offer(a, 2, piece(m, 1, 800, 700)));
        assertEquals(2, a.tooLong());
        assertEquals(0, a.partials());
    }

    @Test
    void theOldestMessagesUnderWayMakeRoomForNewOnes()
    {
        final FragmentAssembler a = new FragmentAssembler(1000, 2500);
        final byte[] m = message(1000);

        assertNull(offer(a, 1, piece(m, 0, 0, 500)));
        assertNull(offer(a, 3, piece(m, 0, 0, 500)));
        assertEquals(2000, a.partialBytes());
        assertNull(offer(a, 5, piece(m, 0, 0, 500)));                                       // 3,000 > 2,500: message 1 goes

        assertEquals(1, a.evicted());
        assertEquals(2, a.partials());
        assertNull(offer(a, 2, piece(m, 1, 500, 500)));                                     // message 1 again, unfinished: 3 goes
        assertEquals(2, a.evicted());
        assertArrayEquals(m, offer(a, 6, piece(m, 5, 500, 500)).bytes());
        assertNull(offer(a, 4, piece(m, 3, 500, 500)));                                     // message 3's rest starts it again
        assertEquals(2, a.partials());
    }

    /** Reply pieces: every header names the request the reply answers, and the caller names it too. */
    @Test
    void namedPiecesComeTogetherPerSenderAndADiscardedMessageFreesItsBytes()
    {
        final FragmentAssembler a = new FragmentAssembler(1 << 20, 1 << 22);
        final byte[] m = message(1800);
        final ByteBuffer first = piece(m, 77, 0, 1000);
        final ByteBuffer last = piece(m, 77, 1000, 800);

        assertNull(a.offerNamed(1, 77, last, 0, last.capacity()));
        assertNull(a.offerNamed(2, 77, first, 0, first.capacity()));                        // another member's reply
        assertNull(a.offerNamed(1, 78, first, 0, first.capacity()));                        // the header names 77
        assertEquals(1, a.invalid());
        assertNull(a.offerNamed(1, 77, last, 0, last.capacity()));                          // resent
        assertEquals(1, a.duplicates());
        final FragmentAssembler.Message whole = a.offerNamed(1, 77, first, 0, first.capacity());

        assertArrayEquals(m, whole.bytes());
        assertEquals(77, whole.messageId());
        assertEquals(1, whole.senderId());
        assertEquals(1, a.partials());
        assertEquals(1800, a.partialBytes());
        a.discard(2, 77);
        a.discard(2, 77);
        assertEquals(0, a.partials());
        assertEquals(0, a.partialBytes());
        assertEquals("fragments=5, fragmentedReplies=1, invalidFragments=1, duplicateFragments=1, fragmentsTooLong=0, " +
            "partialRepliesEvicted=0, partialReplies=0", a.counters("Replies"));
    }
}
