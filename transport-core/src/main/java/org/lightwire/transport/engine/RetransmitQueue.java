package org.lightwire.transport.engine;

import java.nio.ByteBuffer;

/**
 * The packets of the message being sent that the peer has not yet acknowledged, held for
 * retransmission without copying: each entry names a slice of the caller's buffer (paper,
 * sections 2.1 and 4.3). Its capacity is the connection's buffer pool: a sender that has filled
 * it must reclaim before it sends more.
 *
 * <p>Entries hold consecutive packet numbers starting at {@link #firstSeq()}. A caller's
 * buffer is released when the entry holding its last slice is acknowledged.
 */
final class RetransmitQueue
{
    private final ByteBuffer[] buffers;
    private final int[] offsets;
    private final int[] lengths;
    private final boolean[] complete;
    private final boolean[] fragmented;
    private final int capacity;
    private int head;
    private int count;
    private int firstSeq;

    RetransmitQueue(final int capacity)
    {
        this.capacity = capacity;
        buffers = new ByteBuffer[capacity];
        offsets = new int[capacity];
        lengths = new int[capacity];
        complete = new boolean[capacity];
        fragmented = new boolean[capacity];
    }

    int size()
    {
        return count;
    }

    int free()
    {
        return capacity - count;
    }

    boolean isEmpty()
    {
        return count == 0;
    }

    /** @return the packet sequence number of the oldest entry (or of the next one added, when empty). */
    int firstSeq()
    {
        return firstSeq;
    }

    /** @return the packet sequence number after the newest entry. */
    int endSeq()
    {
        return firstSeq + count;
    }

    /** Starts a new message: the next entry added has packet sequence 0. The queue must be empty. */
    void resetSequence()
    {
        assert count == 0;
        firstSeq = 0;
    }

    void add(final ByteBuffer buffer, final int offset, final int length, final boolean isComplete, final boolean isFragmented)
    {
        if (count == capacity)
        {
            throw new IllegalStateException("retransmit queue full: " + capacity + " packets");
        }
        final int index = (head + count) % capacity;
        buffers[index] = buffer;
        offsets[index] = offset;
        lengths[index] = length;
        complete[index] = isComplete;
        fragmented[index] = isFragmented;
        count++;
    }

    /**
     * Drops every entry before {@code seq} (cumulative acknowledgement).
     *
     * @return the number of entries acknowledged; 0 when {@code seq} is not within the queue.
     */
    int acknowledgeBefore(final int seq, final BufferReleaser releaser)
    {
        final long n = (long)seq - firstSeq;
        if (n <= 0 || n > count)
        {
            return 0;
        }
        for (int i = 0; i < n; i++)
        {
            releaseHead(releaser);
        }
        return (int)n;
    }

    /** Drops every entry: the whole message was acknowledged, or the connection died. */
    void acknowledgeAll(final BufferReleaser releaser)
    {
        while (count > 0)
        {
            releaseHead(releaser);
        }
    }

    private void releaseHead(final BufferReleaser releaser)
    {
        final ByteBuffer buffer = buffers[head];
        final boolean lastSliceOfBuffer = !fragmented[head];
        buffers[head] = null;
        head = (head + 1) % capacity;
        count--;
        firstSeq++;
        if (lastSliceOfBuffer)
        {
            releaser.release(buffer);
        }
    }

    /** @return true when {@code seq} names an entry held in the queue. */
    boolean contains(final int seq)
    {
        final long n = (long)seq - firstSeq;
        return n >= 0 && n < count;
    }

    /** @return the index within the queue (0 is the oldest) of {@code seq}, which must be held. */
    int indexOf(final int seq)
    {
        return seq - firstSeq;
    }

    /** Points {@code view} at the payload of the i-th oldest entry: the buffer itself, repositioned. */
    ByteBuffer payload(final int i)
    {
        final int index = (head + i) % capacity;
        final ByteBuffer buffer = buffers[index];
        buffer.limit(offsets[index] + lengths[index]).position(offsets[index]);
        return buffer;
    }

    int length(final int i)
    {
        return lengths[(head + i) % capacity];
    }

    boolean isComplete(final int i)
    {
        return complete[(head + i) % capacity];
    }

    boolean isFragmented(final int i)
    {
        return fragmented[(head + i) % capacity];
    }

    int seqAt(final int i)
    {
        return firstSeq + i;
    }
}
