package org.lightwire.transport.link.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.testkit.engine.EngineTestKit;

class SeedReporterTest
{
    private static final String EXAMPLE = SeedReporterTest.Example.class.getName();

    @Test
    void formatNamesTheSeedTheTestAndWhatTheSeedDrives()
    {
        assertEquals(
            "SEED=-42 to replay: rerun org.example.FooTest#bar() with seed -42 for network A<->B",
            SeedReporter.format(-42L, "network A<->B", "org.example.FooTest#bar()"));
    }

    @Test
    void registerReturnsTheSeedAndReplacesTheSeedOfTheSameDescription()
    {
        final SeedReporter.Seeds seeds = new SeedReporter.Seeds();
        assertEquals(5L, seeds.register(5L, "network"));
        assertEquals(6L, seeds.register(6L, "workload"));
        assertEquals(7L, seeds.register(7L, "network"));

        assertEquals(Map.of("network", 7L, "workload", 6L), seeds.snapshot());
        assertEquals(List.of("network", "workload"), List.copyOf(seeds.snapshot().keySet()));
        seeds.clear();
        assertTrue(seeds.snapshot().isEmpty());
    }

    @Test
    void staticRegisterKeepsSeedsPerThread() throws InterruptedException
    {
        SeedReporter.register(1L, "here");
        final Thread other = new Thread(() -> SeedReporter.register(2L, "there"));
        other.start();
        other.join();

        assertEquals(Map.of("here", 1L), SeedReporter.current().snapshot());
        SeedReporter.current().clear();
    }

    @Test
    void reportPrintsOneLinePerSeedInRegistrationOrder()
    {
        final SeedReporter.Seeds seeds = new SeedReporter.Seeds();
        seeds.register(9L, "network");
        seeds.register(10L, "clock");
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        SeedReporter.report(seeds, "T#m()", new PrintStream(bytes, true, StandardCharsets.UTF_8));

        assertEquals(
            SeedReporter.format(9L, "network", "T#m()") + System.lineSeparator() +
            SeedReporter.format(10L, "clock", "T#m()") + System.lineSeparator(),
            bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void failedTestsPrintTheirSeedsToStandardErrorAndPassingTestsPrintNothing()
    {
        final PrintStream originalErr = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        Example.enabled = true;
        try
        {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(Example.class))
                .execute()
                .testEvents()
                .assertStatistics(stats -> stats.started(5).succeeded(3).failed(2));
        }
        finally
        {
            Example.enabled = false;
            System.setErr(originalErr);
        }

        final List<String> seedLines = captured.toString(StandardCharsets.UTF_8).lines()
            .filter(line -> line.startsWith("SEED=")).sorted().toList();
        assertEquals(List.of(
            SeedReporter.format(2L, "sweep", EXAMPLE + "#sweepFailsForSeedTwo() [[2] 2]"),
            SeedReporter.format(6L, "workload", EXAMPLE + "#failsWithSeeds()"),
            SeedReporter.format(7L, "network", EXAMPLE + "#failsWithSeeds()"),
            SeedReporter.format(8L, "from a helper thread", EXAMPLE + "#failsWithSeeds()")),
            seedLines);
        // Every test finished, so nothing is kept for it, here or in the thread that ran it.
        assertEquals(0, SeedReporter.testsInProgress());
        assertTrue(SeedReporter.current().snapshot().isEmpty());
    }

    /** Run only by the test above, through the JUnit engine; surefire skips nested classes. */
    @ExtendWith(SeedReporter.class)
    static class Example
    {
        static volatile boolean enabled;

        @BeforeEach
        void onlyWhenRunOnPurpose()
        {
            assumeTrue(enabled, "run by SeedReporterTest only");
        }

        @Test
        void failsWithSeeds(final SeedReporter.Seeds seeds) throws InterruptedException
        {
            SeedReporter.register(5L, "network");
            seeds.register(6L, "workload");
            SeedReporter.register(7L, "network");
            final Thread helper = new Thread(() -> seeds.register(8L, "from a helper thread"));
            helper.start();
            helper.join();
            throw new AssertionError("deliberate failure");
        }

        @Test
        void passesWithASeed()
        {
            SeedReporter.register(9L, "network");
        }

        @ParameterizedTest
        @ValueSource(longs = { 1L, 2L, 3L })
        void sweepFailsForSeedTwo(final long seed)
        {
            SeedReporter.register(seed, "sweep");
            assertNotEquals(2L, seed);
        }
    }
}
