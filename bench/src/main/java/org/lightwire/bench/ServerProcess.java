package org.lightwire.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@link BenchServer} as a separate JVM (same java, same class path) and waits for its
 * {@code READY} line, so that client and server are two processes as on a real network.
 */
public final class ServerProcess implements AutoCloseable
{
    private final Process process;
    private final int lightwirePort;
    private final int rawPort;

    public ServerProcess(final List<String> jvmArgs) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(BenchServer.class.getName());
        command.add("0");
        process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        final CompletableFuture<String> ready = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                String line;
                while ((line = out.readLine()) != null)
                {
                    if (line.startsWith("READY "))
                    {
                        return line;
                    }
                }
                return null;
            }
            catch (final IOException e)
            {
                return null;
            }
        });
        final String line;
        try
        {
            line = ready.get(60, TimeUnit.SECONDS);
        }
        catch (final Exception e)
        {
            process.destroyForcibly();
            throw new IOException("the bench server did not start within 60 s: " + e, e);
        }
        if (line == null)
        {
            process.destroyForcibly();
            throw new IOException("the bench server exited before it was ready (exit " + process.exitValue() + ")");
        }
        final String[] parts = line.split(" ");
        lightwirePort = Integer.parseInt(parts[1]);
        rawPort = Integer.parseInt(parts[2]);
    }

    public int lightwirePort()
    {
        return lightwirePort;
    }

    public int rawPort()
    {
        return rawPort;
    }

    public long pid()
    {
        return process.pid();
    }

    @Override
    public void close()
    {
        try
        {
            process.getOutputStream().close();
            if (!process.waitFor(5, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        catch (final IOException e)
        {
            process.destroyForcibly();
        }
        catch (final InterruptedException e)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
