package org.lightwire.romiop.engine;

import java.util.HashSet;
import java.util.Set;
import java.util.function.IntConsumer;
import org.lightwire.romiop.engine.view.Configuration;

/**
 * Who takes over when a follower's leader falls silent (docs/romiop.md, "Leader failover"): the
 * lowest id of the configuration left in the view, never a learner. A candidate that has not taken
 * over one KeepAlive timeout after its turn came failed too, and is passed over: the next id takes
 * its turn. A member that awaits a state has nothing to lead with, and passes itself over.
 */
final class Succession
{
    /** The member's view of who may lead. */
    interface Group
    {
        /** @return the view, ascending. */
        int[] view();

        Configuration configuration();

        /** @return true when this member counts for commits and majorities, and may take over. */
        boolean voter();
    }

    private final int selfId;
    private final long keepAliveTimeoutNs;
    private final Group group;
    /** The failed leader and the candidates passed over since. */
    private final Set<Integer> passedOver = new HashSet<>();
    /** When the current candidate's turn came. */
    private long candidateSinceNs;

    Succession(final int selfId, final long keepAliveTimeoutNs, final Group group)
    {
        this.selfId = selfId;
        this.keepAliveTimeoutNs = keepAliveTimeoutNs;
        this.group = group;
    }

    /**
     * @return the member that leads once {@code failed} and every passed-over candidate are gone:
     *     the lowest id of the configuration left in the view; never a learner (this one, when it
     *     is, gets -1).
     */
    int successor(final int failed)
    {
        final Configuration configuration = group.configuration();
        for (final int id : group.view())
        {
            if (id != failed && !passedOver.contains(id) && configuration.contains(id) && (id != selfId || group.voter()))
            {
                return id;
            }
        }
        return group.voter() ? selfId : -1;
    }

    /**
     * The leader {@code leaderId} is silent (again, at each KeepAlive tick).
     *
     * @param awaitingState this member awaits a state, and cannot lead.
     * @return the candidate whose turn it is: this member when it is to take over.
     */
    int suspect(final int leaderId, final boolean awaitingState, final long nowNs)
    {
        if (passedOver.isEmpty())
        {
            passedOver.add(leaderId);
            candidateSinceNs = nowNs;
        }
        int candidate = successor(leaderId);
        if (candidate != selfId && nowNs - candidateSinceNs > keepAliveTimeoutNs)
        {
            // The candidate never took over: it failed too; the next id takes its turn.
            passedOver.add(candidate);
            candidateSinceNs = nowNs;
            candidate = successor(leaderId);
        }
        if (candidate == selfId && awaitingState)
        {
            // It has no state to lead with (it awaits one): the next member takes its turn, as
            // the others pass it over when its takeover does not come.
            passedOver.add(selfId);
            candidate = successor(leaderId);
            if (candidate == selfId)
            {
                // Every other member was passed over too: their turns come round again.
                passedOver.clear();
                passedOver.add(leaderId);
                passedOver.add(selfId);
                candidateSinceNs = nowNs;
                candidate = successor(leaderId);
            }
        }
        return candidate;
    }

    /** Calls {@code action} with each member passed over (the failed leader among them). */
    void forEachPassedOver(final IntConsumer action)
    {
        for (final int id : passedOver)
        {
            action.accept(id);
        }
    }

    /** The leader is heard, or a new one is followed: no one is passed over. */
    void clear()
    {
        passedOver.clear();
    }
}
