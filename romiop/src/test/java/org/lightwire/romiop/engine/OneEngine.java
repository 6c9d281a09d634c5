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

    /**
     * @return a started engine with {@code config} and the timings above, sending to {@code sent},
     *     delivering nowhere; a founding leader has passed its founding check.
     */
    static MemberEngine started(final GroupConfig config, final SentPackets sent)
    {
        final MemberEngine e = new MemberEngine(config.keepAlive(20 * MS, 100 * MS).retransmitTimeoutNs(20 * MS).nakDelayNs(2 * MS)
            .requestAckDelayNs(0).orderAckDelayNs(0), sent, (seq, sender, packetId, requestId, payload, offset, length) -> { });
        return founded(e, config, 0);
    }

    /** @return as {@link #started(GroupConfig, SentPackets)}, delivering to {@code handler} and giving and taking state with {@code state}. */
    static MemberEngine started(final GroupConfig config, final SentPackets sent, final DeliveryHandler handler, final StateHandler state)
    {
        final MemberEngine e = new MemberEngine(config.keepAlive(20 * MS, 100 * MS).retransmitTimeoutNs(20 * MS).nakDelayNs(2 * MS)
            .requestAckDelayNs(0).orderAckDelayNs(0), sent, handler, state);
        return founded(e, config, 0);
    }

    /**
     * Starts {@code e} and, when it is the founding leader of {@code config}, passes its founding
     * check: every other configured member tells it, at {@code nowNs}, the founding epoch and no
     * orders held.
     *
     * @return {@code e}.
     */
    static MemberEngine founded(final MemberEngine e, final GroupConfig config, final long nowNs)
    {
        e.start(nowNs);
        if (config.selfId != config.leaderId)
        {
            return e;
        }
        int packetId = 1;
        for (final int id : config.configuredIds)
        {
            if (id != config.selfId)
            {
                feed(e, WirePackets.epochTold(id, packetId++, config.selfId, e.foundingNonce(), MemberEngine.FOUNDING_EPOCH, false), nowNs);
            }
        }
        if (e.foundingCheckPending())
        {
            throw new IllegalStateException("founding check still pending for " + config.selfId);
        }
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
