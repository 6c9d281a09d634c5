package org.lightwire.romiop.engine.view;

import java.util.HashMap;
import java.util.Map;

/**
 * When each member was last heard, and whether a majority was heard recently: the leader's lease.
 * A leader whose configuration's majority (itself included) has not all been heard within the
 * window orders nothing (docs/notes/romiop-views.md, section 5).
 */
public final class Presence
{
    private final int selfId;
    private final Map<Integer, Long> heardNs = new HashMap<>();

    public Presence(final int selfId)
    {
        this.selfId = selfId;
    }

    public void heard(final int memberId, final long nowNs)
    {
        heardNs.put(memberId, nowNs);
    }

    public void forget(final int memberId)
    {
        heardNs.remove(memberId);
    }

    /** Counts every member as heard now: a new leader's lease starts whole. */
    public void heardAll(final Configuration c, final long nowNs)
    {
        for (final int id : c.ids())
        {
            heardNs.put(id, nowNs);
        }
    }

    /** @return true when {@code memberId} (this member always) was heard within {@code windowNs}. */
    public boolean isPresent(final int memberId, final long nowNs, final long windowNs)
    {
        if (memberId == selfId)
        {
            return true;
        }
        final Long at = heardNs.get(memberId);
        return at != null && nowNs - at < windowNs;
    }

    /** @return true when a majority of {@code c} (this member included) was heard within {@code windowNs}. */
    public boolean majorityPresent(final Configuration c, final long nowNs, final long windowNs)
    {
        return c.isQuorum(id -> isPresent(id, nowNs, windowNs));
    }

    /** @return when the member heard longest ago among those that make the majority present stops being present; for the caller's timer. */
    public long majorityExpiresNs(final Configuration c, final long windowNs)
    {
        final long[] at = new long[c.size()];
        for (int i = 0; i < at.length; i++)
        {
            final int id = c.id(i);
            at[i] = id == selfId ? Long.MAX_VALUE : heardNs.getOrDefault(id, Long.MIN_VALUE + windowNs);
        }
        java.util.Arrays.sort(at);
        // The quorum-th most recent hearing: when it ages out, fewer than a majority are present.
        final long pivot = at[at.length - c.quorum()];
        return pivot == Long.MAX_VALUE ? Long.MAX_VALUE : pivot + windowNs;
    }
}
