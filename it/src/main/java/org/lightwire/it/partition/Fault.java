package org.lightwire.it.partition;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;

/**
 * The nemesis's faults, each bounded in time and then healed. Members are 1 to 5, founded with 1
 * as leader; "the leader" is the one the replicas name when the fault begins.
 */
public enum Fault
{
    /** {1,2} | {3,4,5}, both ways, multicast included, for 8 s. */
    PARTITION("partition")
    {
        @Override
        void inject(final FaultContext c) throws IOException, InterruptedException
        {
            c.cutFor(FaultInjector.partition(Set.of(1, 2), c.group.members()), CUT, "{1,2} | {3,4,5} for " + CUT.toSeconds() + " s");
            // Each side must have dropped the other's packets: a cut that held on one side only was a one-way link.
            final long minority = c.injector.droppedIn(Set.of(1, 2));
            final long majority = c.injector.droppedIn(Set.of(3, 4, 5));
            c.evidence(minority > 0 && majority > 0, "packets dropped by {1,2}: " + minority + ", by {3,4,5}: " + majority);
        }
    },
    /** Everything from the leader to member 2 dropped for 8 s (member 3 when 2 leads); member 2 still sends. */
    ONE_WAY("oneway")
    {
        @Override
        void inject(final FaultContext c) throws IOException, InterruptedException
        {
            final int leader = c.group.leader();
            final int victim = leader == 2 ? 3 : 2;
            c.cutFor(Set.of(new FaultInjector.Link(leader, victim)), CUT, "leader " + leader + " -> " + victim + " for " + CUT.toSeconds() + " s");
            c.evidence(c.injector.droppedPackets() > 0, c.injector.droppedPackets() + " packets from " + leader + " to " + victim + " dropped");
        }
    },
    /** For 10 s, a random minority (one or two members) cut off both ways for 0.5-1 s, then 0.5-1 s healed, again and again. */
    FLAPPING("flapping")
    {
        @Override
        void inject(final FaultContext c) throws IOException, InterruptedException
        {
            final long end = System.nanoTime() + FLAPPING_FOR.toNanos();
            int cuts = 0;
            while (System.nanoTime() - end < 0)
            {
                final Set<Integer> side = new TreeSet<>();
                final int size = 1 + c.random.nextInt(2);
                while (side.size() < size)
                {
                    side.add(1 + c.random.nextInt(c.group.members()));
                }
                c.began();
                c.injector.cut(FaultInjector.partition(side, c.group.members()));
                c.note("cut " + side + " off, " + c.injector.lastChangeTook());
                cuts++;
                Thread.sleep(500 + c.random.nextInt(501));
                c.injector.heal();
                c.note("healed, " + c.injector.lastChangeTook());
                Thread.sleep(500 + c.random.nextInt(501));
            }
            c.healed(cuts + " cuts");
            c.evidence(c.injector.droppedPackets() > 0, cuts + " cuts, " + c.injector.droppedPackets() + " packets dropped");
        }
    },
    /** The leader killed (kill -9), restarted 3 s later with the same id as a founding member (join=false). */
    KILL_LEADER("kill-leader")
    {
        @Override
        void inject(final FaultContext c) throws IOException, InterruptedException
        {
            killAndRestart(c, c.group.leader(), false);
        }
    },
    /** The leader killed (kill -9), restarted 3 s later with the same id, joining (join=true). */
    KILL_LEADER_JOIN("kill-leader-join")
    {
        @Override
        void inject(final FaultContext c) throws IOException, InterruptedException
        {
            killAndRestart(c, c.group.leader(), true);
        }
    },
    /** A follower killed (kill -9), restarted 3 s later with the same id as a founding member (join=false). */
    KILL_FOLLOWER("kill-follower")
    {
        @Override
        void inject(final FaultContext c) throws IOException, InterruptedException
        {
            killAndRestart(c, c.follower(), false);
        }
    },
    /** A follower killed (kill -9), restarted 3 s later with the same id, joining (join=true). */
    KILL_FOLLOWER_JOIN("kill-follower-join")
    {
        @Override
        void inject(final FaultContext c) throws IOException, InterruptedException
        {
            killAndRestart(c, c.follower(), true);
        }
    },
    /** A follower stopped (SIGSTOP) for 5 s, beyond the KeepAlive timeout, then resumed: a false suspicion. */
    PAUSE_FOLLOWER("pause-follower")
    {
        @Override
        void inject(final FaultContext c) throws IOException, InterruptedException
        {
            pause(c, c.follower());
        }
    },
    /** The leader stopped (SIGSTOP) for 5 s, beyond the KeepAlive timeout, then resumed: a false suspicion of the leader. */
    PAUSE_LEADER("pause-leader")
    {
        @Override
        void inject(final FaultContext c) throws IOException, InterruptedException
        {
            pause(c, c.group.leader());
        }
    };

    /** How long a partition or a one-way cut lasts. */
    static final Duration CUT = Duration.ofSeconds(8);
    static final Duration FLAPPING_FOR = Duration.ofSeconds(10);
    /** How long a killed member stays down before its restart begins (beyond the KeepAlive timeout, 2 s). */
    static final Duration DOWN = Duration.ofSeconds(3);
    /** How long a stopped member stays stopped: 2.5 times the KeepAlive timeout (2 s, the default). */
    static final Duration PAUSE = Duration.ofSeconds(5);

    private final String label;

    Fault(final String label)
    {
        this.label = label;
    }

    public String label()
    {
        return label;
    }

    /** Injects the fault, waits it out and heals it; returns once the last heal is done. */
    abstract void inject(FaultContext c) throws IOException, InterruptedException;

    /** @return the fault labelled {@code label}. */
    public static Fault of(final String label)
    {
        for (final Fault f : values())
        {
            if (f.label.equals(label))
            {
                return f;
            }
        }
        final StringBuilder all = new StringBuilder();
        for (final Fault f : values())
        {
            all.append(all.length() == 0 ? "" : ", ").append(f.label);
        }
        throw new IllegalArgumentException("no fault '" + label + "': " + all);
    }

    private static void killAndRestart(final FaultContext c, final int id, final boolean join) throws IOException, InterruptedException
    {
        c.snapshot(id);
        final long pid = c.group.pid(id);
        c.began();
        c.injector.kill(pid);
        c.note("killed replica " + id + " (pid " + pid + ", kill -9)");
        final long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (c.group.alive(id) && System.nanoTime() - end < 0)
        {
            Thread.sleep(20);
        }
        c.evidence(!c.group.alive(id), "replica " + id + " (pid " + pid + ") " + (c.group.alive(id) ? "still alive after kill -9" : "killed"));
        Thread.sleep(DOWN.toMillis());
        c.note("restarting replica " + id + " with join=" + join);
        c.group.restart(id, join);
        c.healed("replica " + id + " restarted (pid " + c.group.pid(id) + ", join=" + join + ") and ready");
    }

    private static void pause(final FaultContext c, final int id) throws IOException, InterruptedException
    {
        final long pid = c.group.pid(id);
        c.began();
        c.injector.stop(pid);
        c.note("stopped replica " + id + " (pid " + pid + ", SIGSTOP)");
        Thread.sleep(200);
        final String state = FaultContext.processState(pid);
        c.evidence("T".equals(state), "replica " + id + " (pid " + pid + ") in state " + state + " while stopped");
        Thread.sleep(PAUSE.toMillis() - 200);
        c.injector.resume(pid);
        c.healed("replica " + id + " resumed (SIGCONT)");
    }
}
