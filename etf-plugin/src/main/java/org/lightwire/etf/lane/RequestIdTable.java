package org.lightwire.etf.lane;

import java.util.ArrayList;
import java.util.List;

import org.lightwire.transport.channel.ServerCall;

/**
 * The request ids of one lane. Clients choose their request ids on their own, so two clients'
 * ids collide on a JacORB connection they share: every request presented on a lane gets an id
 * of the lane's, unique among the calls still waiting there, and this table maps it back to the
 * call, the client's id and the transport connection.
 *
 * <p>Ids are handed out in increasing order (unsigned, wrapping after 2^32) and a waiting call
 * sits in slot {@code id & mask}; an id whose slot is taken is skipped, and the table doubles
 * when half full (ids distinct modulo the old size stay distinct modulo the new one, so growing
 * never collides). No allocation per request but the {@link PendingCall} itself. Ids the table
 * gives without recording ({@link #unrecordedId}) come from the same counter, so they never
 * equal a waiting call's id before the counter wraps.
 *
 * <p>Thread-safe: the lane's reader thread adds, JacORB's reply threads take.
 */
final class RequestIdTable
{
    private static final int INITIAL_SLOTS = 64;

    private PendingCall[] slots = new PendingCall[INITIAL_SLOTS];
    private int mask = INITIAL_SLOTS - 1;
    private int size;
    private int next;

    /** Records a call that awaits JacORB's reply. @return its lane id. */
    synchronized int add(final ServerCall call, final int originalId, final int type, final int minor, final Route route)
    {
        if (2 * (size + 1) > slots.length)
        {
            grow();
        }
        while (slots[next & mask] != null)
        {
            next++;
        }
        final int id = next++;
        slots[id & mask] = new PendingCall(id, call, originalId, type, minor, route);
        size++;
        return id;
    }

    /** @return a lane id for a request whose reply nobody awaits (a one-way): distinct from every waiting call's. */
    synchronized int unrecordedId()
    {
        while (slots[next & mask] != null)
        {
            next++;
        }
        return next++;
    }

    /** @return the call waiting under {@code laneId}, now removed; null when none is. */
    synchronized PendingCall take(final int laneId)
    {
        final int slot = laneId & mask;
        final PendingCall p = slots[slot];
        if (p == null || p.laneId != laneId)
        {
            return null;
        }
        slots[slot] = null;
        size--;
        return p;
    }

    /** @return every waiting call, now removed. */
    synchronized List<PendingCall> takeAll()
    {
        final List<PendingCall> all = new ArrayList<>(size);
        for (int i = 0; i < slots.length; i++)
        {
            if (slots[i] != null)
            {
                all.add(slots[i]);
                slots[i] = null;
            }
        }
        size = 0;
        return all;
    }

    /** @return calls waiting now. */
    synchronized int size()
    {
        return size;
    }

    private void grow()
    {
        final PendingCall[] bigger = new PendingCall[slots.length * 2];
        final int biggerMask = bigger.length - 1;
        for (final PendingCall p : slots)
        {
            if (p != null)
            {
                bigger[p.laneId & biggerMask] = p;
            }
        }
        slots = bigger;
        mask = biggerMask;
    }
}
