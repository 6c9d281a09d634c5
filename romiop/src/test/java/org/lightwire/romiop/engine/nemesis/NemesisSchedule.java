package org.lightwire.romiop.engine.nemesis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.lightwire.romiop.engine.nemesis.NemesisCluster.Node;

/**
 * When and where a nemesis strikes: from the start of the fault phase to its end, a fault every
 * 20-300 ms (they may overlap), each healed after its own random time, all drawn from the seed.
 * Crashes respect a budget: at most (n-1)/2 members are down or freshly restarted (within
 * {@link #SETTLE_KEEPALIVE_TIMEOUTS} KeepAlive timeouts) at once, since the group keeps no state on disk
 * and loses it when a majority is gone. Pauses hit one member at a time. {@link #healAll} ends
 * every fault: links mended, paused members resumed, crashed ones restarted.
 */
final class NemesisSchedule
{
    private static final long MS = NemesisCluster.MS;
    private static final int SETTLE_KEEPALIVE_TIMEOUTS = 5;
    private static final Nemesis[] MIXED_FAULTS = {
        Nemesis.PARTITION, Nemesis.FLAP, Nemesis.ONE_WAY, Nemesis.CRASH, Nemesis.RESTART_FOUNDING, Nemesis.PAUSE};
    private static final Nemesis[] HOSTILE_FAULTS = {
        Nemesis.PARTITION, Nemesis.FLAP, Nemesis.ONE_WAY, Nemesis.CRASH, Nemesis.RESTART_FOUNDING, Nemesis.PAUSE, Nemesis.REPLAY};
    /** {@link Nemesis#FOUNDING}'s faults: restarts with the founding configuration twice as often as the others. */
    private static final Nemesis[] FOUNDING_FAULTS = {
        Nemesis.RESTART_FOUNDING, Nemesis.RESTART_FOUNDING, Nemesis.CRASH, Nemesis.PAUSE, Nemesis.ONE_WAY, Nemesis.PARTITION, Nemesis.REPLAY};
    /** {@link Nemesis#FOUNDING} replays one of the first this many packets sent: the founding phase's. */
    private static final int FOUNDING_PACKETS = 3_000;

    private final NemesisCluster cluster;
    private final Nemesis nemesis;
    private final SplittableRandom random;
    private final long timeoutNs;
    private long endNs;
    private int serial;
    /** Members crashed, or restarted and not yet settled: to when they count as settled (Long.MAX_VALUE while down). */
    private final Map<Integer, Long> unsettledUntilNs = new HashMap<>();
    /** How each crashed member is to restart: with the founding configuration (true) or as a joiner. */
    private final Map<Integer, Boolean> restartFounding = new HashMap<>();

    NemesisSchedule(final NemesisCluster cluster, final Nemesis nemesis, final long seed)
    {
        this.cluster = cluster;
        this.nemesis = nemesis;
        this.random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 17);
        this.timeoutNs = cluster.keepAliveTimeoutNs;
    }

    /** Faults start at {@code startNs} and none starts at or after {@code endNs}. */
    void begin(final long startNs, final long endNs)
    {
        this.endNs = endNs;
        if (nemesis != Nemesis.NONE && nemesis != Nemesis.LOSS && nemesis != Nemesis.STAGGERED)
        {
            cluster.at(startNs, this::nextFault);
        }
    }

    private void nextFault()
    {
        if (cluster.nowNs >= endNs)
        {
            return;
        }
        final Nemesis kind = switch (nemesis)
        {
            case MIXED -> MIXED_FAULTS[random.nextInt(MIXED_FAULTS.length)];
            case HOSTILE -> HOSTILE_FAULTS[random.nextInt(HOSTILE_FAULTS.length)];
            case FOUNDING -> FOUNDING_FAULTS[random.nextInt(FOUNDING_FAULTS.length)];
            default -> nemesis;
        };
        switch (kind)
        {
            case PARTITION -> partition(between(30, 800));
            case FLAP -> flap();
            case ONE_WAY -> oneWay();
            case CRASH -> crash(false);
            case RESTART_FOUNDING -> crash(true);
            case PAUSE -> pause();
            case REPLAY -> replay();
            default -> throw new IllegalStateException(kind.toString());
        }
        cluster.at(cluster.nowNs + between(20, 300), this::nextFault);
    }

    private long between(final long fromMs, final long toMs)
    {
        return fromMs * MS + random.nextLong((toMs - fromMs) * MS + 1);
    }

    /** A random partition of members and clients into 2 (or, with 3 members or more, sometimes 3) non-empty member sides. */
    private List<TreeSet<Integer>> randomSides()
    {
        final int members = cluster.memberIds.length;
        final int count = members >= 3 && random.nextInt(4) == 0 ? 3 : 2;
        final List<TreeSet<Integer>> sides = new ArrayList<>();
        final List<Integer> shuffled = new ArrayList<>();
        for (final int id : cluster.memberIds)
        {
            shuffled.add(id);
        }
        for (int i = shuffled.size() - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            shuffled.set(i, shuffled.set(j, shuffled.get(i)));
        }
        for (int s = 0; s < count; s++)
        {
            sides.add(new TreeSet<>());
            sides.get(s).add(shuffled.get(s));
        }
        for (int i = count; i < shuffled.size(); i++)
        {
            sides.get(random.nextInt(count)).add(shuffled.get(i));
        }
        for (final int clientId : cluster.clients.keySet())
        {
            sides.get(random.nextInt(count)).add(clientId);
        }
        return sides;
    }

    private void partition(final long durationNs)
    {
        final String name = "partition#" + ++serial;
        final List<TreeSet<Integer>> sides = randomSides();
        cut(name, sides);
        cluster.at(cluster.nowNs + durationNs, () -> heal(name));
    }

    private void cut(final String name, final List<TreeSet<Integer>> sides)
    {
        cluster.links.partition(name, sides);
        cluster.history.fault(cluster.nowNs, "cut " + name + " " + sides.stream().map(Object::toString).collect(Collectors.joining(" | ")));
    }

    private void heal(final String name)
    {
        if (cluster.links.heal(name))
        {
            cluster.history.fault(cluster.nowNs, "heal " + name);
        }
    }

    private void flap()
    {
        final String name = "flap#" + ++serial;
        final List<TreeSet<Integer>> sides = randomSides();
        long at = cluster.nowNs;
        for (int cycles = 3 + random.nextInt(8); cycles > 0; cycles--)
        {
            cluster.at(at, () ->
            {
                if (cluster.nowNs < endNs)
                {
                    cut(name, sides);
                }
            });
            at += between(5, 60);
            cluster.at(at, () -> heal(name));
            at += between(5, 60);
        }
    }

    private void oneWay()
    {
        final String name = "oneway#" + ++serial;
        final int leader = cluster.observedLeader();
        final List<Integer> members = new ArrayList<>(cluster.nodes.keySet());
        final List<Integer> clients = new ArrayList<>(cluster.clients.keySet());
        final int from;
        final int to;
        final int pick = random.nextInt(10);
        if (pick < 5 && leader > 0)
        {
            // The leader's packets to one member are lost; that member's packets still reach it.
            members.remove(Integer.valueOf(leader));
            from = leader;
            to = members.get(random.nextInt(members.size()));
        }
        else if (pick < 7 && leader > 0)
        {
            from = random.nextBoolean() ? leader : clients.get(random.nextInt(clients.size()));
            to = from == leader ? clients.get(random.nextInt(clients.size())) : leader;
        }
        else
        {
            from = members.remove(random.nextInt(members.size()));
            to = members.get(random.nextInt(members.size()));
        }
        cluster.links.cutOneWay(name, from, to);
        cluster.history.fault(cluster.nowNs, "cut " + name + " " + from + " -> " + to + " (leader " + leader + ")");
        cluster.at(cluster.nowNs + between(30, 800), () -> heal(name));
    }

    /** 1-20 kept packets, each of a random age, delivered again. */
    private void replay()
    {
        final int kept = cluster.net.replayable();
        for (int n = 1 + random.nextInt(20); n > 0 && kept > 0; n--)
        {
            // Any packet kept; for FOUNDING one of the first sent (age counts back from the last).
            final int age = nemesis == Nemesis.FOUNDING ? kept - 1 - random.nextInt(Math.min(kept, FOUNDING_PACKETS)) : random.nextInt(kept);
            final String what = cluster.net.replay(age);
            if (what != null)
            {
                cluster.history.fault(cluster.nowNs, "replay " + what);
            }
        }
    }

    /** Down for less than the KeepAlive timeout (half the time) or for longer. */
    private long downTimeNs()
    {
        final long timeoutMs = timeoutNs / MS;
        return random.nextBoolean() ? between(10, timeoutMs - 10) : between(timeoutMs + 50, 10 * timeoutMs);
    }

    private void crash(final boolean founding)
    {
        final long now = cluster.nowNs;
        unsettledUntilNs.values().removeIf(until -> until <= now);
        final int budget = (cluster.memberIds.length - 1) / 2;
        if (unsettledUntilNs.size() >= budget)
        {
            return;
        }
        final int id = target();
        if (id < 0 || unsettledUntilNs.containsKey(id))
        {
            return;
        }
        cluster.crash(id);
        unsettledUntilNs.put(id, Long.MAX_VALUE);
        restartFounding.put(id, founding);
        cluster.at(now + downTimeNs(), () -> restart(id));
    }

    private void restart(final int id)
    {
        final Node n = cluster.nodes.get(id);
        if (n.crashed)
        {
            cluster.restart(id, restartFounding.remove(id));
            unsettledUntilNs.put(id, cluster.nowNs + SETTLE_KEEPALIVE_TIMEOUTS * timeoutNs);
        }
    }

    /** The observed leader half the time, else a random running member; -1 when none runs. */
    private int target()
    {
        final int leader = cluster.observedLeader();
        if (leader > 0 && random.nextBoolean() && !cluster.nodes.get(leader).crashed && !cluster.nodes.get(leader).paused)
        {
            return leader;
        }
        final List<Integer> running = new ArrayList<>();
        for (final Node n : cluster.nodes.values())
        {
            if (!n.crashed && !n.paused)
            {
                running.add(n.id);
            }
        }
        return running.isEmpty() ? -1 : running.get(random.nextInt(running.size()));
    }

    private void pause()
    {
        if (cluster.nodes.values().stream().anyMatch(n -> n.paused))
        {
            return;
        }
        final int id = target();
        if (id < 0)
        {
            return;
        }
        cluster.pause(id);
        final long timeoutMs = timeoutNs / MS;
        final long pauseNs = random.nextBoolean() ? between(10, timeoutMs - 10) : between(timeoutMs + 50, 15 * timeoutMs);
        final boolean timersFirst = random.nextBoolean();
        cluster.at(cluster.nowNs + pauseNs, () -> cluster.resume(id, timersFirst));
    }

    /** Ends every fault now: links mended, paused members resumed, crashed members restarted (as each was to). */
    void healAll()
    {
        cluster.history.fault(cluster.nowNs, "heal all");
        cluster.links.healAll();
        for (final Node n : cluster.nodes.values())
        {
            if (n.paused)
            {
                cluster.resume(n.id, random.nextBoolean());
            }
        }
        for (final Node n : cluster.nodes.values())
        {
            if (n.crashed)
            {
                cluster.restart(n.id, restartFounding.getOrDefault(n.id, false));
                restartFounding.remove(n.id);
            }
        }
    }
}
