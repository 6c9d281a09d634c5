package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Test tool, off by default: runs every seeded simulation scenario ({@link GroupSimulationTest}'s
 * three and {@link GroupFailureSimulationTest}'s eight) over a range of seeds and writes one line
 * per scenario and seed: packets sent and handed over, the SHA-256 of the whole packet trace
 * ({@link TraceDigest}), the SHA-256 of the end state of every member and client (harness
 * scenarios; "-" for GroupSimulationTest, whose deliveries the trace holds as the replies they
 * caused), and the outcome (a failing seed is recorded with a hash of its message, not thrown).
 * Two builds whose files are identical behave identically on those seeds, packet for packet:
 * the check for a refactoring that must change nothing.
 *
 * <pre>
 * mvn -o -pl romiop verify -Dtest=SimulationDigestTest -Dromiop.digest.seeds=400 [-Dromiop.digest.first=4000]
 *     [-Dromiop.digest.out=target/simulation-digests.txt] [-Dromiop.digest.expect=old-digests.txt]
 * </pre>
 *
 * With {@code romiop.digest.expect} the test fails on the first line that differs from that file.
 */
@EnabledIfSystemProperty(named = "romiop.digest.seeds", matches = "\\d+", disabledReason = "trace digests: set -Dromiop.digest.seeds=N")
class SimulationDigestTest
{
    @FunctionalInterface
    private interface Scenario
    {
        void run(long seed) throws Exception;
    }

    private static Map<String, Scenario> scenarios()
    {
        final GroupSimulationTest simulation = new GroupSimulationTest();
        final GroupFailureSimulationTest failures = new GroupFailureSimulationTest();
        final Map<String, Scenario> all = new LinkedHashMap<>();
        all.put("lossy", simulation::everyMemberDeliversTheSameSequenceDespiteLossDuplicationAndReordering);
        all.put("paperMode", simulation::paperModeOrderIntervalStillDeliversEverythingInOrder);
        all.put("toSequencer", simulation::requestsSentToTheSequencerAloneGiveTheSameGuarantees);
        all.put("leaderCrash", failures::leaderCrashMidRunSurvivorsAgreeOnOneSequence);
        all.put("leaderCrashToSequencer", failures::leaderCrashWithRequestsSentToTheSequencerAlone);
        all.put("twoLeaderCrashes", failures::newLeaderCrashingInTurnHandsOverAgain);
        all.put("followerCrash", failures::followerCrashIsRemovedByKeepAliveAndClientsStopWaitingForIt);
        all.put("join", failures::memberJoiningMidRunDeliversTheSameSuffix);
        all.put("cutOffAndRejoin", failures::cutOffMemberIsRemovedThenRejoinsAndNeverDisagrees);
        all.put("leave", failures::leavingMembersAreRemovedAtOnceAndALeavingLeaderHandsOver);
        all.put("cancel", failures::cancelledRequestsAreDeliveredEverywhereOrNowhere);
        return all;
    }

    private static String digestOne(final String name, final Scenario scenario, final long seed)
    {
        final TraceDigest digest = TraceDigest.install();
        String outcome;
        try
        {
            scenario.run(seed);
            outcome = "ok";
        }
        catch (final Throwable e)
        {
            final String message = String.valueOf(e.getMessage());
            outcome = "FAIL:" + HexFormat.of().formatHex(sha(message)).substring(0, 16) + ":" +
                message.lines().findFirst().orElse("").replace(' ', '_');
            if (outcome.length() > 140)
            {
                outcome = outcome.substring(0, 140);
            }
        }
        finally
        {
            TraceDigest.uninstall();
        }
        return name + " " + seed + " sent=" + digest.packetsSent + " handled=" + digest.packetsHandled + " trace=" + digest.traceHex() +
            " end=" + digest.endState() + " " + outcome;
    }

    private static byte[] sha(final String text)
    {
        try
        {
            return java.security.MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        }
        catch (final java.security.NoSuchAlgorithmException e)
        {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void writeOneDigestPerScenarioAndSeed() throws Exception
    {
        final long first = Long.getLong("romiop.digest.first", 4000L);
        final long count = Long.getLong("romiop.digest.seeds", 0L);
        final Path out = Path.of(System.getProperty("romiop.digest.out", "target/simulation-digests.txt"));
        final int threads = Integer.getInteger("romiop.digest.threads", Runtime.getRuntime().availableProcessors());
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        final List<Future<String>> lines = new ArrayList<>();
        try
        {
            for (final Map.Entry<String, Scenario> s : scenarios().entrySet())
            {
                for (long seed = first; seed < first + count; seed++)
                {
                    final long theSeed = seed;
                    lines.add(pool.submit(() -> digestOne(s.getKey(), s.getValue(), theSeed)));
                }
            }
            final List<String> text = new ArrayList<>();
            for (final Future<String> f : lines)
            {
                text.add(f.get());
            }
            if (out.getParent() != null)
            {
                Files.createDirectories(out.getParent());
            }
            Files.write(out, text, StandardCharsets.UTF_8);
            System.out.println("SimulationDigestTest: " + text.size() + " lines (" + count + " seeds from " + first + ") in " + out.toAbsolutePath() +
                ", " + text.stream().filter(l -> !l.endsWith(" ok")).count() + " failing runs recorded");
            final String expect = System.getProperty("romiop.digest.expect");
            if (expect != null)
            {
                final List<String> expected = Files.readAllLines(Path.of(expect), StandardCharsets.UTF_8);
                for (int i = 0; i < Math.min(expected.size(), text.size()); i++)
                {
                    assertEquals(expected.get(i), text.get(i), "line " + (i + 1) + " differs from " + expect);
                }
                assertEquals(expected.size(), text.size(), "lines in " + expect);
            }
        }
        finally
        {
            pool.shutdownNow();
        }
    }
}
