package org.lightwire.transport.link.udp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Absolute big-endian (network byte order) accesses to a {@link ByteBuffer}, whatever the
 * buffer's own {@link ByteBuffer#order()}, so that a flyweight never depends on how its caller
 * configured the buffer.
 */
final class BigEndian
{
    private BigEndian()
    {
    }

    static long getCard64(final ByteBuffer buffer, final int index)
    {
        final long value = buffer.getLong(index);
        return buffer.order() == ByteOrder.BIG_ENDIAN ? value : Long.reverseBytes(value);
    }

    static void putCard64(final ByteBuffer buffer, final int index, final long value)
    {
        buffer.putLong(index, buffer.order() == ByteOrder.BIG_ENDIAN ? value : Long.reverseBytes(value));
    }

    static int getCard16(final ByteBuffer buffer, final int index)
    {
        return ((buffer.get(index) & 0xFF) << 8) | (buffer.get(index + 1) & 0xFF);
    }

    static void putCard16(final ByteBuffer buffer, final int index, final int value)
    {
        buffer.put(index, (byte)(value >>> 8));
        buffer.put(index + 1, (byte)value);
    }
}
