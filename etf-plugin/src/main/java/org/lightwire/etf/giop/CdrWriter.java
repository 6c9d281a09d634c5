package org.lightwire.etf.giop;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes one big-endian GIOP message, CDR-aligned from the message's first octet (GIOP 1.2's
 * alignment rule): octets, unsigned longs, strings, padding. {@link #toMessage} sets the header's
 * body size.
 */
public final class CdrWriter
{
    private byte[] buffer;
    private int position;

    public CdrWriter(final int capacity)
    {
        buffer = new byte[Math.max(16, capacity)];
    }

    /** Writes the 12-octet GIOP header: version 1.{@code minor}, big-endian, whole, {@code type}; body size set at the end. */
    public CdrWriter header(final int minor, final int type)
    {
        bytes(new byte[] {'G', 'I', 'O', 'P', 1, (byte)minor, 0, (byte)type}, 8);
        return uLong(0);
    }

    public CdrWriter bytes(final byte[] bytes)
    {
        return bytes(bytes, bytes.length);
    }

    public CdrWriter bytes(final byte[] bytes, final int length)
    {
        ensure(length);
        System.arraycopy(bytes, 0, buffer, position, length);
        position += length;
        return this;
    }

    /** An unsigned long, after padding to 4. */
    public CdrWriter uLong(final int value)
    {
        align(4);
        ensure(4);
        GiopMessage.writeULong(buffer, position, value, false);
        position += 4;
        return this;
    }

    /** A CDR string: its length with the NUL, its ISO-8859-1 characters, the NUL. */
    public CdrWriter string(final String text)
    {
        final byte[] chars = text.getBytes(StandardCharsets.ISO_8859_1);
        uLong(chars.length + 1);
        bytes(chars);
        return bytes(new byte[1]);
    }

    /** Pads with zero octets to the next multiple of {@code boundary}. */
    public CdrWriter align(final int boundary)
    {
        final int aligned = GiopMessage.align(position, boundary);
        ensure(aligned - position);
        position = aligned;
        return this;
    }

    /** @return the message written, its header's body size set. */
    public byte[] toMessage()
    {
        final byte[] m = Arrays.copyOf(buffer, position);
        GiopMessage.setBodySize(m, position - GiopMessage.HEADER_LENGTH);
        return m;
    }

    private void ensure(final int more)
    {
        if (position + more > buffer.length)
        {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, position + more));
        }
    }
}
