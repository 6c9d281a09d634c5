package org.lightwire.it.partition;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.lightwire.it.HostCommands;
import org.lightwire.it.HostNetworks;

/**
 * Hosts of their own on one machine: a network namespace per member, each with a veth pair to one
 * bridge in the root namespace (multicast snooping off, so multicast floods to every port), an
 * address {@code 10.205.S.(10 + id)}, its loopback up and a multicast route over its veth. The
 * bridge itself has {@code 10.205.S.1}: processes of the root namespace (the clients) reach every
 * member through it.
 *
 * <p>Names carry the creating JVM's pid ({@code lwpns<pid>x<id>}, bridge {@code lwpb<pid>},
 * veths {@code lwp<pid>a<id>} / {@code lwp<pid>b<id>}), so a run never touches another's, and
 * {@link #removeStale()} deletes what a run killed before its clean-up left behind (its pid is
 * gone), the processes still inside its namespaces first. {@link #close()} deletes the veths, the
 * namespaces (their iptables rules go with them) and the bridge; a JVM shutdown hook does the same
 * if the run never gets there.
 */
public final class NetnsNetwork implements AutoCloseable
{
    private final long pid = ProcessHandle.current().pid();
    private final int members;
    private final String subnet;
    private final String bridge = "lwpb" + pid;
    private final Thread cleaner = new Thread(this::deleteAll, "netns-network-cleaner");
    private boolean closed;

    private NetnsNetwork(final int members, final String subnet)
    {
        this.members = members;
        this.subnet = subnet;
    }

    /**
     * Makes the bridge and {@code members} namespaces, ids 1 to {@code members}. On failure,
     * deletes what it made and throws.
     */
    public static NetnsNetwork create(final int members) throws IOException, InterruptedException
    {
        final NetnsNetwork n = new NetnsNetwork(members, HostNetworks.freeSubnet("10.205"));
        Runtime.getRuntime().addShutdownHook(n.cleaner);
        try
        {
            n.build();
        }
        catch (final IOException | RuntimeException | InterruptedException e)
        {
            n.close();
            throw e;
        }
        return n;
    }

    private void build() throws IOException, InterruptedException
    {
        must("ip", "link", "add", bridge, "type", "bridge");
        must("ip", "link", "set", bridge, "type", "bridge", "mcast_snooping", "0");
        must("ip", "addr", "add", subnet + ".1/24", "dev", bridge);
        must("ip", "link", "set", bridge, "up");
        for (int id = 1; id <= members; id++)
        {
            final String ns = namespace(id);
            final String outer = outer(id);
            // Left by an earlier run of this JVM: a namespace's devices go away after its deletion, not with it.
            HostCommands.run(List.of("ip", "link", "del", outer));
            must("ip", "netns", "add", ns);
            must("ip", "link", "add", outer, "type", "veth", "peer", "name", device(id));
            must("ip", "link", "set", device(id), "netns", ns);
            must("ip", "link", "set", outer, "master", bridge);
            must("ip", "link", "set", outer, "up");
            inside(id, "ip", "addr", "add", address(id) + "/24", "dev", device(id));
            inside(id, "ip", "link", "set", device(id), "up");
            inside(id, "ip", "link", "set", "lo", "up");
            inside(id, "ip", "route", "add", "224.0.0.0/4", "dev", device(id));
        }
    }

    /** @return the network namespace of member {@code id}. */
    public String namespace(final int id)
    {
        return "lwpns" + pid + "x" + id;
    }

    /** @return the root namespace's end of member {@code id}'s veth pair, a port of the bridge. */
    private String outer(final int id)
    {
        return "lwp" + pid + "a" + id;
    }

    /** @return the interface of member {@code id} inside its namespace. */
    public String device(final int id)
    {
        return "lwp" + pid + "b" + id;
    }

    /** @return member {@code id}'s address. */
    public String address(final int id)
    {
        return subnet + "." + (10 + id);
    }

    /** @return the bridge: the interface a root-namespace client multicasts by. */
    public String bridge()
    {
        return bridge;
    }

    /** @return the bridge's address: where a root-namespace client binds. */
    public String bridgeAddress()
    {
        return subnet + ".1";
    }

    public int members()
    {
        return members;
    }

    /** @return the command prefix that runs a program in member {@code id}'s namespace (it execs in place). */
    public List<String> prefix(final int id)
    {
        return List.of("ip", "netns", "exec", namespace(id));
    }

    /** Runs {@code command} in member {@code id}'s namespace; it must succeed. @return its output. */
    public String inside(final int id, final String... command) throws IOException, InterruptedException
    {
        return insideWithInput(id, null, command);
    }

    /** As {@link #inside(int, String...)}, with {@code input} on the command's standard input. */
    public String insideWithInput(final int id, final String input, final String... command) throws IOException, InterruptedException
    {
        final List<String> c = new ArrayList<>(prefix(id));
        c.addAll(List.of(command));
        return HostCommands.must(c, input);
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        deleteAll();
        try
        {
            Runtime.getRuntime().removeShutdownHook(cleaner);
        }
        catch (final IllegalStateException e)
        {
            // The JVM is shutting down: the hook runs (and finds nothing left).
        }
    }

    private void deleteAll()
    {
        for (int id = 1; id <= members; id++)
        {
            // The pair goes at once with its outer end; with the namespace only once the kernel gets to it.
            HostCommands.run(List.of("ip", "link", "del", outer(id)));
            HostNetworks.deleteNamespace(namespace(id));
        }
        HostCommands.run(List.of("ip", "link", "del", bridge));
    }

    /**
     * Deletes the namespaces, bridges and veths of earlier runs whose JVM is gone (killed before
     * its clean-up), killing any process left in those namespaces first.
     *
     * @return what it deleted, for the log.
     */
    public static List<String> removeStale()
    {
        return HostNetworks.removeStale();
    }

    private static void must(final String... command) throws IOException, InterruptedException
    {
        HostCommands.must(List.of(command));
    }
}
