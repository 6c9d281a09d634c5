package org.lightwire.romiop.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Absolute reads and writes in a named byte order, whatever the buffer's own order (which its
 * owner may rely on, so flyweights never change it).
 */
final class Bytes
{
    private Bytes()
    {
    }

    static int getU16(final ByteBuffer b, final int index, final ByteOrder order)
    {
        final short v = b.getShort(index);
        return (b.order() == order ? v : Short.reverseBytes(v)) & 0xFFFF;
    }

    static void putU16(final ByteBuffer b, final int index, final int value, final ByteOrder order)
    {
        final short v = (short)value;
        b.putShort(index, b.order() == order ? v : Short.reverseBytes(v));
    }

    static int getI32(final ByteBuffer b, final int index, final ByteOrder order)
    {
        final int v = b.getInt(index);
        return b.order() == order ? v : Integer.reverseBytes(v);
    }

    static void putI32(final ByteBuffer b, final int index, final int value, final ByteOrder order)
    {
        b.putInt(index, b.order() == order ? value : Integer.reverseBytes(value));
    }

    static long getI64(final ByteBuffer b, final int index, final ByteOrder order)
    {
        final long v = b.getLong(index);
        return b.order() == order ? v : Long.reverseBytes(v);
    }

    static void putI64(final ByteBuffer b, final int index, final long value, final ByteOrder order)
    {
        b.putLong(index, b.order() == order ? value : Long.reverseBytes(value));
    }
}
