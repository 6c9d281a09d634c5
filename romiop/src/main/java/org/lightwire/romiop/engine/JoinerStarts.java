package org.lightwire.romiop.engine;

import java.util.HashMap;
import java.util.Map;

/**
 * The leader's word to each joiner it admitted on where it starts (docs/romiop.md, "The start"):
 * a unicast KeepAlive flagged start whose {@code commit} is the joiner's start, sent right after
 * the LIST that admits it, again every {@code resendNs} for at most {@code forNs}, and in answer
 * to each ADDED the joiner repeats, until the joiner shows it started (an ONLINE or OrderAck sent
 * after the ADDED it was admitted with) or leaves the view. Clients count the joiner's replies
 * from that LIST on: a joiner that started at a later commit would neither execute nor answer the
 * calls ordered in between. At most one entry per member of the view.
 */
final class JoinerStarts
{
    /** Sends one joiner its start KeepAlive. */
    interface Sender
    {
        void start(int joinerId, long startSeq);
    }

    private static final class Owed
    {
        final long startSeq;
        final int addedPacketId;
        final long untilNs;
        long nextNs;

        Owed(final long startSeq, final int addedPacketId, final long untilNs, final long nextNs)
        {
            this.startSeq = startSeq;
            this.addedPacketId = addedPacketId;
            this.untilNs = untilNs;
            this.nextNs = nextNs;
        }

        boolean resending(final long nowNs)
        {
            return untilNs - nowNs > 0;
        }
    }

    private final long resendNs;
    private final long forNs;
    private final GroupCounters counters;
    private final Sender sender;
    private final Map<Integer, Owed> owed = new HashMap<>();

    JoinerStarts(final long resendNs, final long forNs, final GroupCounters counters, final Sender sender)
    {
        this.resendNs = resendNs;
        this.forNs = forNs;
        this.counters = counters;
        this.sender = sender;
    }

    /**
     * Sends {@code joinerId} its start: the one it is already owed (it asked again), or
     * {@code startSeq} for a new admission, by its ADDED {@code addedPacketId}.
     */
    void admit(final int joinerId, final long startSeq, final int addedPacketId, final long nowNs)
    {
        final Owed start = owed.computeIfAbsent(joinerId, id -> new Owed(startSeq, addedPacketId, nowNs + forNs, nowNs + resendNs));
        sender.start(joinerId, start.startSeq);
    }

    /** A packet of {@code joinerId}'s that shows it started: an ONLINE or OrderAck sent after the ADDED it was admitted with. */
    void started(final int joinerId, final int packetId)
    {
        final Owed start = owed.get(joinerId);
        if (start != null && Integer.compareUnsigned(packetId, start.addedPacketId) > 0)
        {
            owed.remove(joinerId);
        }
    }

    /** The joiner left the view: a re-admission owes it a start of its own. */
    void forget(final int joinerId)
    {
        owed.remove(joinerId);
    }

    /** This member no longer leads: its word is void. */
    void clear()
    {
        owed.clear();
    }

    void onTimer(final long nowNs)
    {
        for (final Map.Entry<Integer, Owed> e : owed.entrySet())
        {
            final Owed start = e.getValue();
            if (nowNs - start.nextNs < 0)
            {
                continue;
            }
            if (start.resending(nowNs))
            {
                start.nextNs = nowNs + resendNs;
                counters.startsResent++;
                sender.start(e.getKey(), start.startSeq);
            }
            else
            {
                // Done resending; the start stays owed, for the ADDED the joiner repeats.
                start.nextNs = start.untilNs;
            }
        }
    }

    long nextDeadlineNs()
    {
        long deadline = Deadlines.NONE;
        for (final Owed start : owed.values())
        {
            deadline = Deadlines.earlier(deadline, start.untilNs - start.nextNs > 0, start.nextNs);
        }
        return deadline;
    }
}
