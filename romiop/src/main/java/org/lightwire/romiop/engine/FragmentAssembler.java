package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import org.lightwire.romiop.protocol.FragmentHeader;

/**
 * Puts messages sent in pieces ({@link FragmentHeader}) together, in any order of their pieces. On
 * a member, requests ({@link #offer}): fed with the pieces in the order the group delivers them, a
 * request is whole, and handed on, at the delivery of the piece that completes it, which is the
 * same place in the total order on every member. On a client, each member's reply
 * ({@link #offerNamed}). One thread (the engine's driver); no I/O, no clock.
 *
 * <p>Memory is bounded: a message longer than {@code maxMessageBytes} is refused at its first
 * piece (and its other pieces after it), and when the messages under way would hold more than
 * {@code maxPartialBytes}, the oldest are dropped. Either way the drop is counted. A piece that
 * does not fit its message (outside it, another total length, overlapping another piece) is
 * dropped and counted as invalid, one seen before as a duplicate; nothing throws.
 */
public final class FragmentAssembler
{
    /** A message put together: its bytes, and the packet id of its first piece, which names it. */
    public record Message(int senderId, int messageId, byte[] bytes)
    {
    }

    private static final class Partial
    {
        final byte[] bytes;
        /** Pieces received: offset to length. */
        final TreeMap<Long, Integer> pieces = new TreeMap<>();
        long received;

        Partial(final int length)
        {
            bytes = new byte[length];
        }
    }

    /** Messages refused as too long that are remembered, so their later pieces are refused too. */
    private static final int REFUSED_REMEMBERED = 1024;

    private final int maxMessageBytes;
    private final long maxPartialBytes;
    /** Messages under way, oldest first, by (sender id, message id). */
    private final LinkedHashMap<Long, Partial> partials = new LinkedHashMap<>();
    /** Messages refused as too long: their later pieces are dropped too (bounded like partials). */
    private final LinkedHashMap<Long, Boolean> refused = new LinkedHashMap<>();
    private long partialBytes;
    private long fragments;
    private long messages;
    private long invalid;
    private long duplicates;
    private long tooLong;
    private long evicted;

    /**
     * @param maxMessageBytes largest message put together.
     * @param maxPartialBytes most bytes held by messages under way (at least {@code maxMessageBytes}).
     */
    public FragmentAssembler(final int maxMessageBytes, final long maxPartialBytes)
    {
        if (maxMessageBytes < 1 || maxPartialBytes < maxMessageBytes)
        {
            throw new IllegalArgumentException("maxMessageBytes " + maxMessageBytes + " must be 1 or more and maxPartialBytes " +
                maxPartialBytes + " at least as many");
        }
        this.maxMessageBytes = maxMessageBytes;
        this.maxPartialBytes = maxPartialBytes;
    }

    /**
     * A piece of a request: its header names the message by the packet id of its first piece, 0 in
     * the first piece itself.
     *
     * @param packetId the piece's own packet id.
     * @param payload  the Request's payload, {@code [offset, offset + length)}, a {@link FragmentHeader}.
     * @return the whole message when this piece completes it, else null.
     */
    public Message offer(final int senderId, final int packetId, final ByteBuffer payload, final int offset, final int length)
    {
        fragments++;
        if (!FragmentHeader.isFragment(payload, offset, length))
        {
            invalid++;
            return null;
        }
        final int header = FragmentHeader.messageId(payload, offset);
        final boolean named = (header == 0) == (FragmentHeader.offset(payload, offset) == 0);
        return add(senderId, header == 0 ? packetId : header, named, payload, offset, length);
    }

    /**
     * A piece whose header names its message itself (a reply piece: by the request it answers).
     *
     * @param messageId the message's name, which the piece's header must repeat.
     * @param payload   {@code [offset, offset + length)}, a {@link FragmentHeader} and the piece.
     * @return the whole message when this piece completes it, else null.
     */
    public Message offerNamed(final int senderId, final int messageId, final ByteBuffer payload, final int offset, final int length)
    {
        fragments++;
        if (!FragmentHeader.isFragment(payload, offset, length))
        {
            invalid++;
            return null;
        }
        return add(senderId, messageId, FragmentHeader.messageId(payload, offset) == messageId, payload, offset, length);
    }

    private Message add(final int senderId, final int messageId, final boolean named, final ByteBuffer payload, final int offset,
        final int length)
    {
        final long key = key(senderId, messageId);
        final long at = FragmentHeader.offset(payload, offset);
        final long total = FragmentHeader.totalLength(payload, offset);
        final int pieceLength = length - FragmentHeader.HEADER_LENGTH;
        if (refused.containsKey(key))
        {
            tooLong++;
            return null;
        }
        if (total > maxMessageBytes)
        {
            tooLong++;
            refused.put(key, Boolean.TRUE);
            if (refused.size() > REFUSED_REMEMBERED)
            {
                final Iterator<Long> oldest = refused.keySet().iterator();
                oldest.next();
                oldest.remove();
            }
            return null;
        }
        if (total == 0 || at + pieceLength > total || !named)
        {
            invalid++;
            return null;
        }
        Partial p = partials.get(key);
        if (p == null)
        {
            makeRoom(total);
            p = new Partial((int)total);
            partials.put(key, p);
            partialBytes += total;
        }
        else if (p.bytes.length != total)
        {
            invalid++;
            return null;
        }
        final Integer same = p.pieces.get(at);
        if (same != null && same == pieceLength)
        {
            duplicates++;
            return null;
        }
        final Map.Entry<Long, Integer> before = p.pieces.floorEntry(at);
        final Map.Entry<Long, Integer> after = p.pieces.ceilingEntry(at);
        if ((before != null && before.getKey() + before.getValue() > at) || (after != null && after.getKey() < at + pieceLength) ||
            pieceLength == 0)
        {
            invalid++;
            return null;
        }
        p.pieces.put(at, pieceLength);
        payload.get(offset + FragmentHeader.HEADER_LENGTH, p.bytes, (int)at, pieceLength);
        p.received += pieceLength;
        if (p.received < total)
        {
            return null;
        }
        partials.remove(key);
        partialBytes -= total;
        messages++;
        return new Message(senderId, messageId, p.bytes);
    }

    /** Forgets a message under way (its caller no longer wants it); nothing when there is none. */
    public void discard(final int senderId, final int messageId)
    {
        final Partial p = partials.remove(key(senderId, messageId));
        if (p != null)
        {
            partialBytes -= p.bytes.length;
        }
    }

    private static long key(final int senderId, final int messageId)
    {
        return ((long)senderId << 32) | (messageId & 0xFFFF_FFFFL);
    }

    /** Drops the oldest messages under way until {@code more} bytes fit. */
    private void makeRoom(final long more)
    {
        for (final Iterator<Map.Entry<Long, Partial>> it = partials.entrySet().iterator(); partialBytes + more > maxPartialBytes && it.hasNext(); )
        {
            partialBytes -= it.next().getValue().bytes.length;
            it.remove();
            evicted++;
        }
    }

    /** @return pieces offered. */
    public long fragments()
    {
        return fragments;
    }

    /** @return messages put together. */
    public long messages()
    {
        return messages;
    }

    /** @return pieces dropped as malformed or not fitting their message. */
    public long invalid()
    {
        return invalid;
    }

    /** @return pieces dropped because the same piece came before. */
    public long duplicates()
    {
        return duplicates;
    }

    /** @return pieces dropped because their message is longer than the maximum. */
    public long tooLong()
    {
        return tooLong;
    }

    /** @return messages under way dropped to make room for newer ones. */
    public long evicted()
    {
        return evicted;
    }

    /** @return messages under way now. */
    public int partials()
    {
        return partials.size();
    }

    /** @return bytes held by messages under way now. */
    public long partialBytes()
    {
        return partialBytes;
    }

    /** @return the counters, named with {@code messages} ("Requests", "Replies"), for logs and test failures. */
    public String counters(final String messages)
    {
        return "fragments=" + fragments + ", fragmented" + messages + "=" + this.messages + ", invalidFragments=" + invalid +
            ", duplicateFragments=" + duplicates + ", fragmentsTooLong=" + tooLong + ", partial" + messages + "Evicted=" + evicted + ", partial" +
            messages + "=" + partials.size();
    }

    @Override
    public String toString()
    {
        return counters("Messages");
    }
}
