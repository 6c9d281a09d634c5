package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * Datagrams read into the assembly buffer itself ({@link AssemblyBuffer#receiveWindow}): the
 * test plays the link (writes framing and payload at the window's position, as a socket read
 * would) and the engine (delivers the payload from behind the framing), and compares the
 * assembled message byte for byte with what was sent.
 */
class AssemblyBufferTest
{
    private static final int FRAMING = 16;
    private static final int DATAGRAM = FRAMING + 1000 + 1;

    private final Random random = new Random(11);

    /** Writes a datagram of {@code payload} behind {@code FRAMING} bytes of 0x5A where the window says, like a socket read. */
    private static ByteBuffer receive(final AssemblyBuffer buffer, final byte[] payload)
    {
        final ByteBuffer window = buffer.receiveWindow(DATAGRAM, FRAMING);
        assertTrue(window.remaining() >= DATAGRAM, "room for a whole datagram");
        final int start = window.position();
        final byte[] framing = new byte[FRAMING];
        Arrays.fill(framing, (byte)0x5A);
        window.put(framing).put(payload);
        window.limit(window.position()).position(start);
        return window;
    }

    /** What the engine does with an accepted packet: its payload, from behind the framing. */
    private static ByteBuffer payloadOf(final ByteBuffer datagram)
    {
        datagram.position(datagram.position() + FRAMING);
        return datagram;
    }

    /** A datagram of {@code payload} received, delivered and appended, its framing put back. */
    private static void appendReceived(final AssemblyBuffer buffer, final byte[] payload, final boolean endOfMessage)
    {
        buffer.append(payloadOf(receive(buffer, payload)), endOfMessage);
        buffer.restoreAfterReceive();
    }

    private byte[] bytes(final int n)
    {
        final byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static byte[] message(final AssemblyBuffer buffer)
    {
        final ByteBuffer m = buffer.flipInPlace();
        final byte[] b = new byte[m.remaining()];
        m.get(b);
        return b;
    }

    private static byte[] concat(final byte[]... parts)
    {
        final ByteBuffer b = ByteBuffer.allocate(Arrays.stream(parts).mapToInt(p -> p.length).sum());
        for (final byte[] p : parts)
        {
            b.put(p);
        }
        return b.array();
    }

    @Test
    void packetsReadInPlaceMakeTheMessageWithTheirFramingGone()
    {
        final AssemblyBuffer buffer = new AssemblyBuffer(64, 1 << 20, true, 32, null);
        final byte[][] parts = {bytes(1000), bytes(1000), bytes(7), bytes(1000)};
        for (int i = 0; i < parts.length; i++)
        {
            final ByteBuffer datagram = receive(buffer, parts[i]);
            final ByteBuffer payload = payloadOf(datagram);
            buffer.append(payload, i == parts.length - 1);
            assertEquals(0, payload.remaining(), "the payload is consumed");
            buffer.restoreAfterReceive();
        }
        assertTrue(buffer.isComplete());
        // The framing of packets 2 to 4 covered the last 16 bytes of the message each time.
        assertArrayEquals(concat(parts), message(buffer));
    }

    @Test
    void aPacketAppendedInPlaceIsNotCopied()
    {
        final AssemblyBuffer buffer = new AssemblyBuffer(4096, 1 << 20, true, 32, null);
        final byte[] first = bytes(1000);
        appendReceived(buffer, first, false);
        final ByteBuffer second = payloadOf(receive(buffer, bytes(1000)));
        // Overwrite the payload after delivery: an appended copy would not see it; the message,
        // being the same memory, does.
        final int at = second.position();
        buffer.append(second, true);
        second.put(at + 999, (byte)0x11);
        final byte[] m = message(buffer);
        assertEquals(2000, m.length);
        assertEquals(0x11, m[1999]);
        assertArrayEquals(first, Arrays.copyOf(m, 1000));
    }

    @Test
    void aDatagramThatDeliversNothingLeavesTheMessageAsItWas()
    {
        final AssemblyBuffer buffer = new AssemblyBuffer(64, 1 << 20, true, 32, null);
        final byte[] first = bytes(1000);
        appendReceived(buffer, first, false);
        // A duplicate, a NACK: read where the next packet would go, never delivered.
        receive(buffer, bytes(1000));
        buffer.restoreAfterReceive();
        receive(buffer, new byte[0]);
        buffer.restoreAfterReceive();
        final byte[] last = bytes(300);
        appendReceived(buffer, last, true);
        assertArrayEquals(concat(first, last), message(buffer));
    }

    @Test
    void aPacketReadWhileTheMessageWasResetStartsTheNextMessage()
    {
        final AssemblyBuffer buffer = new AssemblyBuffer(64, 1 << 20, true, 32, null);
        appendReceived(buffer, bytes(1000), false);
        final byte[] next = bytes(900);
        final ByteBuffer datagram = receive(buffer, next);
        // The one-way under way is aborted by the next call's first packet, in this datagram.
        buffer.reset();
        assertTrue(buffer.isEmpty());
        buffer.append(payloadOf(datagram), true);
        buffer.restoreAfterReceive();
        assertArrayEquals(next, message(buffer));
    }

    @Test
    void copiedAndInPlacePacketsMix()
    {
        final AssemblyBuffer buffer = new AssemblyBuffer(16, 1 << 20, true, 32, null);
        final byte[] copied = bytes(500);
        buffer.append(ByteBuffer.wrap(copied), false);
        final byte[] inPlace = bytes(1000);
        appendReceived(buffer, inPlace, false);
        final byte[] copiedAgain = bytes(3);
        buffer.append(ByteBuffer.wrap(copiedAgain), true);
        assertArrayEquals(concat(copied, inPlace, copiedAgain), message(buffer));
    }

    @Test
    void theWindowGrowsTheBufferButNeverPastTheMessageLimitAndOneDatagram()
    {
        final int max = 2500;
        final AssemblyBuffer buffer = new AssemblyBuffer(16, max, true, 32, null);
        final byte[] a = bytes(1000);
        final byte[] b = bytes(1000);
        appendReceived(buffer, a, false);
        appendReceived(buffer, b, false);
        final ByteBuffer window = buffer.receiveWindow(DATAGRAM, FRAMING);
        assertTrue(window.capacity() <= 32 + max + DATAGRAM, "capacity " + window.capacity());
        buffer.restoreAfterReceive();
        // 2000 + 1000 > 2500: overflowed, and the bytes are not taken.
        appendReceived(buffer, bytes(1000), true);
        assertTrue(buffer.overflowed());
        assertTrue(buffer.isComplete());
        assertArrayEquals(concat(a, b), message(buffer));
        buffer.reset();
        assertTrue(buffer.isEmpty());
        assertFalse(buffer.overflowed());
    }

    @Test
    void aWindowIsOneViewReusedUntilTheBufferGrows()
    {
        final AssemblyBuffer buffer = new AssemblyBuffer(4096, 1 << 20, true, 32, null);
        final ByteBuffer first = buffer.receiveWindow(DATAGRAM, FRAMING);
        buffer.restoreAfterReceive();
        assertSame(first, buffer.receiveWindow(DATAGRAM, FRAMING));
        buffer.restoreAfterReceive();
        assertEquals(32 - FRAMING, first.position(), "the payload lands on the message's first byte");
    }

    @Test
    void framingLongerThanTheHeadroomIsRefused()
    {
        final AssemblyBuffer buffer = new AssemblyBuffer(64, 1024, true, 8, null);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> buffer.receiveWindow(100, 16));
        assertTrue(e.getMessage().contains("offset 16") && e.getMessage().contains("headroom of 8"), e.getMessage());
    }
}
