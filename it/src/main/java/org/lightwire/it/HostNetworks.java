package org.lightwire.it;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the root-only network tests leave on the host and take from it: the /24 subnets they put
 * on their own links, and the namespaces and links a run killed before its clean-up left behind.
 *
 * <p>A namespace that outlives its run keeps its veth and that veth's route: a later run that
 * puts the same subnet on its own veth reaches the stale namespace instead of its own, and every
 * call times out. So a subnet is taken only when no address and no route of the host is in it,
 * and stale namespaces are deleted first.
 */
public final class HostNetworks
{
    /** Namespaces named after the pid of the JVM that made them: group(1) the name, group(2) the pid. */
    private static final List<Pattern> STALE_NAMESPACES = List.of(
        Pattern.compile("^(lwpns(\\d+)x\\d+)\\b"),
        Pattern.compile("^(lwloss(\\d+))\\b"));
    /** Root-namespace links: group(1) the name, group(2) or group(3) the owner's pid. */
    private static final Pattern STALE_LINK = Pattern.compile("^\\d+: (lwp(?:b(\\d+)|(\\d+)a\\d+))[@:]");

    private HostNetworks()
    {
    }

    /**
     * @param prefix the first two octets, {@code "10.200"}.
     * @return {@code prefix.S} with no address or route of the root namespace in {@code prefix.S.0/24},
     *     the search starting at a place given by this JVM's pid.
     * @throws IllegalStateException naming what is in use when every one is taken.
     */
    public static String freeSubnet(final String prefix)
    {
        final String used = HostCommands.output(List.of("ip", "-o", "-4", "addr", "show")) + "\n"
            + HostCommands.output(List.of("ip", "-o", "-4", "route", "show", "table", "all"));
        return freeSubnet(prefix, (int)(ProcessHandle.current().pid() % 250), used);
    }

    /**
     * @param first where the search starts, 0 to 249 ({@code prefix.(first + 1)} first).
     * @param used the host's addresses and routes, as {@code ip -o -4 addr show} and {@code ip -o -4 route show} print them.
     */
    static String freeSubnet(final String prefix, final int first, final String used)
    {
        for (int i = 0; i < 250; i++)
        {
            final String s = prefix + "." + ((first + i) % 250 + 1);
            if (!Pattern.compile("(^|[^0-9.])" + Pattern.quote(s + "."), Pattern.MULTILINE).matcher(used).find())
            {
                return s;
            }
        }
        throw new IllegalStateException("no free " + prefix + ".x.0/24 subnet on this host: " + used);
    }

    /**
     * Deletes the namespaces and links of earlier runs whose JVM is gone, killing any process
     * left in those namespaces first.
     *
     * @return what it deleted, for the log.
     */
    public static List<String> removeStale()
    {
        final List<String> removed = new ArrayList<>();
        for (final String line : HostCommands.output(List.of("ip", "netns", "list")).split("\n"))
        {
            for (final Pattern p : STALE_NAMESPACES)
            {
                final Matcher m = p.matcher(line.trim());
                if (m.find() && !alive(Long.parseLong(m.group(2))))
                {
                    deleteNamespace(m.group(1));
                    removed.add(m.group(1));
                }
            }
        }
        for (final String line : HostCommands.output(List.of("ip", "-o", "link", "show")).split("\n"))
        {
            final Matcher m = STALE_LINK.matcher(line.trim());
            if (m.find())
            {
                final String owner = m.group(2) != null ? m.group(2) : m.group(3);
                if (!alive(Long.parseLong(owner)))
                {
                    HostCommands.run(List.of("ip", "link", "del", m.group(1)));
                    removed.add(m.group(1));
                }
            }
        }
        return removed;
    }

    /** Deletes namespace {@code ns}, killing the processes in it first (they would keep its veth alive). */
    public static void deleteNamespace(final String ns)
    {
        for (final String p : HostCommands.output(List.of("ip", "netns", "pids", ns)).split("\\s+"))
        {
            if (p.matches("\\d+"))
            {
                HostCommands.run(List.of("kill", "-9", p));
            }
        }
        HostCommands.run(List.of("ip", "netns", "del", ns));
    }

    private static boolean alive(final long pid)
    {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
