package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;

/**
 * One MemberEngine on a hand-advanced clock, recording what it sends: the view-change rule tests'
 * common ground (KeepAlive every 20 ms, timeout 100 ms; NAK after 2 ms; ACKs at once).
 */
final class OneEngine
{
    static final long MS = 1_000_000L;
    /** The epoch a founding leader orders in once its check passed: the one after the founding epoch. */
    static final int ORDERING_EPOCH = MemberEngine.FOUNDING_EPOCH + 1;

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

    /** @return an engine of {@code config}, tuned as {@link #started(GroupConfig, SentPackets)}, started and nothing more: a founding leader's check is pending. */
    static MemberEngine checking(final GroupConfig config, final SentPackets sent)
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
                feed(e, WirePackets.epochTold(id, packetId++, config.selfId, e.foundingNonce(), ORDERING_EPOCH, false), nowNs);
            }
        }
        if (e.foundingCheckPending())
        {
            throw new IllegalStateException("founding check still pending for " + config.selfId);
        }
        return e;
    }

    /**
     * Member {@code e} answers its founding leader's check, promising it the epoch it orders in,
     * as every member of a group does before its leader orders.
     *
     * @return {@code e}.
     */
    static MemberEngine promised(final MemberEngine e, final int leaderId, final long nowNs)
    {
        feed(e, WirePackets.foundingAsk(leaderId, 1, 77, e.configurationIds()), nowNs);
        return e;
    }

    /**
     * Member {@code e} (id 2 of five, leader 1) delivers client 100's requests 1..5 from leader 1
     * in epoch 1, then hears nothing more from it (only 4 and 5 ACK) and takes over, proposing epoch 2.
     *
     * @return {@code e}, LEADER_RECOVERING, at most 400 ms in.
     */
    static MemberEngine takingOverAfterFive(final MemberEngine e)
    {
        long t = MS;
        for (int i = 1; i <= 5; i++)
        {
            feed(e, WirePackets.request(100, i), t);
            feed(e, WirePackets.order(1, 80 + i, 1, i, 100, i, i), t);
            t += MS;
        }
        if (e.deliveredSeq() != 5)
        {
            throw new AssertionError("set-up: delivered " + e.deliveredSeq() + ", not 5");
        }
        for (; t < 400 * MS && e.state() != MemberEngine.State.LEADER_RECOVERING; t += MS)
        {
            feed(e, WirePackets.orderAck(4, 100 + (int)(t / MS), 1, 5), t);
            feed(e, WirePackets.orderAck(5, 100 + (int)(t / MS), 1, 5), t);
            e.onTimer(t);
        }
        if (e.state() != MemberEngine.State.LEADER_RECOVERING)
        {
            throw new AssertionError("set-up: " + e.state() + ", not taking over");
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
