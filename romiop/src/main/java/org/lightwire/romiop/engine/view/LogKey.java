package org.lightwire.romiop.engine.view;

/**
 * How up to date a member's log is, as Viewstamped Replication ranks it: the latest epoch whose
 * leader's log the member has adopted ({@code lastNormalEpoch}), then how far it holds that log
 * ({@code accepted}). A member's key only grows. A candidate is voted for only by members whose
 * key is at most its own, so the winner has every order a majority accepted (docs/notes/romiop-views.md,
 * section 6).
 *
 * @param lastNormalEpoch an unsigned 32-bit epoch.
 * @param accepted the highest order sequence number held, without a gap, in that epoch's log.
 */
public record LogKey(int lastNormalEpoch, long accepted) implements Comparable<LogKey>
{
    @Override
    public int compareTo(final LogKey o)
    {
        final int byEpoch = Integer.compareUnsigned(lastNormalEpoch, o.lastNormalEpoch);
        return byEpoch != 0 ? byEpoch : Long.compareUnsigned(accepted, o.accepted);
    }

    /** @return true when this key is at least {@code o}: a member with key {@code o} may vote for its holder. */
    public boolean atLeast(final LogKey o)
    {
        return compareTo(o) >= 0;
    }

    @Override
    public String toString()
    {
        return "(epoch " + Integer.toUnsignedString(lastNormalEpoch) + ", accepted " + Long.toUnsignedString(accepted) + ")";
    }
}
