package org.lightwire.romiop.consolidation;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * How a client turns the replies of a group's members into one reply (the paper's reply
 * consolidation, section 4.3): a voting {@link Mode}, the {@link Consistency} the counted replies
 * must have, a timeout that forces a decision with what has arrived, and key members whose reply
 * is required. Immutable; built with {@link #builder()}, read from properties with
 * {@link #fromProperties} or from a compact per-call form with {@link #parse}. The semantics of
 * every combination are in {@link ReplyConsolidator} and docs/romiop.md.
 */
public final class ConsolidationPolicy
{
    /** Prefix of the properties ({@link #fromProperties}). */
    public static final String PREFIX = "jacorb.lightwire.romiop.";
    public static final String MODE = "consolidation.mode";
    public static final String QUORUM = "consolidation.quorum";
    public static final String CONSISTENCY = "consolidation.consistency";
    public static final String TIMEOUT_MS = "consolidation.timeout_ms";
    public static final String KEY_MEMBERS = "consolidation.key_members";
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    public static final long MAX_TIMEOUT_MS = 3_600_000;

    /** Which replies are counted before a decision. */
    public enum Mode
    {
        /** The first reply decides (simple voting). */
        FIRST_REPLY,
        /** Every current member's reply is awaited; the last one to arrive is the result. */
        LAST_REPLY,
        /** The first moment the replies so far satisfy the consistency parameter decides. */
        FIRST_CONSISTENT,
        /** A number of members ({@link #quorum()}) must reply. */
        QUORUM_COUNT,
        /** A percentage of the current members ({@link #quorum()} %, rounded up) must reply. */
        QUORUM_PERCENT,
        /** Every current member must reply (with {@link Consistency#ALL_SAME} by default). */
        ATOMIC
    }

    /** What the counted replies must have in common, compared byte for byte. */
    public enum Consistency
    {
        /** Nothing: the most frequent reply wins, the earliest on a tie. */
        NONE,
        /** Every counted reply is the same. */
        ALL_SAME,
        /** No two counted replies are the same (e.g. members that must hand out distinct values). */
        ALL_DIFFERENT,
        /** One reply has more than half of the votes counted. */
        MAJORITY
    }

    private final Mode mode;
    private final int quorum;
    private final Consistency consistency;
    private final long timeoutNs;
    private final int[] keyMembers;

    private ConsolidationPolicy(final Builder b)
    {
        this.mode = b.mode;
        this.quorum = b.quorum;
        this.consistency = b.consistency;
        this.timeoutNs = b.timeoutNs;
        this.keyMembers = b.keyMembers.clone();
    }

    public static Builder builder()
    {
        return new Builder();
    }

    /** Atomic: every member, all the same, 10 s. */
    public static ConsolidationPolicy atomic()
    {
        return builder().mode(Mode.ATOMIC).build();
    }

    public Mode mode()
    {
        return mode;
    }

    /** @return members ({@link Mode#QUORUM_COUNT}) or percent ({@link Mode#QUORUM_PERCENT}); 0 otherwise. */
    public int quorum()
    {
        return quorum;
    }

    public Consistency consistency()
    {
        return consistency;
    }

    public long timeoutNs()
    {
        return timeoutNs;
    }

    /** @return members whose reply is required, sorted; empty for none. */
    public int[] keyMembers()
    {
        return keyMembers.clone();
    }

    boolean isKeyMember(final int memberId)
    {
        return Arrays.binarySearch(keyMembers, memberId) >= 0;
    }

    /** @return replies needed from {@code members} current members, before key members. */
    int needed(final int members)
    {
        switch (mode)
        {
            case FIRST_REPLY:
                return 1;
            case QUORUM_COUNT:
                return quorum;
            case QUORUM_PERCENT:
                return (int)Math.max(1, (members * (long)quorum + 99) / 100);
            default:
                return members;
        }
    }

    /**
     * Reads {@code jacorb.lightwire.romiop.consolidation.*}, each overridden for the group by
     * {@code jacorb.lightwire.romiop.group.<groupName>.consolidation.*}.
     *
     * @param lookup a property's value, or null when unset (e.g. {@code key -> config.getAttribute(key, null)}).
     * @throws IllegalArgumentException naming the property, its value and what is allowed.
     */
    public static ConsolidationPolicy fromProperties(final Function<String, String> lookup, final String groupName)
    {
        final Builder b = builder();
        for (final String key : new String[] {MODE, QUORUM, CONSISTENCY, TIMEOUT_MS, KEY_MEMBERS})
        {
            String name = PREFIX + "group." + groupName + "." + key;
            String value = lookup.apply(name);
            if (value == null || value.isBlank())
            {
                name = PREFIX + key;
                value = lookup.apply(name);
            }
            if (value != null && !value.isBlank())
            {
                b.set(name, key.substring("consolidation.".length()), value.trim());
            }
        }
        return b.build(PREFIX + "[group." + groupName + ".]consolidation");
    }

    /**
     * Parses the compact per-call form, comma-separated {@code key=value} with the keys mode,
     * quorum, consistency, timeout (ms, or with an ms or s suffix) and key_members
     * (semicolon-separated ids), e.g. {@code mode=quorum,quorum=51%,consistency=majority,timeout=500ms}.
     * A bare {@code quorum=N} or {@code quorum=P%} implies its quorum mode.
     *
     * @throws IllegalArgumentException naming the part that is wrong.
     */
    public static ConsolidationPolicy parse(final String spec)
    {
        final Builder b = builder();
        if (spec != null && !spec.isBlank())
        {
            for (final String part : spec.split(","))
            {
                final int eq = part.indexOf('=');
                if (eq <= 0)
                {
                    throw new IllegalArgumentException("consolidation spec '" + spec + "': '" + part.trim() + "' is not key=value");
                }
                final String key = part.substring(0, eq).trim().toLowerCase(Locale.ROOT);
                b.set("consolidation spec '" + spec + "': " + key, key, part.substring(eq + 1).trim());
            }
        }
        return b.build("consolidation spec '" + spec + "'");
    }

    @Override
    public String toString()
    {
        return "mode=" + mode.name().toLowerCase(Locale.ROOT) +
            (mode == Mode.QUORUM_COUNT ? ",quorum=" + quorum : mode == Mode.QUORUM_PERCENT ? ",quorum=" + quorum + "%" : "") +
            ",consistency=" + consistency.name().toLowerCase(Locale.ROOT) +
            ",timeout=" + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + "ms" +
            (keyMembers.length == 0 ? "" : ",key_members=" + Arrays.toString(keyMembers).replaceAll("[\\[\\] ]", "").replace(',', ';'));
    }

    public static final class Builder
    {
        private Mode mode = Mode.ATOMIC;
        private int quorum;
        private Consistency consistency;
        private long timeoutNs = TimeUnit.MILLISECONDS.toNanos(DEFAULT_TIMEOUT_MS);
        private int[] keyMembers = new int[0];
        private boolean modeSet;

        private Builder()
        {
        }

        public Builder mode(final Mode value)
        {
            mode = value;
            modeSet = true;
            return this;
        }

        /** Members for {@link Mode#QUORUM_COUNT}, percent for {@link Mode#QUORUM_PERCENT}. */
        public Builder quorum(final int value)
        {
            quorum = value;
            return this;
        }

        public Builder consistency(final Consistency value)
        {
            consistency = value;
            return this;
        }

        public Builder timeoutNs(final long value)
        {
            timeoutNs = value;
            return this;
        }

        public Builder keyMembers(final int... ids)
        {
            keyMembers = ids.clone();
            Arrays.sort(keyMembers);
            return this;
        }

        public ConsolidationPolicy build()
        {
            return build("consolidation policy");
        }

        ConsolidationPolicy build(final String where)
        {
            if (mode == Mode.QUORUM_COUNT && quorum < 1)
            {
                throw new IllegalArgumentException(where + ": quorum " + quorum + " must be at least 1 member");
            }
            if (mode == Mode.QUORUM_PERCENT && (quorum < 1 || quorum > 100))
            {
                throw new IllegalArgumentException(where + ": quorum " + quorum + "% must be 1..100 percent");
            }
            if (mode != Mode.QUORUM_COUNT && mode != Mode.QUORUM_PERCENT)
            {
                quorum = 0;
            }
            if (consistency == null)
            {
                consistency = mode == Mode.ATOMIC ? Consistency.ALL_SAME : Consistency.NONE;
            }
            if (timeoutNs < TimeUnit.MILLISECONDS.toNanos(1) || timeoutNs > TimeUnit.MILLISECONDS.toNanos(MAX_TIMEOUT_MS))
            {
                throw new IllegalArgumentException(where + ": timeout " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) +
                    " ms is outside 1.." + MAX_TIMEOUT_MS + " ms");
            }
            return new ConsolidationPolicy(this);
        }

        /** Sets one setting from text; {@code name} is what error messages call it. */
        void set(final String name, final String key, final String value)
        {
            switch (key)
            {
                case "mode":
                    mode(enumValue(name, value, Mode.class, "first_reply, last_reply, first_consistent, quorum, atomic"));
                    break;
                case "quorum":
                    final boolean percent = value.endsWith("%");
                    quorum = integer(name, percent ? value.substring(0, value.length() - 1) : value);
                    if (!modeSet || mode == Mode.QUORUM_COUNT || mode == Mode.QUORUM_PERCENT)
                    {
                        mode = percent ? Mode.QUORUM_PERCENT : Mode.QUORUM_COUNT;
                        modeSet = true;
                    }
                    break;
                case "consistency":
                    consistency(enumValue(name, value, Consistency.class, "none, all_same, all_different, majority"));
                    break;
                case "timeout":
                case "timeout_ms":
                    timeoutNs(TimeUnit.MILLISECONDS.toNanos(millis(name, value)));
                    break;
                case "key":
                case "key_members":
                    final String[] ids = value.split("[;\\s]+");
                    final int[] parsed = new int[ids.length];
                    for (int i = 0; i < ids.length; i++)
                    {
                        parsed[i] = integer(name, ids[i]);
                    }
                    keyMembers(parsed);
                    break;
                default:
                    throw new IllegalArgumentException(name + ": unknown setting; the settings are mode, quorum, consistency, timeout and key_members");
            }
        }

        private static <E extends Enum<E>> E enumValue(final String name, final String value, final Class<E> type, final String allowed)
        {
            final String v = value.toUpperCase(Locale.ROOT).replace('-', '_');
            if ("QUORUM".equals(v) && type == Mode.class)
            {
                return type.cast(Mode.QUORUM_COUNT);
            }
            if ("FIRST".equals(v) && type == Mode.class)
            {
                return type.cast(Mode.FIRST_REPLY);
            }
            if ("LAST".equals(v) && type == Mode.class)
            {
                return type.cast(Mode.LAST_REPLY);
            }
            try
            {
                return Enum.valueOf(type, v);
            }
            catch (final IllegalArgumentException e)
            {
                throw new IllegalArgumentException(name + " = " + value + " is not one of " + allowed);
            }
        }

        private static int integer(final String name, final String value)
        {
            try
            {
                return Integer.parseInt(value.trim());
            }
            catch (final NumberFormatException e)
            {
                throw new IllegalArgumentException(name + " = " + value + " is not a whole number");
            }
        }

        private static long millis(final String name, final String value)
        {
            final String v = value.trim().toLowerCase(Locale.ROOT);
            try
            {
                if (v.endsWith("ms"))
                {
                    return Long.parseLong(v.substring(0, v.length() - 2).trim());
                }
                if (v.endsWith("s"))
                {
                    return Math.multiplyExact(Long.parseLong(v.substring(0, v.length() - 1).trim()), 1000L);
                }
                return Long.parseLong(v);
            }
            catch (final NumberFormatException | ArithmeticException e)
            {
                throw new IllegalArgumentException(name + " = " + value + " is not a time in ms (e.g. 500, 500ms or 2s)");
            }
        }
    }
}
