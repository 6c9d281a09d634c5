package org.lightwire.romiop.engine;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which requests of each client a member has already seen (delivered, or ordered), in bounded
 * memory. A client numbers its requests with strictly increasing packet ids (Lamport, unsigned),
 * so per client the last {@code perClient} ids are kept and everything at or below the highest
 * id dropped from that window (the watermark) counts as seen: a new request always has a higher
 * id than every earlier one of its client, so it is never taken for a duplicate. A client has at
 * most {@code maxOutstandingRequests} (64 by default) requests unacknowledged, so a request is
 * delivered long before {@code perClient} later ones (256) push its id under the watermark.
 *
 * <p>At most {@code maxClients} clients are remembered; beyond, the least recently active is
 * forgotten (counted): a duplicate of one of its old requests arriving later would be taken for
 * new, so {@code maxClients} must exceed the number of clients active within a retransmission
 * period.
 */
final class RequestWindows
{
    private final int perClient;
    private final int maxClients;
    private final LinkedHashMap<Integer, Window> clients = new LinkedHashMap<>(16, 0.75f, true);
    private long clientsForgotten;

    private static final class Window
    {
        final TreeSet<Integer> ids = new TreeSet<>(Integer::compareUnsigned);
        boolean hasWatermark;
        int watermark;
    }

    RequestWindows(final int perClient, final int maxClients)
    {
        this.perClient = perClient;
        this.maxClients = maxClients;
    }

    /** @return true when this client's request was seen (or is older than its window). */
    boolean contains(final int clientId, final int packetId)
    {
        final Window w = clients.get(clientId);
        return w != null && (w.hasWatermark && Integer.compareUnsigned(packetId, w.watermark) <= 0 || w.ids.contains(packetId));
    }

    /** Records a request; @return false when it was seen already. */
    boolean add(final int clientId, final int packetId)
    {
        if (contains(clientId, packetId))
        {
            return false;
        }
        Window w = clients.get(clientId);
        if (w == null)
        {
            if (clients.size() >= maxClients)
            {
                final Iterator<Map.Entry<Integer, Window>> eldest = clients.entrySet().iterator();
                eldest.next();
                eldest.remove();
                clientsForgotten++;
            }
            w = new Window();
            clients.put(clientId, w);
        }
        w.ids.add(packetId);
        if (w.ids.size() > perClient)
        {
            w.watermark = w.ids.pollFirst();
            w.hasWatermark = true;
        }
        return true;
    }

    /** @return ids held, over every client (for tests and reports). */
    int size()
    {
        int n = 0;
        for (final Window w : clients.values())
        {
            n += w.ids.size();
        }
        return n;
    }

    /** @return the clients remembered, least recently active first. */
    int[] clientIds()
    {
        return clients.keySet().stream().mapToInt(Integer::intValue).toArray();
    }

    int clients()
    {
        return clients.size();
    }

    long clientsForgotten()
    {
        return clientsForgotten;
    }
}
