package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.engine.view.Configuration;

/** Tier 1: who takes over from a silent leader; a hand-advanced clock, a view and configuration set by hand. */
class SuccessionTest
{
    private static final long MS = 1_000_000L;
    private static final long TIMEOUT = 100 * MS;

    private int[] view = {1, 2, 3};
    private Configuration configuration = configuration(1, 2, 3);
    private boolean voter = true;

    private Succession succession(final int selfId)
    {
        return new Succession(selfId, TIMEOUT, new Succession.Group()
        {
            @Override
            public int[] view()
            {
                return view;
            }

            @Override
            public Configuration configuration()
            {
                return configuration;
            }

            @Override
            public boolean voter()
            {
                return voter;
            }
        });
    }

    private static Configuration configuration(final int... ids)
    {
        final long[] incarnations = new long[ids.length];
        for (int i = 0; i < ids.length; i++)
        {
            incarnations[i] = 0x100L + ids[i];
        }
        return Configuration.of(ids, incarnations);
    }

    private static Set<Integer> passedOver(final Succession succession)
    {
        final Set<Integer> ids = new TreeSet<>();
        succession.forEachPassedOver(ids::add);
        return ids;
    }

    @Test
    void theLowestIdLeftInTheViewSucceedsWhicheverMemberFailed()
    {
        final Succession s = succession(3);
        assertEquals(2, s.successor(1));
        assertEquals(1, s.successor(2), "a lower id than the failed leader still comes first");
        assertEquals(1, s.successor(3));
    }

    @Test
    void aLearnerOrAConfiguredMemberOutsideTheViewIsNeverTheSuccessor()
    {
        // 2 is a learner (in the view, not configured); 3 is configured but out of the view.
        view = new int[] {1, 2, 4, 5};
        configuration = configuration(1, 3, 4, 5);
        final Succession s = succession(5);
        assertEquals(4, s.successor(1));
    }

    @Test
    void aVoterWithNoOneLeftSucceedsItselfAndALearnerGetsMinusOne()
    {
        view = new int[] {1, 4};
        configuration = configuration(1, 4);
        assertEquals(4, succession(4).successor(1));

        configuration = configuration(1, 2, 3);
        voter = false;
        assertEquals(-1, succession(4).successor(1), "a learner alone with the failed leader has no one to follow");
    }

    @Test
    void theFirstCandidateKeepsItsTurnForExactlyAKeepAliveTimeout()
    {
        final Succession s = succession(3);
        assertEquals(2, s.suspect(1, false, 0));
        assertEquals(2, s.suspect(1, false, TIMEOUT), "a KeepAlive timeout to the nanosecond: still its turn");
        assertEquals(Set.of(1), passedOver(s));
        assertEquals(3, s.suspect(1, false, TIMEOUT + 1), "one nanosecond more: passed over, our turn");
        assertEquals(Set.of(1, 2), passedOver(s));
    }

    @Test
    void aCandidateSilentForAKeepAliveTimeoutIsPassedOverAndTheNextIdTakesItsTurn()
    {
        view = new int[] {1, 2, 3, 4};
        configuration = configuration(1, 2, 3, 4);
        final Succession s = succession(4);
        assertEquals(2, s.suspect(1, false, 0));
        assertEquals(3, s.suspect(1, false, 101 * MS));
        // 3's turn came at 101 ms: it has its own full timeout, not what is left of 2's.
        assertEquals(3, s.suspect(1, false, 150 * MS));
        assertEquals(3, s.suspect(1, false, 201 * MS));
        assertEquals(4, s.suspect(1, false, 202 * MS));
        assertEquals(Set.of(1, 2, 3), passedOver(s));
        assertEquals(4, s.successor(1), "the successor skips the passed-over candidates too");
    }

    @Test
    void aMemberAwaitingAStatePassesItselfOverAtOnce()
    {
        final Succession s = succession(2);
        assertEquals(3, s.suspect(1, true, 0));
        assertEquals(Set.of(1, 2), passedOver(s));
        assertEquals(3, s.suspect(1, true, TIMEOUT), "3 has its KeepAlive timeout");
    }

    @Test
    void whenEveryoneElseIsPassedOverTheTurnsComeRoundAgainForAMemberAwaitingAState()
    {
        view = new int[] {1, 2, 3, 4};
        configuration = configuration(1, 2, 3, 4);
        final Succession s = succession(2);
        assertEquals(3, s.suspect(1, true, 0));
        assertEquals(4, s.suspect(1, true, 101 * MS));
        assertEquals(Set.of(1, 2, 3), passedOver(s));
        // 4 fails to take over too: no one is left but us, and we await a state, so 3's turn comes again.
        assertEquals(3, s.suspect(1, true, 202 * MS));
        assertEquals(Set.of(1, 2), passedOver(s));
        assertEquals(3, s.suspect(1, true, 302 * MS), "its turn came again at 202 ms");
        assertEquals(4, s.suspect(1, true, 303 * MS));
    }

    @Test
    void aVoterNotAwaitingAStateTakesOverOnceEveryOtherCandidateIsPassedOver()
    {
        final Succession s = succession(2);
        assertEquals(3, s.suspect(1, true, 0));
        // Its state arrived: once 3 is passed over, no one is left but us, and we may lead.
        assertEquals(2, s.suspect(1, false, 101 * MS));
        assertEquals(Set.of(1, 2, 3), passedOver(s));
    }

    @Test
    void clearForgetsThePassedOverAndTheNextSilenceStartsAfresh()
    {
        view = new int[] {1, 2, 3, 4};
        configuration = configuration(1, 2, 3, 4);
        final Succession s = succession(4);
        s.suspect(1, false, 0);
        assertEquals(3, s.suspect(1, false, 101 * MS));
        s.clear();
        assertEquals(Set.of(), passedOver(s));
        assertEquals(2, s.successor(1));
        assertEquals(2, s.suspect(1, false, 1_000 * MS));
        assertEquals(2, s.suspect(1, false, 1_100 * MS), "2's turn starts at the new silence, not at the old one");
        assertEquals(3, s.suspect(1, false, 1_101 * MS));
    }
}
