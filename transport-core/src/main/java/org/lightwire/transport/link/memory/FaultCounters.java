package org.lightwire.transport.link.memory;

/**
 * What the faults of one direction did, counted packet by packet (JGroups' {@code DISCARD}
 * statistics, Aeron's {@code LossGenerator} in reverse).
 *
 * <p>Every packet given to {@code send} counts once in {@link #sent()} and is then either
 * {@link #dropped()} or delivered, once or, when {@link #duplicated()}, twice. Once nothing is in
 * flight, {@code delivered == sent - dropped + duplicated}.
 *
 * <p>Only one thread at a time writes (the owner's lock guards every increment); the fields are
 * volatile so that any thread may read them.
 */
public final class FaultCounters
{
    private volatile long sent;
    private volatile long dropped;
    private volatile long duplicated;
    private volatile long reordered;
    private volatile long delivered;

    /** @return packets given to send in this direction. */
    public long sent()
    {
        return sent;
    }

    /** @return packets the faults dropped. */
    public long dropped()
    {
        return dropped;
    }

    /** @return packets that were given a second copy. */
    public long duplicated()
    {
        return duplicated;
    }

    /** @return packets held back so that packets sent after them overtake them. */
    public long reordered()
    {
        return reordered;
    }

    /** @return copies handed to the receiving side, duplicates included. */
    public long delivered()
    {
        return delivered;
    }

    void onSent()
    {
        sent++;
    }

    void onDropped()
    {
        dropped++;
    }

    void onDuplicated()
    {
        duplicated++;
    }

    void onReordered()
    {
        reordered++;
    }

    void onDelivered()
    {
        delivered++;
    }

    @Override
    public String toString()
    {
        return "FaultCounters{sent=" + sent +
            ", dropped=" + dropped +
            ", duplicated=" + duplicated +
            ", reordered=" + reordered +
            ", delivered=" + delivered + '}';
    }
}
