package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.Map;
import java.util.LinkedHashMap;
import java.util.TreeSet;

/**
 * Which requests a member has finished with (delivered, or dropped after a Cancel), in memory that
 * does not grow with the group's history. A request is named by (client id, packet id), and one
 * client's packet ids grow (Lamport counter, paper section 4) though not by one. Per client the
 * filter keeps a watermark and the finished ids above it; past {@code duplicateWindow} ids the
 * smallest becomes the watermark, and every id at or below it counts as finished.
 *
 * <p>Why that is safe: a client multicasts at most {@code maxOutstandingRequests - 1} requests
 * after its oldest request that some member has not ACKed (its window slides only from the oldest
 * end; a sliding count of outstanding requests would not do: the simulation caught that). So while
 * a request is new to this member, fewer than {@code maxOutstandingRequests} later ids of that
 * client can be finished here, and the watermark cannot pass it as long as
 * {@code duplicateWindow >= maxOutstandingRequests} (checked by nothing on the wire: the window
 * must be configured at least as large as every client's window; the defaults are 1024 and 64).
 * Clients beyond {@code maxClients} are forgotten least recently used first (counted
 * {@code clientsForgotten}); a forgotten client's late duplicate would be taken as new.
 */
final class DuplicateFilter
{
    private final int window;
    private final int maxClients;
    private final GroupCounters counters;
    private final LinkedHashMap<Integer, ClientWindow> clients = new LinkedHashMap<>(16, 0.75f, true);

    DuplicateFilter(final int window, final int maxClients, final GroupCounters counters)
    {
        this.window = window;
        this.maxClients = maxClients;
        this.counters = counters;
    }

    boolean isFinished(final int clientId, final int packetId)
    {
        final ClientWindow w = clients.get(clientId);
        final long id = packetId & 0xFFFF_FFFFL;
        return w != null && (id <= w.watermark || w.finished.contains(id));
    }

    void finish(final int clientId, final int packetId)
    {
        ClientWindow w = clients.get(clientId);
        if (w == null)
        {
            if (clients.size() >= maxClients)
            {
                final Iterator<ClientWindow> eldest = clients.values().iterator();
                eldest.next();
                eldest.remove();
                counters.clientsForgotten++;
            }
            w = new ClientWindow();
            clients.put(clientId, w);
        }
        final long id = packetId & 0xFFFF_FFFFL;
        if (id <= w.watermark)
        {
            return;
        }
        w.finished.add(id);
        if (w.finished.size() > window)
        {
            w.watermark = w.finished.pollFirst();
        }
    }

    /** @return finished ids held above the watermarks, over all clients: at most window x maxClients. */
    int size()
    {
        int n = 0;
        for (final ClientWindow w : clients.values())
        {
            n += w.finished.size();
        }
        return n;
    }

    /** @return bytes of {@link #writeImage}'s image. */
    int imageBytes()
    {
        int n = 4;
        for (final ClientWindow w : clients.values())
        {
            n += 16 + 4 * w.finished.size();
        }
        return n;
    }

    /**
     * Writes what the filter holds, least recently used client first: a count of clients, then
     * per client its id, watermark (8 bytes), count of ids above it and the ids (4 bytes each).
     */
    void writeImage(final ByteBuffer to)
    {
        to.putInt(clients.size());
        for (final Map.Entry<Integer, ClientWindow> e : clients.entrySet())
        {
            final ClientWindow w = e.getValue();
            to.putInt(e.getKey()).putLong(w.watermark).putInt(w.finished.size());
            for (final long id : w.finished)
            {
                to.putInt((int)id);
            }
        }
    }

    /**
     * Takes in another member's image ({@link #writeImage}): every request finished there is
     * finished here too (a watermark only rises).
     *
     * @throws IllegalArgumentException when the image is malformed; the filter may then hold part of it.
     */
    void mergeImage(final ByteBuffer from)
    {
        try
        {
            final int count = from.getInt();
            if (count < 0 || count > from.remaining() / 16)
            {
                throw new IllegalArgumentException("a duplicate filter image of " + count + " clients in " + from.remaining() + " bytes");
            }
            for (int i = 0; i < count; i++)
            {
                final int clientId = from.getInt();
                final long watermark = from.getLong();
                final int ids = from.getInt();
                if (watermark < 0 || watermark > 0xFFFF_FFFFL || ids < 0 || ids > from.remaining() / 4)
                {
                    throw new IllegalArgumentException("client " + clientId + ": watermark " + watermark + ", " + ids + " ids in " +
                        from.remaining() + " bytes");
                }
                if (watermark > 0)
                {
                    finish(clientId, (int)watermark);
                    clients.get(clientId).watermark = Math.max(clients.get(clientId).watermark, watermark);
                    clients.get(clientId).finished.headSet(watermark, true).clear();
                }
                for (int k = 0; k < ids; k++)
                {
                    finish(clientId, from.getInt());
                }
            }
        }
        catch (final java.nio.BufferUnderflowException e)
        {
            throw new IllegalArgumentException("a duplicate filter image cut short", e);
        }
    }

    private static final class ClientWindow
    {
        long watermark;
        final TreeSet<Long> finished = new TreeSet<>();
    }
}
