package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.CancelFlyweight;
import org.lightwire.romiop.protocol.Invalid;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.NakFlyweight;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.ReplyFlyweight;
import org.lightwire.romiop.protocol.RequestFlyweight;

/**
 * One group member, and when it is the configured leader also the fixed sequencer (paper, section
 * 4.2 and Figure 4). A pure state machine: packets in through {@link #onPacket}, time through
 * {@link #onTimer}, packets out through {@link GroupSender}, requests out through
 * {@link DeliveryHandler} in the total order.
 *
 * <p>Member: holds every Request it receives (line 17) and ACKs it to its client, again for a
 * duplicate (section 4.1, since the first ACK may have been lost); delivers requests strictly in
 * MsgOrder order and never past a missing request or order (lines 33-39). A gap (an order it
 * lacks, or an ordered request it lacks) is NAKed to the leader after {@code nakDelayNs}, which
 * waits out reordering, and again every {@code retransmitTimeoutNs} until filled. After each
 * MsgOrder, and whenever delivery advances, it sends the leader a cumulative ACK: "delivered
 * everything up to order sequence N".
 *
 * <p>Leader: also a member (it delivers its own orders). It orders each request once, in the order
 * it received them. Order batching beyond the paper: in state {@code LEADER_IDLE} a request is
 * ordered at once; the sequencer then stays {@code LEADER_BATCHING} for one order interval, but
 * orders at once again whenever every member has ACKed every order sent (nothing in flight: an
 * ACK clock, as Nagle's algorithm), so batching happens only while orders are in flight, and
 * whatever arrives meanwhile goes out in one MsgOrder at the interval's end. With
 * {@code atOnceWhenIdle=false} every request waits for the interval, as in the paper's 10 ms
 * measurements. The leader keeps each ordered request and order entry until every member's
 * cumulative ACK has passed it, serves NAKs from that store, and re-multicasts the orders some
 * member still lacks every {@code retransmitTimeoutNs} (so a lost last MsgOrder is recovered
 * without a NAK).
 *
 * <p>Replies ({@link #sendReply}): each is kept until its client ACKs it and sent again every
 * retransmit timeout, at most {@code maxReplyRetransmits} times; at most
 * {@code maxUnackedReplies} are kept (the oldest is given up beyond).
 *
 * <p>Duplicate filter: bounded per client and in clients ({@link RequestWindows}).
 *
 * <p>Cancel: the sequencer does not order a request its client cancelled in time; members drop
 * it unless they know of its order (if the order comes later, the request is NAKed and taken).
 *
 * <p>Failure detection ({@code GroupConfig.keepAlive}): the leader multicasts a KeepAlive every
 * period, members answer with their ACK, and a member silent for the member timeout is removed
 * (MemberChange removed to the group; the member list to each client that sends a request
 * afterwards, and to the group with each later KeepAlive). Nobody waits for a removed member.
 *
 * <p>Not yet: join and rejoin, announced leave, leader failover.
 */
public final class MemberEngine
{
    /** The member's role and, for the leader, the sequencer's batching state. */
    public enum State
    {
        /** An ordinary member: holds requests, delivers in the leader's order. */
        MEMBER,
        /** The sequencer with no order sent within the last order interval. */
        LEADER_IDLE,
        /** The sequencer inside an order interval: new requests wait for its end. */
        LEADER_BATCHING
    }

    private static final ByteOrder WIRE_ORDER = ByteOrder.BIG_ENDIAN;

    private final GroupConfig config;
    private final GroupSender sender;
    private final DeliveryHandler handler;
    private final GroupCounters counters = new GroupCounters();
    private final ByteBuffer out;

    private final PacketHeader_1_0 header = new PacketHeader_1_0();
    private final RequestFlyweight request = new RequestFlyweight();
    private final MsgOrderFlyweight msgOrder = new MsgOrderFlyweight();
    private final AckFlyweight ack = new AckFlyweight();
    private final NakFlyweight nak = new NakFlyweight();
    private final KeepAliveFlyweight keepAlive = new KeepAliveFlyweight();
    private final ReplyFlyweight reply = new ReplyFlyweight();
    private final CancelFlyweight cancel = new CancelFlyweight();
    private final MemberChangeFlyweight memberChange = new MemberChangeFlyweight();
    /** The group as this member knows it: index into config.memberIds, true while a member. */
    private final boolean[] inGroup;
    /** Leader: when each member was last heard from. */
    private final long[] lastHeardNs;
    /** Leader: number of removals so far; a client is told the list once per view. */
    private int viewVersion;
    private final Map<Integer, Integer> viewSentToClient = new HashMap<>();
    private long nextKeepAliveNs = -1;
    /** Requests their clients cancelled before this member knew of an order for them; bounded. */
    private final java.util.LinkedHashSet<Long> cancelled = new java.util.LinkedHashSet<>();
    /** Replies sent and not yet ACKed by their client, oldest first, by (client, request packet id). */
    private final java.util.LinkedHashMap<Long, UnackedReply> unackedReplies = new java.util.LinkedHashMap<>();

    private State state;
    private int lamport;

    /** Received, not yet delivered requests, by {@link #key}. */
    private final Map<Long, Held> received = new HashMap<>();
    /** Delivered requests: the duplicate filter, bounded per client (RequestWindows). */
    private final RequestWindows delivered;
    /** Known order entries not yet delivered: order sequence number to request key. */
    private final TreeMap<Long, Long> orders = new TreeMap<>();
    private long nextDeliverSeq = 1;
    private long highestKnownSeq;
    private long lastAckedSeq;
    private boolean nakArmed;
    private long nakDeadlineNs;

    // Sequencer only.
    private final ArrayDeque<Long> pendingOrder = new ArrayDeque<>();
    private final RequestWindows orderedKeys;
    private final Map<Long, Long> orderLog = new HashMap<>();
    private final Map<Long, Held> retained = new HashMap<>();
    private final long[] memberDeliveredSeq;
    private long nextOrderSeq = 1;
    private long forgottenSeq;
    private long batchDeadlineNs;
    private boolean retransmitArmed;
    private long retransmitDeadlineNs;

    public MemberEngine(final GroupConfig config, final GroupSender sender, final DeliveryHandler handler)
    {
        if (config.memberIndex(config.selfId) < 0)
        {
            throw new IllegalArgumentException("member " + config.selfId + " is not in the group's member list");
        }
        this.config = config;
        this.sender = sender;
        this.handler = handler;
        this.out = ByteBuffer.allocate(config.maxPacketBytes);
        this.memberDeliveredSeq = new long[config.memberIds.length];
        this.delivered = new RequestWindows(config.requestWindow, config.maxClients);
        this.inGroup = new boolean[config.memberIds.length];
        java.util.Arrays.fill(inGroup, true);
        this.lastHeardNs = new long[config.memberIds.length];
        this.orderedKeys = new RequestWindows(config.requestWindow, config.maxClients);
        this.state = config.selfId == config.leaderId ? State.LEADER_IDLE : State.MEMBER;
    }

    public State state()
    {
        return state;
    }

    public GroupCounters counters()
    {
        return counters;
    }

    /** @return the order sequence number of the last delivered request (0 before the first). */
    public long deliveredSeq()
    {
        return nextDeliverSeq - 1;
    }

    /** Handles one received datagram. Never throws for any content: bad packets are counted. */
    public void onPacket(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        header.wrap(buffer, offset);
        final Invalid invalid = header.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        switch (header.type())
        {
            case REQUEST -> onRequest(buffer, offset, length, nowNs);
            case MSG_ORDER -> onMsgOrder(buffer, offset, length, nowNs);
            case ACK -> onAck(buffer, offset, length, nowNs);
            case NAK -> onNak(buffer, offset, length, nowNs);
            case KEEP_ALIVE -> onKeepAlive(buffer, offset, length, nowNs);
            case CANCEL -> onCancel(buffer, offset, length);
            case MEMBER_CHANGE -> onMemberChange(buffer, offset, length);
            default -> counters.unexpectedPackets++;
        }
    }

    /** Fires whatever deadline has passed: a NAK, the end of an order interval, an order resend. */
    public void onTimer(final long nowNs)
    {
        if (nakArmed && nakDeadlineNs - nowNs <= 0)
        {
            sendNak();
            nakDeadlineNs = nowNs + config.retransmitTimeoutNs;
        }
        if (state == State.LEADER_BATCHING && batchDeadlineNs - nowNs <= 0)
        {
            if (pendingOrder.isEmpty())
            {
                transitionTo(State.LEADER_IDLE, nowNs);
            }
            else
            {
                emitOrders(nowNs);
                batchDeadlineNs = nowNs + config.orderIntervalNs;
            }
        }
        if (retransmitArmed && retransmitDeadlineNs - nowNs <= 0)
        {
            resendLaggingOrders(nowNs);
        }
        if (!unackedReplies.isEmpty())
        {
            resendReplies(nowNs);
        }
        if (state != State.MEMBER && config.keepAlivePeriodNs > 0)
        {
            keepAliveTick(nowNs);
        }
    }

    /** @return the absolute time {@link #onTimer} next needs to run, or Long.MAX_VALUE for never. */
    public long nextDeadlineNs()
    {
        long deadline = Long.MAX_VALUE;
        boolean any = false;
        if (nakArmed)
        {
            deadline = nakDeadlineNs;
            any = true;
        }
        if (state == State.LEADER_BATCHING && (!any || batchDeadlineNs - deadline < 0))
        {
            deadline = batchDeadlineNs;
            any = true;
        }
        if (retransmitArmed && (!any || retransmitDeadlineNs - deadline < 0))
        {
            deadline = retransmitDeadlineNs;
            any = true;
        }
        if (!unackedReplies.isEmpty())
        {
            final long replies = earliestReplyDeadline();
            if (!any || replies - deadline < 0)
            {
                deadline = replies;
                any = true;
            }
        }
        if (state != State.MEMBER && config.keepAlivePeriodNs > 0 && nextKeepAliveNs != -1 && (!any || nextKeepAliveNs - deadline < 0))
        {
            deadline = nextKeepAliveNs;
        }
        return deadline;
    }

    /**
     * Sends the servant's reply to a delivered request to its client (paper, Figure 4 line 40),
     * and keeps it until the client ACKs it, sending it again every retransmit timeout, at most
     * {@code maxReplyRetransmits} times. At most {@code maxUnackedReplies} are kept; beyond, the
     * oldest is given up (counted).
     *
     * @param clientId  the request's sender.
     * @param packetId  the request's packet id.
     * @param requestId the GIOP request id.
     * @param payload   the GIOP reply, bytes {@code [offset, offset + length)}, copied.
     * @throws IllegalArgumentException the reply does not fit one packet (no fragmentation yet).
     */
    public void sendReply(final int clientId, final int packetId, final int requestId, final ByteBuffer payload, final int offset,
        final int length, final long nowNs)
    {
        if (ReplyFlyweight.HEADER_LENGTH + length > config.maxPacketBytes)
        {
            throw new IllegalArgumentException("reply of " + length + " bytes exceeds maxPacketBytes " + config.maxPacketBytes +
                " less the " + ReplyFlyweight.HEADER_LENGTH + "-byte reply header; fragmentation is not implemented yet");
        }
        reply.wrap(out, 0);
        reply.set(WIRE_ORDER, config.selfId, nextPacketId(), clientId, packetId, requestId, 0, length).payload(payload, offset, length);
        final byte[] copy = new byte[reply.packetSize()];
        out.get(0, copy);
        final long key = key(clientId, packetId);
        unackedReplies.remove(key);
        if (unackedReplies.size() >= config.maxUnackedReplies)
        {
            final java.util.Iterator<UnackedReply> oldest = unackedReplies.values().iterator();
            oldest.next();
            oldest.remove();
            counters.repliesAbandoned++;
        }
        unackedReplies.put(key, new UnackedReply(clientId, copy, nowNs + config.retransmitTimeoutNs));
        counters.repliesSent++;
        sender.send(clientId, out, copy.length);
    }

    /** @return request ids the duplicate filter holds, over every client (bounded). */
    public int rememberedRequests()
    {
        return delivered.size();
    }

    /** @return replies sent and not yet ACKed. */
    public int unackedReplies()
    {
        return unackedReplies.size();
    }

    private void resendReplies(final long nowNs)
    {
        for (final java.util.Iterator<UnackedReply> it = unackedReplies.values().iterator(); it.hasNext(); )
        {
            final UnackedReply r = it.next();
            if (r.deadlineNs - nowNs > 0)
            {
                continue;
            }
            if (r.retransmits >= config.maxReplyRetransmits)
            {
                it.remove();
                counters.repliesAbandoned++;
                continue;
            }
            r.retransmits++;
            r.deadlineNs = nowNs + config.retransmitTimeoutNs;
            counters.replyRetransmits++;
            sender.send(r.clientId, ByteBuffer.wrap(r.packet), r.packet.length);
        }
    }

    private long earliestReplyDeadline()
    {
        long deadline = Long.MAX_VALUE;
        boolean any = false;
        for (final UnackedReply r : unackedReplies.values())
        {
            if (!any || r.deadlineNs - deadline < 0)
            {
                deadline = r.deadlineNs;
                any = true;
            }
        }
        return deadline;
    }

    private static final class UnackedReply
    {
        final int clientId;
        final byte[] packet;
        long deadlineNs;
        int retransmits;

        UnackedReply(final int clientId, final byte[] packet, final long deadlineNs)
        {
            this.clientId = clientId;
            this.packet = packet;
            this.deadlineNs = deadlineNs;
        }
    }

    private void onRequest(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        request.wrap(buffer, offset);
        final Invalid invalid = request.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        counters.requestsReceived++;
        observe(request.packetId());
        if (state != State.MEMBER && viewVersion > 0 && !Integer.valueOf(viewVersion).equals(viewSentToClient.get(request.senderId())))
        {
            // The group changed since this client last heard: it may still wait for a removed
            // member's ACK. Told once per view (it retransmits to the group while it waits).
            viewSentToClient.put(request.senderId(), viewVersion);
            sendMemberList(request.senderId());
        }
        final long key = key(request.senderId(), request.packetId());
        // Before the duplicate check: the client resends only because it lacks this member's ACK.
        sendAck(request.senderId(), PacketType.REQUEST, request.senderId(), request.packetId());
        if (delivered.contains(request.senderId(), request.packetId()) || received.containsKey(key))
        {
            counters.duplicateRequests++;
            return;
        }
        if (cancelled.contains(key))
        {
            if (!orders.containsValue(key))
            {
                // Cancelled by its client and not ordered (as far as this member knows): a late
                // copy. Had the leader ordered it first, the order would be here, and it is taken.
                counters.cancelledRequestsDropped++;
                return;
            }
            cancelled.remove(key);
        }
        final byte[] payload = new byte[request.payloadLength()];
        buffer.get(request.payloadOffset(), payload);
        received.put(key, new Held(request.senderId(), request.packetId(), request.requestId(), request.responseFlags(), payload));
        if (state != State.MEMBER && orderedKeys.add(request.senderId(), request.packetId()))
        {
            pendingOrder.add(key);
            if (state == State.LEADER_IDLE)
            {
                if (config.orderAtOnceWhenIdle)
                {
                    emitOrders(nowNs);
                }
                transitionTo(State.LEADER_BATCHING, nowNs);
            }
            else if (config.orderAtOnceWhenIdle && everyOrderAcknowledged())
            {
                // Batching, but the pipeline is empty: every member has delivered every order sent,
                // so waiting for the interval's end would only add latency (a client calling one
                // call after another would wait out the interval every time).
                counters.ordersAtOnceInBatching++;
                emitOrders(nowNs);
                transitionTo(State.LEADER_BATCHING, nowNs);
            }
        }
        deliverInOrder(nowNs);
    }

    /** Leader: true when every member in the group has ACKed delivery of every order sent. */
    private boolean everyOrderAcknowledged()
    {
        return lowestDeliveredSeq() >= nextOrderSeq - 1;
    }

    /**
     * A client withdraws a request: the sequencer does not order it if it has not yet (a copy that
     * arrives later is not ordered either); a member drops it unless it knows of an order for it.
     * A Cancel that comes after the order changes nothing: the request is delivered everywhere.
     */
    private void onCancel(final ByteBuffer buffer, final int offset, final int length)
    {
        cancel.wrap(buffer, offset);
        final Invalid invalid = cancel.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        observe(cancel.packetId());
        counters.cancelsReceived++;
        final int client = cancel.senderId();
        final int packetId = cancel.requestPacketId();
        final long key = key(client, packetId);
        if (delivered.contains(client, packetId))
        {
            counters.cancelsTooLate++;
            return;
        }
        if (state != State.MEMBER)
        {
            final boolean neverOrdered = pendingOrder.remove(key) || orderedKeys.add(client, packetId);
            if (!neverOrdered)
            {
                counters.cancelsTooLate++;
                return;
            }
        }
        else if (orders.containsValue(key))
        {
            counters.cancelsTooLate++;
            return;
        }
        received.remove(key);
        cancelled.add(key);
        if (cancelled.size() > config.replyHistory)
        {
            final java.util.Iterator<Long> oldest = cancelled.iterator();
            oldest.next();
            oldest.remove();
        }
        counters.requestsCancelled++;
    }

    /**
     * Leader: starts failure detection at its first call (every member counts as just heard),
     * then multicasts a KeepAlive every period (members answer with their ACK) and removes every
     * member silent for the member timeout.
     */
    private void keepAliveTick(final long nowNs)
    {
        if (nextKeepAliveNs == -1)
        {
            java.util.Arrays.fill(lastHeardNs, nowNs);
            nextKeepAliveNs = nowNs;
        }
        if (nextKeepAliveNs - nowNs > 0)
        {
            return;
        }
        nextKeepAliveNs = nowNs + config.keepAlivePeriodNs;
        for (int i = 0; i < inGroup.length; i++)
        {
            if (inGroup[i] && config.memberIds[i] != config.selfId && nowNs - lastHeardNs[i] > config.memberTimeoutNs)
            {
                remove(i);
            }
        }
        keepAlive.wrap(out, 0);
        keepAlive.set(WIRE_ORDER, config.selfId, nextPacketId(), nextOrderSeq - 1);
        sender.send(GroupSender.GROUP, out, KeepAliveFlyweight.LENGTH);
        if (viewVersion > 0)
        {
            // Members that missed a MemberChange learn the list at the next probe.
            sendMemberList(GroupSender.GROUP);
        }
    }

    private void heard(final int index, final long nowNs)
    {
        if (index >= 0)
        {
            lastHeardNs[index] = nowNs;
        }
    }

    /** Leader: removes a silent member; nobody waits for it any more. */
    private void remove(final int index)
    {
        inGroup[index] = false;
        viewVersion++;
        counters.membersRemoved++;
        memberChange.wrap(out, 0);
        memberChange.set(WIRE_ORDER, config.selfId, nextPacketId(), config.memberIds[index], MemberChangeFlyweight.STATUS_REMOVED, 0);
        sender.send(GroupSender.GROUP, out, MemberChangeFlyweight.length(0));
        // Clients are not in the group: each one the leader has heard from gets the new list
        // now, since a client whose requests every member had ACKed before the crash would
        // otherwise wait for the removed member's reply until its timeout.
        for (final int client : orderedKeys.clientIds())
        {
            viewSentToClient.put(client, viewVersion);
            sendMemberList(client);
        }
        forgetFullyDelivered();
    }

    private void sendMemberList(final int destinationId)
    {
        final int[] members = currentMembers();
        memberChange.wrap(out, 0);
        memberChange.set(WIRE_ORDER, config.selfId, nextPacketId(), config.selfId, MemberChangeFlyweight.STATUS_LIST, members.length);
        for (int i = 0; i < members.length; i++)
        {
            memberChange.member(i, members[i]);
        }
        sender.send(destinationId, out, MemberChangeFlyweight.length(members.length));
    }

    /** Member: the leader's word on the group (removed, or the whole list). */
    private void onMemberChange(final ByteBuffer buffer, final int offset, final int length)
    {
        memberChange.wrap(buffer, offset);
        final Invalid invalid = memberChange.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        observe(memberChange.packetId());
        if (state != State.MEMBER || memberChange.senderId() != config.leaderId)
        {
            counters.unexpectedPackets++;
            return;
        }
        if (memberChange.status() == MemberChangeFlyweight.STATUS_REMOVED)
        {
            final int index = config.memberIndex(memberChange.memberId());
            if (index >= 0 && inGroup[index])
            {
                inGroup[index] = false;
                counters.membersRemoved++;
            }
        }
        else if (memberChange.status() == MemberChangeFlyweight.STATUS_LIST)
        {
            for (int i = 0; i < inGroup.length; i++)
            {
                boolean listed = false;
                for (int k = 0; k < memberChange.memberCount() && !listed; k++)
                {
                    listed = memberChange.member(k) == config.memberIds[i];
                }
                if (inGroup[i] && !listed)
                {
                    inGroup[i] = false;
                    counters.membersRemoved++;
                }
            }
        }
    }

    /** @return the members of the group as this member knows them, in configuration order. */
    public int[] currentMembers()
    {
        int n = 0;
        for (final boolean in : inGroup)
        {
            n += in ? 1 : 0;
        }
        final int[] members = new int[n];
        for (int i = 0, k = 0; i < inGroup.length; i++)
        {
            if (inGroup[i])
            {
                members[k++] = config.memberIds[i];
            }
        }
        return members;
    }

    private void onMsgOrder(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        msgOrder.wrap(buffer, offset);
        final Invalid invalid = msgOrder.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        observe(msgOrder.packetId());
        if (state != State.MEMBER || msgOrder.senderId() != config.leaderId)
        {
            counters.unexpectedPackets++;
            return;
        }
        final long first = msgOrder.firstOrderSeq();
        final int count = msgOrder.entryCount();
        for (int i = 0; i < count; i++)
        {
            final long seq = first + i;
            if (seq < nextDeliverSeq || orders.containsKey(seq))
            {
                counters.duplicateOrderEntries++;
                continue;
            }
            orders.put(seq, key(msgOrder.entrySenderId(i), msgOrder.entryPacketId(i)));
        }
        highestKnownSeq = Math.max(highestKnownSeq, first + count - 1);
        deliverInOrder(nowNs);
        // Acknowledged even when nothing was new: the leader resends only because it lacks our ACK.
        sendOrderAck();
    }

    private void onKeepAlive(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        keepAlive.wrap(buffer, offset);
        final Invalid invalid = keepAlive.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        observe(keepAlive.packetId());
        highestKnownSeq = Math.max(highestKnownSeq, keepAlive.lastOrderSeq());
        deliverInOrder(nowNs);
        sendOrderAck();
    }

    private void onAck(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        ack.wrap(buffer, offset);
        final Invalid invalid = ack.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        observe(ack.packetId());
        if (ack.ackedType() == PacketType.REPLY)
        {
            // A client confirms this member's reply to its request ackedId.
            if (ack.ackedSenderId() == config.selfId && unackedReplies.remove(key(ack.senderId(), (int)ack.ackedId())) != null)
            {
                counters.repliesAcked++;
            }
            return;
        }
        final int index = config.memberIndex(ack.senderId());
        heard(index, nowNs);
        if (state == State.MEMBER || ack.ackedType() != PacketType.MSG_ORDER || index < 0 || !inGroup[index])
        {
            counters.unexpectedPackets++;
            return;
        }
        // Cumulative and capped: an ACK from a confused member cannot make us forget unsent orders.
        final long seq = Math.min(ack.ackedId(), nextOrderSeq - 1);
        if (seq > memberDeliveredSeq[index])
        {
            memberDeliveredSeq[index] = seq;
            forgetFullyDelivered();
            if (state == State.LEADER_BATCHING && config.orderAtOnceWhenIdle && !pendingOrder.isEmpty() && everyOrderAcknowledged())
            {
                // The last ACK of the orders in flight: what waits goes out now, as one batch.
                counters.ordersAtOnceInBatching++;
                emitOrders(nowNs);
                transitionTo(State.LEADER_BATCHING, nowNs);
            }
        }
    }

    private void onNak(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        nak.wrap(buffer, offset);
        final Invalid invalid = nak.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        observe(nak.packetId());
        final int requester = nak.senderId();
        heard(config.memberIndex(requester), nowNs);
        if (state == State.MEMBER || config.memberIndex(requester) < 0)
        {
            counters.unexpectedPackets++;
            return;
        }
        counters.naksServed++;
        if (nak.nakType() == PacketType.MSG_ORDER)
        {
            sendOrders(requester, Math.max(nak.fromOrderSeq(), forgottenSeq + 1));
            return;
        }
        final int count = nak.entryCount();
        for (int i = 0; i < count; i++)
        {
            final long key = key(nak.entrySenderId(i), nak.entryPacketId(i));
            Held held = retained.get(key);
            if (held == null)
            {
                held = received.get(key);
            }
            if (held != null)
            {
                sendRequest(requester, held);
            }
        }
    }

    private void deliverInOrder(final long nowNs)
    {
        Long key;
        while ((key = orders.get(nextDeliverSeq)) != null)
        {
            final Held held = received.remove(key);
            if (held == null)
            {
                break;
            }
            orders.remove(nextDeliverSeq);
            delivered.add(held.senderId, held.packetId);
            if (state != State.MEMBER)
            {
                retained.put(key, held);
            }
            counters.delivered++;
            handler.onDeliver(nextDeliverSeq, held.senderId, held.packetId, held.requestId, ByteBuffer.wrap(held.payload), 0, held.payload.length);
            nextDeliverSeq++;
        }
        highestKnownSeq = Math.max(highestKnownSeq, nextDeliverSeq - 1);
        final boolean gap = orders.containsKey(nextDeliverSeq) || highestKnownSeq >= nextDeliverSeq;
        if (gap && !nakArmed)
        {
            nakArmed = true;
            nakDeadlineNs = nowNs + config.nakDelayNs;
        }
        else if (!gap)
        {
            nakArmed = false;
        }
        if (state == State.MEMBER && nextDeliverSeq - 1 > lastAckedSeq)
        {
            sendOrderAck();
        }
    }

    private void sendNak()
    {
        if (state != State.MEMBER)
        {
            return;
        }
        if (!orders.containsKey(nextDeliverSeq))
        {
            nak.wrap(out, 0);
            nak.setOrderNak(WIRE_ORDER, config.selfId, nextPacketId(), nextDeliverSeq);
            counters.orderNaksSent++;
            sender.send(config.leaderId, out, nak.packetSize());
            return;
        }
        final int capacity = Math.min(0xFFFF, (config.maxPacketBytes - NakFlyweight.HEADER_LENGTH) / NakFlyweight.ENTRY_LENGTH);
        final int packetId = nextPacketId();
        nak.wrap(out, 0);
        // Header first to fix the byte order, entries next, the count last once it is known.
        nak.setRequestNak(WIRE_ORDER, config.selfId, packetId, 0);
        int count = 0;
        for (final Map.Entry<Long, Long> e : orders.entrySet())
        {
            if (count == capacity)
            {
                break;
            }
            final long key = e.getValue();
            if (!received.containsKey(key))
            {
                nak.entry(count++, (int)(key >>> 32), (int)key);
            }
        }
        nak.setRequestNak(WIRE_ORDER, config.selfId, packetId, count);
        counters.requestNaksSent++;
        sender.send(config.leaderId, out, nak.packetSize());
    }

    private void emitOrders(final long nowNs)
    {
        while (!pendingOrder.isEmpty())
        {
            final long first = nextOrderSeq;
            final int count = Math.min(pendingOrder.size(), maxEntriesPerOrder());
            for (int i = 0; i < count; i++)
            {
                final long key = pendingOrder.poll();
                orderLog.put(nextOrderSeq, key);
                orders.put(nextOrderSeq, key);
                nextOrderSeq++;
            }
            writeOrders(first, count);
            counters.ordersSent++;
            counters.orderEntriesSent += count;
            sender.send(GroupSender.GROUP, out, msgOrder.packetSize());
        }
        if (!retransmitArmed)
        {
            retransmitArmed = true;
            retransmitDeadlineNs = nowNs + config.retransmitTimeoutNs;
        }
        deliverInOrder(nowNs);
    }

    private void resendLaggingOrders(final long nowNs)
    {
        final long lowest = lowestDeliveredSeq();
        if (lowest >= nextOrderSeq - 1)
        {
            retransmitArmed = false;
            return;
        }
        counters.orderRetransmits++;
        sendOrders(GroupSender.GROUP, lowest + 1);
        retransmitDeadlineNs = nowNs + config.retransmitTimeoutNs;
    }

    private void sendOrders(final int destinationId, final long fromSeq)
    {
        final long last = nextOrderSeq - 1;
        if (fromSeq > last)
        {
            // Nothing ordered past what it asked: tell it where the order ends, so it stops asking.
            keepAlive.wrap(out, 0);
            keepAlive.set(WIRE_ORDER, config.selfId, nextPacketId(), last);
            sender.send(destinationId, out, keepAlive.packetSize());
            return;
        }
        final int count = (int)Math.min(last - fromSeq + 1, maxEntriesPerOrder());
        writeOrders(fromSeq, count);
        sender.send(destinationId, out, msgOrder.packetSize());
    }

    private void writeOrders(final long first, final int count)
    {
        msgOrder.wrap(out, 0);
        msgOrder.set(WIRE_ORDER, config.selfId, nextPacketId(), first, count);
        for (int i = 0; i < count; i++)
        {
            final long key = orderLog.get(first + i);
            msgOrder.entry(i, (int)(key >>> 32), (int)key);
        }
    }

    private void forgetFullyDelivered()
    {
        final long lowest = lowestDeliveredSeq();
        while (forgottenSeq < lowest)
        {
            forgottenSeq++;
            final Long key = orderLog.remove(forgottenSeq);
            if (key != null)
            {
                retained.remove(key);
            }
        }
    }

    private long lowestDeliveredSeq()
    {
        long lowest = nextDeliverSeq - 1;
        for (int i = 0; i < memberDeliveredSeq.length; i++)
        {
            if (config.memberIds[i] != config.selfId && inGroup[i])
            {
                lowest = Math.min(lowest, memberDeliveredSeq[i]);
            }
        }
        return lowest;
    }

    private int maxEntriesPerOrder()
    {
        return Math.min(config.maxOrderEntries,
            Math.min(0xFFFF, (config.maxPacketBytes - MsgOrderFlyweight.HEADER_LENGTH) / MsgOrderFlyweight.ENTRY_LENGTH));
    }

    private void sendRequest(final int destinationId, final Held held)
    {
        request.wrap(out, 0);
        request.set(WIRE_ORDER, held.senderId, held.packetId, held.requestId, held.responseFlags, held.payload.length)
            .payload(ByteBuffer.wrap(held.payload), 0, held.payload.length);
        sender.send(destinationId, out, request.packetSize());
    }

    private void sendOrderAck()
    {
        if (state != State.MEMBER)
        {
            return;
        }
        lastAckedSeq = nextDeliverSeq - 1;
        sendAck(config.leaderId, PacketType.MSG_ORDER, config.leaderId, lastAckedSeq);
    }

    private void sendAck(final int destinationId, final PacketType ackedType, final int ackedSenderId, final long ackedId)
    {
        ack.wrap(out, 0);
        ack.set(WIRE_ORDER, config.selfId, nextPacketId(), ackedType, ackedSenderId, ackedId);
        sender.send(destinationId, out, AckFlyweight.LENGTH);
    }

    private void transitionTo(final State next, final long nowNs)
    {
        switch (next)
        {
            case LEADER_BATCHING -> batchDeadlineNs = nowNs + config.orderIntervalNs;
            case LEADER_IDLE, MEMBER ->
            {
            }
        }
        state = next;
    }

    /** Lamport rule (paper, section 4): a larger id seen anywhere raises the local counter. */
    private void observe(final int packetId)
    {
        if (Integer.compareUnsigned(packetId, lamport) > 0)
        {
            lamport = packetId;
        }
    }

    private int nextPacketId()
    {
        return ++lamport;
    }

    static long key(final int senderId, final int packetId)
    {
        return ((long)senderId << 32) | (packetId & 0xFFFF_FFFFL);
    }

    private record Held(int senderId, int packetId, int requestId, int responseFlags, byte[] payload)
    {
    }
}
