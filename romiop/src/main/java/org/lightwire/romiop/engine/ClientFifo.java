package org.lightwire.romiop.engine;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Per-client FIFO at the sequencer (beyond the paper): a client's requests are ordered in the order
 * it numbered them ({@code client_seq}), even when a later one reaches the leader first. One that
 * overtook an earlier one waits for it, at most {@code fifoWaitNs}; a gap that lasts that long is
 * given up on ({@code fifoGapsSkipped}), and a request that arrives after its gap was given up on is
 * ordered at once ({@code fifoLateRequests}). A request that will never be ordered (cancelled)
 * takes its number's turn. Numbers run 1..2^24-1 and wrap past 0; an unnumbered request (0), or
 * {@code fifoWaitNs} 0, is ordered at once. A leader since the group began expects every client
 * from 1; one that took over, or forgot a client beyond {@code maxClients}, starts a client from the
 * first number it sees. docs/romiop.md, "Per-client FIFO".
 */
final class ClientFifo
{
    /** Where admitted requests go: the sequencer's queue. */
    interface Orderer
    {
        /** Queues a held request for the next MsgOrder. */
        void orderSoon(long key, long nowNs);

        /** @return true while the request is held (it may have been cancelled while it waited here). */
        boolean isHeld(long key);
    }

    private static final int CLIENT_SEQ_MASK = 0xFF_FFFF;

    /** One client's next expected client_seq and the requests that came ahead of it. */
    private static final class Client
    {
        int next;
        final HashMap<Integer, Long> ahead = new HashMap<>();
        long gapDeadlineNs;
    }

    private final long fifoWaitNs;
    private final int maxClients;
    private final GroupCounters counters;
    private final Orderer orderer;
    /** At most maxClients, oldest first. */
    private final LinkedHashMap<Integer, Client> clients = new LinkedHashMap<>();
    /** Clients waiting for a gap (a gap deadline set). */
    private int waiting;
    /** True while this sequencer has ordered since the group began: clients' numbers start at 1. */
    private boolean fromStart = true;

    ClientFifo(final GroupConfig config, final GroupCounters counters, final Orderer orderer)
    {
        this.fifoWaitNs = config.fifoWaitNs;
        this.maxClients = config.maxClients;
        this.counters = counters;
        this.orderer = orderer;
    }

    static int nextClientSeq(final int seq)
    {
        final int n = (seq + 1) & CLIENT_SEQ_MASK;
        return n == 0 ? 1 : n;
    }

    /** @return how far {@code seq} is past {@code from}, modulo 2^24 (numbering skips 0). */
    static int clientSeqDistance(final int seq, final int from)
    {
        final int d = (seq - from) & CLIENT_SEQ_MASK;
        // The 0 that numbering skips lies between them when seq wrapped past it.
        return seq < from && d > 0 ? d - 1 : d;
    }

    /** A new request, ordered now unless an earlier one of its client has not arrived yet. */
    void admit(final long key, final int clientSeq, final long nowNs)
    {
        final int clientId = HeldRequest.clientId(key);
        if (clientSeq == 0 || fifoWaitNs == 0)
        {
            orderer.orderSoon(key, nowNs);
            return;
        }
        Client f = clients.get(clientId);
        if (f == null)
        {
            f = new Client();
            // A leader since the group began has seen every request: each client starts at 1.
            // One that took over (or forgot the client) takes the first number it sees.
            f.next = fromStart ? 1 : clientSeq;
            clients.put(clientId, f);
            while (clients.size() > maxClients)
            {
                final Iterator<Map.Entry<Integer, Client>> eldest = clients.entrySet().iterator();
                releaseAll(eldest.next().getValue(), nowNs);
                eldest.remove();
                // A forgotten client may come back at any number.
                fromStart = false;
            }
        }
        final int distance = clientSeqDistance(clientSeq, f.next);
        if (distance == 0)
        {
            orderer.orderSoon(key, nowNs);
            f.next = nextClientSeq(clientSeq);
            releaseInOrder(f, nowNs);
        }
        else if (distance < CLIENT_SEQ_MASK / 2)
        {
            // An earlier request of this client is missing: wait for it, at most fifoWaitNs.
            counters.requestsHeldForFifo++;
            if (f.ahead.isEmpty())
            {
                f.gapDeadlineNs = nowNs + fifoWaitNs;
                waiting++;
            }
            f.ahead.put(clientSeq, key);
        }
        else
        {
            // Behind: it arrived after its gap was given up on (or it precedes what this leader first saw).
            counters.fifoLateRequests++;
            orderer.orderSoon(key, nowNs);
        }
    }

    /** A request of this client that will never be ordered (cancelled) takes its number's turn. */
    void passOver(final int clientId, final int clientSeq, final long key, final long nowNs)
    {
        final Client f = clients.get(clientId);
        if (clientSeq == 0 || f == null)
        {
            return;
        }
        final int distance = clientSeqDistance(clientSeq, f.next);
        if (distance == 0)
        {
            f.next = nextClientSeq(clientSeq);
            releaseInOrder(f, nowNs);
        }
        else if (distance < CLIENT_SEQ_MASK / 2 && !f.ahead.containsKey(clientSeq))
        {
            // Not held: releasing passes over it.
            if (f.ahead.isEmpty())
            {
                f.gapDeadlineNs = nowNs + fifoWaitNs;
                waiting++;
            }
            f.ahead.put(clientSeq, key);
        }
    }

    /** @return true when this client's numbering is followed. */
    boolean knows(final int clientId)
    {
        return clients.containsKey(clientId);
    }

    /** @return requests held back for an earlier request of their client. */
    int held()
    {
        int held = 0;
        for (final Client f : clients.values())
        {
            held += f.ahead.size();
        }
        return held;
    }

    /** Gives up on every gap that has lasted {@code fifoWaitNs}. */
    void onTimer(final long nowNs)
    {
        if (waiting == 0)
        {
            return;
        }
        for (final Client f : clients.values())
        {
            if (f.gapDeadlineNs != 0 && f.gapDeadlineNs - nowNs <= 0)
            {
                skipGap(f, nowNs);
            }
        }
    }

    /** @return the earliest gap deadline, or {@link Deadlines#NONE}. */
    long nextDeadlineNs()
    {
        long deadline = Deadlines.NONE;
        if (waiting > 0)
        {
            for (final Client f : clients.values())
            {
                deadline = Deadlines.earlier(deadline, f.gapDeadlineNs != 0, f.gapDeadlineNs);
            }
        }
        return deadline;
    }

    /** Forgets every client's numbering (a new leader, a rejoin): ordered as they come. */
    void reset()
    {
        clients.clear();
        waiting = 0;
        fromStart = false;
    }

    /** Orders what waited for the request just admitted, as far as the client's numbers run on. */
    private void releaseInOrder(final Client f, final long nowNs)
    {
        Long key;
        while ((key = f.ahead.remove(f.next)) != null)
        {
            if (orderer.isHeld(key))
            {
                orderer.orderSoon(key, nowNs);
            }
            f.next = nextClientSeq(f.next);
        }
        if (f.ahead.isEmpty())
        {
            if (f.gapDeadlineNs != 0)
            {
                waiting--;
            }
            f.gapDeadlineNs = 0;
        }
        else if (f.gapDeadlineNs == 0)
        {
            f.gapDeadlineNs = nowNs + fifoWaitNs;
            waiting++;
        }
    }

    /** A client's gap lasted fifoWaitNs: order what waited, from the nearest number on. */
    private void skipGap(final Client f, final long nowNs)
    {
        counters.fifoGapsSkipped++;
        int nearest = f.next;
        int best = Integer.MAX_VALUE;
        for (final int seq : f.ahead.keySet())
        {
            final int d = clientSeqDistance(seq, f.next);
            if (d < best)
            {
                best = d;
                nearest = seq;
            }
        }
        f.next = nearest;
        waiting--;
        f.gapDeadlineNs = 0;
        releaseInOrder(f, nowNs);
    }

    private void releaseAll(final Client f, final long nowNs)
    {
        while (!f.ahead.isEmpty())
        {
            skipGap(f, nowNs);
        }
    }
}
