package org.lightwire.it;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A network namespace behind a veth pair whose iptables rules drop a chosen fraction of one
 * port's UDP datagrams and TCP segments at random in each direction ({@code -m statistic --mode
 * random}): real kernel packet loss, for Lightwire and IIOP alike. The namespace is named
 * {@code lwloss<pid>} (so that {@link HostNetworks#removeStale()} deletes one a killed run left
 * behind), its addresses are {@code prefix.S.1} (host) and {@code prefix.S.2} (namespace) in a
 * /24 no address or route of the host uses. Closing it, or the JVM's exit, deletes the
 * namespace, and with it the pair and the rules; the host's own rules are never touched.
 * Needs root, {@code ip} and {@code iptables}.
 */
public final class LossyNamespace implements AutoCloseable
{
    private final String name = "lwloss" + ProcessHandle.current().pid();
    private final String hostVeth = "lwl" + (ProcessHandle.current().pid() % 100000) + "a";
    private final String innerVeth = "lwl" + (ProcessHandle.current().pid() % 100000) + "b";
    private final Thread cleaner = new Thread(this::delete, "lossy-namespace-cleaner");
    private final String innerAddress;
    private boolean open;

    /**
     * Makes the namespace and the pair, with no loss yet.
     *
     * @param prefix the first two octets of the subnet, {@code "10.201"}.
     */
    public LossyNamespace(final String prefix) throws IOException, InterruptedException
    {
        HostNetworks.removeStale();
        final String subnet = HostNetworks.freeSubnet(prefix);
        innerAddress = subnet + ".2";
        open = true;
        Runtime.getRuntime().addShutdownHook(cleaner);
        try
        {
            HostCommands.must(List.of("ip", "netns", "add", name));
            HostCommands.must(List.of("ip", "link", "add", hostVeth, "type", "veth", "peer", "name", innerVeth));
            HostCommands.must(List.of("ip", "link", "set", innerVeth, "netns", name));
            HostCommands.must(List.of("ip", "addr", "add", subnet + ".1/24", "dev", hostVeth));
            HostCommands.must(List.of("ip", "link", "set", hostVeth, "up"));
            inside("ip", "addr", "add", innerAddress + "/24", "dev", innerVeth);
            inside("ip", "link", "set", innerVeth, "up");
            inside("ip", "link", "set", "lo", "up");
        }
        catch (final IOException | InterruptedException | RuntimeException e)
        {
            close();
            throw e;
        }
    }

    /** @return the namespace's address on the pair. */
    public String innerAddress()
    {
        return innerAddress;
    }

    /** @return the command prefix that runs a program in the namespace ({@code ip netns exec NAME}). */
    public List<String> prefix()
    {
        return List.of("ip", "netns", "exec", name);
    }

    /**
     * Replaces the namespace's rules: datagrams and segments to and from {@code port} inside the
     * namespace are dropped with {@code probability} each way (0: no rule).
     */
    public void drop(final int port, final double probability) throws IOException, InterruptedException
    {
        if (probability < 0 || probability >= 1)
        {
            throw new IllegalArgumentException("loss probability " + probability + " not in [0, 1)");
        }
        inside("iptables", "-F", "INPUT");
        inside("iptables", "-F", "OUTPUT");
        if (probability == 0)
        {
            return;
        }
        final String p = Integer.toString(port);
        final String odds = String.format(Locale.ROOT, "%.6f", probability);
        for (final String protocol : List.of("udp", "tcp"))
        {
            inside("iptables", "-A", "INPUT", "-p", protocol, "--dport", p, "-m", "statistic", "--mode", "random",
                "--probability", odds, "-j", "DROP");
            inside("iptables", "-A", "OUTPUT", "-p", protocol, "--sport", p, "-m", "statistic", "--mode", "random",
                "--probability", odds, "-j", "DROP");
        }
    }

    /** @return the namespace's drop counters, as {@code iptables -L -v -x} prints them. */
    public String counters()
    {
        final List<String> command = new ArrayList<>(prefix());
        command.addAll(List.of("iptables", "-L", "-v", "-x", "-n"));
        return HostCommands.output(command);
    }

    private void inside(final String... command) throws IOException, InterruptedException
    {
        final List<String> full = new ArrayList<>(prefix());
        full.addAll(List.of(command));
        HostCommands.must(full);
    }

    private void delete()
    {
        HostNetworks.deleteNamespace(name);
        HostCommands.run(List.of("ip", "link", "del", hostVeth));
    }

    @Override
    public void close()
    {
        if (open)
        {
            open = false;
            delete();
            try
            {
                Runtime.getRuntime().removeShutdownHook(cleaner);
            }
            catch (final IllegalStateException e)
            {
                // Closed by the shutdown hook itself: nothing to remove.
            }
        }
    }
}
