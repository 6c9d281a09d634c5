package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;

/**
 * One MemberEngine on a hand-advanced clock, recording what it sends: the view-change rule tests'
 * common ground (KeepAlive every 20 ms, timeout 100 ms; NAK after 2 ms; ACKs at once).
 */
final class OneEngine
{
    static final long MS = 1_000_000L;

    private OneEngine()
    {
    }

    /** @return a started engine with {@code config} and the timings above, sending to {@code sent}, delivering nowhere. */
    static MemberEngine started(final GroupConfig config, final SentPackets sent)
    {
        final MemberEngine e = new MemberEngine(config.keepAlive(20 * MS, 100 * MS).retransmitTimeoutNs(20 * MS).nakDelayNs(2 * MS)
            .requestAckDelayNs(0).orderAckDelayNs(0), sent, (seq, sender, packetId, requestId, payload, offset, length) -> { });
        e.start(0);
        return e;
    }

    /** @return as {@link #started(GroupConfig, SentPackets)}, delivering to {@code handler} and giving and taking state with {@code state}. */
    static MemberEngine started(final GroupConfig config, final SentPackets sent, final DeliveryHandler handler, final StateHandler state)
    {
        final MemberEngine e = new MemberEngine(config.keepAlive(20 * MS, 100 * MS).retransmitTimeoutNs(20 * MS).nakDelayNs(2 * MS)
            .requestAckDelayNs(0).orderAckDelayNs(0), sent, handler, state);
        e.start(0);
        return e;
    }

    static void feed(final MemberEngine e, final ByteBuffer b, final long nowNs)
    {
        e.onPacket(b, 0, b.capacity(), nowNs);
    }

    /** Runs the engine's timer every millisecond from {@code fromNs} to {@code toNs}. */
    static void runUntil(final MemberEngine e, final long fromNs, final long toNs)
    {
        for (long t = fromNs; t <= toNs; t += MS)
        {
            e.onTimer(t);
        }
    }
}
