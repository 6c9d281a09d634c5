package org.lightwire.romiop.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.LongPredicate;

/**
 * The lease of each client a member holds requests for: a client heard from (a Request, an ACK, a
 * Cancel) within {@code reply_give_up_ms} is alive; one silent that long is gone, as its own
 * consolidation gave up on its calls by then. A request such a client left held at this member,
 * which no order names, expires: it is dropped, marked finished (a late copy never arrives as new)
 * and counted, and no later leader orders it (docs/romiop.md, "Requests of crashed clients").
 *
 * <p>Memory: at most {@code max_clients} clients, least recently heard evicted first. A held
 * request whose client is not remembered (evicted, or expired before) is expired.
 */
final class ClientLeases
{
    private final long leaseNs;
    private final int maxClients;
    /** Client id to when it was last heard, least recently heard first. */
    private final LinkedHashMap<Integer, Long> heardNs = new LinkedHashMap<>(16, 0.75f, true);
    /** A client was evicted since the last sweep: requests it left may be held. */
    private boolean evicted;

    ClientLeases(final long leaseNs, final int maxClients)
    {
        this.leaseNs = leaseNs;
        this.maxClients = maxClients;
    }

    /** The client sent a packet of its own. */
    void heard(final int clientId, final long nowNs)
    {
        heardNs.put(clientId, nowNs);
        if (heardNs.size() > maxClients)
        {
            final Iterator<Integer> eldest = heardNs.keySet().iterator();
            eldest.next();
            eldest.remove();
            evicted = true;
        }
    }

    /** @return when the least recently heard client's lease runs out; {@link Deadlines#NONE} when no client is remembered. */
    long nextDeadlineNs()
    {
        return heardNs.isEmpty() ? Deadlines.NONE : heardNs.values().iterator().next() + leaseNs;
    }

    /** @return true when a lease ran out or a client was evicted: {@link #expire} has work. */
    boolean due(final long nowNs)
    {
        return evicted || !heardNs.isEmpty() && nextDeadlineNs() - nowNs <= 0;
    }

    /**
     * Forgets the clients whose lease ran out and expires their held requests.
     *
     * @param held the keys of the requests this member holds.
     * @param ordered true for a request an order names that this member has not delivered: it never expires.
     * @param expired told each request to drop (it drops it).
     * @return the number of requests expired.
     */
    int expire(final Collection<Long> held, final LongPredicate ordered, final Expired expired, final long nowNs)
    {
        if (!due(nowNs))
        {
            return 0;
        }
        evicted = false;
        for (final Iterator<Long> it = heardNs.values().iterator(); it.hasNext(); )
        {
            if (it.next() + leaseNs - nowNs > 0)
            {
                break;
            }
            it.remove();
        }
        int count = 0;
        for (final long key : new ArrayList<>(held))
        {
            // A get would reorder the access-ordered map: containsKey does not.
            if (!heardNs.containsKey(HeldRequest.clientId(key)) && !ordered.test(key))
            {
                expired.expired(key);
                count++;
            }
        }
        return count;
    }

    /** Told each request that expires. */
    @FunctionalInterface
    interface Expired
    {
        void expired(long key);
    }
}
