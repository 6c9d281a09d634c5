package org.lightwire.transport.channel;

import java.nio.ByteBuffer;

/**
 * A message assembled from the payloads an engine delivers: one growable buffer, reused from
 * call to call, so that a steady stream of calls allocates nothing. Growth is bounded by
 * {@code maxMessageBytes}; a larger message marks the buffer as overflowed instead of growing
 * without limit.
 */
final class ReplyBuffer
{
    private final int maxMessageBytes;
    private ByteBuffer buffer;
    private boolean complete;
    private boolean overflowed;

    ReplyBuffer(final int initialBytes, final int maxMessageBytes, final boolean direct)
    {
        this.maxMessageBytes = maxMessageBytes;
        this.buffer = direct ? ByteBuffer.allocateDirect(initialBytes) : ByteBuffer.allocate(initialBytes);
    }

    void reset()
    {
        buffer.clear();
        complete = false;
        overflowed = false;
    }

    void append(final ByteBuffer payload, final boolean endOfMessage)
    {
        final int n = payload.remaining();
        if (!overflowed)
        {
            if (buffer.position() + n > maxMessageBytes)
            {
                overflowed = true;
            }
            else
            {
                if (buffer.remaining() < n)
                {
                    grow(buffer.position() + n);
                }
                buffer.put(payload);
            }
        }
        if (endOfMessage)
        {
            complete = true;
        }
    }

    private void grow(final int needed)
    {
        final int capacity = (int)Math.min(maxMessageBytes, Math.max((long)needed, buffer.capacity() * 2L));
        final ByteBuffer bigger = buffer.isDirect() ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity);
        buffer.flip();
        bigger.put(buffer);
        buffer = bigger;
    }

    /** @return true when nothing was appended since the last {@link #reset()}. */
    boolean isEmpty()
    {
        return buffer.position() == 0 && !complete && !overflowed;
    }

    boolean isComplete()
    {
        return complete;
    }

    boolean overflowed()
    {
        return overflowed;
    }

    int maxMessageBytes()
    {
        return maxMessageBytes;
    }

    /** @return the message, from position 0 to its length; valid until the next {@link #reset()}. */
    ByteBuffer message()
    {
        final ByteBuffer view = buffer.duplicate();
        view.flip();
        return view;
    }

    /** Same as {@link #message()} without allocating: flips the buffer itself; call reset() before reuse. */
    ByteBuffer flipInPlace()
    {
        buffer.flip();
        return buffer;
    }
}
