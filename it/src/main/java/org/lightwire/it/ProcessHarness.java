package org.lightwire.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link TestServer} (or any main class that speaks its output protocol) in a separate JVM:
 * the same {@code java} binary and class path as the calling JVM, so a test run under JDK 25
 * starts JDK 25 servers.
 *
 * <p>The child is always gone when {@link #close()} returns; a JVM shutdown hook kills it if the
 * caller never gets that far, and the child itself exits when its standard input, held open by
 * this harness, reaches end of file. Output of the child (standard output and error merged) is
 * kept, last lines only, for failure messages; set the system property
 * {@value #ECHO_CHILD_OUTPUT_PROPERTY} to {@code true} to copy it to this JVM's standard error.
 */
public final class ProcessHarness implements AutoCloseable
{
    /** System property: copy the child's output, line by line, to this JVM's standard error. */
    public static final String ECHO_CHILD_OUTPUT_PROPERTY = "lightwire.it.echoChildOutput";
    /** How long {@link #start} waits for the ready line unless told otherwise. */
    public static final Duration DEFAULT_READY_TIMEOUT = Duration.ofSeconds(30);

    private static final int OUTPUT_TAIL_LINES = 200;
    private static final Duration EXIT_WAIT = Duration.ofSeconds(10);

    private final String name;
    private final Process process;
    private final OutputStream childStdin;
    private final Thread shutdownHook;
    private final Thread pump;
    private final Map<String, String> iors = new ConcurrentHashMap<>();
    private final Deque<String> outputTail = new ArrayDeque<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    /** Lines that answer a {@link #request}: every line starting with {@link StdinCommands#REPLY_PREFIX}. */
    private final java.util.concurrent.BlockingQueue<String> replies = new java.util.concurrent.LinkedBlockingQueue<>();
    private volatile String childJavaVersion;

    private ProcessHarness(final String name, final Process process)
    {
        this.name = name;
        this.process = process;
        this.childStdin = process.getOutputStream();
        this.shutdownHook = new Thread(process::destroyForcibly, name + "-killer");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        this.pump = new Thread(this::pumpOutput, name + "-output");
        pump.setDaemon(true);
        pump.start();
    }

    /**
     * Starts a {@link TestServer} with the given ORB properties and waits until it is ready.
     *
     * @param orbProperties added to {@link Orbs#baseProperties()} in the server
     */
    public static ProcessHarness startTestServer(final Map<String, String> orbProperties)
        throws IOException
    {
        final List<String> args = new ArrayList<>();
        orbProperties.forEach((k, v) ->
        {
            args.add("-p");
            args.add(k + "=" + v);
        });
        return start(TestServer.class, List.of(), args, DEFAULT_READY_TIMEOUT);
    }

    /**
     * Starts {@code mainClass} in a new JVM and waits for its {@link TestServer#READY_LINE}.
     *
     * @param jvmArgs options for the child JVM, placed before the class path
     * @param args arguments of the main class
     * @throws IllegalStateException if the child exits or stays silent past {@code readyTimeout};
     * the child is then killed and the message holds the last lines it printed
     */
    public static ProcessHarness start(
        final Class<?> mainClass,
        final List<String> jvmArgs,
        final List<String> args,
        final Duration readyTimeout) throws IOException
    {
        return start(List.of(), mainClass, jvmArgs, args, readyTimeout);
    }

    /**
     * Starts a {@link TestServer} under a command prefix, e.g. {@code ip netns exec NAME}, which
     * must exec the JVM in place (so that killing the child kills the JVM).
     */
    public static ProcessHarness startTestServerUnder(final List<String> commandPrefix, final Map<String, String> orbProperties)
        throws IOException
    {
        final List<String> args = new ArrayList<>();
        orbProperties.forEach((k, v) ->
        {
            args.add("-p");
            args.add(k + "=" + v);
        });
        return start(commandPrefix, TestServer.class, List.of(), args, DEFAULT_READY_TIMEOUT);
    }

    /**
     * Starts {@code mainClass} under a command prefix (e.g. {@code ip netns exec NAME}, which
     * must exec the JVM in place) and waits for its {@link TestServer#READY_LINE}.
     */
    public static ProcessHarness startUnder(
        final List<String> commandPrefix,
        final Class<?> mainClass,
        final List<String> jvmArgs,
        final List<String> args,
        final Duration readyTimeout) throws IOException
    {
        return start(commandPrefix, mainClass, jvmArgs, args, readyTimeout);
    }

    private static ProcessHarness start(
        final List<String> commandPrefix,
        final Class<?> mainClass,
        final List<String> jvmArgs,
        final List<String> args,
        final Duration readyTimeout) throws IOException
    {
        final List<String> command = new ArrayList<>(commandPrefix);
        command.add(javaBinary());
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);

        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final ProcessHarness harness = new ProcessHarness(mainClass.getSimpleName(), process);
        try
        {
            harness.awaitReady(readyTimeout);
        }
        catch (final RuntimeException e)
        {
            harness.close();
            throw e;
        }
        return harness;
    }

    /** @return the IOR the child announced for {@code object} */
    public String ior(final String object)
    {
        final String ior = iors.get(object);
        if (ior == null)
        {
            throw new IllegalArgumentException(
                "child announced no object '" + object + "'; it announced " + iors.keySet());
        }
        return ior;
    }

    /**
     * Waits until the child announces {@code object} (a line {@code LW-IOR object text}, which a
     * client JVM also uses to report its result).
     *
     * @return the announced text.
     * @throws IllegalStateException when the child exits or stays silent past {@code timeout}; the
     *                               message holds the last lines it printed.
     */
    public String awaitAnnouncement(final String object, final Duration timeout) throws InterruptedException
    {
        final long end = System.nanoTime() + timeout.toNanos();
        while (!iors.containsKey(object))
        {
            if (!process.isAlive() || System.nanoTime() - end > 0)
            {
                throw new IllegalStateException(name + " announced no '" + object + "' within " + timeout + " (alive: " +
                    process.isAlive() + "); last output:" + System.lineSeparator() + outputTail());
            }
            Thread.sleep(20);
        }
        return iors.get(object);
    }

    /**
     * Sends {@code command} to a child that reads commands ({@link StdinCommands}) and waits for
     * its answer.
     *
     * @return the answer line, without its prefix.
     * @throws IllegalStateException no answer within {@code timeout}.
     */
    public String request(final String command, final Duration timeout) throws IOException, InterruptedException
    {
        replies.clear();
        childStdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        childStdin.flush();
        final String reply = replies.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (reply == null)
        {
            throw new IllegalStateException(name + " did not answer '" + command + "' within " + timeout + " (alive: " +
                process.isAlive() + "); last output:" + System.lineSeparator() + outputTail());
        }
        return reply;
    }

    /** @return the {@code java.version} the child announced, or null if it announced none */
    public String childJavaVersion()
    {
        return childJavaVersion;
    }

    /** @return the child's process id */
    public long pid()
    {
        return process.pid();
    }

    public boolean isAlive()
    {
        return process.isAlive();
    }

    /** Kills the child at once, as {@code kill -9} does, and waits until it is gone. */
    public void kill()
    {
        process.destroyForcibly();
        waitForExit();
    }

    /** @return the last lines the child printed, oldest first, one per line */
    public String outputTail()
    {
        synchronized (outputTail)
        {
            return String.join(System.lineSeparator(), outputTail);
        }
    }

    /**
     * Ends the child: closes its standard input (it halts on end of file), asks it to terminate,
     * and kills it if it is still there after a few seconds. Safe to call more than once.
     */
    @Override
    public void close()
    {
        try
        {
            childStdin.close();
        }
        catch (final IOException e)
        {
            // The child is already gone.
        }
        if (process.isAlive())
        {
            process.destroy();
            try
            {
                if (!process.waitFor(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS))
                {
                    process.destroyForcibly();
                }
            }
            catch (final InterruptedException e)
            {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        waitForExit();
        try
        {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        }
        catch (final IllegalStateException e)
        {
            // The JVM is already shutting down and the hook runs anyway.
        }
    }

    private void awaitReady(final Duration timeout)
    {
        final long deadlineNs = System.nanoTime() + timeout.toNanos();
        try
        {
            while (!ready.await(50, TimeUnit.MILLISECONDS))
            {
                if (!process.isAlive())
                {
                    // The pump ends at the child's end of output: then the tail is complete.
                    pump.join(EXIT_WAIT.toMillis());
                    if (ready.getCount() == 0)
                    {
                        return;
                    }
                    throw new IllegalStateException(name + " exited with status "
                        + process.exitValue() + " before it was ready. Its output:"
                        + System.lineSeparator() + outputTail());
                }
                if (deadlineNs - System.nanoTime() <= 0)
                {
                    throw new IllegalStateException(name + " was not ready after " + timeout
                        + ". Its output:" + System.lineSeparator() + outputTail());
                }
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        }
    }

    private void pumpOutput()
    {
        final boolean echo = Boolean.getBoolean(ECHO_CHILD_OUTPUT_PROPERTY);
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                if (line.startsWith(TestServer.IOR_LINE_PREFIX))
                {
                    final String[] parts = line.split(" ", 3);
                    if (parts.length == 3)
                    {
                        iors.put(parts[1], parts[2].trim());
                    }
                    continue;
                }
                if (line.startsWith(TestServer.JAVA_LINE_PREFIX))
                {
                    childJavaVersion = line.substring(TestServer.JAVA_LINE_PREFIX.length()).trim();
                    continue;
                }
                if (line.equals(TestServer.READY_LINE))
                {
                    ready.countDown();
                    continue;
                }
                if (line.startsWith(StdinCommands.REPLY_PREFIX))
                {
                    replies.add(line.substring(StdinCommands.REPLY_PREFIX.length()).trim());
                    continue;
                }
                synchronized (outputTail)
                {
                    if (outputTail.size() == OUTPUT_TAIL_LINES)
                    {
                        outputTail.removeFirst();
                    }
                    outputTail.addLast(line);
                }
                if (echo)
                {
                    System.err.println("[" + name + " " + process.pid() + "] " + line);
                }
            }
        }
        catch (final IOException e)
        {
            // The child closed its output: it is exiting.
        }
    }

    private void waitForExit()
    {
        try
        {
            process.waitFor(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static String javaBinary()
    {
        return ProcessHandle.current().info().command()
            .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
