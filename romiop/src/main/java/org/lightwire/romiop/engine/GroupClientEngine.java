package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.CancelFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.Invalid;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.ReplyFlyweight;
import org.lightwire.romiop.protocol.RequestFlyweight;

/**
 * A client's side of the group's reliable multicast (paper, Figure 4 lines 6-11 and 41-45): each
 * Request is kept, multicast, and multicast again every {@code retransmitTimeoutNs} until every
 * member has ACKed it. Members' Replies go to a {@link ReplyHandler}, each once per member and
 * request; every Reply, duplicates included, is ACKed to its member, which resends it until then.
 * Consolidation is the caller's ({@code org.lightwire.romiop.consolidation}).
 */
public final class GroupClientEngine
{
    private static final ByteOrder WIRE_ORDER = ByteOrder.BIG_ENDIAN;

    private final GroupConfig config;
    private final GroupSender sender;
    private final GroupCounters counters = new GroupCounters();
    private final ByteBuffer out;
    private final PacketHeader_1_0 header = new PacketHeader_1_0();
    private final RequestFlyweight request = new RequestFlyweight();
    private final AckFlyweight ack = new AckFlyweight();
    private final ReplyFlyweight reply = new ReplyFlyweight();
    private final CancelFlyweight cancelPacket = new CancelFlyweight();
    private final ByteBuffer ackOut = ByteBuffer.allocate(AckFlyweight.LENGTH);
    private final ReplyHandler replyHandler;
    /** (member, request packet id) of replies delivered, oldest first, bounded by replyHistory. */
    private final java.util.LinkedHashSet<Long> repliesSeen = new java.util.LinkedHashSet<>();
    /** The members whose ACK a request needs: those still in the group. */
    private long requiredMask;
    private final MemberChangeFlyweight memberChange = new MemberChangeFlyweight();
    private volatile MembershipListener membershipListener;
    /** Unacknowledged requests by packet id. */
    private final Map<Integer, Outstanding> outstanding = new HashMap<>();
    private int lamport;

    /** A client that sends requests only: Replies are counted as unexpected. */
    public GroupClientEngine(final GroupConfig config, final GroupSender sender)
    {
        this(config, sender, null);
    }

    /** @param replyHandler gets each member's reply once; null: Replies are counted as unexpected. */
    public GroupClientEngine(final GroupConfig config, final GroupSender sender, final ReplyHandler replyHandler)
    {
        this.replyHandler = replyHandler;
        if (config.memberIndex(config.selfId) >= 0)
        {
            throw new IllegalArgumentException("client id " + config.selfId + " is also a member id; give the client its own id");
        }
        this.config = config;
        this.sender = sender;
        this.out = ByteBuffer.allocate(config.maxPacketBytes);
        this.requiredMask = config.memberIds.length == 64 ? -1L : (1L << config.memberIds.length) - 1;
    }

    public GroupCounters counters()
    {
        return counters;
    }

    /** @return true when another request may be multicast now (the outstanding window has room). */
    public boolean canMulticast()
    {
        return outstanding.size() < config.maxOutstandingRequests;
    }

    public int outstandingRequests()
    {
        return outstanding.size();
    }

    /**
     * Multicasts one request to the group and keeps it until every member ACKs it.
     *
     * @return the request's packet id, which with this client's id names it in the group's order.
     */
    public int multicast(final int requestId, final int responseFlags, final ByteBuffer payload, final int offset, final int length, final long nowNs)
    {
        if (!canMulticast())
        {
            throw new IllegalStateException(outstanding.size() + " requests outstanding, the configured maximum: wait until canMulticast()");
        }
        if (RequestFlyweight.HEADER_LENGTH + length > config.maxPacketBytes)
        {
            throw new IllegalArgumentException("payload of " + length + " bytes exceeds maxPacketBytes " + config.maxPacketBytes +
                " less the " + RequestFlyweight.HEADER_LENGTH + "-byte request header; fragmentation is not implemented yet");
        }
        final int packetId = ++lamport;
        request.wrap(out, 0);
        request.set(WIRE_ORDER, config.selfId, packetId, requestId, responseFlags, length).payload(payload, offset, length);
        final byte[] copy = new byte[request.packetSize()];
        out.get(0, copy);
        outstanding.put(packetId, new Outstanding(copy, nowNs + config.retransmitTimeoutNs));
        counters.requestsSent++;
        sender.send(GroupSender.GROUP, out, copy.length);
        return packetId;
    }

    /**
     * Withdraws a request (its caller gave up, e.g. on its timeout): stops resending it and
     * multicasts a Cancel; members drop the request if it is not yet ordered. Best effort, as
     * GIOP's CancelRequest: a lost Cancel, or one that arrives after the order, leaves the request
     * to run everywhere, never on some members only.
     *
     * @param packetId what {@link #multicast} returned.
     */
    public void cancel(final int packetId, final long nowNs)
    {
        final Outstanding o = outstanding.remove(packetId);
        int requestId = 0;
        if (o != null)
        {
            request.wrap(ByteBuffer.wrap(o.packet), 0);
            requestId = request.requestId();
        }
        cancelPacket.wrap(out, 0);
        cancelPacket.set(WIRE_ORDER, config.selfId, ++lamport, packetId, requestId);
        counters.cancelsSent++;
        sender.send(GroupSender.GROUP, out, CancelFlyweight.LENGTH);
    }

    /** Handles one received datagram; never throws. */
    public void onPacket(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        header.wrap(buffer, offset);
        final Invalid invalid = header.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        if (header.type() == PacketType.REPLY && replyHandler != null)
        {
            onReply(buffer, offset, length);
            return;
        }
        if (header.type() == PacketType.MEMBER_CHANGE)
        {
            onMemberChange(buffer, offset, length);
            return;
        }
        if (header.type() != PacketType.ACK)
        {
            counters.unexpectedPackets++;
            return;
        }
        ack.wrap(buffer, offset);
        final Invalid ackInvalid = ack.validate(length);
        if (ackInvalid != null)
        {
            counters.countInvalid(ackInvalid);
            return;
        }
        if (Integer.compareUnsigned(ack.packetId(), lamport) > 0)
        {
            lamport = ack.packetId();
        }
        final int index = config.memberIndex(ack.senderId());
        if (ack.ackedType() != PacketType.REQUEST || ack.ackedSenderId() != config.selfId || index < 0)
        {
            counters.unexpectedPackets++;
            return;
        }
        final Outstanding o = outstanding.get((int)ack.ackedId());
        if (o == null)
        {
            return;
        }
        o.ackedMask |= 1L << index;
        if ((o.ackedMask & requiredMask) == requiredMask)
        {
            outstanding.remove((int)ack.ackedId());
            counters.requestsCompleted++;
        }
    }

    private void onReply(final ByteBuffer buffer, final int offset, final int length)
    {
        reply.wrap(buffer, offset);
        final Invalid invalid = reply.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        if (Integer.compareUnsigned(reply.packetId(), lamport) > 0)
        {
            lamport = reply.packetId();
        }
        final int member = reply.senderId();
        if (reply.requestSenderId() != config.selfId || config.memberIndex(member) < 0)
        {
            counters.unexpectedPackets++;
            return;
        }
        // ACKed every time: the member resends only because our ACK did not reach it.
        ack.wrap(ackOut, 0);
        ack.set(WIRE_ORDER, config.selfId, ++lamport, PacketType.REPLY, member, reply.requestPacketId() & 0xFFFF_FFFFL);
        sender.send(member, ackOut, AckFlyweight.LENGTH);
        final long key = ((long)member << 32) | (reply.requestPacketId() & 0xFFFF_FFFFL);
        if (!repliesSeen.add(key))
        {
            counters.duplicateReplies++;
            return;
        }
        if (repliesSeen.size() > config.replyHistory)
        {
            final Iterator<Long> oldest = repliesSeen.iterator();
            oldest.next();
            oldest.remove();
        }
        counters.repliesReceived++;
        replyHandler.onReply(member, reply.requestPacketId(), reply.requestId(), buffer, reply.payloadOffset(), reply.payloadLength());
    }

    /** Told when the view changes; called on the engine's thread. */
    public void membershipListener(final MembershipListener listener)
    {
        this.membershipListener = listener;
    }

    /** @return the members whose ACK a request needs now, in configuration order. */
    public int[] currentMembers()
    {
        final int[] members = new int[Long.bitCount(requiredMask)];
        for (int i = 0, k = 0; i < config.memberIds.length; i++)
        {
            if ((requiredMask & (1L << i)) != 0)
            {
                members[k++] = config.memberIds[i];
            }
        }
        return members;
    }

    /** The leader removed a member (or sent the whole list): stop waiting for it. */
    private void onMemberChange(final ByteBuffer buffer, final int offset, final int length)
    {
        memberChange.wrap(buffer, offset);
        final Invalid invalid = memberChange.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        if (memberChange.senderId() != config.leaderId)
        {
            counters.unexpectedPackets++;
            return;
        }
        long mask = requiredMask;
        if (memberChange.status() == MemberChangeFlyweight.STATUS_REMOVED)
        {
            final int index = config.memberIndex(memberChange.memberId());
            if (index >= 0)
            {
                mask &= ~(1L << index);
            }
        }
        else if (memberChange.status() == MemberChangeFlyweight.STATUS_LIST)
        {
            long listed = 0;
            for (int k = 0; k < memberChange.memberCount(); k++)
            {
                final int index = config.memberIndex(memberChange.member(k));
                if (index >= 0)
                {
                    listed |= 1L << index;
                }
            }
            // Only removals: a member does not come back in this version (no rejoin yet).
            mask &= listed;
        }
        if (mask == requiredMask)
        {
            return;
        }
        counters.membersRemoved += Long.bitCount(requiredMask & ~mask);
        requiredMask = mask;
        for (final Iterator<Outstanding> it = outstanding.values().iterator(); it.hasNext(); )
        {
            if ((it.next().ackedMask & requiredMask) == requiredMask)
            {
                it.remove();
                counters.requestsCompleted++;
            }
        }
        final MembershipListener listener = membershipListener;
        if (listener != null)
        {
            listener.onMembers(currentMembers(), config.leaderId);
        }
    }

    /** Re-multicasts every request whose retransmission deadline has passed. */
    public void onTimer(final long nowNs)
    {
        for (final Iterator<Outstanding> it = outstanding.values().iterator(); it.hasNext(); )
        {
            final Outstanding o = it.next();
            if (o.deadlineNs - nowNs <= 0)
            {
                counters.requestRetransmits++;
                sender.send(GroupSender.GROUP, ByteBuffer.wrap(o.packet), o.packet.length);
                o.deadlineNs = nowNs + config.retransmitTimeoutNs;
            }
        }
    }

    /** @return the earliest retransmission deadline, or Long.MAX_VALUE when nothing is outstanding. */
    public long nextDeadlineNs()
    {
        long deadline = Long.MAX_VALUE;
        boolean any = false;
        for (final Outstanding o : outstanding.values())
        {
            if (!any || o.deadlineNs - deadline < 0)
            {
                deadline = o.deadlineNs;
                any = true;
            }
        }
        return deadline;
    }

    private static final class Outstanding
    {
        final byte[] packet;
        long deadlineNs;
        long ackedMask;

        Outstanding(final byte[] packet, final long deadlineNs)
        {
            this.packet = packet;
            this.deadlineNs = deadlineNs;
        }
    }
}
