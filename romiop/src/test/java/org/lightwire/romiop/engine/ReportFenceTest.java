package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link ReportFence}'s two rules (docs/romiop.md, "Incarnations") on hand-made reports. */
class ReportFenceTest
{
    private final ReportFence fence = new ReportFence();
    private final KnownIncarnations known = new KnownIncarnations();
    private final Map<Integer, Long> delivered = new HashMap<>();
    /** reporter to order number to epoch of its entry there. */
    private final Map<Integer, Map<Long, Integer>> entries = new HashMap<>();
    private final ReportFence.Knowledge knowledge = new ReportFence.Knowledge()
    {
        @Override
        public long delivered(final int reporter)
        {
            return delivered.getOrDefault(reporter, 0L);
        }

        @Override
        public Integer epochAt(final int reporter, final long seq)
        {
            return entries.getOrDefault(reporter, Map.of()).get(seq);
        }
    };

    private void report(final int id, final long incarnation, final int reachEpoch, final long reach, final long delivers, final long holds)
    {
        fence.put(id, incarnation, reachEpoch, reach, holds);
        delivered.put(id, delivers);
    }

    private void entry(final int id, final long seq, final int epoch)
    {
        entries.computeIfAbsent(id, k -> new HashMap<>()).put(seq, epoch);
    }

    private Set<Integer> counted(final Integer... candidates)
    {
        return fence.counted(Set.of(candidates), known, knowledge);
    }

    @Test
    void aReportOfAnIncarnationOlderThanOneKnownDoesNotCount()
    {
        known.raise(2, 5, id -> true);
        report(1, 1, 0, 0, 10, 10);
        report(2, 4, 0, 0, 10, 10);
        assertEquals(Set.of(1), counted(1, 2));
        report(2, 5, 0, 0, 10, 10);
        assertEquals(Set.of(1, 2), counted(1, 2));
        report(2, 6, 0, 0, 10, 10);
        assertEquals(Set.of(1, 2), counted(1, 2), "newer than known: its process restarted again, and this is the newest");
        assertEquals(Set.of(1), counted(1), "only candidates count");
    }

    @Test
    void incarnationsAreKeptForConfiguredIdsOnly()
    {
        known.raise(9, 7, id -> id != 9);
        assertEquals(0, known.of(9));
        assertEquals(0, known.size());
        known.raise(3, 7, id -> true);
        known.raise(3, 6, id -> true);
        assertEquals(7, known.of(3), "never lowered");
    }

    @Test
    void anAdmissionsReachHeldByItsReporterCounts()
    {
        report(3, 2, 4, 20, 15, 20);
        assertEquals(Set.of(3), counted(3));
        report(3, 2, 4, 20, 15, 19);
        assertEquals(Set.of(), counted(3), "it lacks 20, and nobody else reported");
    }

    @Test
    void anotherCountedReportsDeliveryOrEntriesOfThatEpochOrNewerCoverTheReach()
    {
        report(3, 2, 4, 20, 15, 15);
        report(1, 1, 0, 0, 17, 17);
        assertEquals(Set.of(1), counted(1, 3), "1 delivered through 17 only");
        entry(1, 18, 4);
        entry(1, 19, 5);
        entry(1, 20, 3);
        assertEquals(Set.of(1), counted(1, 3), "20 is held in epoch 3, older than the admission's 4");
        entry(1, 20, 4);
        assertEquals(Set.of(1, 3), counted(1, 3));
        report(1, 1, 0, 0, 20, 20);
        entries.clear();
        assertEquals(Set.of(1, 3), counted(1, 3), "delivered through the reach");
    }

    @Test
    void aReportThatDoesNotCountCoversNothing()
    {
        report(3, 2, 4, 20, 15, 15);
        report(1, 1, 0, 0, 20, 20);
        known.raise(1, 2, id -> true);
        assertEquals(Set.of(), counted(1, 3), "1 is an older incarnation");
        known.raise(1, 1, id -> true);
        assertEquals(Set.of(), counted(3), "1 is no candidate");
    }

    @Test
    void reachesCoverEachOtherOnlyFromACountedStart()
    {
        // 3 holds through 20, its reach 25; 4 holds through 25, its reach 30; 1 holds through 30.
        report(3, 2, 4, 25, 20, 20);
        report(4, 2, 4, 30, 25, 25);
        assertEquals(Set.of(), counted(3, 4), "each covers the other's gap, but neither counts to begin with");
        report(1, 1, 0, 0, 30, 30);
        assertEquals(Set.of(1, 3, 4), counted(1, 3, 4));
        report(1, 1, 0, 0, 24, 24);
        report(4, 2, 4, 30, 25, 25);
        entry(3, 25, 4);
        assertEquals(Set.of(1), counted(1, 3, 4), "3 waits for 25 (held by 4, not counted), 4 for 26-30");
        report(1, 1, 0, 0, 30, 30);
        assertEquals(Set.of(1, 3, 4), counted(1, 3, 4));
    }
}
