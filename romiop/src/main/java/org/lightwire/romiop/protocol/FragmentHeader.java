package org.lightwire.romiop.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The 16-byte header of a piece of a message too large for one packet: a Request's or a Reply's
 * payload is then this header and a piece of the message, instead of the whole message. Not in
 * the paper's Figure 3; its implementation has a FragmentedMessage class (section 5) that does the
 * same below the ordering.
 *
 * <p>Requests: each piece is a Request of its own to the group engine (its own packet id, held,
 * ordered, acknowledged and resent like any other), and a member puts the message together as the
 * pieces are delivered in the total order, so every member has the whole message at the same
 * place in that order. The magic tells a piece from a whole GIOP message, which starts with "GIOP".
 *
 * <p>Replies: each piece is a Reply of its own (its own packet id, kept and resent until ACKed),
 * marked by flags bit 3 ({@link PacketHeader_1_0#FLAG_PIECE}); the client puts each member's reply
 * together before it consolidates the replies.
 *
 * <pre>
 *  0               4               8               12              16
 * +---------------+---------------+---------------+---------------+----------------
 * | 'R' 'F' 'R' 'G' | message_id  | offset        | total_length  | message bytes ...
 * +---------------+---------------+---------------+---------------+----------------
 * message_id: in a request piece, the packet id of the message's first piece (offset 0), which
 *             names the message (replies answer it); 0 in the first piece itself.
 *             In a reply piece, the request_packet_id of the Reply (the call it answers).
 * offset:     where these bytes go in the message
 * total_length: the whole message's length, the same in every piece
 * Fields big-endian.
 * </pre>
 */
public final class FragmentHeader
{
    public static final int HEADER_LENGTH = 16;
    private static final byte[] MAGIC = {'R', 'F', 'R', 'G'};
    private static final int MESSAGE_ID_OFFSET = 4;
    private static final int OFFSET_OFFSET = 8;
    private static final int TOTAL_OFFSET = 12;

    private FragmentHeader()
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
