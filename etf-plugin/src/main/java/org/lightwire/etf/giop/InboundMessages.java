package org.lightwire.etf.giop;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The whole GIOP messages that arrived for one ETF connection, presented to the ORB's single
 * reader as the byte stream it expects: JacORB reads the 12-byte header and then the body, each
 * with {@code min_length == max_length}, so the rest of a message is kept between reads.
 *
 * <p>Producers (the transport's threads) {@link #offer} messages tagged with the generation of
 * the connection they belong to: after a close and a reconnect, a late reply of the old
 * connection is dropped instead of being presented to the new one. {@link #close} wakes the
 * reader, which then fails with the exception the closer supplied.
 */
public final class InboundMessages
{
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    /** Signalled each time the reader takes a message off the queue. */
    private final Condition taken = lock.newCondition();
    /** Each message from its position to its limit; read with absolute gets, so neither moves. */
    private final ArrayDeque<ByteBuffer> queue = new ArrayDeque<>();
    private ByteBuffer current;
    private int position;
    private long generation;
    private boolean closed = true;
    private Supplier<? extends RuntimeException> failure = () -> new IllegalStateException("not open");
    private long dropped;

    /**
     * Opens (or reopens) the stream, forgetting anything left from before.
     *
     * @return the generation that producers pass to {@link #offer}.
     */
    public long open()
    {
        lock.lock();
        try
        {
            queue.clear();
            current = null;
            generation++;
            closed = false;
            return generation;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Appends one whole message.
     *
     * @return false when it was dropped: the stream is closed or belongs to another generation.
     */
    public boolean offer(final long ofGeneration, final byte[] message)
    {
        return enqueue(ofGeneration, ByteBuffer.wrap(message));
    }

    /**
     * Appends one whole message, the bytes of {@code message} from its position to its limit,
     * without copying them: the caller keeps them unchanged until the reader has read them. The
     * buffer may be direct (a request left where the transport received it); neither its position
     * nor its limit is changed.
     *
     * @return false when it was dropped: the stream is closed or belongs to another generation.
     */
    public boolean offer(final long ofGeneration, final ByteBuffer message)
    {
        // A view of its own: the caller may move the buffer's position and limit afterwards
        // (a transport's assembly buffer is cleared for the next message).
        return enqueue(ofGeneration, message.slice());
    }

    private boolean enqueue(final long ofGeneration, final ByteBuffer message)
    {
        lock.lock();
        try
        {
            if (closed || ofGeneration != generation)
            {
                dropped++;
                return false;
            }
            queue.addLast(message);
            arrived.signal();
            return true;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Appends one whole message once fewer than {@code maxQueued} wait to be read, blocking the
     * producer until then: back-pressure for a producer that must not drop (a replica's
     * delivery in the group's total order).
     *
     * @return false when it was not appended: the stream is closed or belongs to another
     *     generation, or no room came within {@code timeoutNs}.
     */
    public boolean offerWhenRoom(final long ofGeneration, final byte[] message, final int maxQueued, final long timeoutNs)
        throws InterruptedException
    {
        lock.lock();
        try
        {
            long left = timeoutNs;
            while (!closed && ofGeneration == generation && queue.size() >= maxQueued)
            {
                if (left <= 0)
                {
                    dropped++;
                    return false;
                }
                left = taken.awaitNanos(left);
            }
            return enqueue(ofGeneration, ByteBuffer.wrap(message));
        }
        finally
        {
            lock.unlock();
        }
    }

    /** @return messages queued and not yet taken by the reader. */
    public int queued()
    {
        lock.lock();
        try
        {
            return queue.size();
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Closes the stream: a blocked or later {@link #read} throws what {@code why} makes; queued
     * messages are discarded.
     */
    public void close(final Supplier<? extends RuntimeException> why)
    {
        lock.lock();
        try
        {
            if (!closed)
            {
                closed = true;
                failure = why;
                queue.clear();
                current = null;
                arrived.signalAll();
                taken.signalAll();
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Copies at least {@code minLength} and at most {@code maxLength} bytes into {@code dst},
     * blocking until they have arrived.
     *
     * @return the number of bytes copied.
     * @throws RuntimeException the closer's exception, once the stream is closed.
     */
    public int read(final byte[] dst, final int offset, final int minLength, final int maxLength)
    {
        int copied = 0;
        lock.lock();
        try
        {
            do
            {
                if (closed)
                {
                    throw failure.get();
                }
                if (current == null || position == current.limit())
                {
                    current = queue.pollFirst();
                    if (current != null)
                    {
                        taken.signal();
                        position = current.position();
                    }
                    if (current == null)
                    {
                        if (copied >= minLength)
                        {
                            break;
                        }
                        arrived.awaitUninterruptibly();
                        continue;
                    }
                }
                final int n = Math.min(maxLength - copied, current.limit() - position);
                current.get(position, dst, offset + copied, n);
                position += n;
                copied += n;
            }
            while (copied < minLength);
            return copied;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Like {@link #read}, but never blocks: for a reader that, rather than wait here, makes the
     * messages arrive itself (the client's reader drives its in-flight calls).
     *
     * @return the number of bytes copied, or -1 when fewer than {@code minLength} are here.
     * @throws RuntimeException the closer's exception, once the stream is closed.
     */
    public int tryRead(final byte[] dst, final int offset, final int minLength, final int maxLength)
    {
        lock.lock();
        try
        {
            if (closed)
            {
                throw failure.get();
            }
            int available = current == null ? 0 : current.limit() - position;
            if (available < minLength)
            {
                for (final ByteBuffer m : queue)
                {
                    available += m.remaining();
                    if (available >= minLength)
                    {
                        break;
                    }
                }
                if (available < minLength)
                {
                    return -1;
                }
            }
            return read(dst, offset, minLength, maxLength);
        }
        finally
        {
            lock.unlock();
        }
    }

    /** @return true when a read would not block. */
    public boolean hasData()
    {
        lock.lock();
        try
        {
            return hasDataLocked();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** @return true when a read would not block: a message is here, or the stream is closed (the read throws). */
    public boolean readable()
    {
        lock.lock();
        try
        {
            return closed || hasDataLocked();
        }
        finally
        {
            lock.unlock();
        }
    }

    private boolean hasDataLocked()
    {
        return current != null && position < current.limit() || !queue.isEmpty();
    }

    /** @return messages dropped because they came for a closed or older connection. */
    public long dropped()
    {
        lock.lock();
        try
        {
            return dropped;
        }
        finally
        {
            lock.unlock();
        }
    }
}
