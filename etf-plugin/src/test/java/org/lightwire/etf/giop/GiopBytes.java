package org.lightwire.etf.giop;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Writes GIOP messages by hand, CDR field by field, for tests: alignment is relative to the message start. */
public final class GiopBytes
{
    private byte[] buffer = new byte[256];
    private int position;
    private final boolean little;

    private GiopBytes(final int minor, final int type, final boolean little, final int flags)
    {
        this.little = little;
        octets('G', 'I', 'O', 'P', 1, minor, flags | (little ? 1 : 0), type);
        ulong(0);
    }

    /** A message header; the size is filled in by {@link #bytes()}. */
    public static GiopBytes message(final int minor, final int type, final boolean little)
    {
        return new GiopBytes(minor, type, little, 0);
    }

    /** A message header with extra flag bits (0x02: more fragments). */
    public static GiopBytes message(final int minor, final int type, final boolean little, final int flags)
    {
        return new GiopBytes(minor, type, little, flags);
    }

    public GiopBytes octets(final int... values)
    {
        ensure(values.length);
        for (final int v : values)
        {
            buffer[position++] = (byte)v;
        }
        return this;
    }

    public GiopBytes align(final int boundary)
    {
        final int aligned = GiopMessage.align(position, boundary);
        ensure(aligned - position);
        position = aligned;
        return this;
    }

    public GiopBytes ushort(final int v)
    {
        align(2);
        return little ? octets(v & 0xFF, v >>> 8 & 0xFF) : octets(v >>> 8 & 0xFF, v & 0xFF);
    }

    public GiopBytes ulong(final int v)
    {
        align(4);
        ensure(4);
        GiopMessage.writeULong(buffer, position, v, little);
        position += 4;
        return this;
    }

    /** An octet sequence: length, then the bytes. */
    public GiopBytes sequence(final byte[] data)
    {
        ulong(data.length);
        ensure(data.length);
        System.arraycopy(data, 0, buffer, position, data.length);
        position += data.length;
        return this;
    }

    /** A string: length counting the NUL, the characters, the NUL. */
    public GiopBytes string(final String s)
    {
        final byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        return sequence(Arrays.copyOf(b, b.length + 1));
    }

    /** One service context: id, then its data as an octet sequence. */
    public GiopBytes context(final int id, final byte[] data)
    {
        ulong(id);
        return sequence(data);
    }

    /** @return the message, its size field set. */
    public byte[] bytes()
    {
        final byte[] m = Arrays.copyOf(buffer, position);
        GiopMessage.writeULong(m, 8, position - GiopMessage.HEADER_LENGTH, little);
        return m;
    }

    /** @return a big-endian encapsulation of a CodeSetContext. */
    public static byte[] codeSetContext(final int charCodeSet, final int wcharCodeSet)
    {
        final byte[] e = new byte[12];
        GiopMessage.writeULong(e, 4, charCodeSet, false);
        GiopMessage.writeULong(e, 8, wcharCodeSet, false);
        return e;
    }

    /** A GIOP 1.2 Request with a KeyAddr target, the given service contexts (id, data pairs) and a 4-byte body. */
    public static byte[] request12(final boolean little, final int requestId, final int responseFlags, final byte[] key, final String operation,
        final Object... contexts)
    {
        final GiopBytes b = message(2, GiopMessage.REQUEST, little).ulong(requestId).octets(responseFlags, 0, 0, 0).ushort(0)
            .sequence(key).string(operation).ulong(contexts.length / 2);
        for (int i = 0; i < contexts.length; i += 2)
        {
            b.context((Integer)contexts[i], (byte[])contexts[i + 1]);
        }
        return b.align(8).octets(1, 2, 3, 4).bytes();
    }

    private void ensure(final int more)
    {
        if (position + more > buffer.length)
        {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, position + more));
        }
    }
}
