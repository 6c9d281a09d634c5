package org.lightwire.romiop.engine;

import java.util.stream.LongStream;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every failure scenario of {@link GroupFailureSimulationTest} over many more seeds (about 30 s per
 * 300 seeds on one core), too long for every build. Run it with
 * {@code mvn -pl romiop verify -Dtest=GroupSeedSweepTest -Dromiop.sweep.seeds=300 [-Dromiop.sweep.first=4000]}.
 */
@EnabledIfSystemProperty(named = "romiop.sweep.seeds", matches = "\\d+", disabledReason = "long seed sweep: set -Dromiop.sweep.seeds=N")
class GroupSeedSweepTest
{
    private final GroupFailureSimulationTest scenarios = new GroupFailureSimulationTest();

    static LongStream seeds()
    {
        final long first = Long.getLong("romiop.sweep.first", 1000L);
        return LongStream.range(first, first + Long.getLong("romiop.sweep.seeds", 0L));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void leaderCrash(final long seed) throws Exception
    {
        scenarios.leaderCrashMidRunSurvivorsAgreeOnOneSequence(seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void twoLeaderCrashes(final long seed) throws Exception
    {
        scenarios.newLeaderCrashingInTurnHandsOverAgain(seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void followerCrash(final long seed) throws Exception
    {
        scenarios.followerCrashIsRemovedByKeepAliveAndClientsStopWaitingForIt(seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void join(final long seed) throws Exception
    {
        scenarios.memberJoiningMidRunDeliversTheSameSuffix(seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void cutOffAndRejoin(final long seed) throws Exception
    {
        scenarios.cutOffMemberIsRemovedThenRejoinsAndNeverDisagrees(seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void leave(final long seed) throws Exception
    {
        scenarios.leavingMembersAreRemovedAtOnceAndALeavingLeaderHandsOver(seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void cancel(final long seed) throws Exception
    {
        scenarios.cancelledRequestsAreDeliveredEverywhereOrNowhere(seed);
    }
}
