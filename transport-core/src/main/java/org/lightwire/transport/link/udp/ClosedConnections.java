package org.lightwire.transport.link.udp;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

import org.lightwire.transport.protocol.CloseCause;

/**
 * The server's memory of the connections it closed and why, so that the REJECT answering a late
 * datagram of one names the cause: above all {@link CloseCause#IDLE}, which tells the client that
 * nothing it sent since was executed and that it may send its call again on a new connection.
 * Bounded in both count and age: an entry is kept for {@link #RETENTION_NS}, and when the table
 * is full the oldest goes first; a forgotten id is answered {@link CloseCause#UNKNOWN}, which a
 * client treats as a restart.
 *
 * <p>Not thread-safe: the server's receive thread alone uses it.
 */
final class ClosedConnections
{
    /** How long the cause of a closed connection is remembered. */
    static final long RETENTION_NS = TimeUnit.MINUTES.toNanos(2);

    private final int capacity;
    private final LongObjectTable<Entry> byId;
    private final ArrayDeque<Entry> oldestFirst;

    private record Entry(long id, CloseCause cause, long closedNs)
    {
    }

    ClosedConnections(final int capacity)
    {
        this.capacity = capacity;
        byId = new LongObjectTable<>(capacity);
        oldestFirst = new ArrayDeque<>(Math.min(capacity, 1024));
    }

    void add(final long id, final CloseCause cause, final long nowNs)
    {
        expire(nowNs);
        if (byId.size() == capacity)
        {
            byId.remove(oldestFirst.removeFirst().id());
        }
        final Entry e = new Entry(id, cause, nowNs);
        final Entry replaced = byId.get(id);
        if (replaced != null)
        {
            oldestFirst.remove(replaced);
        }
        byId.put(id, e);
        oldestFirst.addLast(e);
    }

    /** @return why {@code id} was closed, or {@link CloseCause#UNKNOWN} when it is not remembered. */
    CloseCause causeOf(final long id, final long nowNs)
    {
        expire(nowNs);
        final Entry e = byId.get(id);
        return e == null ? CloseCause.UNKNOWN : e.cause();
    }

    int size()
    {
        return byId.size();
    }

    private void expire(final long nowNs)
    {
        while (!oldestFirst.isEmpty() && nowNs - oldestFirst.peekFirst().closedNs() > RETENTION_NS)
        {
            byId.remove(oldestFirst.removeFirst().id());
        }
    }
}
