package org.lightwire.it;

import java.io.IOException;
import java.util.List;

/** Runs the commands (ip, iptables) that the root-only network tests set up and tear down with. */
final class Shell
{
    private Shell()
    {
    }

    /**
     * Skips the calling test, saying why, unless it runs as root with {@code ip} and
     * {@code iptables}.
     *
     * @param needs what the test makes, for the message ("a network namespace and iptables rules").
     */
    static void assumeRootNetworking(final String needs)
    {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
            "skipped: needs root to make " + needs + " (run as root, as CI does)");
        org.junit.jupiter.api.Assumptions.assumeTrue(run(List.of("ip", "-V")) == 0, "skipped: the ip command (iproute2) is missing");
        org.junit.jupiter.api.Assumptions.assumeTrue(run(List.of("iptables", "--version")) == 0,
            "skipped: iptables is missing (apt-get install -y iptables, as the README's test command does)");
    }

    /** Runs a command that must succeed. @throws IllegalStateException with its output otherwise. */
    static void must(final String... command) throws IOException, InterruptedException
    {
        HostCommands.must(List.of(command));
    }

    /** @return the command's exit code, or -1 when it could not run or took over 30 s. */
    static int run(final List<String> command)
    {
        return HostCommands.run(command);
    }
}
