package org.lightwire.it.partition;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.lightwire.it.Orbs;
import org.lightwire.it.ProcessHarness;
import org.lightwire.it.RomiopGroupFixture;
import org.lightwire.it.idl.lwtest.replica_probe;
import org.lightwire.it.idl.lwtest.replica_probeHelper;
import org.omg.CORBA.ORB;

/**
 * A ROMIOP group of {@link org.lightwire.it.RomiopReplica} JVMs, member {@code id} in namespace
 * {@code id} of a {@link NetnsNetwork}, multicasting across its bridge; each replica's
 * {@code replica_probe} reached over IIOP from this JVM. Members are founded together with
 * {@code members = 1,...,n} (1 leads); {@link #restart} starts a member's process again with the
 * same id, founding ({@code join=false}) or joining; a restarted process that took the group's
 * state ({@code LightwireFT::Checkpointable}, the plug-in's {@code statesApplied}) holds the
 * group's log from the start, as a founder does.
 *
 * <p>Replicas run with small heaps ({@value #HEAP}); the probe ORB gives up on a call after
 * {@value #PROBE_TIMEOUT_MS} ms (a replica executes probe calls on the one POA thread its group
 * requests use, and a stopped replica answers nothing).
 */
public final class ReplicaGroup implements AutoCloseable
{
    static final String HEAP = "-Xmx128m";
    static final int PROBE_TIMEOUT_MS = 20_000;
    private static final String GROUP = "partition";
    private static final Duration READY = Duration.ofSeconds(180);
    private static final Pattern LEADER = Pattern.compile("engine (\\w+), leader (-?\\d+)");
    private static final Pattern DELIVERED = Pattern.compile("delivered=(\\d+)");
    /** Group states the replica's servant took (set_state completed): its log then holds the group's from the start. */
    private static final Pattern STATES_APPLIED = Pattern.compile("\\bstatesApplied=(\\d+)");
    private static final Pattern STATE = Pattern.compile("engine (\\w+, leader -?\\d+, view \\[[^]]*], deliveredSeq \\d+)");

    private final NetnsNetwork network;
    private final Map<String, String> settings;
    private final String groupAddress;
    private final ProcessHarness[] replicas;
    private final int[] incarnations;
    private final ORB probeOrb;
    /** Each member's current process's probe; dropped at a restart. */
    private final Map<Integer, replica_probe> probes = new HashMap<>();

    private ReplicaGroup(final NetnsNetwork network, final Map<String, String> settings)
    {
        this.network = network;
        this.settings = Map.copyOf(settings);
        final long pid = ProcessHandle.current().pid();
        this.groupAddress = "239.255." + (pid % 250 + 1) + ".7:" + (22000 + pid % 20000);
        this.replicas = new ProcessHarness[network.members() + 1];
        this.incarnations = new int[network.members() + 1];
        this.probeOrb = Orbs.init(Map.of("jacorb.connection.client.pending_reply_timeout", Integer.toString(PROBE_TIMEOUT_MS)));
    }

    /**
     * Starts every member (in parallel) and waits until each is ready.
     *
     * @param settings ROMIOP properties every replica shares (KeepAlive timings, for example).
     */
    public static ReplicaGroup start(final NetnsNetwork network, final Map<String, String> settings) throws IOException, InterruptedException
    {
        final ReplicaGroup g = new ReplicaGroup(network, settings);
        final ExecutorService starter = Executors.newFixedThreadPool(network.members());
        try
        {
            final List<Future<ProcessHarness>> started = new ArrayList<>();
            for (int id = 1; id <= network.members(); id++)
            {
                final int member = id;
                started.add(starter.submit(() -> g.startMember(member, false)));
            }
            for (int id = 1; id <= network.members(); id++)
            {
                try
                {
                    g.replicas[id] = started.get(id - 1).get(READY.toSeconds() + 30, TimeUnit.SECONDS);
                    g.incarnations[id] = 1;
                }
                catch (final java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e)
                {
                    for (final Future<ProcessHarness> f : started)
                    {
                        f.cancel(true);
                    }
                    g.close();
                    throw new IOException("replica " + id + " did not start: " + e.getMessage(), e);
                }
            }
        }
        finally
        {
            starter.shutdownNow();
        }
        return g;
    }

    private ProcessHarness startMember(final int id, final boolean join) throws IOException
    {
        final String address = network.address(id);
        final Map<String, String> p = RomiopGroupFixture.orbProperties("multicast");
        p.put("jacorb.lightwire.romiop.interface", network.device(id));
        p.put("jacorb.lightwire.romiop.host", address);
        p.put(Orbs.LISTEN_ADDRESS, address);
        p.putAll(settings);
        // JacORB warns at every request its one POA thread cannot take at once (serial dispatch):
        // kept out of the output tail, which the report shows.
        return RomiopGroupFixture.startReplicaUnder(network.prefix(id), List.of(HEAP, "-XX:+UseSerialGC",
            "-Dorg.slf4j.simpleLogger.log.org.jacorb.poa.controller=error"), READY, p, GROUP, groupAddress,
            memberList(), id, Map.of("jacorb.lightwire.romiop.join", Boolean.toString(join)));
    }

    private String memberList()
    {
        final StringBuilder m = new StringBuilder();
        for (int id = 1; id <= network.members(); id++)
        {
            m.append(id == 1 ? "" : ",").append(id);
        }
        return m.toString();
    }

    /** @return the group reference every replica publishes. */
    public String groupIor()
    {
        for (int id = 1; id < replicas.length; id++)
        {
            if (replicas[id] != null)
            {
                return replicas[id].ior("group");
            }
        }
        throw new IllegalStateException("no replica was started");
    }

    public int members()
    {
        return network.members();
    }

    /** @return the process id of member {@code id}'s current process. */
    public long pid(final int id)
    {
        return replicas[id].pid();
    }

    public boolean alive(final int id)
    {
        return replicas[id] != null && replicas[id].isAlive();
    }

    /** @return 1 for the founding process of member {@code id}, 2 after its first restart, ... */
    public int incarnation(final int id)
    {
        return incarnations[id];
    }

    /**
     * Starts member {@code id} again, the same id, after its process was killed (a live one is
     * killed first); waits until it is ready.
     *
     * @param join true: it joins the running group; false: it starts as one of the founding
     *             members, leader first, as it did the first time.
     */
    public void restart(final int id, final boolean join) throws IOException
    {
        replicas[id].close();
        probes.remove(id);
        replicas[id] = startMember(id, join);
        incarnations[id]++;
    }

    /** @return the leader most live replicas name (engine counters), or 1 when none answers. */
    public int leader()
    {
        final Map<Integer, Integer> votes = new HashMap<>();
        for (int id = 1; id < replicas.length; id++)
        {
            if (!alive(id))
            {
                continue;
            }
            try
            {
                final Matcher m = LEADER.matcher(probe(id).counters());
                if (m.find())
                {
                    votes.merge(Integer.parseInt(m.group(2)), 1, Integer::sum);
                }
            }
            catch (final org.omg.CORBA.SystemException e)
            {
                // Not answering: no vote.
            }
        }
        return votes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(1);
    }

    /**
     * @return member {@code id}'s engine in brief, e.g. {@code MEMBER, leader 1, view [1, 2, 3, 4, 5],
     * deliveredSeq 1850, delivered 1850} (the two differ when it skipped orders), or why it has none.
     */
    public String state(final int id)
    {
        final String c = counters(id);
        final Matcher state = STATE.matcher(c);
        final Matcher delivered = DELIVERED.matcher(c);
        return state.find() && delivered.find() ? state.group(1) + ", delivered " + delivered.group(1) : c;
    }

    /** @return the plug-in's counters of every live replica, one line each ("member: ..."). */
    public Map<Integer, String> counters()
    {
        final Map<Integer, String> c = new LinkedHashMap<>();
        for (int id = 1; id < replicas.length; id++)
        {
            c.put(id, counters(id));
        }
        return c;
    }

    private String counters(final int id)
    {
        try
        {
            return alive(id) ? probe(id).counters() : "(not running)";
        }
        catch (final org.omg.CORBA.SystemException e)
        {
            return "(no answer: " + e + ")";
        }
    }

    /**
     * Reads member {@code id}'s log.
     *
     * @param last false for a snapshot of a process about to be killed.
     * @throws org.omg.CORBA.SystemException when the replica does not answer.
     */
    public ReplicaLog read(final int id, final boolean last)
    {
        final replica_probe p = probe(id);
        final String counters = p.counters();
        final String digest = p.digest();
        final long executed = p.executed();
        final int[] clients = p.execution_clients();
        final int[] seqs = p.execution_seqs();
        // Two reads, not one: a call executed between them is in the longer only.
        final long[] entries = new long[Math.min(clients.length, seqs.length)];
        for (int i = 0; i < entries.length; i++)
        {
            entries[i] = Entries.of(clients[i], seqs[i]);
        }
        return new ReplicaLog(id, incarnations[id], incarnations[id] == 1 || tookState(counters), last, entries, digest, executed, counters);
    }

    /** @return true when the replica's counters say it took the group's state: its log is a prefix of the sequence, as a founder's. */
    private static boolean tookState(final String counters)
    {
        final Matcher m = STATES_APPLIED.matcher(counters);
        return m.find() && Long.parseLong(m.group(1)) > 0;
    }

    /**
     * Waits until no live replica's executed count has changed for {@code stable}, or
     * {@code limit} has passed.
     *
     * @return true when the replicas went quiet.
     */
    public boolean awaitQuiet(final Duration stable, final Duration limit) throws InterruptedException
    {
        final long end = System.nanoTime() + limit.toNanos();
        long[] last = executedCounts();
        long since = System.nanoTime();
        while (System.nanoTime() - end < 0)
        {
            Thread.sleep(500);
            final long[] now = executedCounts();
            if (!java.util.Arrays.equals(now, last))
            {
                last = now;
                since = System.nanoTime();
            }
            else if (System.nanoTime() - since >= stable.toNanos())
            {
                return true;
            }
        }
        return false;
    }

    private long[] executedCounts()
    {
        final long[] counts = new long[replicas.length];
        for (int id = 1; id < replicas.length; id++)
        {
            try
            {
                counts[id] = alive(id) ? probe(id).executed() : -1;
            }
            catch (final org.omg.CORBA.SystemException e)
            {
                counts[id] = -2;
            }
        }
        return counts;
    }

    /** @return the last lines member {@code id}'s process printed. */
    public String outputTail(final int id)
    {
        return replicas[id] == null ? "" : replicas[id].outputTail();
    }

    private replica_probe probe(final int id)
    {
        // Unchecked: a checked narrow asks the replica, whose one POA thread may be busy.
        return probes.computeIfAbsent(id, m -> replica_probeHelper.unchecked_narrow(probeOrb.string_to_object(replicas[m].ior("probe"))));
    }

    @Override
    public void close()
    {
        for (final ProcessHarness h : replicas)
        {
            if (h != null)
            {
                h.close();
            }
        }
        probeOrb.shutdown(false);
    }
}
