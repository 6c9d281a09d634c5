package org.lightwire.transport.link.udp;

import java.util.ArrayDeque;

/**
 * A bounded memory of recent facts keyed by a nonzero {@code long}: each entry is kept for
 * {@code retentionNs} after it was added, and when the map is full the oldest entry goes first.
 * The server remembers with it why it closed a connection ({@link ServerDemultiplexer}: REJECT
 * causes) and which CONNECT nonces it has served (a replayed CONNECT opens nothing).
 *
 * <p>Not thread-safe: the server's receive thread alone uses it.
 *
 * @param <V> the value type.
 */
final class ExpiringLongMap<V>
{
    private final int capacity;
    private final long retentionNs;
    private final LongObjectTable<Entry<V>> byKey;
    private final ArrayDeque<Entry<V>> oldestFirst;

    private record Entry<V>(long key, V value, long addedNs)
    {
    }

    ExpiringLongMap(final int capacity, final long retentionNs)
    {
        this.capacity = capacity;
        this.retentionNs = retentionNs;
        byKey = new LongObjectTable<>(capacity);
        oldestFirst = new ArrayDeque<>(Math.min(capacity, 1024));
    }

    void put(final long key, final V value, final long nowNs)
    {
        expire(nowNs);
        final Entry<V> replaced = byKey.get(key);
        if (replaced != null)
        {
            oldestFirst.remove(replaced);
            byKey.remove(key);
        }
        if (byKey.size() == capacity)
        {
            byKey.remove(oldestFirst.removeFirst().key());
        }
        final Entry<V> e = new Entry<>(key, value, nowNs);
        byKey.put(key, e);
        oldestFirst.addLast(e);
    }

    /** @return the value added for {@code key} within the retention, or null. */
    V get(final long key, final long nowNs)
    {
        expire(nowNs);
        final Entry<V> e = byKey.get(key);
        return e == null ? null : e.value();
    }

    int size()
    {
        return byKey.size();
    }

    private void expire(final long nowNs)
    {
        while (!oldestFirst.isEmpty() && nowNs - oldestFirst.peekFirst().addedNs() > retentionNs)
        {
            byKey.remove(oldestFirst.removeFirst().key());
        }
    }
}
