package org.lightwire.romiop.engine.nemesis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.lightwire.romiop.engine.nemesis.NemesisChecker.Violation;
import org.lightwire.romiop.engine.nemesis.NemesisRun.Result;

/**
 * Tier 2, nemesis: {@link NemesisRun} over many seeds per nemesis, each run checked by
 * {@link NemesisChecker} (one order, no duplicate, accepted replies and successful calls in the
 * order, progress after the heal). Every build runs the nemeses the engine passes, 150 seeds
 * each, on a thread per core; those it fails run only with {@code -Dromiop.nemesis.failing=true}
 * (their disabled reasons say what they find). A failure lists each failing seed's verdict and the
 * command that replays it. {@code scripts/romiop-nemesis.sh} runs the same over 10,000 seeds.
 */
class NemesisSimulationTest
{
    private static final String FAILING = "romiop.nemesis.failing";

    private static void passes(final Nemesis nemesis)
    {
        passes(nemesis, false);
    }

    private static void passes(final Nemesis nemesis, final boolean countingStarts)
    {
        final long first = Long.getLong("romiop.nemesis.first", 1L);
        final long seeds = Long.getLong("romiop.nemesis.seeds", 150L);
        final List<Result> failed = LongStream.range(first, first + seeds).parallel().mapToObj(seed -> NemesisRun.run(seed, nemesis, countingStarts))
            .filter(r -> !r.ok()).sorted((a, b) -> Long.compare(a.seed(), b.seed())).toList();
        assertEquals(List.of(), failed.stream().map(Result::seed).toList(), () -> failed.size() + " of " + seeds + " seeds of nemesis " + nemesis +
            " failed:\n" + failed.stream().limit(5).map(Result::report).collect(Collectors.joining("\n")));
    }

    /**
     * The engine passes these whole, progress after the heal included: background and heavy loss,
     * duplication and reordering; crashes with restarts as joiners; symmetric, flapping and
     * one-way partitions; pauses; restarts with the same id.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Nemesis.class, names = {"NONE", "LOSS", "CRASH", "PARTITION", "FLAP", "ONE_WAY", "PAUSE", "RESTART_FOUNDING", "STAGGERED", "REPLAY"})
    void passing(final Nemesis nemesis)
    {
        passes(nemesis);
    }

    /**
     * Safety under the nemesis the engine does not yet pass whole: whatever else a run violates
     * (members stuck after the heal), no two members deliver different requests at one order
     * number, no member executes a request twice or skips one (a state transfer in between
     * included), no accepted reply or successful call is missing from the final order, and no
     * engine throws. Runs outside the failure model are left out: {@code mixed} and
     * {@code founding} can restart a majority without memory, which no group that keeps nothing
     * on disk survives (it waits, or founds anew and loses the orders only they held).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Nemesis.class, names = {"MIXED", "HOSTILE", "FOUNDING"})
    void oneOrder(final Nemesis nemesis)
    {
        keepsOneOrder(nemesis, false);
    }

    /** The nemeses that restart processes, each process knowing its start count (as with {@code start_count_dir}). */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Nemesis.class, names = {"RESTART_FOUNDING", "STAGGERED"})
    void passingCountingStarts(final Nemesis nemesis)
    {
        passes(nemesis, true);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Nemesis.class, names = {"MIXED", "FOUNDING"})
    void oneOrderCountingStarts(final Nemesis nemesis)
    {
        keepsOneOrder(nemesis, true);
    }

    /**
     * Faults while the group founds itself, every process knowing its start count: a run may end
     * stuck only outside the failure model (a majority restarted and not readmitted, so a
     * committed order may be forgotten by all who held it); without start counts the founding
     * phase's restarts leave groups stuck within it too (docs/romiop.md, "Restarted processes").
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Nemesis.class, names = {"FOUNDING"})
    void withinTheFailureModelCountingStarts(final Nemesis nemesis)
    {
        final long first = Long.getLong("romiop.nemesis.first", 1L);
        final long seeds = Long.getLong("romiop.nemesis.seeds", 150L);
        final List<Result> failed = LongStream.range(first, first + seeds).parallel().mapToObj(seed -> NemesisRun.run(seed, nemesis, true))
            .filter(r -> !r.ok() && r.verdict().outsideModel() == null).sorted((a, b) -> Long.compare(a.seed(), b.seed())).toList();
        assertEquals(List.of(), failed.stream().map(Result::seed).toList(), () -> failed.size() + " of " + seeds + " seeds of nemesis " +
            nemesis + " failed within the failure model:\n" + failed.stream().limit(5).map(Result::report).collect(Collectors.joining("\n")));
    }

    private static void keepsOneOrder(final Nemesis nemesis, final boolean countingStarts)
    {
        final long first = Long.getLong("romiop.nemesis.first", 1L);
        final long seeds = Long.getLong("romiop.nemesis.seeds", 150L);
        final List<Result> broken = LongStream.range(first, first + seeds).parallel().mapToObj(seed -> NemesisRun.run(seed, nemesis, countingStarts))
            .filter(r -> r.verdict().outsideModel() == null && r.verdict().counts().keySet().stream().anyMatch(ORDER_VIOLATIONS::contains))
            .sorted((a, b) -> Long.compare(a.seed(), b.seed())).toList();
        assertEquals(List.of(), broken.stream().map(Result::seed).toList(), () -> broken.size() + " of " + seeds + " seeds of nemesis " +
            nemesis + " broke the order:\n" + broken.stream().limit(5).map(Result::report).collect(Collectors.joining("\n")));
    }

    /**
     * Mixed seeds that once broke the order, each for its own hole: 5498, a restarted joiner that
     * counted commits against the view it heard; 22123, a founding leader restarted inside the
     * KeepAlive timeout that ordered in its earlier incarnation's epoch again.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5498, 22123})
    void mixedSeedThatOnceBrokeTheOrder(final long seed)
    {
        final Result r = NemesisRun.run(seed, Nemesis.MIXED);
        assertEquals(Set.of(), r.verdict().counts().keySet().stream().filter(ORDER_VIOLATIONS::contains).collect(Collectors.toSet()),
            r::report);
    }

    /**
     * A founding seed that broke the order counting starts, before admissions' reach was reported
     * (docs/romiop.md, "Incarnations"): 3 restarted while 2 could not hear the leader; the leader
     * admitted it after its commit, 363, though the earlier 3 had delivered 364-366 beside the
     * leader (a group of three delivers what it accepted beside the leader before the leader hears
     * of it), and the admitted 3 reported to 2's takeover before it had fetched those orders: the
     * takeover decided at 363 and 2 went on without 364.
     */
    @Test
    void foundingSeedThatOnceBrokeTheOrderCountingStarts()
    {
        final Result r = NemesisRun.run(5631, Nemesis.FOUNDING, true);
        assertEquals(Set.of(), r.verdict().counts().keySet().stream().filter(ORDER_VIOLATIONS::contains).collect(Collectors.toSet()),
            r::report);
    }

    /**
     * A hostile seed of seven members, counting starts, that once left one member taking over for
     * good: 2 followed 4 in epoch 6; 4, a member of 3's epoch 8, answered a replayed KeepAlive of
     * 2's old leadership by telling 2 its epoch, and 2 took that for its leader's move to epoch 8:
     * it entered 8 under 4, could not report to 3's epoch 8, and took over alone, proposing ever
     * newer epochs. A member's word of its epoch is now flagged TOLD (ToldKeepAliveTest).
     */
    @Test
    void hostileSeedThatOnceLeftAFollowerOfALosingProposerTakingOver()
    {
        final Result r = NemesisRun.run(23, Nemesis.HOSTILE, true, 7);
        assertTrue(r.ok(), r::report);
    }

    private static final Set<Violation> ORDER_VIOLATIONS = EnumSet.of(Violation.ORDER_DIVERGED, Violation.CRASHED_TAIL_REORDERED,
        Violation.DUPLICATE_DELIVERY, Violation.SEQ_NOT_INCREASING, Violation.CORRUPT_DELIVERY, Violation.ACCEPTED_REPLY_UNADOPTED, Violation.COMPLETED_CALL_LOST,
        Violation.SKIPPED_ORDER, Violation.STATE_DIVERGED, Violation.STATE_CUT_WRONG, Violation.STATE_REFUSED, Violation.ENGINE_THREW);

    /** The engine fails this one today in some runs; docs/romiop.md ("Tests") lists what it finds, with a seed. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Nemesis.class, names = {"MIXED"})
    @EnabledIfSystemProperty(named = FAILING, matches = "true", disabledReason = "the engine fails mixed in some runs: members and " +
        "clients stuck after the heal (docs/romiop.md, Tests); -Dromiop.nemesis.failing=true runs them")
    void failing(final Nemesis nemesis)
    {
        passes(nemesis);
    }
}
