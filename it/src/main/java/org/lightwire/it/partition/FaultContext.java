package org.lightwire.it.partition;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * What a {@link Fault} works with while it runs: the injector, the group, a seeded random source,
 * and what it leaves for the checker (when it last healed, logs read before kills, whether it
 * demonstrably acted) and for the report (a timeline of events).
 */
public final class FaultContext
{
    final FaultInjector injector;
    final ReplicaGroup group;
    final Random random;
    private final long createdNs = System.nanoTime();
    private long startNs = createdNs;
    private boolean begun;
    private final List<String> timeline = new ArrayList<>();
    private final List<ReplicaLog> snapshots = new ArrayList<>();
    private final List<String> evidence = new ArrayList<>();
    private boolean acted = true;
    private long lastHealNs = createdNs;

    FaultContext(final FaultInjector injector, final ReplicaGroup group, final long seed)
    {
        this.injector = injector;
        this.group = group;
        this.random = new Random(seed);
    }

    /** Records an event of the fault, timed from the moment the fault was chosen. */
    void note(final String event)
    {
        timeline.add(Verdict.seconds(System.nanoTime() - createdNs) + " " + event);
    }

    /**
     * The fault begins now (its first cut, kill or stop): choosing it may take a while, since
     * the replicas answer probes on the POA thread that executes the group's requests.
     */
    void began()
    {
        if (!begun)
        {
            begun = true;
            startNs = System.nanoTime();
        }
    }

    /** The fault is over: every link healed, every process running again. */
    void healed(final String how)
    {
        lastHealNs = System.nanoTime();
        note("healed: " + how);
    }

    /** Records what shows the fault happened; {@code acted} false makes the run's "fault" check fail. */
    void evidence(final boolean acted, final String what)
    {
        this.acted &= acted;
        evidence.add(what);
    }

    /** Drops {@code links} for {@code duration}, then heals them. */
    void cutFor(final Set<FaultInjector.Link> links, final Duration duration, final String what) throws IOException, InterruptedException
    {
        began();
        injector.cut(links);
        note("cut " + what + ", " + injector.lastChangeTook());
        Thread.sleep(duration.toMillis());
        injector.heal();
        healed("links, " + injector.lastChangeTook());
    }

    /** Reads member {@code id}'s log before it is killed; a replica that does not answer is noted. */
    void snapshot(final int id)
    {
        try
        {
            snapshots.add(group.read(id, false));
        }
        catch (final org.omg.CORBA.SystemException e)
        {
            note("replica " + id + " did not answer before its kill: " + e);
        }
    }

    /** @return the highest member id that does not lead. */
    int follower()
    {
        final int leader = group.leader();
        return leader == group.members() ? group.members() - 1 : group.members();
    }

    /** @return the process's state letter from /proc ("T" when stopped), or "?" when gone. */
    static String processState(final long pid)
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        }
        catch (final IOException | RuntimeException e)
        {
            return "?";
        }
    }

    long startNs()
    {
        return startNs;
    }

    long lastHealNs()
    {
        return lastHealNs;
    }

    boolean acted()
    {
        return acted;
    }

    String evidence()
    {
        return String.join("; ", evidence);
    }

    List<String> timeline()
    {
        return List.copyOf(timeline);
    }

    List<ReplicaLog> snapshots()
    {
        return List.copyOf(snapshots);
    }
}
