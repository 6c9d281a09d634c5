package org.lightwire.romiop.engine;

/**
 * How far the leader's orders reached when this process was last admitted while it may have been
 * a restarted one (docs/romiop.md, "Incarnations"): its earlier incarnation may have helped commit
 * any order up to there, of the admitting leader's epoch, so its reports count only once it, or
 * another report that counts, holds them all. Zero until such an admission.
 */
final class AdmissionReach
{
    private int epoch;
    private long reach;

    /** Admitted in {@code leaderEpoch}, whose leader had ordered through {@code lastOrderSeq}. */
    void admitted(final int leaderEpoch, final long lastOrderSeq)
    {
        epoch = leaderEpoch;
        reach = lastOrderSeq;
    }

    int epoch()
    {
        return epoch;
    }

    long reach()
    {
        return reach;
    }
}
