package org.lightwire.romiop.consolidation;

import java.util.Arrays;

/** The end of one call's consolidation: its {@link Outcome}, the reply on success, and why. */
public final class Decision
{
    private final Outcome outcome;
    private final byte[] reply;
    private final int replyFrom;
    private final int[] replied;
    private final int[] members;
    private final String why;
    private final ConsolidationPolicy policy;

    /**
     * @param why    what happened, without the policy: {@link #message} adds it when asked, so a
     *               call that succeeds (nobody asks) does not format its policy.
     */
    Decision(final Outcome outcome, final byte[] reply, final int replyFrom, final int[] replied, final int[] members, final String why,
        final ConsolidationPolicy policy)
    {
        this.outcome = outcome;
        this.reply = reply;
        this.replyFrom = replyFrom;
        this.replied = replied;
        this.members = members;
        this.why = why;
        this.policy = policy;
    }

    public Outcome outcome()
    {
        return outcome;
    }

    public boolean succeeded()
    {
        return outcome == Outcome.SUCCESS;
    }

    /** @return the consolidated reply (a copy) on {@link Outcome#SUCCESS}, else null. */
    public byte[] reply()
    {
        return reply == null ? null : reply.clone();
    }

    /** @return the member whose reply was chosen, or -1. */
    public int replyFrom()
    {
        return replyFrom;
    }

    /** @return the members whose replies were counted, in arrival order. */
    public int[] replied()
    {
        return replied.clone();
    }

    /** @return the group's members when the decision was made. */
    public int[] members()
    {
        return members.clone();
    }

    /** @return what happened, for an exception message or a log: counts, members, votes, the policy. */
    public String message()
    {
        return why + " [policy " + policy + "]";
    }

    @Override
    public String toString()
    {
        return outcome + ": " + message() + " (replied " + Arrays.toString(replied) + " of " + Arrays.toString(members) + ")";
    }
}
