package org.lightwire.etf.giop;

import java.util.Arrays;

/**
 * Service contexts of GIOP 1.1 and 1.2 Requests, found and inserted in whole messages: the
 * code-set context (CORBA 3, 13.10.2.6) and Lightwire's own (a ROMIOP call's consolidation policy).
 *
 * <p>Code sets: JacORB sends the context once per ORB connection, on its first request, and a server
 * decodes every later request of that connection with what it negotiated. A Lightwire ORB
 * connection spreads its calls over several transport connections, and the server sees each as
 * an ORB connection of its own, so on every transport connection but the first it would decode
 * with its native code sets. The client therefore puts the context (the one JacORB sent first)
 * into the first request each transport connection carries.
 *
 * <p>The context goes first in the request's service context list and takes a multiple of 8
 * bytes (its encapsulation is padded with zeros, which a reader of the two code set ids
 * ignores), so every later field keeps its CDR alignment in every GIOP version.
 */
public final class ServiceContexts
{
    /** {@code IOP::CodeSets}. */
    public static final int CODE_SETS_ID = 1;

    private ServiceContexts()
    {
    }

    /**
     * @return the context data (its encapsulation) of the code-set service context of a GIOP
     *     Request, or null when it has none or cannot be parsed.
     */
    public static byte[] find(final byte[] m, final int length)
    {
        return find(m, length, CODE_SETS_ID);
    }

    /**
     * @return the context data of the first service context {@code contextId} of a GIOP 1.0, 1.1
     *     or 1.2 Request, or null when it has none or cannot be parsed.
     */
    public static byte[] find(final byte[] m, final int length, final int contextId)
    {
        final int list = serviceContextList(m, length, 0);
        if (list < 0)
        {
            return null;
        }
        final boolean little = GiopMessage.littleEndian(m);
        final long count = GiopMessage.readULong(m, list, little) & 0xFFFF_FFFFL;
        int offset = list + 4;
        for (long i = 0; i < count; i++)
        {
            offset = GiopMessage.align(offset, 4);
            if (offset + 8 > length)
            {
                return null;
            }
            final int id = GiopMessage.readULong(m, offset, little);
            final long dataLength = GiopMessage.readULong(m, offset + 4, little) & 0xFFFF_FFFFL;
            if (offset + 8L + dataLength > length)
            {
                return null;
            }
            if (id == contextId)
            {
                return Arrays.copyOfRange(m, offset + 8, offset + 8 + (int)dataLength);
            }
            offset += 8 + (int)dataLength;
        }
        return null;
    }

    /**
     * @param data the context data to insert, as {@link #find} returned it.
     * @return a copy of the Request with the code-set context first in its service context list,
     *     or null when the message is not a GIOP 1.1 or 1.2 Request this class can parse.
     */
    public static byte[] insert(final byte[] m, final int length, final byte[] data)
    {
        return insert(m, length, CODE_SETS_ID, data);
    }

    /**
     * @param data the context data to insert (its encapsulation).
     * @return a copy of the Request with service context {@code contextId} first in its service
     *     context list, or null when the message is not a GIOP 1.1 or 1.2 Request this class can parse.
     */
    public static byte[] insert(final byte[] m, final int length, final int contextId, final byte[] data)
    {
        // Into 1.1 and 1.2 only: GIOP 1.0 negotiates no code sets.
        final int list = serviceContextList(m, length, 1);
        if (list < 0)
        {
            return null;
        }
        final boolean little = GiopMessage.littleEndian(m);
        final int paddedData = GiopMessage.align(data.length, 8);
        final int added = 8 + paddedData;
        final byte[] out = new byte[length + added];
        final int entry = list + 4;
        System.arraycopy(m, 0, out, 0, entry);
        GiopMessage.writeULong(out, list, GiopMessage.readULong(m, list, little) + 1, little);
        GiopMessage.writeULong(out, entry, contextId, little);
        GiopMessage.writeULong(out, entry + 4, paddedData, little);
        System.arraycopy(data, 0, out, entry + 8, data.length);
        System.arraycopy(m, entry, out, entry + added, length - entry);
        GiopMessage.setBodySize(out, GiopMessage.bodySize(m) + added);
        return out;
    }

    /**
     * @param lowestMinor the oldest GIOP minor version taken.
     * @return the offset of the service context list's count in a GIOP 1.{@code lowestMinor} to
     *     1.2 Request, or -1.
     */
    private static int serviceContextList(final byte[] m, final int length, final int lowestMinor)
    {
        if (!GiopMessage.isGiop(m, length) || GiopMessage.type(m) != GiopMessage.REQUEST || GiopMessage.minor(m) < lowestMinor ||
            GiopMessage.minor(m) > 2 || GiopMessage.bodySize(m) != length - GiopMessage.HEADER_LENGTH)
        {
            return -1;
        }
        if (GiopMessage.minor(m) < 2)
        {
            // GIOP 1.0 and 1.1: the list comes first.
            return GiopMessage.HEADER_LENGTH + 4 <= length ? GiopMessage.HEADER_LENGTH : -1;
        }
        // GIOP 1.2: request_id, response_flags, reserved[3], TargetAddress, operation, list.
        final boolean little = GiopMessage.littleEndian(m);
        final Cursor c = new Cursor(m, length, little, GiopMessage.HEADER_LENGTH + 8);
        final int disposition = c.readShort();
        switch (disposition)
        {
            case 0:
                // KeyAddr: the object key.
                c.skipOctets();
                break;
            case 1:
                // ProfileAddr: one tagged profile.
                c.readULong();
                c.skipOctets();
                break;
            case 2:
                // ReferenceAddr: selected profile index and a whole IOR.
                c.readULong();
                c.skipOctets();
                final long profiles = c.readULong() & 0xFFFF_FFFFL;
                for (long i = 0; i < profiles && c.ok(); i++)
                {
                    c.readULong();
                    c.skipOctets();
                }
                break;
            default:
                return -1;
        }
        c.skipOctets();
        final int list = GiopMessage.align(c.offset, 4);
        return c.ok() && list + 4 <= length ? list : -1;
    }

    /** Reads CDR primitives; any read past the end marks it failed instead of throwing. */
    private static final class Cursor
    {
        final byte[] m;
        final int length;
        final boolean little;
        int offset;
        boolean failed;

        Cursor(final byte[] m, final int length, final boolean little, final int offset)
        {
            this.m = m;
            this.length = length;
            this.little = little;
            this.offset = offset;
        }

        boolean ok()
        {
            return !failed && offset <= length;
        }

        int readShort()
        {
            offset = GiopMessage.align(offset, 2);
            if (failed || offset + 2 > length)
            {
                failed = true;
                return -1;
            }
            final int value = little ? (m[offset] & 0xFF) | (m[offset + 1] & 0xFF) << 8 : (m[offset] & 0xFF) << 8 | (m[offset + 1] & 0xFF);
            offset += 2;
            return value;
        }

        int readULong()
        {
            offset = GiopMessage.align(offset, 4);
            if (failed || offset + 4 > length)
            {
                failed = true;
                return 0;
            }
            final int value = GiopMessage.readULong(m, offset, little);
            offset += 4;
            return value;
        }

        /** Skips a sequence of octets or a string: a ulong length, then that many bytes. */
        void skipOctets()
        {
            final long n = readULong() & 0xFFFF_FFFFL;
            if (failed || offset + n > length)
            {
                failed = true;
                return;
            }
            offset += (int)n;
        }
    }
}
