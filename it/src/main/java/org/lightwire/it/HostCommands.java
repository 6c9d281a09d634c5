package org.lightwire.it;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the host's commands ({@code ip}, {@code iptables}, {@code kill}) that the root-only
 * network tests set up, break and tear down with. Every command is bounded: one that runs past
 * {@value #LIMIT_SECONDS} s is killed and counts as failed.
 */
public final class HostCommands
{
    /** How long any one command may take. */
    public static final int LIMIT_SECONDS = 30;

    private HostCommands()
    {
    }

    /**
     * Runs a command that must succeed.
     *
     * @return its output (standard output and error merged).
     * @throws IllegalStateException naming the command and its output when it fails or hangs.
     */
    public static String must(final List<String> command) throws IOException, InterruptedException
    {
        return must(command, null);
    }

    /**
     * As {@link #must(List)}, with {@code input} written to the command's standard input (null:
     * none).
     */
    public static String must(final List<String> command, final String input) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (OutputStream in = p.getOutputStream())
        {
            if (input != null)
            {
                in.write(input.getBytes(StandardCharsets.UTF_8));
            }
        }
        final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " took over " + LIMIT_SECONDS + " s: " + output);
        }
        if (p.exitValue() != 0)
        {
            throw new IllegalStateException(String.join(" ", command) + " failed with status " + p.exitValue() + ": " + output);
        }
        return output;
    }

    /** @return the command's exit code, or -1 when it could not run or took too long. */
    public static int run(final List<String> command)
    {
        try
        {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            p.getInputStream().readAllBytes();
            if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        }
        catch (final IOException e)
        {
            return -1;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** @return the command's output, or "" when it could not run or failed. */
    public static String output(final List<String> command)
    {
        try
        {
            return must(command);
        }
        catch (final IOException | IllegalStateException e)
        {
            return "";
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
