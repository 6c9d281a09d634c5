package org.lightwire.romiop.engine.nemesis;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The faults a run injects, each selectable by name; {@link #MIXED} draws from all of them over a run. */
enum Nemesis
{
    /** Background faults only: 2 % loss, 2 % duplication, 50-450 us latency (which reorders). */
    NONE("none"),
    /** Heavier background faults, drawn per run: 2-20 % loss, up to 10 % duplication, jitter up to 3 ms. */
    LOSS("loss"),
    /** Symmetric partitions into two or more sides (clients on a side too), healed after 30-800 ms. */
    PARTITION("partition"),
    /** A partition cut and healed 3-10 times, 5-60 ms each way. */
    FLAP("flap"),
    /** One direction of a link dropped for 30-800 ms: often the leader's packets to one member, or to a client. */
    ONE_WAY("oneway"),
    /** A member crashes (often the leader) and restarts with the same id as a joiner, within or past the KeepAlive timeout. */
    CRASH("crash"),
    /** As {@link #CRASH}, restarting with the group's founding configuration instead. */
    RESTART_FOUNDING("restart"),
    /** One member (often the leader) runs nothing for 10-90 ms or 150-1500 ms, then goes on with its old state: a GC pause. */
    PAUSE("pause"),
    /** All of the above, drawn at random over the run, overlapping, over heavier background faults. */
    MIXED("mixed"),
    /**
     * First starts at different times (up to 800 ms, eight KeepAlive timeouts, apart; the founding
     * leader last half the time) over the heavier background faults of {@link #LOSS}, no other fault.
     */
    STAGGERED("staggered"),
    /**
     * Delayed duplicates: every 20-300 ms, 1-20 packets of the last {@value NemesisRun#REPLAY_KEPT}
     * sent (in a run of a few seconds, any packet since the start) reach their destination again,
     * over the heavier background faults of {@link #LOSS}: a network that held copies, or an
     * attacker replaying what it saw.
     */
    REPLAY("replay"),
    /** {@link #MIXED}'s faults and {@link #REPLAY}'s delayed duplicates, drawn at random over the run. */
    HOSTILE("hostile"),
    /**
     * Faults from the first instant, while the group founds itself: first starts staggered as in
     * {@link #STAGGERED}; members crashed and restarted (mostly with the founding configuration)
     * before, during and after the founding leader's check; pauses, one-way cuts and partitions;
     * and delayed duplicates of the founding phase's packets (its asks and answers, the first
     * KeepAlives and orders), over {@link #LOSS}'s background faults.
     */
    FOUNDING("founding");

    final String label;

    Nemesis(final String label)
    {
        this.label = label;
    }

    static Nemesis parse(final String label)
    {
        for (final Nemesis n : values())
        {
            if (n.label.equals(label))
            {
                return n;
            }
        }
        throw new IllegalArgumentException("no nemesis " + label + "; one of " +
            Arrays.stream(values()).map(n -> n.label).collect(Collectors.joining(", ")));
    }

    @Override
    public String toString()
    {
        return label;
    }
}
