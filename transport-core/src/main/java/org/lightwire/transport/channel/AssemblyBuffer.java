package org.lightwire.transport.channel;

import java.nio.ByteBuffer;

/**
 * A message assembled from the payloads an engine delivers: one growable buffer, reused from
 * call to call, so that a steady stream of calls allocates nothing. Growth is bounded by
 * {@code maxMessageBytes}; a larger message marks the buffer as overflowed instead of growing
 * without limit.
 *
 * <p><b>Receiving in place.</b> A buffer made with headroom can also be where the link reads the
 * next datagram ({@link #receiveWindow}): the datagram is put so that its payload starts where
 * the message ends, and a payload the engine then delivers from there is appended by moving the
 * message's end, with no copy. The link's framing and the engine's header land on the last bytes
 * of the message (or on the headroom, before its first byte); those bytes are saved first and
 * put back as soon as the payload is appended, or by {@link #restoreAfterReceive()} when the
 * datagram was anything else (a duplicate, a NACK, a packet of another call). This is the
 * receiving half of the paper's zero-copy fragmentation: a request of many packets is copied
 * once, by the kernel, into the place JacORB reads it from.
 *
 * <p><b>Memory.</b> Every byte of capacity beyond the headroom is charged to a
 * {@link RequestMemoryBudget} while the buffer holds it; growth the budget refuses marks the
 * buffer {@link #refused()} (the message cannot be put together) instead of allocating. A buffer
 * larger than {@link #RETAIN_BYTES} is given back when its message is done, and
 * {@link #trim()} gives back the rest when the connection has been quiet for a while.
 */
final class AssemblyBuffer
{
    /** Capacity a buffer keeps from message to message, so a steady stream allocates nothing. */
    static final int RETAIN_BYTES = 1024 * 1024;

    private final int maxMessageBytes;
    private final RequestMemoryBudget budget;
    private final boolean direct;
    /** Bytes of capacity beyond the headroom, charged to the budget. */
    private long charged;
    private boolean refused;
    /** Bytes before the message's first byte, room for a datagram's framing. */
    private final int headroom;
    /** The message is [headroom, position). */
    private ByteBuffer buffer;
    private boolean complete;
    private boolean overflowed;

    /** The view handed to the link by {@link #receiveWindow}; remade when the buffer grows. */
    private ByteBuffer window;
    /** The bytes the window's framing covers, and where they belong. */
    private final byte[] saved;
    private int savedAt;
    private int savedLength;

    private long bytesCopied;
    private long bytesInPlace;

    AssemblyBuffer(final int initialBytes, final int maxMessageBytes, final boolean direct)
    {
        this(initialBytes, maxMessageBytes, direct, 0, null);
    }

    /**
     * @param initialBytes capacity beyond the headroom allocated now (charged to the budget as
     *                     soon as the buffer grows or is trimmed; 0 allocates on first use).
     * @param headroom the longest framing (link prefix and engine header) a datagram read by
     *                 {@link #receiveWindow} has before its payload; 0 when it is never used.
     * @param budget where the capacity is charged; null for no limit.
     */
    AssemblyBuffer(final int initialBytes, final int maxMessageBytes, final boolean direct, final int headroom,
        final RequestMemoryBudget budget)
    {
        this.maxMessageBytes = maxMessageBytes;
        this.headroom = headroom;
        this.budget = budget;
        this.direct = direct;
        this.saved = new byte[headroom];
        if (initialBytes > 0 && budget != null && !budget.tryReserve(initialBytes))
        {
            refused = true;
        }
        final int initial = refused ? 0 : initialBytes;
        charged = budget == null ? 0 : initial;
        this.buffer = allocate(headroom + initial);
        buffer.position(headroom);
    }

    private ByteBuffer allocate(final int capacity)
    {
        return direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity);
    }

    /** Ends the message: the buffer is ready for the next one; a large one is given back. */
    void reset()
    {
        buffer.clear().position(headroom);
        complete = false;
        overflowed = false;
        refused = false;
        if (buffer.capacity() - headroom > RETAIN_BYTES)
        {
            trim();
        }
    }

    /**
     * Gives back every byte beyond the headroom, unless a message is being put together. A
     * message already handed on (see {@link #flipInPlace()}) stays readable: its bytes are freed
     * only when nothing refers to them.
     */
    void trim()
    {
        if (!isEmpty() || buffer.capacity() == headroom)
        {
            return;
        }
        restoreAfterReceive();
        buffer = allocate(headroom);
        buffer.position(headroom);
        window = null;
        releaseCharge();
    }

    /** Gives back the budget's share; for a connection that is closing. */
    void release()
    {
        releaseCharge();
    }

    private void releaseCharge()
    {
        if (budget != null && charged > 0)
        {
            budget.release(charged);
        }
        charged = 0;
    }

    void append(final ByteBuffer payload, final boolean endOfMessage)
    {
        if (payload == window)
        {
            appendFromWindow(payload, endOfMessage);
            return;
        }
        final int n = payload.remaining();
        if (!overflowed && !refused)
        {
            if (length() + n > maxMessageBytes)
            {
                overflowed = true;
            }
            else if (buffer.remaining() >= n || grow(buffer.position() + n))
            {
                buffer.put(payload);
                bytesCopied += n;
            }
        }
        if (endOfMessage)
        {
            complete = true;
        }
    }

    private void appendFromWindow(final ByteBuffer payload, final boolean endOfMessage)
    {
        // The framing is read; the message's bytes under it go back before anyone reads them.
        restoreAfterReceive();
        final int n = payload.remaining();
        final int at = payload.position();
        if (!overflowed && !refused)
        {
            if (length() + n > maxMessageBytes)
            {
                overflowed = true;
            }
            else if (at == buffer.position())
            {
                // In place: the kernel put the payload where the message goes on.
                buffer.position(at + n);
                bytesInPlace += n;
            }
            else
            {
                // The message was reset while the datagram was read (a one-way aborted by the
                // next call's first packet): the payload moves to the start. The regions may
                // overlap, so it goes through an array; this happens once per aborted call.
                final byte[] bytes = new byte[n];
                payload.get(at, bytes);
                if (buffer.remaining() >= n || grow(buffer.position() + n))
                {
                    buffer.put(bytes);
                    bytesCopied += n;
                }
            }
        }
        payload.position(payload.limit());
        if (endOfMessage)
        {
            complete = true;
        }
    }

    /**
     * Where the link should read the next datagram: a view of this buffer whose position is
     * {@code payloadOffset} bytes before the message's end and which has room for
     * {@code datagramBytes}. The bytes the datagram will cover are saved; the caller must call
     * {@link #restoreAfterReceive()} once the datagram has been handled (an append from the
     * window does it sooner). Grows the buffer when the room is short, so it holds at most the
     * headroom, {@code maxMessageBytes} and one datagram.
     *
     * @return the window, or null when the budget refused the room: read the datagram elsewhere.
     */
    ByteBuffer receiveWindow(final int datagramBytes, final int payloadOffset)
    {
        if (payloadOffset > headroom)
        {
            throw new IllegalArgumentException("a datagram's payload at offset " + payloadOffset + " needs more than the headroom of " + headroom);
        }
        restoreAfterReceive();
        final int at = buffer.position() - payloadOffset;
        if (at + datagramBytes > buffer.capacity() && !grow(at + datagramBytes))
        {
            return null;
        }
        if (window == null)
        {
            window = buffer.duplicate();
        }
        savedAt = at;
        savedLength = payloadOffset;
        buffer.get(at, saved, 0, payloadOffset);
        window.limit(at + datagramBytes).position(at);
        return window;
    }

    /** @return true when {@link #receiveWindow} would find the room without growing the buffer. */
    boolean hasRoomFor(final int datagramBytes, final int payloadOffset)
    {
        return buffer.position() - payloadOffset + datagramBytes <= buffer.capacity();
    }

    /** Puts back the bytes the last {@link #receiveWindow} covered, if not yet done. */
    void restoreAfterReceive()
    {
        if (savedLength > 0)
        {
            buffer.put(savedAt, saved, 0, savedLength);
            savedLength = 0;
        }
    }

    private int length()
    {
        return buffer.position() - headroom;
    }

    /** @return false when the budget refused the room (the buffer is then {@link #refused()}). */
    private boolean grow(final int needed)
    {
        restoreAfterReceive();
        final long doubled = Math.min(headroom + (long)maxMessageBytes, buffer.capacity() * 2L);
        final int capacity = (int)Math.max(needed, doubled);
        if (budget != null)
        {
            final long more = capacity - headroom - charged;
            if (!budget.tryReserve(more))
            {
                refused = true;
                return false;
            }
            charged += more;
        }
        final ByteBuffer bigger = allocate(capacity);
        final int position = buffer.position();
        buffer.flip();
        bigger.put(buffer);
        bigger.position(position);
        buffer = bigger;
        window = null;
        return true;
    }

    /** @return true when nothing was appended since the last {@link #reset()}. */
    boolean isEmpty()
    {
        return buffer.position() == headroom && !complete && !overflowed && !refused;
    }

    /** @return true when the budget refused room for the message being put together. */
    boolean refused()
    {
        return refused;
    }

    /** @return bytes of capacity charged to the budget now. */
    long chargedBytes()
    {
        return charged;
    }

    boolean isComplete()
    {
        return complete;
    }

    boolean overflowed()
    {
        return overflowed;
    }

    /** @return payload bytes appended by copying them. */
    long bytesCopied()
    {
        return bytesCopied;
    }

    /** @return payload bytes appended where the link had read them ({@link #receiveWindow}). */
    long bytesInPlace()
    {
        return bytesInPlace;
    }

    int maxMessageBytes()
    {
        return maxMessageBytes;
    }

    /**
     * @return the message: the buffer itself, its position at the message's first byte and its
     *     limit after the last; valid until {@link #reset()}, which must come before reuse.
     */
    ByteBuffer flipInPlace()
    {
        buffer.limit(buffer.position()).position(headroom);
        return buffer;
    }
}
