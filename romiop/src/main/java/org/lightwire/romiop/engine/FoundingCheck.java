package org.lightwire.romiop.engine;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The founding leader's check before it orders. Nothing is kept on disk, so a leader started from
 * the founding configuration cannot tell a first start from a restart; a restarted one that
 * ordered in the founding epoch again would give its order numbers to new requests while members
 * hold, and may have delivered, its earlier incarnation's orders under the same epoch and
 * numbers, and their acknowledgements (cumulative, by number) would commit the new orders.
 *
 * <p>So it asks first (EPOCH_ASK, the nonce of this check) and orders only once every other member
 * of its configured group told it that it knows of no order. Fewer
 * do not do: an order accepted by one other member and never committed is that member's alone,
 * and one committed by a commit quorum may be held by one member that did not restart (the others
 * of the quorum restarted too, and a restarted member knows of nothing). An answer that
 * says its sender knows of orders shows a group with a history, and this process rejoins it as a
 * new member. The ask proposes the epoch the leader will order in (the one after the founding
 * epoch at first); each member promises it to this check as it answers. One that promised an
 * epoch as new to another check (an earlier incarnation's) or a takeover, and knows of no order,
 * makes the check propose past it and ask everyone again: nothing was committed, and no order
 * of an older epoch, however late, can then pass for this leader's. An answer without the
 * "promised" entry is not counted. A group of one has no one to ask.
 */
final class FoundingCheck
{
    /** What an answer did to the check. */
    enum Outcome
    {
        /** Not an answer to this check, or not enough answers yet. */
        NONE,
        /** Enough members know of no order: the leader may order. */
        CONFIRMED,
        /** A member knows of orders: the group has a history; rejoin it. */
        HISTORY,
        /**
         * A member knows of no order but promised an epoch as new as the proposal (to another
         * check or a takeover): the proposal moved past it, and the answers start afresh.
         */
        RAISED
    }

    private final Set<Integer> answered = new HashSet<>();
    /** Members that answered this check configured with another member list than the leader's. */
    private final Set<Integer> mismatched = new HashSet<>();
    private final int foundingEpoch;
    private int nonce;
    private int proposal;
    private int needed;
    private boolean pending;
    private long startedNs;
    private long nextAskNs;

    /** @param foundingEpoch the epoch a founding member starts in. */
    FoundingCheck(final int foundingEpoch)
    {
        this.foundingEpoch = foundingEpoch;
    }

    /** Starts the check with a new nonce, for a configured group of {@code groupSize} (this process included). */
    void start(final long nowNs, final int selfId, final int groupSize)
    {
        answered.clear();
        mismatched.clear();
        startedNs = nowNs;
        nonce = EpochRecovery.nonceFor(nowNs, selfId);
        proposal = foundingEpoch + 1;
        needed = groupSize - 1;
        pending = needed > 0;
    }

    /** Ends the check unfinished: the process no longer leads from the founding configuration. */
    void abandon()
    {
        pending = false;
    }

    /** @return true while the leader may not order yet. */
    boolean pending()
    {
        return pending;
    }

    int nonce()
    {
        return nonce;
    }

    /** @return the epoch this check proposes, and the leader orders in once it passed. */
    int proposal()
    {
        return proposal;
    }

    /** The ask went out; the next is due at {@code nextAskNs} unless the check ends first. */
    void askedAt(final long nextAskNs)
    {
        this.nextAskNs = nextAskNs;
    }

    long nextAskNs()
    {
        return nextAskNs;
    }

    /** @return when the check started. */
    long startedNs()
    {
        return startedNs;
    }

    /** @return the members of {@code group} other than {@code selfId} that have not answered (nor answered mismatched), ascending. */
    int[] unanswered(final int[] group, final int selfId)
    {
        return Arrays.stream(group).filter(id -> id != selfId && !answered.contains(id) && !mismatched.contains(id)).toArray();
    }

    /**
     * Takes an EPOCH_TOLD of {@code from} saying that its configuration is not the one this check's
     * ask named; it never counts.
     *
     * @return true when it answered this check.
     */
    boolean mismatched(final int from, final int toldNonce)
    {
        if (!pending || toldNonce != nonce)
        {
            return false;
        }
        answered.remove(from);
        mismatched.add(from);
        return true;
    }

    /** @return the members that answered configured with another member list, ascending. */
    int[] mismatched()
    {
        return mismatched.stream().mapToInt(Integer::intValue).sorted().toArray();
    }

    /**
     * Takes an EPOCH_TOLD of {@code from} to an ask.
     *
     * @param toldEpoch the epoch it told: promised to this check, or the newest it is in or promised.
     * @param knowsOfOrders the answer's third entry, or null when it has none.
     * @param promisedToUs whether it promised {@code toldEpoch} to this check.
     * @param group the configured group, ascending, this process included.
     */
    Outcome answer(final int from, final int toldNonce, final int toldEpoch, final Boolean knowsOfOrders, final boolean promisedToUs,
        final int[] group)
    {
        if (!pending || toldNonce != nonce || knowsOfOrders == null || Arrays.binarySearch(group, from) < 0)
        {
            return Outcome.NONE;
        }
        if (knowsOfOrders)
        {
            pending = false;
            return Outcome.HISTORY;
        }
        if (promisedToUs && toldEpoch == proposal)
        {
            answered.add(from);
            if (answered.size() >= needed)
            {
                pending = false;
                return Outcome.CONFIRMED;
            }
            return Outcome.NONE;
        }
        if (!promisedToUs && Integer.compareUnsigned(toldEpoch, proposal) >= 0)
        {
            proposal = toldEpoch + 1;
            answered.clear();
            return Outcome.RAISED;
        }
        // A promise to an earlier proposal of ours, late: its answer to this one follows.
        return Outcome.NONE;
    }
}
