package org.lightwire.transport.link.memory;

import java.util.Arrays;
import java.util.Objects;

/**
 * The faults one direction of an in-memory network injects, set separately for each
 * {@link PacketKind}: the probabilities that a packet is dropped, duplicated or reordered, and
 * the range its delay is drawn from (added to the network's base latency).
 *
 * <p>Immutable; make one with {@link #builder()} or change one with {@link #toBuilder()}. The
 * builder checks each value as it is set, so a bad value fails on the line that set it.
 *
 * <pre>
 * Faults lossyControl = Faults.builder()
 *     .dropRate(PacketKind.CONTROL, 0.2)
 *     .delayNs(0, 50_000)
 *     .build();
 * </pre>
 */
public final class Faults
{
    /** Largest delay a range may reach: one hour, far beyond any test, and no overflow. */
    public static final long MAX_DELAY_NS = 3_600_000_000_000L;

    // Before NONE: static fields initialise in source order and the builder needs this.
    private static final int KINDS = PacketKind.values().length;

    /** No drop, duplicate, reorder or delay for any kind of packet. */
    public static final Faults NONE = new Builder().build();

    private final double[] dropRate;
    private final double[] duplicateRate;
    private final double[] reorderRate;
    private final long[] minDelayNs;
    private final long[] maxDelayNs;

    private Faults(final Builder builder)
    {
        dropRate = builder.dropRate.clone();
        duplicateRate = builder.duplicateRate.clone();
        reorderRate = builder.reorderRate.clone();
        minDelayNs = builder.minDelayNs.clone();
        maxDelayNs = builder.maxDelayNs.clone();
    }

    /** @return a builder that starts from {@link #NONE}. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return a builder that starts from these faults. */
    public Builder toBuilder()
    {
        return new Builder(this);
    }

    /** @return the probability, 0 to 1, that a packet of this kind is dropped. */
    public double dropRate(final PacketKind kind)
    {
        return dropRate[kind.ordinal()];
    }

    /** @return the probability, 0 to 1, that a packet of this kind that is not dropped arrives twice. */
    public double duplicateRate(final PacketKind kind)
    {
        return duplicateRate[kind.ordinal()];
    }

    /** @return the probability, 0 to 1, that a packet of this kind is overtaken by later ones. */
    public double reorderRate(final PacketKind kind)
    {
        return reorderRate[kind.ordinal()];
    }

    /** @return the least delay, beyond the base latency, of a packet of this kind. */
    public long minDelayNs(final PacketKind kind)
    {
        return minDelayNs[kind.ordinal()];
    }

    /** @return the greatest delay, beyond the base latency, of a packet of this kind. */
    public long maxDelayNs(final PacketKind kind)
    {
        return maxDelayNs[kind.ordinal()];
    }

    /** @return the greatest delay of any kind of packet, which a reordered packet must exceed. */
    public long maxDelayNs()
    {
        return Math.max(maxDelayNs[0], maxDelayNs[1]);
    }

    /**
     * @return true when packets arrive in the order they were sent: nothing is reordered and
     *         every packet, of either kind, has one and the same delay (a control packet with a
     *         shorter fixed delay than data would overtake it).
     */
    public boolean preservesOrder()
    {
        for (final PacketKind kind : PacketKind.values())
        {
            final int i = kind.ordinal();
            if (reorderRate[i] != 0.0 || minDelayNs[i] != minDelayNs[0] || maxDelayNs[i] != minDelayNs[0])
            {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(final Object other)
    {
        if (this == other)
        {
            return true;
        }
        if (!(other instanceof Faults))
        {
            return false;
        }
        final Faults that = (Faults)other;
        return Arrays.equals(dropRate, that.dropRate) &&
            Arrays.equals(duplicateRate, that.duplicateRate) &&
            Arrays.equals(reorderRate, that.reorderRate) &&
            Arrays.equals(minDelayNs, that.minDelayNs) &&
            Arrays.equals(maxDelayNs, that.maxDelayNs);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(
            Arrays.hashCode(dropRate),
            Arrays.hashCode(duplicateRate),
            Arrays.hashCode(reorderRate),
            Arrays.hashCode(minDelayNs),
            Arrays.hashCode(maxDelayNs));
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("Faults{");
        for (final PacketKind kind : PacketKind.values())
        {
            final int i = kind.ordinal();
            sb.append(kind == PacketKind.DATA ? "" : ", ")
                .append(kind).append("{drop=").append(dropRate[i])
                .append(", duplicate=").append(duplicateRate[i])
                .append(", reorder=").append(reorderRate[i])
                .append(", delayNs=").append(minDelayNs[i]).append("..").append(maxDelayNs[i])
                .append('}');
        }
        return sb.append('}').toString();
    }

    /**
     * Collects the values of a {@link Faults}. The methods without a {@link PacketKind} set the
     * value for both kinds. Each method throws {@link IllegalArgumentException} when a value is
     * out of its range.
     */
    public static final class Builder
    {
        private final double[] dropRate = new double[KINDS];
        private final double[] duplicateRate = new double[KINDS];
        private final double[] reorderRate = new double[KINDS];
        private final long[] minDelayNs = new long[KINDS];
        private final long[] maxDelayNs = new long[KINDS];

        private Builder()
        {
        }

        private Builder(final Faults faults)
        {
            System.arraycopy(faults.dropRate, 0, dropRate, 0, KINDS);
            System.arraycopy(faults.duplicateRate, 0, duplicateRate, 0, KINDS);
            System.arraycopy(faults.reorderRate, 0, reorderRate, 0, KINDS);
            System.arraycopy(faults.minDelayNs, 0, minDelayNs, 0, KINDS);
            System.arraycopy(faults.maxDelayNs, 0, maxDelayNs, 0, KINDS);
        }

        /** Sets the drop probability, 0 to 1, of both kinds. */
        public Builder dropRate(final double rate)
        {
            return dropRate(PacketKind.DATA, rate).dropRate(PacketKind.CONTROL, rate);
        }

        /** Sets the drop probability, 0 to 1, of one kind. */
        public Builder dropRate(final PacketKind kind, final double rate)
        {
            dropRate[kind.ordinal()] = checkRate("dropRate", kind, rate);
            return this;
        }

        /** Sets the duplicate probability, 0 to 1, of both kinds. */
        public Builder duplicateRate(final double rate)
        {
            return duplicateRate(PacketKind.DATA, rate).duplicateRate(PacketKind.CONTROL, rate);
        }

        /** Sets the duplicate probability, 0 to 1, of one kind. */
        public Builder duplicateRate(final PacketKind kind, final double rate)
        {
            duplicateRate[kind.ordinal()] = checkRate("duplicateRate", kind, rate);
            return this;
        }

        /** Sets the reorder probability, 0 to 1, of both kinds. */
        public Builder reorderRate(final double rate)
        {
            return reorderRate(PacketKind.DATA, rate).reorderRate(PacketKind.CONTROL, rate);
        }

        /** Sets the reorder probability, 0 to 1, of one kind. */
        public Builder reorderRate(final PacketKind kind, final double rate)
        {
            reorderRate[kind.ordinal()] = checkRate("reorderRate", kind, rate);
            return this;
        }

        /** Sets the delay range, inclusive, of both kinds. */
        public Builder delayNs(final long minDelayNs, final long maxDelayNs)
        {
            return delayNs(PacketKind.DATA, minDelayNs, maxDelayNs).delayNs(PacketKind.CONTROL, minDelayNs, maxDelayNs);
        }

        /** Sets the delay range, inclusive, of one kind; a delay is drawn uniformly from it. */
        public Builder delayNs(final PacketKind kind, final long minDelayNs, final long maxDelayNs)
        {
            checkDelay("minDelayNs", kind, minDelayNs);
            checkDelay("maxDelayNs", kind, maxDelayNs);
            if (minDelayNs > maxDelayNs)
            {
                throw new IllegalArgumentException(
                    "minDelayNs for " + kind + " packets (" + minDelayNs + ") exceeds maxDelayNs (" + maxDelayNs +
                    "); allowed: 0 <= minDelayNs <= maxDelayNs <= " + MAX_DELAY_NS);
            }
            this.minDelayNs[kind.ordinal()] = minDelayNs;
            this.maxDelayNs[kind.ordinal()] = maxDelayNs;
            return this;
        }

        public Faults build()
        {
            return new Faults(this);
        }

        private static double checkRate(final String field, final PacketKind kind, final double rate)
        {
            // Written so that NaN fails too.
            if (!(rate >= 0.0 && rate <= 1.0))
            {
                throw new IllegalArgumentException(
                    field + " for " + kind + " packets is " + rate + "; allowed range is [0.0, 1.0]");
            }
            return rate;
        }

        private static void checkDelay(final String field, final PacketKind kind, final long delayNs)
        {
            if (delayNs < 0 || delayNs > MAX_DELAY_NS)
            {
                throw new IllegalArgumentException(
                    field + " for " + kind + " packets is " + delayNs + "; allowed range is [0, " + MAX_DELAY_NS + "]");
            }
        }
    }
}
