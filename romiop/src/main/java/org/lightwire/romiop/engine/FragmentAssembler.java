package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.lightwire.romiop.protocol.RequestFragment;

/**
 * Puts fragmented requests ({@link RequestFragment}) together on a member, fed with the pieces in
 * the order the group delivers them; a message is whole, and handed on, at the delivery of the
 * piece that completes it, which is the same place in the total order on every member. One
 * thread (the member's driver); no I/O, no clock.
 *
 * <p>Memory is bounded: a message longer than {@code maxMessageBytes} is refused at its first
 * piece (and its other pieces after it), and when the messages under way would hold more than
 * {@code maxPartialBytes}, the oldest are dropped. Either way the drop is counted, and a piece
 * that does not fit its message (outside it, another total length, an offset seen before) is
 * dropped and counted; nothing throws.
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
        final Set<Long> offsets = new HashSet<>();
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
     * @param packetId the piece's own packet id.
     * @param payload  the Request's payload, {@code [offset, offset + length)}, a {@link RequestFragment}.
     * @return the whole message when this piece completes it, else null.
     */
    public Message offer(final int senderId, final int packetId, final ByteBuffer payload, final int offset, final int length)
    {
        fragments++;
        if (!RequestFragment.isFragment(payload, offset, length))
        {
            invalid++;
            return null;
        }
        final int header = RequestFragment.messageId(payload, offset);
        final int messageId = header == 0 ? packetId : header;
        final long key = ((long)senderId << 32) | (messageId & 0xFFFF_FFFFL);
        final long at = RequestFragment.offset(payload, offset);
        final long total = RequestFragment.totalLength(payload, offset);
        final int pieceLength = length - RequestFragment.HEADER_LENGTH;
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
        if (total == 0 || at + pieceLength > total || (header == 0) != (at == 0))
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
        if (!p.offsets.add(at))
        {
            invalid++;
            return null;
        }
        payload.get(offset + RequestFragment.HEADER_LENGTH, p.bytes, (int)at, pieceLength);
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

    @Override
    public String toString()
    {
        return "fragments=" + fragments + ", fragmentedRequests=" + messages + ", invalidFragments=" + invalid + ", fragmentsTooLong=" + tooLong +
            ", partialRequestsEvicted=" + evicted + ", partialRequests=" + partials.size();
    }
}
