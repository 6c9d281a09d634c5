package org.lightwire.transport.link.udp;

/**
 * Decides whether the server may answer a datagram for an unknown connection id with REJECT:
 * at most once per id per {@code perIdIntervalNs}, and at most {@code burst} REJECTs back to
 * back, refilled one per {@code refillNs}. A pure function of its inputs and the clock it is
 * given; state is bounded (a direct-mapped table of recent ids, where a collision only evicts
 * an older id and so errs towards sending).
 */
final class RejectLimiter
{
    private final long[] recentIds;
    private final long[] recentAtNs;
    private final int mask;
    private final long perIdIntervalNs;
    private final int burst;
    private final long refillNs;
    private int tokens;
    private long refilledAtNs;

    /**
     * @param slots size of the table of recent ids, a power of two.
     * @param perIdIntervalNs shortest interval between two REJECTs for one id.
     * @param burst most REJECTs back to back.
     * @param refillNs one token returns every this many nanoseconds.
     * @param nowNs the clock at creation; the bucket starts full.
     */
    RejectLimiter(final int slots, final long perIdIntervalNs, final int burst, final long refillNs, final long nowNs)
    {
        if (Integer.bitCount(slots) != 1)
        {
            throw new IllegalArgumentException("slots " + slots + " must be a power of two");
        }
        recentIds = new long[slots];
        recentAtNs = new long[slots];
        mask = slots - 1;
        this.perIdIntervalNs = perIdIntervalNs;
        this.burst = burst;
        this.refillNs = refillNs;
        tokens = burst;
        refilledAtNs = nowNs;
    }

    /**
     * @param id the unknown, nonzero connection id.
     * @return true when a REJECT for {@code id} may be sent now (and it is recorded as sent).
     */
    boolean tryAcquire(final long id, final long nowNs)
    {
        final long h = id * 0x9E3779B97F4A7C15L;
        final int slot = (int)(h ^ (h >>> 32)) & mask;
        if (recentIds[slot] == id && nowNs - recentAtNs[slot] < perIdIntervalNs)
        {
            return false;
        }

        final long elapsedNs = nowNs - refilledAtNs;
        if (elapsedNs >= refillNs)
        {
            final long refills = elapsedNs / refillNs;
            tokens = (int)Math.min(burst, tokens + refills);
            refilledAtNs += refills * refillNs;
        }
        if (tokens == 0)
        {
            return false;
        }
        tokens--;
        recentIds[slot] = id;
        recentAtNs[slot] = nowNs;
        return true;
    }

    /**
     * For an id the server itself closed: only the per-id interval applies, not the shared
     * bucket, which a flood of made-up ids may have used up.
     *
     * @return true when a REJECT for {@code id} may be sent now (and it is recorded as sent).
     */
    boolean tryAcquireKnown(final long id, final long nowNs)
    {
        final long h = id * 0x9E3779B97F4A7C15L;
        final int slot = (int)(h ^ (h >>> 32)) & mask;
        if (recentIds[slot] == id && nowNs - recentAtNs[slot] < perIdIntervalNs)
        {
            return false;
        }
        recentIds[slot] = id;
        recentAtNs[slot] = nowNs;
        return true;
    }

    int tokens()
    {
        return tokens;
    }

    @Override
    public String toString()
    {
        return "RejectLimiter{slots=" + recentIds.length +
            ", perIdIntervalNs=" + perIdIntervalNs +
            ", burst=" + burst +
            ", refillNs=" + refillNs +
            ", tokens=" + tokens + '}';
    }
}
