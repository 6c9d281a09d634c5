package org.lightwire.romiop.engine;

/**
 * Absolute deadlines in nanoseconds, compared wrap-safely ({@code a - b < 0}), with
 * {@link Long#MAX_VALUE} for "none": how each part of an engine says when it next needs to run, and
 * how the engine composes them.
 */
final class Deadlines
{
    static final long NONE = Long.MAX_VALUE;

    private Deadlines()
    {
    }

    /** @return {@code candidateNs} when it is armed and earlier than {@code deadlineNs} (or that is none), else {@code deadlineNs}. */
    static long earlier(final long deadlineNs, final boolean armed, final long candidateNs)
    {
        return armed && (deadlineNs == NONE || candidateNs - deadlineNs < 0) ? candidateNs : deadlineNs;
    }

    /** @return the earlier of two deadlines, either of which may be none. */
    static long earlier(final long deadlineNs, final long candidateNs)
    {
        return earlier(deadlineNs, candidateNs != NONE, candidateNs);
    }
}
