package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A member's sent replies, kept until their client ACKs them (paper, Figure 4 lines 7-10: Reply is
 * among the packets kept and re-sent until acknowledged). Bounded twice: at most
 * {@code maxPendingReplies} entries (the oldest is abandoned to make room) and at most
 * {@code replyGiveUpNs} per reply (then the client is taken to be gone, and every reply still held
 * for it is abandoned too). Both count {@code repliesAbandoned}. Retransmission is unicast to the
 * client, first {@code retransmitTimeoutNs} after the reply was sent, then after twice as long each
 * time (up to {@code 2^GroupConfig.MAX_BACKOFF} times that): a client slow to ACK, such as one taking in a
 * reply of many pieces on a busy host, is not sent the whole reply again every
 * {@code retransmitTimeoutNs}.
 *
 * <p>Pieces of a reply too large for one packet are paced: at most {@code replyWindowBytes} worth of
 * one client's pieces are sent and unACKed at a time; the others are held here, in the order they
 * were added, and each ACK (or calls-done ACK, or cancel) sends as many as it makes room for. A
 * reply of 77 pieces from each of three replicas would otherwise arrive as 15 MB at once, more
 * than the client's socket buffer takes. Whole replies are never held.
 */
final class ReplyStore
{
    private final GroupConfig config;
    private final GroupCounters counters;
    private final GroupSender sender;
    /** Pieces one client may have sent and unACKed: {@link GroupConfig#replyWindowPieces()}. */
    private final int window;
    /** By the Reply's own packet id, in the order added (so the eldest is the first). */
    private final LinkedHashMap<Integer, Pending> pending = new LinkedHashMap<>();
    /** Pieces sent and not yet ACKed, by client; a client with none has no entry. */
    private final Map<Integer, Integer> piecesInFlight = new HashMap<>();
    /** Pieces waiting for room in their client's window, over all clients. */
    private int held;
    private long deadlineNs = Long.MAX_VALUE;

    ReplyStore(final GroupConfig config, final GroupCounters counters, final GroupSender sender)
    {
        this.config = config;
        this.counters = counters;
        this.sender = sender;
        this.window = config.replyWindowPieces();
    }

    /**
     * Keeps a Reply packet until ACKed, and sends it now unless it is a piece and its client's
     * window is full.
     */
    void add(final int replyPacketId, final int clientId, final int requestPacketId, final byte[] packet, final boolean piece,
        final long nowNs)
    {
        if (pending.size() >= config.maxPendingReplies)
        {
            final Iterator<Pending> eldest = pending.values().iterator();
            final Pending p = eldest.next();
            eldest.remove();
            forget(p);
            counters.repliesAbandoned++;
            // Its client's window may now have room, and no ACK may come to make it.
            release(p.clientId, nowNs);
        }
        final Pending p = new Pending(clientId, requestPacketId, packet, piece);
        pending.put(replyPacketId, p);
        if (piece && inFlight(clientId) >= window)
        {
            held++;
            counters.replyFragmentsHeld++;
            return;
        }
        send(p, nowNs);
    }

    /** @return true when the ACK named a pending reply of this client. */
    boolean ack(final int clientId, final int replyPacketId, final long nowNs)
    {
        final Pending p = pending.get(replyPacketId);
        if (p == null || p.clientId != clientId)
        {
            return false;
        }
        pending.remove(replyPacketId);
        forget(p);
        counters.repliesAcked++;
        release(clientId, nowNs);
        return true;
    }

    /**
     * A client's "calls done" ACK: it wants no reply to any of its requests up to
     * {@code requestPacketId} (serial order of its packet ids).
     *
     * @return how many pending replies it forgot.
     */
    int ackCallsDone(final int clientId, final int requestPacketId, final long nowNs)
    {
        int forgotten = 0;
        for (final Iterator<Pending> it = pending.values().iterator(); it.hasNext(); )
        {
            final Pending p = it.next();
            if (p.clientId == clientId && p.requestPacketId - requestPacketId <= 0)
            {
                it.remove();
                forget(p);
                forgotten++;
            }
        }
        counters.repliesAckedByCallsDone += forgotten;
        release(clientId, nowNs);
        return forgotten;
    }

    /** The client cancelled the request: it wants no reply any more. */
    void cancel(final int clientId, final int requestPacketId, final long nowNs)
    {
        for (final Iterator<Pending> it = pending.values().iterator(); it.hasNext(); )
        {
            final Pending p = it.next();
            if (p.clientId == clientId && p.requestPacketId == requestPacketId)
            {
                it.remove();
                forget(p);
            }
        }
        release(clientId, nowNs);
    }

    int size()
    {
        return pending.size();
    }

    /** @return pieces kept but not yet sent, waiting for room in their client's window. */
    int held()
    {
        return held;
    }

    /** @return the earliest retransmission deadline, or Long.MAX_VALUE when nothing sent is pending. */
    long nextDeadlineNs()
    {
        return pending.isEmpty() ? Long.MAX_VALUE : deadlineNs;
    }

    void onTimer(final long nowNs)
    {
        if (pending.isEmpty() || deadlineNs - nowNs > 0)
        {
            return;
        }
        Set<Integer> gone = null;
        long next = Long.MAX_VALUE;
        for (final Iterator<Pending> it = pending.values().iterator(); it.hasNext(); )
        {
            final Pending p = it.next();
            if (!p.sent)
            {
                continue;
            }
            if (p.deadlineNs - nowNs <= 0)
            {
                if (nowNs - p.firstSentNs >= config.replyGiveUpNs)
                {
                    it.remove();
                    forget(p);
                    counters.repliesAbandoned++;
                    if (gone == null)
                    {
                        gone = new HashSet<>();
                    }
                    gone.add(p.clientId);
                    continue;
                }
                counters.replyRetransmits++;
                sender.send(p.clientId, ByteBuffer.wrap(p.packet), p.packet.length);
                p.resends = Math.min(p.resends + 1, GroupConfig.MAX_BACKOFF);
                p.deadlineNs = nowNs + (config.retransmitTimeoutNs << p.resends);
            }
            next = earlier(next, p.deadlineNs);
        }
        deadlineNs = next;
        if (gone != null)
        {
            abandonHeld(gone);
        }
    }

    /** A client gone for one reply is gone for the pieces held for it: they are not sent. */
    private void abandonHeld(final Set<Integer> clients)
    {
        for (final Iterator<Pending> it = pending.values().iterator(); it.hasNext(); )
        {
            final Pending p = it.next();
            if (!p.sent && clients.contains(p.clientId))
            {
                it.remove();
                forget(p);
                counters.repliesAbandoned++;
            }
        }
    }

    private void send(final Pending p, final long nowNs)
    {
        p.sent = true;
        p.firstSentNs = nowNs;
        p.deadlineNs = nowNs + config.retransmitTimeoutNs;
        deadlineNs = earlier(deadlineNs, p.deadlineNs);
        if (p.piece)
        {
            piecesInFlight.merge(p.clientId, 1, Integer::sum);
        }
        sender.send(p.clientId, ByteBuffer.wrap(p.packet), p.packet.length);
    }

    /** Sends the client's held pieces, oldest first, while its window has room. */
    private void release(final int clientId, final long nowNs)
    {
        if (held == 0)
        {
            return;
        }
        for (final Pending p : pending.values())
        {
            if (inFlight(clientId) >= window)
            {
                return;
            }
            if (!p.sent && p.clientId == clientId)
            {
                held--;
                send(p, nowNs);
            }
        }
    }

    /** Accounts for a packet no longer kept. */
    private void forget(final Pending p)
    {
        if (!p.sent)
        {
            held--;
        }
        else if (p.piece)
        {
            piecesInFlight.computeIfPresent(p.clientId, (client, n) -> n == 1 ? null : n - 1);
        }
    }

    private int inFlight(final int clientId)
    {
        return piecesInFlight.getOrDefault(clientId, 0);
    }

    private static long earlier(final long a, final long b)
    {
        return b - a < 0 ? b : a;
    }

    private static final class Pending
    {
        final int clientId;
        final int requestPacketId;
        final byte[] packet;
        final boolean piece;
        /** False while held for room in the client's window. */
        boolean sent;
        long firstSentNs;
        long deadlineNs;
        /** Resends so far, at most {@link GroupConfig#MAX_BACKOFF}. */
        int resends;

        Pending(final int clientId, final int requestPacketId, final byte[] packet, final boolean piece)
        {
            this.clientId = clientId;
            this.requestPacketId = requestPacketId;
            this.packet = packet;
            this.piece = piece;
        }
    }
}
