package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.OrderAckFlyweight;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.RequestFlyweight;

/**
 * A member's way out: the one buffer every packet it sends is written into, the Lamport packet-id
 * counter (paper, section 4: a larger id seen anywhere raises it; each packet sent takes the next),
 * and the packets several parts send (ACK, KeepAlive, MemberChange, a held Request). A part that
 * owns a packet type writes it with a flyweight of its own over {@link #buffer()} and sends it
 * with {@link #send}. The buffer is lent to the {@link GroupSender} for the call only: a packet kept
 * for resending is copied out of it.
 */
final class Outbox
{
    /** Every packet is written big-endian. */
    static final ByteOrder WIRE_ORDER = ByteOrder.BIG_ENDIAN;

    private final int selfId;
    private final int maxEntriesPerOrder;
    private final GroupSender sender;
    private final ByteBuffer out;
    private final AckFlyweight ack = new AckFlyweight();
    private final KeepAliveFlyweight keepAlive = new KeepAliveFlyweight();
    private final OrderAckFlyweight orderAck = new OrderAckFlyweight();
    private final MemberChangeFlyweight memberChange = new MemberChangeFlyweight();
    private final RequestFlyweight request = new RequestFlyweight();
    private int lamport;
    /** The view stamp every MsgOrder and KeepAlive carries: this member's epoch, and the commit it knows. */
    private int epoch = 1;
    private long commit;

    Outbox(final GroupConfig config, final GroupSender sender)
    {
        this.selfId = config.selfId;
        this.sender = sender;
        this.out = ByteBuffer.allocate(config.maxPacketBytes);
        this.maxEntriesPerOrder = Math.min(config.maxOrderEntries,
            Math.min(0xFFFF, (config.maxPacketBytes - MsgOrderFlyweight.HEADER_LENGTH) / MsgOrderFlyweight.ENTRY_LENGTH));
    }

    int selfId()
    {
        return selfId;
    }

    /** @return the send buffer, to write a packet into at offset 0 and {@link #send}. */
    ByteBuffer buffer()
    {
        return out;
    }

    /** @return order entries one MsgOrder holds: {@code maxOrderEntries}, and what fits in a packet. */
    int maxEntriesPerOrder()
    {
        return maxEntriesPerOrder;
    }

    /** Lamport rule (paper, section 4): a larger id seen anywhere raises the local counter. */
    void observe(final int packetId)
    {
        if (Integer.compareUnsigned(packetId, lamport) > 0)
        {
            lamport = packetId;
        }
    }

    /** The epoch and commit that the MsgOrders and KeepAlives written from now on carry. */
    void viewStamp(final int epoch, final long commit)
    {
        this.epoch = epoch;
        this.commit = commit;
    }

    int epoch()
    {
        return epoch;
    }

    long commit()
    {
        return commit;
    }

    int nextPacketId()
    {
        return ++lamport;
    }

    /** Sends bytes {@code [0, length)} of the send buffer. */
    void send(final int destinationId, final int length)
    {
        sender.send(destinationId, out, length);
    }

    /** Sends bytes {@code [0, length)} of a packet kept apart from the send buffer. */
    void send(final int destinationId, final byte[] packet, final int length)
    {
        sender.send(destinationId, ByteBuffer.wrap(packet), length);
    }

    void ack(final int destinationId, final PacketType ackedType, final int ackedSenderId, final long ackedId)
    {
        ack.wrap(out, 0);
        ack.set(WIRE_ORDER, selfId, nextPacketId(), ackedType, ackedSenderId, ackedId);
        sender.send(destinationId, out, AckFlyweight.LENGTH);
    }

    /** A KeepAlive naming where the order ends, with the view stamp (its commit capped there). */
    void keepAlive(final int destinationId, final long lastOrderSeq)
    {
        keepAlive.wrap(out, 0);
        keepAlive.set(WIRE_ORDER, selfId, nextPacketId(), epoch, lastOrderSeq, Math.min(commit, lastOrderSeq));
        sender.send(destinationId, out, KeepAliveFlyweight.LENGTH);
    }

    /**
     * The leader's word to a joiner it admitted: a KeepAlive flagged START whose commit is where
     * the joiner starts ({@code startSeq}, at most the view stamp's commit), and where the order ends.
     */
    void start(final int joinerId, final long lastOrderSeq, final long startSeq)
    {
        keepAlive.wrap(out, 0);
        keepAlive.set(WIRE_ORDER, selfId, nextPacketId(), epoch, lastOrderSeq, Math.min(startSeq, Math.min(commit, lastOrderSeq)));
        keepAlive.header().start(true);
        sender.send(joinerId, out, KeepAliveFlyweight.LENGTH);
    }

    /**
     * A member's word of its epoch: a KeepAlive flagged TOLD naming this member's epoch and what it
     * delivered. To a leader of an older epoch than this member's, so that the leader steps down;
     * to an asker of orders this member does not hold past what it delivered. No leader's word to
     * anyone following this member (a member that follows it takes no epoch from it).
     */
    void told(final int destinationId, final long deliveredSeq)
    {
        keepAlive.wrap(out, 0);
        keepAlive.set(WIRE_ORDER, selfId, nextPacketId(), epoch, deliveredSeq, Math.min(commit, deliveredSeq));
        keepAlive.header().told(true);
        sender.send(destinationId, out, KeepAliveFlyweight.LENGTH);
    }

    /**
     * To the takeover this member reported to, which asks for orders it no longer has (it joined
     * past them, or forgot them): a KeepAlive flagged TOLD (a member's word, no leader's), naming
     * the epoch it promised ({@code epoch}), what it delivered ({@code last_order_seq}) and the order
     * before the first it can send ({@code commit}).
     */
    void servesFrom(final int destinationId, final int promisedEpoch, final long deliveredSeq, final long firstServedSeq)
    {
        keepAlive.wrap(out, 0);
        keepAlive.set(WIRE_ORDER, selfId, nextPacketId(), promisedEpoch, deliveredSeq, firstServedSeq - 1);
        keepAlive.header().told(true);
        sender.send(destinationId, out, KeepAliveFlyweight.LENGTH);
    }

    /**
     * The last packet of a survivor's report to the member taking over: a KeepAlive flagged REPORT
     * naming the epoch it promises to that takeover ({@code epoch}), how far it accepted
     * ({@code last_order_seq}), what it delivered ({@code commit}) and how many order entries its
     * report's MsgOrders carried ({@code report_entries}); flagged {@code unproven} when the survivor
     * may be a restarted process, {@code foundingPromise} when it promised a founding check, and
     * {@code provesNothing} when no takeover may count it (a known restart that accepted nothing since);
     * its tail names the survivor's {@code incarnation}, how far its last admission as a possibly
     * restarted process reached ({@code reach}, in {@code reachEpoch}), the highest order number it
     * knows committed ({@code fixedSeq}) and the newest incarnation it knows of each member ({@code known}).
     */
    void report(final int newLeaderId, final int promisedEpoch, final long deliveredSeq, final long acceptedSeq, final int entries,
        final boolean unproven, final boolean foundingPromise, final boolean provesNothing, final long incarnation, final int reachEpoch,
        final long reach, final long fixedSeq, final KnownIncarnations known)
    {
        final int length = KeepAliveFlyweight.reportLength(known.size());
        keepAlive.wrap(out, 0);
        keepAlive.set(WIRE_ORDER, selfId, nextPacketId(), promisedEpoch, acceptedSeq, deliveredSeq).reportEntries(entries);
        keepAlive.header().packetSize(length);
        keepAlive.reportTail(incarnation, reachEpoch, reach, fixedSeq, known.size());
        known.writeTo(keepAlive);
        keepAlive.header().report(true).unproven(unproven).foundingPromise(foundingPromise).provesNothing(provesNothing);
        sender.send(newLeaderId, out, length);
    }

    /** Tells the leader how far this member holds the order of its epoch, and how far it delivered. */
    void orderAck(final int leaderId, final long accepted, final long delivered)
    {
        orderAck.wrap(out, 0);
        orderAck.set(WIRE_ORDER, selfId, nextPacketId(), epoch, accepted, delivered);
        sender.send(leaderId, out, OrderAckFlyweight.LENGTH);
    }

    /** A MemberChange with no member list: ADDED, ONLINE or REMOVED of {@code subject}. */
    void memberChange(final int destinationId, final int subject, final int status)
    {
        memberChange.wrap(out, 0);
        memberChange.set(WIRE_ORDER, selfId, nextPacketId(), subject, status, 0);
        sender.send(destinationId, out, memberChange.packetSize());
    }

    /** A process that may have been restarted asks the members' epochs: EPOCH_ASK, multicast, with {@code nonce} and its {@code incarnation}. */
    void epochAsk(final int nonce, final long incarnation)
    {
        memberChange.wrap(out, 0);
        memberChange.set(WIRE_ORDER, selfId, nextPacketId(), selfId, MemberChangeFlyweight.STATUS_EPOCH_ASK, MemberChangeFlyweight.ASK_ENTRIES)
            .ask(nonce, 0, incarnation);
        sender.send(GroupSender.GROUP, out, memberChange.packetSize());
    }

    /**
     * A founding leader's EPOCH_ASK: its check's {@code nonce}, the epoch it {@code proposes} to
     * order in, its {@code incarnation}, and its configuration's member ids, ascending.
     */
    void foundingAsk(final int nonce, final int proposes, final long incarnation, final int[] configuration)
    {
        memberChange.wrap(out, 0);
        memberChange.set(WIRE_ORDER, selfId, nextPacketId(), selfId, MemberChangeFlyweight.STATUS_EPOCH_ASK,
            MemberChangeFlyweight.ASK_ENTRIES + configuration.length).ask(nonce, proposes, incarnation);
        for (int i = 0; i < configuration.length; i++)
        {
            memberChange.member(MemberChangeFlyweight.ASK_ENTRIES + i, configuration[i]);
        }
        sender.send(GroupSender.GROUP, out, memberChange.packetSize());
    }

    /**
     * The answer to {@code askerId}'s EPOCH_ASK {@code nonce}: the newest epoch this member is in or
     * promised, whether it knows of orders (delivered, held, kept for a report, or named by its
     * leader's KeepAlive or MsgOrder), whether its configuration is the one the ask named (true
     * for an ask that names none), and whether it promised {@code newestEpoch} to this ask; then
     * the highest order number it knows exists ({@code lastOrderSeq}: a leader's last order), its
     * {@code incarnation}, the epoch it leads and orders in ({@code leadingEpoch}, 0 for none) and
     * the newest incarnation it knows of each member ({@code known}).
     */
    void epochTold(final int askerId, final int nonce, final int newestEpoch, final boolean knowsOfOrders, final boolean sameConfiguration,
        final boolean promisedToAsk, final long lastOrderSeq, final long incarnation, final int leadingEpoch, final KnownIncarnations known)
    {
        memberChange.wrap(out, 0);
        memberChange.set(WIRE_ORDER, selfId, nextPacketId(), askerId, MemberChangeFlyweight.STATUS_EPOCH_TOLD,
                MemberChangeFlyweight.TOLD_TAIL_ENTRIES + 3 * known.size())
            .member(0, nonce).member(1, newestEpoch).member(2, knowsOfOrders ? 1 : 0).member(3, sameConfiguration ? 1 : 0)
            .member(4, promisedToAsk ? 1 : 0).toldTail(lastOrderSeq, incarnation, leadingEpoch);
        known.writeTo(memberChange);
        sender.send(askerId, out, memberChange.packetSize());
    }

    /** A joiner's ADDED; with {@code promisedEpoch} (its one entry) when it reported for an epoch newer than its own. */
    void added(final int promisedEpoch)
    {
        memberChange.wrap(out, 0);
        memberChange.set(WIRE_ORDER, selfId, nextPacketId(), selfId, MemberChangeFlyweight.STATUS_ADDED, promisedEpoch == 0 ? 0 : 1);
        if (promisedEpoch != 0)
        {
            memberChange.member(0, promisedEpoch);
        }
        sender.send(GroupSender.GROUP, out, memberChange.packetSize());
    }

    /**
     * A takeover: REMOVED({@code failedLeaderId}) from this member, proposing {@code proposedEpoch}
     * (its first entry); the second and third say what history the member taking over has: the
     * epoch it was in, and what it delivered (at most 2^31 - 1).
     */
    void takeover(final int failedLeaderId, final int proposedEpoch, final int ownEpoch, final long delivered)
    {
        memberChange.wrap(out, 0);
        memberChange.set(WIRE_ORDER, selfId, nextPacketId(), failedLeaderId, MemberChangeFlyweight.STATUS_REMOVED, 3)
            .member(0, proposedEpoch)
            .member(1, ownEpoch)
            .member(2, (int)Math.min(delivered, Integer.MAX_VALUE));
        sender.send(GroupSender.GROUP, out, memberChange.packetSize());
    }

    /** Sends a held request as its client sent it (a NAK answer, a relay, a recovery report). */
    void request(final int destinationId, final HeldRequest held)
    {
        request.wrap(out, 0);
        held.writeTo(request);
        sender.send(destinationId, out, request.packetSize());
    }
}
