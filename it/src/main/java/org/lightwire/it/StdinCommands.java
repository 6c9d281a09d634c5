package org.lightwire.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The child side of {@link ProcessHarness#request}: a daemon thread reads the JVM's standard
 * input line by line, answers each line with one {@value #REPLY_PREFIX} line that the handler
 * computes, and halts the JVM when the input reaches end of file (the harness is gone), as
 * {@link TestServer} always did.
 */
public final class StdinCommands
{
    /** Start of an answer line. */
    public static final String REPLY_PREFIX = "LW-REPLY ";

    private StdinCommands()
    {
    }

    /** Starts the reader thread; {@code handler} maps a command line to its answer. */
    public static void serve(final Function<String, String> handler)
    {
        final Thread reader = new Thread(() -> run(handler), "stdin-commands");
        reader.setDaemon(true);
        reader.start();
    }

    private static void run(final Function<String, String> handler)
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                String answer;
                try
                {
                    answer = handler.apply(line.trim());
                }
                catch (final RuntimeException e)
                {
                    answer = "error=" + e.toString().replace(' ', '_');
                }
                System.out.println(REPLY_PREFIX + answer);
                System.out.flush();
            }
        }
        catch (final IOException e)
        {
            // A broken pipe means the parent is gone, as end of file does.
        }
        // halt, not exit: the parent is gone, and an orderly ORB shutdown could block on peers.
        Runtime.getRuntime().halt(0);
    }

    /** @return this JVM's live threads, heap in use and direct buffer memory, as {@code key=value} pairs. */
    public static Map<String, Long> jvmFigures()
    {
        final Map<String, Long> m = new LinkedHashMap<>();
        m.put("threads", (long)ManagementFactory.getThreadMXBean().getThreadCount());
        m.put("peak_threads", (long)ManagementFactory.getThreadMXBean().getPeakThreadCount());
        m.put("heap_used", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        long direct = 0;
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                direct = pool.getMemoryUsed();
            }
        }
        m.put("direct_used", direct);
        return m;
    }

    /** @return {@code key=value} pairs separated by spaces. */
    public static String format(final Map<String, Long> values)
    {
        final StringBuilder b = new StringBuilder();
        values.forEach((k, v) -> b.append(b.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return b.toString();
    }

    /** @return the pairs of a line {@link #format} wrote. */
    public static Map<String, Long> parse(final String line)
    {
        final Map<String, Long> m = new LinkedHashMap<>();
        for (final String pair : line.trim().split("\\s+"))
        {
            final int eq = pair.indexOf('=');
            if (eq > 0)
            {
                try
                {
                    m.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
                }
                catch (final NumberFormatException e)
                {
                    // Not a figure: left out.
                }
            }
        }
        return m;
    }
}
