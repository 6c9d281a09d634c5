package org.lightwire.romiop.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A piece of a GIOP request too large for one Request packet: the Request's payload is then this
 * 16-byte header and a piece of the message, instead of the whole message. Each piece is a
 * Request of its own to the group engine (its own packet id, held, ordered, acknowledged and
 * resent like any other), and a member puts the message together as the pieces are delivered in
 * the total order, so every member has the whole message at the same place in that order. Not in
 * the paper's Figure 3; its implementation has a FragmentedMessage class (section 5) that does the
 * same below the ordering.
 *
 * <pre>
 *  0               4               8               12              16
 * +---------------+---------------+---------------+---------------+----------------
 * | 'R' 'F' 'R' 'G' | message_id  | offset        | total_length  | message bytes ...
 * +---------------+---------------+---------------+---------------+----------------
 * message_id: the packet id of the message's first piece (offset 0), which names the message
 *             (replies answer it); 0 in the first piece itself
 * offset:     where these bytes go in the message
 * total_length: the whole message's length, the same in every piece
 * Fields big-endian. A GIOP message starts with "GIOP", so the magic tells the two apart.
 * </pre>
 */
public final class RequestFragment
{
    public static final int HEADER_LENGTH = 16;
    private static final byte[] MAGIC = {'R', 'F', 'R', 'G'};
    private static final int MESSAGE_ID_OFFSET = 4;
    private static final int OFFSET_OFFSET = 8;
    private static final int TOTAL_OFFSET = 12;

    private RequestFragment()
    {
    }

    /** @return true when {@code [offset, offset + length)} holds a fragment header (not a whole GIOP message). */
    public static boolean isFragment(final ByteBuffer b, final int offset, final int length)
    {
        return length >= HEADER_LENGTH && b.get(offset) == MAGIC[0] && b.get(offset + 1) == MAGIC[1] && b.get(offset + 2) == MAGIC[2] &&
            b.get(offset + 3) == MAGIC[3];
    }

    /** Writes the header at {@code at}. */
    public static void write(final byte[] to, final int at, final int messageId, final int offset, final int totalLength)
    {
        final ByteBuffer b = ByteBuffer.wrap(to);
        b.put(at, MAGIC[0]).put(at + 1, MAGIC[1]).put(at + 2, MAGIC[2]).put(at + 3, MAGIC[3]);
        Bytes.putI32(b, at + MESSAGE_ID_OFFSET, messageId, ByteOrder.BIG_ENDIAN);
        Bytes.putI32(b, at + OFFSET_OFFSET, offset, ByteOrder.BIG_ENDIAN);
        Bytes.putI32(b, at + TOTAL_OFFSET, totalLength, ByteOrder.BIG_ENDIAN);
    }

    public static int messageId(final ByteBuffer b, final int offset)
    {
        return Bytes.getI32(b, offset + MESSAGE_ID_OFFSET, ByteOrder.BIG_ENDIAN);
    }

    /** @return the piece's offset in the message, as an unsigned value. */
    public static long offset(final ByteBuffer b, final int offset)
    {
        return Bytes.getI32(b, offset + OFFSET_OFFSET, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL;
    }

    /** @return the whole message's length, as an unsigned value. */
    public static long totalLength(final ByteBuffer b, final int offset)
    {
        return Bytes.getI32(b, offset + TOTAL_OFFSET, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL;
    }
}
