package org.lightwire.transport.engine;

import org.lightwire.transport.protocol.HeaderFlyweight;

/**
 * The settings of one protocol engine, immutable once built. Every setting has its default and
 * allowed range here, and the same names appear in the README's configuration table.
 */
public final class EngineConfig
{
    /** Default largest packet, header included (the paper's tuned AAL5 maximum, section 5.2). */
    public static final int DEFAULT_MAX_PACKET_BYTES = 8192;
    /** Default number of packets a sender may hold unacknowledged (paper section 4.3). */
    public static final int DEFAULT_BUFFER_POOL_PACKETS = 64;
    public static final long DEFAULT_ACK_DELAY_NS = 5_000_000L;
    public static final long DEFAULT_RETRANSMIT_MIN_NS = 1_000_000L;
    public static final long DEFAULT_RETRANSMIT_MAX_NS = 1_000_000_000L;
    public static final long DEFAULT_RETRANSMIT_INITIAL_NS = 200_000_000L;
    public static final long DEFAULT_PEER_TIMEOUT_NS = 10_000_000_000L;
    public static final long DEFAULT_RTT_PROBE_INTERVAL_NS = 1_000_000_000L;
    public static final long DEFAULT_REQUEST_TIMEOUT_NS = 60_000_000_000L;
    /** Largest buffer pool: the packets a sender holds are slices of its buffers, bounded per connection. */
    public static final int MAX_BUFFER_POOL_PACKETS = 127;

    /** Smallest useful packet: a header and one payload byte. */
    public static final int MIN_MAX_PACKET_BYTES = HeaderFlyweight.HEADER_LENGTH + 1;

    private final int maxPacketBytes;
    private final int bufferPoolPackets;
    private final long ackDelayNs;
    private final long retransmitMinNs;
    private final long retransmitMaxNs;
    private final long retransmitInitialNs;
    private final long peerTimeoutNs;
    private final long rttProbeIntervalNs;
    private final long requestTimeoutNs;

    private EngineConfig(final Builder b)
    {
        maxPacketBytes = checkRange("maxPacketBytes", b.maxPacketBytes, MIN_MAX_PACKET_BYTES, HeaderFlyweight.MAX_MESSAGE_SIZE);
        bufferPoolPackets = (int)checkRange("bufferPoolPackets", b.bufferPoolPackets, 1, MAX_BUFFER_POOL_PACKETS);
        ackDelayNs = checkRange("ackDelayNs", b.ackDelayNs, 0, 60_000_000_000L);
        retransmitMinNs = checkRange("retransmitMinNs", b.retransmitMinNs, 1_000L, 60_000_000_000L);
        retransmitMaxNs = checkRange("retransmitMaxNs", b.retransmitMaxNs, retransmitMinNs, 600_000_000_000L);
        retransmitInitialNs = checkRange("retransmitInitialNs", b.retransmitInitialNs, retransmitMinNs, retransmitMaxNs);
        // A silent peer is probed (NACK, RECLAIM, retransmission) at least twice before it is declared dead.
        peerTimeoutNs = checkRange("peerTimeoutNs", b.peerTimeoutNs, 2 * retransmitMaxNs, 3_600_000_000_000L);
        rttProbeIntervalNs = checkRange("rttProbeIntervalNs", b.rttProbeIntervalNs, 0, 3_600_000_000_000L);
        requestTimeoutNs = checkRange("requestTimeoutNs", b.requestTimeoutNs, 0, 3_600_000_000_000L);
    }

    private static int checkRange(final String name, final int value, final int min, final int max)
    {
        return (int)checkRange(name, (long)value, min, max);
    }

    private static long checkRange(final String name, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " = " + value + " is outside the allowed range " + min + " to " + max);
        }
        return value;
    }

    public static Builder builder()
    {
        return new Builder();
    }

    /** @return the defaults. */
    public static EngineConfig defaults()
    {
        return builder().build();
    }

    /** @return a builder holding this configuration's values. */
    public Builder toBuilder()
    {
        return new Builder()
            .maxPacketBytes(maxPacketBytes)
            .bufferPoolPackets(bufferPoolPackets)
            .ackDelayNs(ackDelayNs)
            .retransmitMinNs(retransmitMinNs)
            .retransmitMaxNs(retransmitMaxNs)
            .retransmitInitialNs(retransmitInitialNs)
            .peerTimeoutNs(peerTimeoutNs)
            .rttProbeIntervalNs(rttProbeIntervalNs)
            .requestTimeoutNs(requestTimeoutNs);
    }

    /** Largest packet on the wire, header included; the link may lower it. */
    public int maxPacketBytes()
    {
        return maxPacketBytes;
    }

    /** Largest payload one packet carries. */
    public int maxPayloadBytes()
    {
        return maxPacketBytes - HeaderFlyweight.HEADER_LENGTH;
    }

    /**
     * Packets a sender may hold for retransmission before it must reclaim them (section 4.3), at
     * most {@link #MAX_BUFFER_POOL_PACKETS}.
     */
    public int bufferPoolPackets()
    {
        return bufferPoolPackets;
    }

    /** How long an idle client waits before it acknowledges the last reply with CALL_ACK. */
    public long ackDelayNs()
    {
        return ackDelayNs;
    }

    /** Lower bound of the retransmission timeout derived from the measured round trip. */
    public long retransmitMinNs()
    {
        return retransmitMinNs;
    }

    /** Upper bound of the retransmission timeout, backoff included. */
    public long retransmitMaxNs()
    {
        return retransmitMaxNs;
    }

    /** Retransmission timeout before the first round-trip sample. */
    public long retransmitInitialNs()
    {
        return retransmitInitialNs;
    }

    /** Silence from the peer, while a packet from it is awaited, that makes the connection a zombie. */
    public long peerTimeoutNs()
    {
        return peerTimeoutNs;
    }

    /** How often a client adds a RECLAIM after a request to measure the round trip; 0 never. */
    public long rttProbeIntervalNs()
    {
        return rttProbeIntervalNs;
    }

    /**
     * Server: how long a request may take to arrive whole, from its first packet; a request
     * still incomplete then fails its connection ({@code CloseCause.REQUEST_TIMEOUT}), so that
     * a client that sends part of a request and stops cannot hold the server's memory. 0: no limit.
     */
    public long requestTimeoutNs()
    {
        return requestTimeoutNs;
    }

    @Override
    public String toString()
    {
        return "EngineConfig{maxPacketBytes=" + maxPacketBytes +
            ", bufferPoolPackets=" + bufferPoolPackets +
            ", ackDelayNs=" + ackDelayNs +
            ", retransmitMinNs=" + retransmitMinNs +
            ", retransmitMaxNs=" + retransmitMaxNs +
            ", retransmitInitialNs=" + retransmitInitialNs +
            ", peerTimeoutNs=" + peerTimeoutNs +
            ", rttProbeIntervalNs=" + rttProbeIntervalNs +
            ", requestTimeoutNs=" + requestTimeoutNs + '}';
    }

    /** Builder; {@link #build()} validates every value. */
    public static final class Builder
    {
        private int maxPacketBytes = DEFAULT_MAX_PACKET_BYTES;
        private int bufferPoolPackets = DEFAULT_BUFFER_POOL_PACKETS;
        private long ackDelayNs = DEFAULT_ACK_DELAY_NS;
        private long retransmitMinNs = DEFAULT_RETRANSMIT_MIN_NS;
        private long retransmitMaxNs = DEFAULT_RETRANSMIT_MAX_NS;
        private long retransmitInitialNs = DEFAULT_RETRANSMIT_INITIAL_NS;
        private long peerTimeoutNs = DEFAULT_PEER_TIMEOUT_NS;
        private long rttProbeIntervalNs = DEFAULT_RTT_PROBE_INTERVAL_NS;
        private long requestTimeoutNs = DEFAULT_REQUEST_TIMEOUT_NS;

        public Builder maxPacketBytes(final int value)
        {
            maxPacketBytes = value;
            return this;
        }

        public Builder bufferPoolPackets(final int value)
        {
            bufferPoolPackets = value;
            return this;
        }

        public Builder ackDelayNs(final long value)
        {
            ackDelayNs = value;
            return this;
        }

        public Builder retransmitMinNs(final long value)
        {
            retransmitMinNs = value;
            return this;
        }

        public Builder retransmitMaxNs(final long value)
        {
            retransmitMaxNs = value;
            return this;
        }

        public Builder retransmitInitialNs(final long value)
        {
            retransmitInitialNs = value;
            return this;
        }

        public Builder peerTimeoutNs(final long value)
        {
            peerTimeoutNs = value;
            return this;
        }

        public Builder rttProbeIntervalNs(final long value)
        {
            rttProbeIntervalNs = value;
            return this;
        }

        public Builder requestTimeoutNs(final long value)
        {
            requestTimeoutNs = value;
            return this;
        }

        public EngineConfig build()
        {
            return new EngineConfig(this);
        }
    }
}
