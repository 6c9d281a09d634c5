package org.lightwire.romiop.engine;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * One member's view of its group: who is in it, ascending, and when each was last heard, by
 * which the leader finds members silent for the KeepAlive timeout. Who leads the view, and who
 * counts for commits and majorities ({@link MemberConfiguration}), are kept elsewhere.
 */
final class GroupView
{
    private final int selfId;
    private final long silenceNs;
    private int[] ids;
    /** When each member was last heard (a member added, or a new leader followed, counts as heard). */
    private final Map<Integer, Long> lastHeardNs = new HashMap<>();

    /**
     * @param members   the view it starts with, in any order.
     * @param silenceNs how long a member may go unheard before it is silent (the KeepAlive timeout).
     */
    GroupView(final int selfId, final int[] members, final long silenceNs)
    {
        this.selfId = selfId;
        this.silenceNs = silenceNs;
        this.ids = members.clone();
        Arrays.sort(ids);
    }

    /** @return the members, ascending: the view's own array, replaced (never changed) when the view changes. */
    int[] ids()
    {
        return ids;
    }

    int size()
    {
        return ids.length;
    }

    boolean contains(final int id)
    {
        return Arrays.binarySearch(ids, id) >= 0;
    }

    /** The clocks start: every member counts as heard now. */
    void start(final long nowNs)
    {
        for (final int id : ids)
        {
            lastHeardNs.put(id, nowNs);
        }
    }

    /** Adds {@code id}, if absent, without hearing it. */
    void add(final int id)
    {
        if (!contains(id))
        {
            ids = MemberEngine.appended(ids, id);
            Arrays.sort(ids);
        }
    }

    /** Adds {@code id}, absent, heard now. */
    void admit(final int id, final long nowNs)
    {
        add(id);
        lastHeardNs.put(id, nowNs);
    }

    /** Removes {@code id} and forgets when it was heard. */
    void remove(final int id)
    {
        ids = Arrays.stream(ids).filter(m -> m != id).toArray();
        lastHeardNs.remove(id);
    }

    /** Leaves the view itself (it rejoins): who was heard when is kept. */
    void leave()
    {
        ids = Arrays.stream(ids).filter(m -> m != selfId).toArray();
    }

    /** The view is only this member (it founds a group, or takes over without a leader). */
    void alone()
    {
        ids = new int[] {selfId};
    }

    /** Takes a leader's view, {@code ascending}: members new to it count as heard now. */
    void set(final int[] ascending, final long nowNs)
    {
        for (final int id : ascending)
        {
            if (!contains(id))
            {
                lastHeardNs.put(id, nowNs);
            }
        }
        ids = ascending;
        lastHeardNs.keySet().removeIf(id -> !contains(id));
    }

    /** A packet of {@code id}'s came: if it is a member, it is not silent. */
    void heard(final int id, final long nowNs)
    {
        if (contains(id))
        {
            lastHeardNs.put(id, nowNs);
        }
    }

    /** Counts {@code id} as heard at {@code atNs}, member or not yet (a leader it now follows, a takeover's survivor). */
    void heardAt(final int id, final long atNs)
    {
        lastHeardNs.put(id, atNs);
    }

    /** @return true when member {@code id} (never this one) has not been heard for the silence timeout. */
    boolean silent(final int id, final long nowNs)
    {
        return id != selfId && nowNs - lastHeardNs.getOrDefault(id, nowNs) > silenceNs;
    }

    /** @return how many members are {@link #silent}. */
    int silentCount(final long nowNs)
    {
        int silent = 0;
        for (final int id : ids)
        {
            silent += silent(id, nowNs) ? 1 : 0;
        }
        return silent;
    }
}
