package org.lightwire.romiop.engine;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/**
 * The newest incarnation this member knows of each member of its configuration: the crash vector
 * of Michael, Ports, Sharma and Szekeres ("Recovering Shared Objects Without Stable Storage",
 * DISC 2017). Raised before this member answers a process's EPOCH_ASK, by every report it
 * receives and by the answers to its own EPOCH_ASK; carried in its reports and its answers. A takeover counts no report of an incarnation older than
 * one it knows (docs/romiop.md, "Incarnations").
 */
final class KnownIncarnations
{
    private final Map<Integer, Long> newest = new TreeMap<>();

    /** @return the newest incarnation known of {@code id} (0 when none). */
    long of(final int id)
    {
        return newest.getOrDefault(id, 0L);
    }

    /** @return true when {@code incarnation} of {@code id} is older than one known. */
    boolean older(final int id, final long incarnation)
    {
        return incarnation < of(id);
    }

    /** Knows {@code incarnation} of {@code id}, when {@code id} is {@code configured} (others count for nothing). */
    void raise(final int id, final long incarnation, final IntPredicate configured)
    {
        if (incarnation > 0 && configured.test(id))
        {
            newest.merge(id, incarnation, Math::max);
        }
    }

    /** Knows what a report's tail says: its sender's incarnation and the ones its sender knows. */
    void raiseFrom(final KeepAliveFlyweight report, final IntPredicate configured)
    {
        raise(report.senderId(), report.incarnation(), configured);
        for (int i = 0; i < report.knownCount(); i++)
        {
            raise(report.knownMember(i), report.knownIncarnation(i), configured);
        }
    }

    /** Knows what an EPOCH_TOLD's tail says: its sender's incarnation and the ones its sender knows. */
    void raiseFrom(final MemberChangeFlyweight told, final IntPredicate configured)
    {
        raise(told.senderId(), told.toldIncarnation(), configured);
        for (int i = 0; i < told.toldKnownCount(); i++)
        {
            raise(told.toldKnownMember(i), told.toldKnownIncarnation(i), configured);
        }
    }

    int size()
    {
        return newest.size();
    }

    /** Writes every known incarnation into an EPOCH_TOLD's tail, from entry 0. */
    void writeTo(final MemberChangeFlyweight told)
    {
        int i = 0;
        for (final Map.Entry<Integer, Long> e : newest.entrySet())
        {
            told.toldKnown(i++, e.getKey(), e.getValue());
        }
    }

    /** Writes every known incarnation into a report's tail, from entry 0. */
    void writeTo(final KeepAliveFlyweight report)
    {
        int i = 0;
        for (final Map.Entry<Integer, Long> e : newest.entrySet())
        {
            report.known(i++, e.getKey(), e.getValue());
        }
    }
}
