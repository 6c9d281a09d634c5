package org.lightwire.etf.giop;

import java.nio.ByteBuffer;

/**
 * Reads the few fields of a GIOP message (CORBA 3, chapter 15) that the transport needs to decide
 * how to carry it: the 12-byte header, and the request id and response flags of a Request. Works
 * on whole messages in byte arrays, never throws for malformed input (a field that cannot be read
 * is reported as {@link #UNKNOWN}), and copies nothing.
 *
 * <pre>
 *  0       4       5       6       7       8               12
 * +-------+-------+-------+-------+-------+---------------+
 * | "GIOP"| major | minor | flags | type  | body size     |
 * +-------+-------+-------+-------+-------+---------------+
 * flags: bit 0 byte order (1 = little-endian; GIOP 1.0 has a boolean here),
 *        bit 1 more fragments follow (GIOP 1.1 and 1.2)
 * body size: ulong in the message's byte order, header excluded
 * </pre>
 *
 * Request header, GIOP 1.0 and 1.1: service context list, request id, response_expected boolean.
 * GIOP 1.2: request id, response_flags octet (bit 0 set: a reply is expected).
 */
public final class GiopMessage
{
    public static final int HEADER_LENGTH = 12;
    /**
     * The start of a GIOP 1.2 Request that holds every field read without parsing further: the
     * header, request_id, response_flags and reserved.
     */
    public static final int REQUEST_1_2_FIXED_LENGTH = 24;
    public static final int UNKNOWN = -1;

    public static final int REQUEST = 0;
    public static final int REPLY = 1;
    public static final int CANCEL_REQUEST = 2;
    public static final int LOCATE_REQUEST = 3;
    public static final int LOCATE_REPLY = 4;
    public static final int CLOSE_CONNECTION = 5;
    public static final int MESSAGE_ERROR = 6;
    public static final int FRAGMENT = 7;

    private static final int MAJOR_OFFSET = 4;
    private static final int MINOR_OFFSET = 5;
    private static final int FLAGS_OFFSET = 6;
    private static final int TYPE_OFFSET = 7;
    private static final int SIZE_OFFSET = 8;
    private static final int FLAG_LITTLE_ENDIAN = 0x01;
    private static final int FLAG_MORE_FRAGMENTS = 0x02;

    private GiopMessage()
    {
    }

    /** @return true when the first {@code length} bytes hold a GIOP 1.x header. */
    public static boolean isGiop(final byte[] m, final int length)
    {
        return length >= HEADER_LENGTH && m[0] == 'G' && m[1] == 'I' && m[2] == 'O' && m[3] == 'P' &&
            m[MAJOR_OFFSET] == 1 && m[MINOR_OFFSET] >= 0 && m[MINOR_OFFSET] <= 2;
    }

    public static int minor(final byte[] m)
    {
        return m[MINOR_OFFSET];
    }

    public static int type(final byte[] m)
    {
        return m[TYPE_OFFSET] & 0xFF;
    }

    public static boolean littleEndian(final byte[] m)
    {
        return (m[FLAGS_OFFSET] & FLAG_LITTLE_ENDIAN) != 0;
    }

    /** @return true for a GIOP 1.1 or 1.2 message whose "more fragments follow" bit is set. */
    public static boolean moreFragments(final byte[] m)
    {
        return minor(m) >= 1 && (m[FLAGS_OFFSET] & FLAG_MORE_FRAGMENTS) != 0;
    }

    /** Clears the "more fragments follow" bit in place. */
    static void clearMoreFragments(final byte[] m)
    {
        m[FLAGS_OFFSET] = (byte)(m[FLAGS_OFFSET] & ~FLAG_MORE_FRAGMENTS);
    }

    /** @return the body size the header announces (header excluded). */
    public static int bodySize(final byte[] m)
    {
        return readULong(m, SIZE_OFFSET, littleEndian(m));
    }

    public static void setBodySize(final byte[] m, final int size)
    {
        writeULong(m, SIZE_OFFSET, size, littleEndian(m));
    }

    /** @return the name of a message type, for messages and logs. */
    public static String typeName(final int type)
    {
        switch (type)
        {
            case REQUEST: return "Request";
            case REPLY: return "Reply";
            case CANCEL_REQUEST: return "CancelRequest";
            case LOCATE_REQUEST: return "LocateRequest";
            case LOCATE_REPLY: return "LocateReply";
            case CLOSE_CONNECTION: return "CloseConnection";
            case MESSAGE_ERROR: return "MessageError";
            case FRAGMENT: return "Fragment";
            default: return "type " + type;
        }
    }

    /**
     * @return the request id of a Request, Reply, CancelRequest, LocateRequest, LocateReply or
     *         (GIOP 1.2) Fragment, or {@link #UNKNOWN} if the message has none or is too short.
     *         A request id is an unsigned long; ids above 2^31 come back negative but distinct
     *         from {@link #UNKNOWN} except for 0xFFFFFFFF.
     */
    public static long requestId(final byte[] m, final int length)
    {
        final int offset = requestIdOffset(m, length);
        return offset < 0 ? UNKNOWN : readULong(m, offset, littleEndian(m)) & 0xFFFF_FFFFL;
    }

    /**
     * @return where the request id of a Request, Reply, CancelRequest, LocateRequest, LocateReply
     *         or (GIOP 1.2) Fragment starts, or -1 if the message has none or is too short.
     */
    public static int requestIdOffset(final byte[] m, final int length)
    {
        final int type = type(m);
        final boolean little = littleEndian(m);
        final int minor = minor(m);
        final int offset;
        if (type == CANCEL_REQUEST || type == LOCATE_REQUEST || type == LOCATE_REPLY || minor == 2 && (type == REQUEST || type == REPLY || type == FRAGMENT))
        {
            offset = HEADER_LENGTH;
        }
        else if (type == REQUEST || type == REPLY)
        {
            offset = skipServiceContexts(m, length, HEADER_LENGTH, little);
        }
        else
        {
            return -1;
        }
        return offset < 0 || offset + 4 > length ? -1 : offset;
    }

    /**
     * Rewrites the request id in place, in the message's byte order.
     *
     * @return false when the message has no request id ({@link #requestIdOffset} is -1).
     */
    public static boolean setRequestId(final byte[] m, final int length, final long requestId)
    {
        final int offset = requestIdOffset(m, length);
        if (offset < 0)
        {
            return false;
        }
        writeULong(m, offset, (int)requestId, littleEndian(m));
        return true;
    }

    /**
     * @return 1 when a Request asks for a reply, 0 when it does not (a oneway with SYNC_NONE or
     *         SYNC_WITH_TRANSPORT), {@link #UNKNOWN} for a message too short to tell.
     */
    public static int responseExpected(final byte[] m, final int length)
    {
        final int offset;
        if (minor(m) == 2)
        {
            offset = HEADER_LENGTH + 4;
        }
        else
        {
            final int idOffset = skipServiceContexts(m, length, HEADER_LENGTH, littleEndian(m));
            offset = idOffset < 0 ? -1 : idOffset + 4;
        }
        if (offset < 0 || offset >= length)
        {
            return UNKNOWN;
        }
        // 1.2: response_flags bit 0; 1.0/1.1: a boolean, 0 or 1.
        return (m[offset] & 0x01) != 0 ? 1 : 0;
    }

    /**
     * @return true for a message whose receiver answers with a GIOP message: a Request that asks
     *         for a reply, or a LocateRequest. Every other message gets no GIOP answer.
     */
    public static boolean expectsGiopReply(final byte[] m, final int length)
    {
        if (!isGiop(m, length))
        {
            return false;
        }
        final int type = type(m);
        return type == LOCATE_REQUEST || type == REQUEST && responseExpected(m, length) != 0;
    }

    /** @return the offset after a service context list starting at {@code offset}, 4-aligned, or -1. */
    private static int skipServiceContexts(final byte[] m, final int length, final int start, final boolean little)
    {
        int offset = align(start, 4);
        if (offset + 4 > length)
        {
            return -1;
        }
        final long count = readULong(m, offset, little) & 0xFFFF_FFFFL;
        offset += 4;
        for (long i = 0; i < count; i++)
        {
            offset = align(offset, 4);
            if (offset + 8 > length)
            {
                return -1;
            }
            final long dataLength = readULong(m, offset + 4, little) & 0xFFFF_FFFFL;
            final long next = offset + 8L + dataLength;
            if (next > length)
            {
                return -1;
            }
            offset = (int)next;
        }
        return align(offset, 4);
    }

    /** @return {@code offset} rounded up to a multiple of {@code boundary} (CDR alignment, counted from the message start). */
    public static int align(final int offset, final int boundary)
    {
        final int rest = offset % boundary;
        return rest == 0 ? offset : offset + boundary - rest;
    }

    public static int readULong(final byte[] m, final int offset, final boolean little)
    {
        if (little)
        {
            return (m[offset] & 0xFF) | (m[offset + 1] & 0xFF) << 8 | (m[offset + 2] & 0xFF) << 16 | (m[offset + 3] & 0xFF) << 24;
        }
        return (m[offset] & 0xFF) << 24 | (m[offset + 1] & 0xFF) << 16 | (m[offset + 2] & 0xFF) << 8 | (m[offset + 3] & 0xFF);
    }

    public static void writeULong(final byte[] m, final int offset, final int value, final boolean little)
    {
        if (little)
        {
            m[offset] = (byte)value;
            m[offset + 1] = (byte)(value >>> 8);
            m[offset + 2] = (byte)(value >>> 16);
            m[offset + 3] = (byte)(value >>> 24);
        }
        else
        {
            m[offset] = (byte)(value >>> 24);
            m[offset + 1] = (byte)(value >>> 16);
            m[offset + 2] = (byte)(value >>> 8);
            m[offset + 3] = (byte)value;
        }
    }

    /** @return the ulong at absolute index {@code index} of {@code m}, in the given byte order; neither position nor limit moves. */
    public static int readULong(final ByteBuffer m, final int index, final boolean little)
    {
        final int b0 = m.get(index) & 0xFF;
        final int b1 = m.get(index + 1) & 0xFF;
        final int b2 = m.get(index + 2) & 0xFF;
        final int b3 = m.get(index + 3) & 0xFF;
        return little ? b0 | b1 << 8 | b2 << 16 | b3 << 24 : b0 << 24 | b1 << 16 | b2 << 8 | b3;
    }

    /** Writes a ulong at absolute index {@code index} of {@code m}, in the given byte order; neither position nor limit moves. */
    public static void writeULong(final ByteBuffer m, final int index, final int value, final boolean little)
    {
        if (little)
        {
            m.put(index, (byte)value).put(index + 1, (byte)(value >>> 8)).put(index + 2, (byte)(value >>> 16))
                .put(index + 3, (byte)(value >>> 24));
        }
        else
        {
            m.put(index, (byte)(value >>> 24)).put(index + 1, (byte)(value >>> 16)).put(index + 2, (byte)(value >>> 8))
                .put(index + 3, (byte)value);
        }
    }

    /** @return "Request 1.2 id 7, 120 bytes" and the like. */
    public static String describe(final byte[] m, final int length)
    {
        if (!isGiop(m, length))
        {
            return "not a GIOP message (" + length + " bytes)";
        }
        return typeName(type(m)) + " 1." + minor(m) + " id " + requestId(m, length) + ", " + length + " bytes";
    }
}
