package org.lightwire.romiop.engine;

/**
 * The epoch a member orders or follows in, the leader it took that epoch's orders from, and the
 * newest epoch it promised (Viewstamped Replication's view number and its promise: a report to a
 * takeover, or a founding check's answer, is a promise bound to the epoch proposed). It takes no
 * order of an epoch older than its promise, reports to no takeover proposing less, and proposes
 * more itself. Epochs compare unsigned; neither the epoch nor the promise ever goes back.
 */
final class EpochPromise
{
    private int current;
    /** The leader whose orders this member took in its epoch (-1 for none yet): an epoch has one. */
    private int leader;
    /** The newest epoch it reported for or proposed (0 before any). */
    private int promised;
    /** Whom {@link #promised} was promised to (-1: nobody, or no longer known). */
    private int promisedTo = -1;
    /**
     * The nonce of the founding leader's check that {@link #promised} was promised to (0 for
     * none): a repeated ask of that check is answered as before; another (a later incarnation of
     * that leader) hears of the promise, and rejoins.
     */
    private int promisedNonce;
    /**
     * This incarnation promised a founding leader's check its epoch, or passed its own check: it
     * was up when the group's check ran. Kept for the process's life (see {@link Takeover}).
     */
    private boolean foundingPromised;

    /**
     * @param first  the epoch it starts in.
     * @param leader the leader of that epoch it follows or is (-1 for none known).
     */
    EpochPromise(final int first, final int leader)
    {
        this.current = first;
        this.leader = leader;
    }

    /** @return the epoch this member orders or follows in. */
    int current()
    {
        return current;
    }

    /** @return the leader whose orders it took in its epoch, or -1. */
    int leader()
    {
        return leader;
    }

    /** {@code id} leads this member's epoch: its orders, and no other leader's, are taken in it. */
    void ledBy(final int id)
    {
        leader = id;
    }

    /** @return the newest epoch it reported for or proposed (0 before any). */
    int promised()
    {
        return promised;
    }

    /** @return whom {@link #promised} was promised to, or -1. */
    int promisedTo()
    {
        return promisedTo;
    }

    /** @return true when this incarnation promised a founding check, or passed its own. */
    boolean foundingPromised()
    {
        return foundingPromised;
    }

    /** @return the newer of its epoch and its promise. */
    int newest()
    {
        return Integer.compareUnsigned(promised, current) > 0 ? promised : current;
    }

    /** @return the epoch it promised when newer than its own, else 0 (an ADDED carries it). */
    int promiseAbove()
    {
        return Integer.compareUnsigned(promised, current) > 0 ? promised : 0;
    }

    /** Reports for (or proposes) {@code proposed}, to {@code to} (-1: nobody in particular). */
    void promise(final int proposed, final int to)
    {
        promised = proposed;
        promisedTo = to;
        promisedNonce = 0;
    }

    /** Promises {@code proposed} to the founding check {@code nonce} of {@code asker}. */
    void promiseFoundingCheck(final int proposed, final int asker, final int nonce)
    {
        promise(proposed, asker);
        promisedNonce = nonce;
        foundingPromised = true;
    }

    /** Its own founding check passed: it was up when the group's check ran. */
    void foundingPassed()
    {
        foundingPromised = true;
    }

    /** @return true when it promised {@code proposed} to this very check: {@code asker}'s ask {@code nonce}. */
    boolean promisedToCheck(final int asker, final int nonce, final int proposed)
    {
        return promisedTo == asker && promisedNonce == nonce && promised == proposed;
    }

    /** @return true when its promise went to a founding check of {@code id}'s. */
    boolean promisedToCheckOf(final int id)
    {
        return id == promisedTo && promisedNonce != 0;
    }

    /** Moves to {@code newEpoch}, which raises the promise to it if that was older. */
    void enter(final int newEpoch)
    {
        if (Integer.compareUnsigned(newEpoch, promised) > 0)
        {
            promised = newEpoch;
            promisedTo = -1;
        }
        current = newEpoch;
    }
}
