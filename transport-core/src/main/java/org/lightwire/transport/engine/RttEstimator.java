package org.lightwire.transport.engine;

/**
 * Smoothed round-trip time and retransmission timeout in the manner of RFC 6298, bounded by
 * configured minimum and maximum, with exponential backoff on timeouts.
 *
 * <p>Samples come from exchanges that measure the network alone (A1's SYNC idea): RECLAIM
 * answered by RECLAIM_ACK (a client probes this way once per interval), never from a request and its reply,
 * whose gap includes the servant's execution time. Retransmitted probes give no sample (Karn).
 *
 * <p>One departure from RFC 6298, for samples that come once per probe interval rather than once
 * per round trip: a probe's sample under a quarter of the smoothed round trip starts the estimate
 * afresh from that sample. A sample inflated by the measuring process itself (a cold JVM's first call,
 * a garbage collection, a descheduled thread: milliseconds where the network takes a tenth of
 * one) would otherwise hold the timeout at several times that outlier for dozens of intervals,
 * and every loss in that time would cost that much; a sample that small proves the network is
 * that fast now.
 */
public final class RttEstimator
{
    /** A sample under srtt / this starts the estimate afresh (see the class comment). */
    static final int RESEED_FRACTION = 4;

    private final long minNs;
    private final long maxNs;
    private long srttNs;
    private long rttvarNs;
    private long rtoNs;
    private long backedOffRtoNs;
    private long samples;

    public RttEstimator(final long minNs, final long maxNs, final long initialNs)
    {
        this.minNs = minNs;
        this.maxNs = maxNs;
        this.rtoNs = clamp(initialNs);
        this.backedOffRtoNs = rtoNs;
    }

    /** Adds one round-trip sample and resets any backoff (RFC 6298's rules alone). */
    public void onSample(final long rttNs)
    {
        onSample(rttNs, false);
    }

    /**
     * Adds one round-trip sample and resets any backoff.
     *
     * @param unambiguous true when the answer measured cannot be a duplicate or a late copy of an
     *     earlier answer (a probe's, whose marker only this probe carries): only such a sample,
     *     under a quarter of SRTT, starts the estimate afresh. A reclaim's answer is matched by its
     *     call alone, and a duplicate of an earlier one would measure microseconds.
     */
    public void onSample(final long rttNs, final boolean unambiguous)
    {
        if (rttNs < 0)
        {
            return;
        }
        if (samples == 0 || unambiguous && rttNs < srttNs / RESEED_FRACTION)
        {
            srttNs = rttNs;
            rttvarNs = rttNs / 2;
        }
        else
        {
            final long err = Math.abs(srttNs - rttNs);
            rttvarNs = rttvarNs - (rttvarNs >> 2) + (err >> 2);
            srttNs = srttNs - (srttNs >> 3) + (rttNs >> 3);
        }
        samples++;
        rtoNs = clamp(srttNs + 4 * rttvarNs);
        backedOffRtoNs = rtoNs;
    }

    /** Doubles the timeout after a retransmission timer fired, up to the maximum. */
    public void backOff()
    {
        backedOffRtoNs = Math.min(maxNs, backedOffRtoNs * 2);
    }

    /** Ends a backoff once the peer answered. */
    public void resetBackoff()
    {
        backedOffRtoNs = rtoNs;
    }

    /** @return the current retransmission timeout, backoff included. */
    public long rtoNs()
    {
        return backedOffRtoNs;
    }

    /** @return the smoothed round-trip time, or 0 before the first sample. */
    public long srttNs()
    {
        return srttNs;
    }

    public long rttvarNs()
    {
        return rttvarNs;
    }

    public long samples()
    {
        return samples;
    }

    private long clamp(final long ns)
    {
        return Math.max(minNs, Math.min(maxNs, ns));
    }

    @Override
    public String toString()
    {
        return "Rtt{srttNs=" + srttNs + ", rttvarNs=" + rttvarNs + ", rtoNs=" + rtoNs + ", backedOffRtoNs=" + backedOffRtoNs + ", samples=" + samples + '}';
    }
}
