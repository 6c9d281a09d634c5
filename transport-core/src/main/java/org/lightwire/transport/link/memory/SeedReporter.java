package org.lightwire.transport.link.memory;

import java.io.PrintStream;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * A JUnit 5 extension that prints, when a test fails, every seed the test registered, so that a
 * failing simulation replays exactly (STYLE.md, second test tier):
 *
 * <pre>
 * SEED=42 to replay: rerun org.example.FooTest#bar() with seed 42 for network A&lt;-&gt;B
 * </pre>
 *
 * <p>A test registers a seed with {@link #register(long, String)} from the thread that runs it,
 * or through a {@link Seeds} parameter, which works from any thread:
 *
 * <pre>
 * &#64;ExtendWith(SeedReporter.class)
 * class FooTest
 * {
 *     &#64;Test
 *     void bar(final SeedReporter.Seeds seeds)
 *     {
 *         final SimulatedNetwork network = new SimulatedNetwork(seeds.register(seed, "network A&lt;-&gt;B"), 0);
 *     }
 * }
 * </pre>
 *
 * <p>Registering a description again replaces its seed, so a test that loops over seeds reports
 * only the one it was running when it failed.
 *
 * <p>The seeds are kept by the extension, keyed by test, and not in the extension context's
 * store, because JUnit releases that store before it calls {@link TestWatcher} in some versions.
 * junit-jupiter-api is an optional dependency of transport-core: a module that uses this class
 * has it already as a test dependency.
 */
public final class SeedReporter implements BeforeEachCallback, TestWatcher, ParameterResolver
{
    private static final ThreadLocal<Seeds> CURRENT = new ThreadLocal<>();
    private static final Map<String, Seeds> BY_TEST = new ConcurrentHashMap<>();

    /**
     * Registers a seed of the test the calling thread is running.
     *
     * @param seed the seed to report if the test fails.
     * @param description what the seed drives, such as "network A&lt;-&gt;B".
     * @return {@code seed}, so that the call can wrap the expression that uses it.
     */
    public static long register(final long seed, final String description)
    {
        return current().register(seed, description);
    }

    /** @return the seeds of the test the calling thread is running. */
    public static Seeds current()
    {
        Seeds seeds = CURRENT.get();
        if (seeds == null)
        {
            // Outside a test with this extension the seeds are kept, so register() never fails,
            // but nothing will print them.
            seeds = new Seeds();
            CURRENT.set(seeds);
        }
        return seeds;
    }

    /**
     * @param seed the seed.
     * @param description what the seed drives.
     * @param test the failed test, as {@code class#method()}.
     * @return the line printed for one seed.
     */
    public static String format(final long seed, final String description, final String test)
    {
        return "SEED=" + seed + " to replay: rerun " + test + " with seed " + seed + " for " + description;
    }

    /** Prints one {@link #format} line per seed to {@code out}. */
    static void report(final Seeds seeds, final String test, final PrintStream out)
    {
        for (final Map.Entry<String, Long> entry : seeds.snapshot().entrySet())
        {
            out.println(format(entry.getValue(), entry.getKey(), test));
        }
    }

    /** @return tests that started and have not finished; 0 between tests, or seeds leak. */
    static int testsInProgress()
    {
        return BY_TEST.size();
    }

    @Override
    public void beforeEach(final ExtensionContext context)
    {
        CURRENT.set(seedsOf(context));
    }

    @Override
    public void testFailed(final ExtensionContext context, final Throwable cause)
    {
        final Seeds seeds = finish(context);
        if (seeds != null)
        {
            report(seeds, testName(context), System.err);
        }
    }

    @Override
    public void testSuccessful(final ExtensionContext context)
    {
        finish(context);
    }

    @Override
    public void testAborted(final ExtensionContext context, final Throwable cause)
    {
        finish(context);
    }

    @Override
    public boolean supportsParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext)
    {
        // Only methods: a constructor runs outside any one test, so its seeds would never be reported.
        return parameterContext.getParameter().getType() == Seeds.class &&
            parameterContext.getDeclaringExecutable() instanceof Method;
    }

    @Override
    public Object resolveParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext)
    {
        return seedsOf(extensionContext);
    }

    private static Seeds seedsOf(final ExtensionContext context)
    {
        return BY_TEST.computeIfAbsent(context.getUniqueId(), id -> new Seeds());
    }

    private static Seeds finish(final ExtensionContext context)
    {
        final Seeds seeds = BY_TEST.remove(context.getUniqueId());
        if (seeds != null && CURRENT.get() == seeds)
        {
            CURRENT.remove();
        }
        return seeds;
    }

    private static String testName(final ExtensionContext context)
    {
        final String className = context.getTestClass().map(Class::getName).orElse("?");
        final String methodName = context.getTestMethod().map(Method::getName).orElse("?");
        final String displayName = context.getDisplayName();
        final String test = className + '#' + methodName + "()";
        // A method's default display name is its signature; parameterized and repeated tests
        // have one per invocation, and it says which invocation failed.
        return displayName.startsWith(methodName + "(") ? test : test + " [" + displayName + ']';
    }

    /**
     * The seeds of one test, by description, in the order they were first registered.
     * Thread-safe, so that threads a test starts can register too.
     */
    public static final class Seeds
    {
        private final Map<String, Long> seedByDescription = new LinkedHashMap<>();

        /**
         * @param seed the seed to report if the test fails; replaces any earlier seed of
         *             {@code description}.
         * @param description what the seed drives.
         * @return {@code seed}.
         */
        public synchronized long register(final long seed, final String description)
        {
            seedByDescription.put(Objects.requireNonNull(description, "description"), seed);
            return seed;
        }

        /** @return a copy of the seeds, by description. */
        public synchronized Map<String, Long> snapshot()
        {
            return new LinkedHashMap<>(seedByDescription);
        }

        public synchronized void clear()
        {
            seedByDescription.clear();
        }

        @Override
        public synchronized String toString()
        {
            return "Seeds" + seedByDescription;
        }
    }
}
