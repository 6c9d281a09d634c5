package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.Invalid;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
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
 * ordered at once; the sequencer then stays {@code LEADER_BATCHING} for one order interval, and
 * whatever arrives meanwhile goes out in one MsgOrder at the interval's end. With
 * {@code atOnceWhenIdle=false} every request waits for the interval, as in the paper's 10 ms
 * measurements. The leader keeps each ordered request and order entry until every member's
 * cumulative ACK has passed it, serves NAKs from that store, and re-multicasts the orders some
 * member still lacks every {@code retransmitTimeoutNs} (so a lost last MsgOrder is recovered
 * without a NAK).
 *
 * <p>Not yet: membership changes, leader failover, Cancel, KeepAlive probing, and forgetting the
 * ids of delivered requests (the duplicate filter grows with the group's history).
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
    private final ReplyStore replies;

    private State state;
    private int lamport;

    /** Received, not yet delivered requests, by {@link #key}. */
    private final Map<Long, Held> received = new HashMap<>();
    /** Keys of delivered requests: the duplicate filter. */
    private final Set<Long> delivered = new HashSet<>();
    /** Known order entries not yet delivered: order sequence number to request key. */
    private final TreeMap<Long, Long> orders = new TreeMap<>();
    private long nextDeliverSeq = 1;
    private long highestKnownSeq;
    private long lastAckedSeq;
    private boolean nakArmed;
    private long nakDeadlineNs;

    // Sequencer only.
    private final ArrayDeque<Long> pendingOrder = new ArrayDeque<>();
    private final Set<Long> orderedKeys = new HashSet<>();
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
        this.replies = new ReplyStore(config, counters);
        this.memberDeliveredSeq = new long[config.memberIds.length];
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

    /**
     * Sends the servant's GIOP reply to a delivered request as a ROMIOP Reply, unicast to the
     * client that made it (the paper multicasts replies to the group, Figure 4 line 6; only the
     * requesting client consolidates them, so unicast saves every other host the copy). The reply
     * is kept and re-sent every {@code retransmitTimeoutNs} until the client ACKs it, cancels the
     * request, or {@code replyGiveUpNs} passes (the client is gone); see {@link ReplyStore}.
     *
     * @param clientId  the request's sender, as delivered.
     * @param packetId  the request's packet id, as delivered.
     * @param requestId the GIOP request id, as delivered.
     * @param payload   the GIOP Reply message, bytes {@code [offset, offset + length)}, copied.
     * @throws IllegalArgumentException when the reply does not fit one packet of {@code maxPacketBytes}.
     */
    public void sendReply(final int clientId, final int packetId, final int requestId, final ByteBuffer payload,
        final int offset, final int length, final long nowNs)
    {
        if (ReplyFlyweight.HEADER_LENGTH + length > config.maxPacketBytes)
        {
            throw new IllegalArgumentException("reply of " + length + " bytes exceeds maxPacketBytes " + config.maxPacketBytes +
                " less the " + ReplyFlyweight.HEADER_LENGTH + "-byte reply header; fragmentation is not implemented yet");
        }
        final int replyPacketId = nextPacketId();
        reply.wrap(out, 0);
        // reply_status stays 0: the GIOP reply in the payload carries the real one.
        reply.set(WIRE_ORDER, config.selfId, replyPacketId, clientId, packetId, requestId, 0, length).payload(payload, offset, length);
        final byte[] copy = new byte[reply.packetSize()];
        out.get(0, copy);
        replies.add(replyPacketId, clientId, packetId, copy, nowNs);
        counters.repliesSent++;
        sender.send(clientId, out, copy.length);
    }

    /** @return replies sent and not yet ACKed by their client. */
    public int pendingReplies()
    {
        return replies.size();
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
            case ACK -> onAck(buffer, offset, length);
            case NAK -> onNak(buffer, offset, length);
            case KEEP_ALIVE -> onKeepAlive(buffer, offset, length, nowNs);
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
        replies.onTimer(nowNs, sender);
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
        final long replyDeadline = replies.nextDeadlineNs();
        if (replyDeadline != Long.MAX_VALUE && (!any || replyDeadline - deadline < 0))
        {
            deadline = replyDeadline;
        }
        return deadline;
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
        final long key = key(request.senderId(), request.packetId());
        // Before the duplicate check: the client resends only because it lacks this member's ACK.
        sendAck(request.senderId(), PacketType.REQUEST, request.senderId(), request.packetId());
        if (delivered.contains(key) || received.containsKey(key))
        {
            counters.duplicateRequests++;
            return;
        }
        final byte[] payload = new byte[request.payloadLength()];
        buffer.get(request.payloadOffset(), payload);
        received.put(key, new Held(request.senderId(), request.packetId(), request.requestId(), request.responseFlags(), payload));
        if (state != State.MEMBER && orderedKeys.add(key))
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
        }
        deliverInOrder(nowNs);
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

    private void onAck(final ByteBuffer buffer, final int offset, final int length)
    {
        ack.wrap(buffer, offset);
        final Invalid invalid = ack.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        observe(ack.packetId());
        if (ack.ackedType() == PacketType.REPLY && ack.ackedSenderId() == config.selfId)
        {
            // False for a repeated ACK (the client ACKs every duplicate reply): nothing left to do.
            replies.ack(ack.senderId(), (int)ack.ackedId());
            return;
        }
        final int index = config.memberIndex(ack.senderId());
        if (state == State.MEMBER || ack.ackedType() != PacketType.MSG_ORDER || index < 0)
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
        }
    }

    private void onNak(final ByteBuffer buffer, final int offset, final int length)
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
            delivered.add(key);
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
            if (config.memberIds[i] != config.selfId)
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
