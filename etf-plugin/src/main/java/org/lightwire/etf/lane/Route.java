package org.lightwire.etf.lane;

import java.nio.channels.SelectionKey;

import org.lightwire.transport.channel.ConnectionReader;

/**
 * Where the requests of one transport connection go: the lane that carries it now, the code-set
 * key its requests have settled ({@link CodeSetKey}), and, for a connection with a socket of its
 * own, the reader its lane polls and the selection key of that socket in the lane's selector.
 *
 * <p>The lane may change (a move, when the connection's code sets turn out to be another lane's);
 * {@link #lane} is read by any thread and changed under this object's lock, together with the
 * lanes' member sets. The key and the selection key are touched only by the thread of the lane
 * that carries the connection.
 */
final class Route
{
    private final String name;
    /** The connection's own socket, or null when its requests come from another thread (no own socket, AAL5). */
    final ConnectionReader reader;
    private volatile Lane lane;
    private volatile boolean closed;
    /** The code sets the connection's requests settled; null before its first presented request. Lane thread only. */
    CodeSetKey key;
    /**
     * The socket's key in its lane's selector, or null when not registered there. Written by the
     * thread of the lane that carries the connection; volatile, as a lane the connection left may
     * still hold a ready key of it to compare.
     */
    volatile SelectionKey selectionKey;

    Route(final String name, final ConnectionReader reader)
    {
        this.name = name;
        this.reader = reader;
    }

    /** @return the transport connection's name, as {@code ServerCall.connection()} gives it. */
    String name()
    {
        return name;
    }

    /** @return the lane that carries the connection now, or null (none yet, or its lane closed). */
    Lane lane()
    {
        return lane;
    }

    /**
     * @return the lane that carries the connection, once a move in progress has finished: what a
     *     lane reads of a request queued by that move.
     */
    synchronized Lane settledLane()
    {
        return lane;
    }

    boolean closed()
    {
        return closed;
    }

    /**
     * Moves the connection to {@code next} (or to no lane), leaving its old lane's members.
     *
     * @return false when the connection is closed (it joins no lane).
     */
    boolean moveTo(final Lane next)
    {
        return moveTo(next, null);
    }

    /**
     * Moves the connection to {@code next}, its request {@code first} queued there before the lane
     * changes: a thread that reads the new lane afterwards queues behind it, and one that read the
     * old lane has its request forwarded by the old lane, so the connection's requests keep their
     * order.
     *
     * @return false when the connection is closed (it joins no lane; {@code first} is not queued).
     */
    synchronized boolean moveTo(final Lane next, final LaneReader.HandOff first)
    {
        if (closed)
        {
            return false;
        }
        if (first != null && next != null)
        {
            // Only queued here: answering it, should the lane have closed, is for the caller, out of this lock.
            next.enqueue(first);
        }
        final Lane previous = lane;
        if (previous == next)
        {
            return true;
        }
        if (previous != null)
        {
            previous.members().remove(this);
        }
        lane = next;
        if (next != null)
        {
            next.members().add(this);
        }
        return true;
    }

    /** Leaves {@code from} if the connection is still on it (its lane closed); it joins no lane. */
    synchronized void leave(final Lane from)
    {
        if (lane == from)
        {
            from.members().remove(this);
            lane = null;
        }
    }

    /** The transport connection closed: it leaves its lane for good. */
    synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            if (lane != null)
            {
                lane.members().remove(this);
            }
        }
    }

    @Override
    public String toString()
    {
        return "Route{" + name + ", lane=" + (lane == null ? "none" : Integer.toString(lane.index())) + ", key=" + key + '}';
    }
}
