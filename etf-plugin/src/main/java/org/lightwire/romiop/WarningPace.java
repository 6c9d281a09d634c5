package org.lightwire.romiop;

/** When a repeated warning may be logged again: at once the first time, then at most every {@link #REPEAT_NS}. */
final class WarningPace
{
    static final long REPEAT_NS = 10_000_000_000L;

    private long warnedNs;
    private boolean warned;

    /** @return true when a warning may be logged at {@code nowNs}; the caller logs it. */
    boolean due(final long nowNs)
    {
        if (warned && nowNs - warnedNs < REPEAT_NS)
        {
            return false;
        }
        warned = true;
        warnedNs = nowNs;
        return true;
    }
}
