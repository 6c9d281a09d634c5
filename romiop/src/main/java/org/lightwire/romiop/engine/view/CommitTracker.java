package org.lightwire.romiop.engine.view;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * How far an epoch's order is committed: accepted (held, with every request it names) by a
 * majority of the configuration in that epoch. The leader feeds it its own accepted sequence and
 * its members' OrderAcks; an OrderAck of another epoch, or from a member outside the
 * configuration, counts for nothing. The commit never goes back.
 */
public final class CommitTracker
{
    private final int selfId;
    private final Map<Integer, Long> accepted = new HashMap<>();
    private Configuration configuration;
    private int epoch;
    private long commit;

    public CommitTracker(final int selfId, final Configuration configuration)
    {
        this.selfId = selfId;
        this.configuration = configuration;
    }

    /**
     * Starts counting {@code newEpoch}: the acceptances of earlier epochs no longer count.
     *
     * @param ownAccepted how far this member holds the new epoch's log.
     * @param knownCommit the commit known so far (it never goes back).
     */
    public void startEpoch(final int newEpoch, final Configuration c, final long ownAccepted, final long knownCommit)
    {
        epoch = newEpoch;
        configuration = c;
        accepted.clear();
        accepted.put(selfId, ownAccepted);
        commit = Math.max(commit, knownCommit);
        recompute();
    }

    /** A configuration entry was committed: majorities are counted in {@code c} from now on. */
    public void configuration(final Configuration c)
    {
        configuration = c;
        recompute();
    }

    /** @return true when the commit advanced. */
    public boolean ownAccepted(final long seq)
    {
        return onAccepted(selfId, epoch, seq);
    }

    /**
     * An OrderAck: {@code member} holds {@code ackEpoch}'s log up to {@code seq}.
     *
     * @return true when the commit advanced.
     */
    public boolean onAccepted(final int member, final int ackEpoch, final long seq)
    {
        if (ackEpoch != epoch || !configuration.contains(member))
        {
            return false;
        }
        final Long before = accepted.get(member);
        if (before != null && before >= seq)
        {
            return false;
        }
        accepted.put(member, seq);
        return recompute();
    }

    /** Forgets what {@code member} accepted (it left the configuration or restarted). */
    public void forget(final int member)
    {
        if (member != selfId)
        {
            accepted.remove(member);
        }
    }

    public long commit()
    {
        return commit;
    }

    /** @return how far {@code member} accepted this epoch's log, or -1 when it has not said. */
    public long accepted(final int member)
    {
        return accepted.getOrDefault(member, -1L);
    }

    public int epoch()
    {
        return epoch;
    }

    private boolean recompute()
    {
        final int n = configuration.size();
        final long[] seqs = new long[n];
        for (int i = 0; i < n; i++)
        {
            seqs[i] = accepted.getOrDefault(configuration.id(i), 0L);
        }
        Arrays.sort(seqs);
        // The quorum-th largest: that many members hold at least this much.
        final long majorityHolds = seqs[n - configuration.quorum()];
        if (majorityHolds > commit)
        {
            commit = majorityHolds;
            return true;
        }
        return false;
    }
}
