package org.lightwire.romiop.engine;

/**
 * The founding leader's check before it orders. Nothing is kept on disk, so a leader started from
 * the founding configuration cannot tell a first start from a restart; a restarted one that
 * ordered in the founding epoch again would give its order numbers to new requests while members
 * hold, and may have delivered, its earlier incarnation's orders under the same epoch and
 * numbers, and their acknowledgements (cumulative, by number) would commit the new orders.
 *
 * <p>So it asks first (EPOCH_ASK, the nonce of this check) and orders only once n - m + 1 members
 * of its configured group other than itself (n members, m a majority) told it they are in the
 * founding epoch and hold no order. Any order ever committed was accepted by a majority, m - 1 of
 * them others than this process, and any n - m + 1 of the n - 1 others meet them; an answer that
 * names a newer epoch or says its sender holds orders shows a group with a history, and this
 * process rejoins it as a new member. A group of one has no one to ask: its single member holds
 * every order there is.
 */
final class FoundingCheck
{
    /** What an answer did to the check. */
    enum Outcome
    {
        /** Not an answer to this check, or not enough answers yet. */
        NONE,
        /** Enough members hold nothing: the leader may order. */
        CONFIRMED,
        /** A member holds orders or is in a newer epoch: the group has a history; rejoin it. */
        HISTORY
    }

    private final EpochRecovery answers = new EpochRecovery();
    private final int foundingEpoch;
    private boolean pending;

    /** @param foundingEpoch the epoch a founding member starts in. */
    FoundingCheck(final int foundingEpoch)
    {
        this.foundingEpoch = foundingEpoch;
    }

    /** Starts the check (a new nonce), unless the group is {@code groupSize} 1. */
    void start(final long nowNs, final int selfId, final int groupSize)
    {
        pending = groupSize > 1;
        answers.restart(nowNs, selfId);
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
        return answers.nonce();
    }

    /**
     * Takes an EPOCH_TOLD of {@code from} to this check's ask.
     *
     * @param group the configured group, ascending, this process included.
     */
    Outcome answer(final int from, final int toldNonce, final int toldEpoch, final boolean holdsOrders, final int[] group)
    {
        if (!pending || toldNonce != answers.nonce() || java.util.Arrays.binarySearch(group, from) < 0)
        {
            return Outcome.NONE;
        }
        if (holdsOrders || Integer.compareUnsigned(toldEpoch, foundingEpoch) > 0)
        {
            pending = false;
            return Outcome.HISTORY;
        }
        if (answers.answer(from, toldNonce, toldEpoch, group))
        {
            pending = false;
            return Outcome.CONFIRMED;
        }
        return Outcome.NONE;
    }
}
