package org.lightwire.transport.link.udp;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Open-addressing hash table from a nonzero {@code long} to an object, with linear probing and
 * backward-shift deletion: no boxing and no allocation per lookup, insert or removal (Agrona's
 * {@code Long2ObjectHashMap} is the model). Capacity is fixed at construction, at least twice
 * the most entries it will hold, so probes stay short. Key 0 marks an empty slot and cannot be
 * stored. Not thread-safe: the server endpoint uses it on its receive thread only.
 *
 * @param <V> the value type.
 */
final class LongObjectTable<V>
{
    private final long[] keys;
    private final Object[] values;
    private final int mask;
    private int size;

    /** @param maxEntries the most entries the table will hold. */
    LongObjectTable(final int maxEntries)
    {
        final int capacity = Integer.highestOneBit(Math.max(2, maxEntries) * 2 - 1) << 1;
        keys = new long[capacity];
        values = new Object[capacity];
        mask = capacity - 1;
    }

    int size()
    {
        return size;
    }

    int capacity()
    {
        return keys.length;
    }

    @SuppressWarnings("unchecked")
    V get(final long key)
    {
        if (key == 0)
        {
            return null;
        }
        for (int i = slot(key); keys[i] != 0; i = (i + 1) & mask)
        {
            if (keys[i] == key)
            {
                return (V)values[i];
            }
        }
        return null;
    }

    /**
     * Stores {@code value} under {@code key}, replacing any previous value.
     *
     * @throws IllegalStateException the table is full (the caller bounds its size).
     */
    void put(final long key, final V value)
    {
        if (key == 0)
        {
            throw new IllegalArgumentException("key 0 is reserved for empty slots");
        }
        int i = slot(key);
        while (keys[i] != 0)
        {
            if (keys[i] == key)
            {
                values[i] = value;
                return;
            }
            i = (i + 1) & mask;
        }
        if (size == keys.length - 1)
        {
            throw new IllegalStateException("table of capacity " + keys.length + " is full");
        }
        keys[i] = key;
        values[i] = value;
        size++;
    }

    /** @return the value removed, or null when {@code key} was absent. */
    @SuppressWarnings("unchecked")
    V remove(final long key)
    {
        if (key == 0)
        {
            return null;
        }
        int i = slot(key);
        while (keys[i] != key)
        {
            if (keys[i] == 0)
            {
                return null;
            }
            i = (i + 1) & mask;
        }
        final V removed = (V)values[i];
        keys[i] = 0;
        values[i] = null;
        size--;
        compactChainAfter(i);
        return removed;
    }

    /** Visits every value; the action must not change the table. */
    @SuppressWarnings("unchecked")
    void forEach(final Consumer<V> action)
    {
        for (int i = 0; i < keys.length; i++)
        {
            if (keys[i] != 0)
            {
                action.accept((V)values[i]);
            }
        }
    }

    void clear()
    {
        Arrays.fill(keys, 0);
        Arrays.fill(values, null);
        size = 0;
    }

    /**
     * Backward-shift deletion: moves back every entry of the probe chain after the freed slot
     * that would otherwise become unreachable from its home slot.
     */
    private void compactChainAfter(final int freedSlot)
    {
        int hole = freedSlot;
        for (int i = (freedSlot + 1) & mask; keys[i] != 0; i = (i + 1) & mask)
        {
            final int home = slot(keys[i]);
            // The entry may move into the hole only if its home is not cyclically in (hole, i].
            if (((i - home) & mask) >= ((i - hole) & mask))
            {
                keys[hole] = keys[i];
                values[hole] = values[i];
                keys[i] = 0;
                values[i] = null;
                hole = i;
            }
        }
    }

    private int slot(final long key)
    {
        // Fibonacci hashing: ids are random, but nonces and test keys need not be.
        final long h = key * 0x9E3779B97F4A7C15L;
        return (int)(h ^ (h >>> 32)) & mask;
    }
}
