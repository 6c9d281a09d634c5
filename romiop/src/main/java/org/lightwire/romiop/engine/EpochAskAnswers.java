package org.lightwire.romiop.engine;

import java.util.Arrays;

import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/**
 * A member's answers to EPOCH_ASK (a founding leader's check, or a restarted process learning
 * the members' epochs): the newest epoch this member is in or promised, whether it knows of
 * orders, whether its configuration is the one the ask names, and whether it promised the epoch
 * told to this ask.
 *
 * <p>A founding leader's ask proposes the epoch it will order in: a member that knows of no
 * order, leads nothing, has the same configuration and promised nothing as new promises it to
 * that check (leader and nonce), so that it takes no order of an older epoch from then on (a
 * MsgOrder of the leader's earlier incarnation, delayed past its restart, is stale). Asked again,
 * it answers as before; asked by another check (a later incarnation) it tells the epoch it
 * promised, and that check proposes past it. A member whose configuration differs promises
 * nothing, counts for nothing from then on, and says so; the leader does not count it: a group
 * whose members disagree on who they are does not start. A leader, and a member taking over,
 * count as knowing of orders: the asker joins their group (a takeover that promised the check's
 * epoch would lead that epoch on reports gathered for its own proposal, beside the founding
 * leader; and a takeover that promised let members that started at different times wait for
 * good, as each side's rules made the other rejoin unproven).
 */
final class EpochAskAnswers
{
    /** What the answers read of the member's standing. */
    interface Standing
    {
        /** @return true when it knows of any order (held, reported, or ordered), leads, or takes over. */
        boolean knowsOfOrders();

        /** @return the epoch it orders in while it leads, else 0 (a takeover catching up does not lead yet). */
        int leadingEpoch();

        /** @return the highest order number it knows exists (a leader's last order at least). */
        long lastOrderSeq();

        /** @return true while it knows it restarted and waits to learn the members' epochs: it promises nothing. */
        boolean awaitsEpochs();

        /**
         * @return true when it knows it restarted and has not learned the members' epochs: what it
         *     would tell of its own is forgotten, so a recovery ask is told epoch 0, which no
         *     process learns from.
         */
        boolean forgotItsEpochs();
    }

    private final long incarnation;
    private final GroupCounters counters;
    private final Outbox outbox;
    private final EpochPromise epochs;
    private final MemberConfiguration configs;
    private final KnownIncarnations incarnations;
    private final Standing standing;

    EpochAskAnswers(final long incarnation, final GroupCounters counters, final Outbox outbox, final EpochPromise epochs,
        final MemberConfiguration configs, final KnownIncarnations incarnations, final Standing standing)
    {
        this.incarnation = incarnation;
        this.counters = counters;
        this.outbox = outbox;
        this.epochs = epochs;
        this.configs = configs;
        this.incarnations = incarnations;
        this.standing = standing;
    }

    /** @return the configuration an ask names, ascending as the asker listed it. */
    static int[] listed(final MemberChangeFlyweight ask)
    {
        final int[] listed = new int[ask.askListed()];
        for (int i = 0; i < listed.length; i++)
        {
            listed[i] = ask.member(MemberChangeFlyweight.ASK_ENTRIES + i);
        }
        return listed;
    }

    /**
     * Answers {@code asker}'s ask {@code nonce}, which proposes {@code proposed} (0: a recovery
     * ask, which proposes nothing) and names the configuration {@code listed}.
     */
    void answer(final int asker, final int nonce, final int proposed, final int[] listed)
    {
        counters.epochAsksAnswered++;
        final boolean knows = standing.knowsOfOrders();
        final boolean sameConfiguration = proposed == 0 || Arrays.equals(listed, configs.current().ids());
        if (!sameConfiguration)
        {
            configs.mismatchedWith(listed);
        }
        final int newest = epochs.newest();
        if (proposed != 0 && epochs.promisedToCheck(asker, nonce, proposed))
        {
            tell(asker, nonce, proposed, knows, sameConfiguration, true);
        }
        else if (proposed != 0 && sameConfiguration && !knows && configs.current().contains(asker) && Integer.compareUnsigned(proposed, newest) > 0 &&
            !standing.awaitsEpochs())
        {
            epochs.promiseFoundingCheck(proposed, asker, nonce);
            tell(asker, nonce, proposed, false, true, true);
        }
        else
        {
            // A restarted process's recovery ask is told epoch 0 by a process that forgot its own.
            tell(asker, nonce, proposed == 0 && standing.forgotItsEpochs() ? 0 : newest, knows, sameConfiguration, false);
        }
    }

    /**
     * Sends an EPOCH_TOLD with its tail: the highest order number this member knows exists (an
     * admission's reach is never below it), the epoch it orders in when it leads, this incarnation
     * and the incarnations it knows (a restart merges them: should this member restart after
     * answering another restart, its later incarnation learns that one again from its own answers).
     */
    private void tell(final int asker, final int nonce, final int epochTold, final boolean knows, final boolean sameConfiguration,
        final boolean promisedToAsk)
    {
        outbox.epochTold(asker, nonce, epochTold, knows, sameConfiguration, promisedToAsk, standing.lastOrderSeq(), incarnation,
            standing.leadingEpoch(), incarnations);
    }
}
