package org.lightwire.transport.engine;

/**
 * Per-connection counters, written by the engine under its driver's lock and readable from any
 * thread (a reader outside the lock may see a value a few events old, never a torn one).
 */
public final class ConnectionCounters
{
    volatile long calls;
    volatile long packetsSent;
    volatile long packetsReceived;
    volatile long bytesSent;
    volatile long bytesReceived;
    volatile long retransmissions;
    volatile long nacksSent;
    volatile long nacksReceived;
    volatile long duplicates;
    volatile long outOfSequence;
    volatile long invalidPackets;
    volatile long truncated;
    volatile long unknownType;
    volatile long sizeMismatch;
    volatile long badBoolean;
    volatile long badNumber;
    volatile long stale;
    volatile long unexpected;
    volatile long aborts;
    volatile long callAcksSent;
    volatile long reclaimsSent;
    volatile long reclaimAcksSent;
    volatile long timeouts;
    volatile long srttNs;
    volatile long rtoNs;

    /** Calls started on this connection (client: requests sent; server: requests begun). */
    public long calls()
    {
        return calls;
    }

    public long packetsSent()
    {
        return packetsSent;
    }

    public long packetsReceived()
    {
        return packetsReceived;
    }

    /** Payload bytes sent, retransmissions included. */
    public long bytesSent()
    {
        return bytesSent;
    }

    /** Payload bytes received in sequence and delivered. */
    public long bytesReceived()
    {
        return bytesReceived;
    }

    /** Data packets sent again, after a NACK, a RECLAIM_ACK that showed a gap, or a timeout. */
    public long retransmissions()
    {
        return retransmissions;
    }

    public long nacksSent()
    {
        return nacksSent;
    }

    public long nacksReceived()
    {
        return nacksReceived;
    }

    /** Packets of the current call already received (a retransmission or a network duplicate), dropped. */
    public long duplicates()
    {
        return duplicates;
    }

    /** Packets ahead of the expected one (a packet before them was lost or reordered), dropped. */
    public long outOfSequence()
    {
        return outOfSequence;
    }

    /**
     * Packets of a call before the current one (a late duplicate, a replay), dropped without
     * any effect on the connection: not even its silence timer is reset by them.
     */
    public long stale()
    {
        return stale;
    }

    /** Malformed packets dropped: the sum of truncated, unknownType, sizeMismatch, badBoolean and badNumber. */
    public long invalidPackets()
    {
        return invalidPackets;
    }

    public long truncated()
    {
        return truncated;
    }

    public long unknownType()
    {
        return unknownType;
    }

    public long sizeMismatch()
    {
        return sizeMismatch;
    }

    public long badBoolean()
    {
        return badBoolean;
    }

    /** Packets whose packet number had its top bit set. */
    public long badNumber()
    {
        return badNumber;
    }

    /** Well-formed packets that make no sense in the current state (wrong direction, wrong call), dropped. */
    public long unexpected()
    {
        return unexpected;
    }

    /** One-way calls whose delivery was aborted after a lost packet (server error case v). */
    public long aborts()
    {
        return aborts;
    }

    public long callAcksSent()
    {
        return callAcksSent;
    }

    public long reclaimsSent()
    {
        return reclaimsSent;
    }

    public long reclaimAcksSent()
    {
        return reclaimAcksSent;
    }

    /** Retransmission timers that fired. */
    public long timeouts()
    {
        return timeouts;
    }

    /** Smoothed round-trip time in nanoseconds, 0 before the first sample. */
    public long srttNs()
    {
        return srttNs;
    }

    /** Current retransmission timeout in nanoseconds, backoff included. */
    public long rtoNs()
    {
        return rtoNs;
    }

    @Override
    public String toString()
    {
        return "Counters{calls=" + calls +
            ", packetsSent=" + packetsSent +
            ", packetsReceived=" + packetsReceived +
            ", bytesSent=" + bytesSent +
            ", bytesReceived=" + bytesReceived +
            ", retransmissions=" + retransmissions +
            ", nacksSent=" + nacksSent +
            ", nacksReceived=" + nacksReceived +
            ", duplicates=" + duplicates +
            ", stale=" + stale +
            ", outOfSequence=" + outOfSequence +
            ", invalidPackets=" + invalidPackets +
            ", unexpected=" + unexpected +
            ", aborts=" + aborts +
            ", callAcksSent=" + callAcksSent +
            ", reclaimsSent=" + reclaimsSent +
            ", reclaimAcksSent=" + reclaimAcksSent +
            ", timeouts=" + timeouts +
            ", srttNs=" + srttNs +
            ", rtoNs=" + rtoNs + '}';
    }
}
