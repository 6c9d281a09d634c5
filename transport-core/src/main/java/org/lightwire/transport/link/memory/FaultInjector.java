package org.lightwire.transport.link.memory;

import java.util.SplittableRandom;

/**
 * Decides the fate of each packet of one direction from that direction's own random stream.
 *
 * <p>Every decision draws the same number of values whatever the rates and whatever the
 * outcome, so the n-th packet of a direction meets the same draws when a test changes a rate:
 * raising the drop rate drops more packets without reshuffling the delays of the others. One
 * stream per direction keeps a change to the faults of A to B from moving the draws of B to A.
 *
 * <p>Not thread-safe: the owner serialises calls and reads the outcome before the next call.
 */
final class FaultInjector
{
    private static final double UNIT = 0x1.0p-53;
    /** A reordered packet is held back by 1 to this many base latencies beyond the delay range. */
    static final int MAX_HOLD_LATENCIES = 3;

    private final SplittableRandom random;

    boolean drop;
    boolean duplicate;
    boolean reorder;
    long delayNs;
    long duplicateDelayNs;
    int holdLatencies;

    private FaultInjector(final SplittableRandom random)
    {
        this.random = random;
    }

    /**
     * @return two injectors split from one seed, indexed by the sending {@link Side}'s ordinal.
     */
    static FaultInjector[] forSeed(final long seed)
    {
        final SplittableRandom root = new SplittableRandom(seed);
        final FaultInjector[] injectors = new FaultInjector[Side.values().length];
        for (final Side side : Side.values())
        {
            injectors[side.ordinal()] = new FaultInjector(root.split());
        }
        return injectors;
    }

    /** Draws the fate of one packet of {@code kind}; the result is in the fields. */
    void decide(final Faults faults, final PacketKind kind)
    {
        final double dropDraw = nextUnit();
        final double duplicateDraw = nextUnit();
        final double reorderDraw = nextUnit();
        final long delayDraw = random.nextLong();
        final long duplicateDelayDraw = random.nextLong();
        final long holdDraw = random.nextLong();

        // A draw is in [0, 1), so a rate of 0 never fires and a rate of 1 always does.
        drop = dropDraw < faults.dropRate(kind);
        duplicate = duplicateDraw < faults.duplicateRate(kind);
        reorder = reorderDraw < faults.reorderRate(kind);

        final long minDelayNs = faults.minDelayNs(kind);
        final long spanNs = faults.maxDelayNs(kind) - minDelayNs;
        delayNs = minDelayNs + bounded(delayDraw, spanNs + 1);
        duplicateDelayNs = minDelayNs + bounded(duplicateDelayDraw, spanNs + 1);
        holdLatencies = 1 + (int)bounded(holdDraw, MAX_HOLD_LATENCIES);
    }

    private double nextUnit()
    {
        return (random.nextLong() >>> 11) * UNIT;
    }

    private static long bounded(final long draw, final long bound)
    {
        // Modulo of a 63-bit value: its bias is below bound / 2^63, nothing for delays of at most
        // an hour, and unlike rejection sampling it always consumes exactly one draw.
        return (draw >>> 1) % bound;
    }
}
