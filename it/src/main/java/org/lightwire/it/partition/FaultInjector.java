package org.lightwire.it.partition;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.lightwire.it.HostCommands;

/**
 * Breaks a {@link NetnsNetwork}: cuts links with iptables in the members' namespaces, and stops,
 * resumes or kills member processes with signals.
 *
 * <p>A cut is a set of directed links {@code from -> to}; each is dropped in both namespaces, on
 * {@code to}'s INPUT by source address (which catches {@code from}'s multicasts as well as its
 * unicasts) and on {@code from}'s OUTPUT by destination address. Each change replaces every
 * namespace's filter table at once ({@code iptables-restore}), all namespaces in parallel, each
 * through a shell kept open in its namespace from the start (at a raised priority): on a loaded
 * machine, starting a process and entering a namespace for each change took up to a second and a
 * half, longer than a flapping partition's cut.
 * Before each replacement the DROP rules' packet counters are read and added up
 * ({@link #droppedPackets()}): a cut that dropped nothing did not act, and a run must say so.
 * Traffic with the bridge's own address (clients, probes) is never cut.
 *
 * <p>{@link #close()} heals every link and resumes every process it stopped.
 */
public final class FaultInjector implements AutoCloseable
{
    /** A directed link: datagrams from member {@code from} to member {@code to}. */
    public record Link(int from, int to)
    {
    }

    /** Ends every command sent to a namespace's shell: the line it answers once the command is done. */
    private static final String DONE = "__lightwire_fault_done__";

    private final NetnsNetwork network;
    private final ExecutorService pool;
    /** A shell in each member's namespace, index = member id. */
    private final Process[] shells;
    private final Set<Long> stopped = new HashSet<>();
    private Set<Link> cut = Set.of();
    private long droppedPackets;
    /** Packets each member's DROP rules dropped, index = member id. */
    private final long[] droppedIn;
    private int changes;
    private long lastChangeNs;

    public FaultInjector(final NetnsNetwork network) throws IOException
    {
        this.network = network;
        this.pool = Executors.newFixedThreadPool(network.members(), r ->
        {
            final Thread t = new Thread(r, "fault-injector");
            t.setDaemon(true);
            return t;
        });
        this.shells = new Process[network.members() + 1];
        this.droppedIn = new long[network.members() + 1];
        try
        {
            for (int id = 1; id <= network.members(); id++)
            {
                final List<String> command = new ArrayList<>(network.prefix(id));
                command.addAll(List.of("nice", "-n", "-10", "sh"));
                shells[id] = new ProcessBuilder(command).redirectErrorStream(true).start();
            }
        }
        catch (final IOException e)
        {
            close();
            throw e;
        }
    }

    /** @return the links between the two sides, both ways: a symmetric partition. */
    public static Set<Link> partition(final Set<Integer> side, final int members)
    {
        final Set<Link> links = new LinkedHashSet<>();
        for (int a = 1; a <= members; a++)
        {
            for (int b = 1; b <= members; b++)
            {
                if (side.contains(a) != side.contains(b))
                {
                    links.add(new Link(a, b));
                }
            }
        }
        return links;
    }

    /** Drops exactly {@code links} from now on (earlier cuts not in it are healed). */
    public synchronized void cut(final Set<Link> links) throws IOException, InterruptedException
    {
        final long startNs = System.nanoTime();
        final List<Future<Long>> results = new ArrayList<>();
        for (int id = 1; id <= network.members(); id++)
        {
            final String table = table(id, links);
            final int member = id;
            results.add(pool.submit(() -> replaceTable(member, table)));
        }
        for (int id = 1; id <= network.members(); id++)
        {
            try
            {
                final long dropped = results.get(id - 1).get(HostCommands.LIMIT_SECONDS * 2L, TimeUnit.SECONDS);
                droppedPackets += dropped;
                droppedIn[id] += dropped;
            }
            catch (final ExecutionException | TimeoutException e)
            {
                throw new IOException("iptables in a member's namespace failed: " + e.getMessage(), e);
            }
        }
        cut = Set.copyOf(links);
        changes++;
        lastChangeNs = System.nanoTime() - startNs;
    }

    /** @return how long the last change took to land in every namespace, for the timeline (a cut is only as sharp as this). */
    public synchronized String lastChangeTook()
    {
        return "applied in " + Verdict.seconds(lastChangeNs);
    }

    /** Heals every link. */
    public void heal() throws IOException, InterruptedException
    {
        cut(Set.of());
    }

    /** @return the links dropped now. */
    public synchronized Set<Link> currentCut()
    {
        return cut;
    }

    /** @return packets the DROP rules dropped so far, counted at each change (so: up to the last heal). */
    public synchronized long droppedPackets()
    {
        return droppedPackets;
    }

    /** @return packets the DROP rules of the members in {@code side} dropped so far, as {@link #droppedPackets()}. */
    public synchronized long droppedIn(final Set<Integer> side)
    {
        long dropped = 0;
        for (final int id : side)
        {
            dropped += droppedIn[id];
        }
        return dropped;
    }

    /** @return how many times the cut changed (cuts and heals). */
    public synchronized int changes()
    {
        return changes;
    }

    /** Stops a process (SIGSTOP): it keeps its sockets and state but does nothing, as a long pause would. */
    public void stop(final long pid) throws IOException, InterruptedException
    {
        synchronized (stopped)
        {
            stopped.add(pid);
        }
        HostCommands.must(List.of("kill", "-STOP", Long.toString(pid)));
    }

    /** Resumes a process {@link #stop}ped. */
    public void resume(final long pid) throws IOException, InterruptedException
    {
        HostCommands.must(List.of("kill", "-CONT", Long.toString(pid)));
        synchronized (stopped)
        {
            stopped.remove(pid);
        }
    }

    /** Kills a process at once (SIGKILL, {@code kill -9}): it sends nothing more, not even a goodbye. */
    public void kill(final long pid) throws IOException, InterruptedException
    {
        HostCommands.must(List.of("kill", "-9", Long.toString(pid)));
        synchronized (stopped)
        {
            stopped.remove(pid);
        }
    }

    /** Heals every link and resumes every stopped process; never throws. */
    @Override
    public void close()
    {
        synchronized (stopped)
        {
            for (final long pid : stopped)
            {
                HostCommands.run(List.of("kill", "-CONT", Long.toString(pid)));
            }
            stopped.clear();
        }
        try
        {
            heal();
        }
        catch (final IOException | RuntimeException e)
        {
            // The namespaces may be gone already; deleting them removes their rules anyway.
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        pool.shutdownNow();
        for (final Process shell : shells)
        {
            if (shell != null)
            {
                shell.destroyForcibly();
            }
        }
    }

    /** @return the iptables-restore input that makes member {@code id} drop its side of {@code links}. */
    private String table(final int id, final Set<Link> links)
    {
        final StringBuilder t = new StringBuilder("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n");
        for (final Link l : links)
        {
            if (l.to() == id)
            {
                t.append("-A INPUT -s ").append(network.address(l.from())).append("/32 -j DROP\n");
            }
            if (l.from() == id)
            {
                t.append("-A OUTPUT -d ").append(network.address(l.to())).append("/32 -j DROP\n");
            }
        }
        return t.append("COMMIT\n").toString();
    }

    /** @return packets member {@code id}'s DROP rules had dropped, read just before the table is replaced. */
    private long replaceTable(final int id, final String table) throws IOException
    {
        final String output = inShell(id, "iptables -w -L -v -x -n\niptables-restore -w <<'" + DONE + "_TABLE'\n" + table + DONE +
            "_TABLE\n");
        if (!output.endsWith(" 0"))
        {
            throw new IOException("iptables-restore in " + network.namespace(id) + " failed: " + output);
        }
        return droppedBy(output);
    }

    /** Runs {@code script} in member {@code id}'s shell. @return its output, then the exit status of its last command. */
    private String inShell(final int id, final String script) throws IOException
    {
        final Process shell = shells[id];
        final OutputStream in = shell.getOutputStream();
        in.write((script + "echo " + DONE + " $?\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        final StringBuilder output = new StringBuilder();
        final InputStream out = shell.getInputStream();
        final StringBuilder line = new StringBuilder();
        for (int c = out.read(); c >= 0; c = out.read())
        {
            if (c != '\n')
            {
                line.append((char)c);
                continue;
            }
            if (line.toString().startsWith(DONE + " "))
            {
                return output.append(line.substring(DONE.length())).toString();
            }
            output.append(line).append('\n');
            line.setLength(0);
        }
        throw new IOException("the shell in " + network.namespace(id) + " ended: " + output);
    }

    /** @return the packet counts of the DROP rules in {@code iptables -L -v -x -n} output. */
    public static long droppedBy(final String listing)
    {
        long total = 0;
        for (final String line : listing.split("\n"))
        {
            final String[] f = line.trim().split("\\s+");
            if (f.length > 2 && "DROP".equals(f[2]) && f[0].matches("\\d+"))
            {
                total += Long.parseLong(f[0]);
            }
        }
        return total;
    }
}
