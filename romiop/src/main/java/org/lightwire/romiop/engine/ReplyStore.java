package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A member's sent replies, kept until their client ACKs them (paper, Figure 4 lines 7-10: Reply is
 * among the packets kept and re-sent until acknowledged). Bounded twice: at most
 * {@code maxPendingReplies} entries (the oldest is abandoned to make room) and at most
 * {@code replyGiveUpNs} per reply (then the client is taken to be gone). Both count
 * {@code repliesAbandoned}. Retransmission is unicast to the client, first {@code retransmitTimeoutNs}
 * after the reply was sent, then after twice as long each time (up to {@code 2^MAX_BACKOFF} times
 * that): a client slow to ACK, such as one taking in a reply of many pieces on a busy host, is
 * not sent the whole reply again every {@code retransmitTimeoutNs}.
 */
final class ReplyStore
{
    /** The retransmission interval doubles per resend up to {@code retransmitTimeoutNs << MAX_BACKOFF}. */
    static final int MAX_BACKOFF = 5;

    private final GroupConfig config;
    private final GroupCounters counters;
    /** By the Reply's own packet id, in the order sent (so the eldest is the first). */
    private final LinkedHashMap<Integer, Pending> pending = new LinkedHashMap<>();
    private long deadlineNs;

    ReplyStore(final GroupConfig config, final GroupCounters counters)
    {
        this.config = config;
        this.counters = counters;
    }

    void add(final int replyPacketId, final int clientId, final int requestPacketId, final byte[] packet, final long nowNs)
    {
        if (pending.size() >= config.maxPendingReplies)
        {
            final Iterator<Pending> eldest = pending.values().iterator();
            eldest.next();
            eldest.remove();
            counters.repliesAbandoned++;
        }
        if (pending.isEmpty())
        {
            deadlineNs = nowNs + config.retransmitTimeoutNs;
        }
        pending.put(replyPacketId, new Pending(clientId, requestPacketId, packet, nowNs, nowNs + config.retransmitTimeoutNs));
    }

    /** @return true when the ACK named a pending reply of this client. */
    boolean ack(final int clientId, final int replyPacketId)
    {
        final Pending p = pending.get(replyPacketId);
        if (p == null || p.clientId != clientId)
        {
            return false;
        }
        pending.remove(replyPacketId);
        counters.repliesAcked++;
        return true;
    }

    /**
     * A client's "calls done" ACK: it wants no reply to any of its requests up to
     * {@code requestPacketId} (serial order of its packet ids).
     *
     * @return how many pending replies it forgot.
     */
    int ackCallsDone(final int clientId, final int requestPacketId)
    {
        int forgotten = 0;
        for (final Iterator<Pending> it = pending.values().iterator(); it.hasNext(); )
        {
            final Pending p = it.next();
            if (p.clientId == clientId && p.requestPacketId - requestPacketId <= 0)
            {
                it.remove();
                forgotten++;
            }
        }
        counters.repliesAckedByCallsDone += forgotten;
        return forgotten;
    }

    /** The client cancelled the request: it wants no reply any more. */
    void cancel(final int clientId, final int requestPacketId)
    {
        pending.values().removeIf(p -> p.clientId == clientId && p.requestPacketId == requestPacketId);
    }

    int size()
    {
        return pending.size();
    }

    /** @return the earliest retransmission deadline, or Long.MAX_VALUE when nothing is pending. */
    long nextDeadlineNs()
    {
        return pending.isEmpty() ? Long.MAX_VALUE : deadlineNs;
    }

    void onTimer(final long nowNs, final GroupSender sender)
    {
        if (pending.isEmpty() || deadlineNs - nowNs > 0)
        {
            return;
        }
        long next = Long.MAX_VALUE;
        boolean any = false;
        for (final Iterator<Map.Entry<Integer, Pending>> it = pending.entrySet().iterator(); it.hasNext(); )
        {
            final Pending p = it.next().getValue();
            if (p.deadlineNs - nowNs <= 0)
            {
                if (nowNs - p.firstSentNs >= config.replyGiveUpNs)
                {
                    it.remove();
                    counters.repliesAbandoned++;
                    continue;
                }
                counters.replyRetransmits++;
                sender.send(p.clientId, ByteBuffer.wrap(p.packet), p.packet.length);
                p.resends = Math.min(p.resends + 1, MAX_BACKOFF);
                p.deadlineNs = nowNs + (config.retransmitTimeoutNs << p.resends);
            }
            if (!any || p.deadlineNs - next < 0)
            {
                next = p.deadlineNs;
                any = true;
            }
        }
        deadlineNs = next;
    }

    private static final class Pending
    {
        final int clientId;
        final int requestPacketId;
        final byte[] packet;
        final long firstSentNs;
        long deadlineNs;
        /** Resends so far, at most {@link #MAX_BACKOFF}. */
        int resends;

        Pending(final int clientId, final int requestPacketId, final byte[] packet, final long firstSentNs, final long deadlineNs)
        {
            this.clientId = clientId;
            this.requestPacketId = requestPacketId;
            this.packet = packet;
            this.firstSentNs = firstSentNs;
            this.deadlineNs = deadlineNs;
        }
    }
}
