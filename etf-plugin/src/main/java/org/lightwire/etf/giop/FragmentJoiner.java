package org.lightwire.etf.giop;

import java.io.ByteArrayOutputStream;
import java.util.HashMap;
import java.util.Map;

/**
 * Joins a fragmented GIOP message back into one at the sender, so that every Lightwire transport
 * call carries one whole, unfragmented message and the receiver never sees a Fragment. The
 * transport fragments far better itself (section 4 of the paper), and one message per call is
 * what lets a reply be matched to its call.
 *
 * <p>A Request, Reply, LocateRequest or LocateReply with "more fragments follow" set opens a
 * collection; each Fragment appends its body (GIOP 1.2: after its 4-byte request id, GIOP 1.1:
 * all of it), and the one without the bit closes it: the first message's header with the bit
 * cleared and the summed size, then every body in order. GIOP 1.2 may interleave the fragments of
 * several requests; they are kept apart by request id. A Fragment that continues nothing is
 * passed on as it is: the receiving ORB reports it as IIOP would. Not thread-safe: one per
 * connection, used under its write lock.
 */
public final class FragmentJoiner
{
    private static final long GIOP_1_1_KEY = -2;

    private final Map<Long, ByteArrayOutputStream> open = new HashMap<>();
    private long joined;

    /**
     * @param message one message as the ORB flushed it.
     * @return the message to send (this one, or a joined one), or null while a fragmented message
     *         is still incomplete.
     */
    public byte[] offer(final byte[] message)
    {
        final int length = message.length;
        if (!GiopMessage.isGiop(message, length))
        {
            return message;
        }
        final int minor = GiopMessage.minor(message);
        final int type = GiopMessage.type(message);
        if (type == GiopMessage.FRAGMENT)
        {
            final long key = minor == 2 ? GiopMessage.requestId(message, length) : GIOP_1_1_KEY;
            final ByteArrayOutputStream collected = open.get(key);
            if (collected == null)
            {
                return message;
            }
            final int skip = GiopMessage.HEADER_LENGTH + (minor == 2 ? 4 : 0);
            collected.write(message, skip, Math.max(0, length - skip));
            if (GiopMessage.moreFragments(message))
            {
                return null;
            }
            open.remove(key);
            final byte[] whole = collected.toByteArray();
            GiopMessage.clearMoreFragments(whole);
            GiopMessage.setBodySize(whole, whole.length - GiopMessage.HEADER_LENGTH);
            joined++;
            return whole;
        }
        if (!GiopMessage.moreFragments(message))
        {
            return message;
        }
        final long key = minor == 2 ? GiopMessage.requestId(message, length) : GIOP_1_1_KEY;
        final ByteArrayOutputStream collected = new ByteArrayOutputStream(Math.max(64, length * 2));
        collected.write(message, 0, length);
        open.put(key, collected);
        return null;
    }

    /** @return messages joined from fragments so far. */
    public long joined()
    {
        return joined;
    }

    /** Forgets every incomplete message (the connection was closed). */
    public void clear()
    {
        open.clear();
    }
}
