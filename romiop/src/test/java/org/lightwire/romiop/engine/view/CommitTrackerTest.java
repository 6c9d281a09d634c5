package org.lightwire.romiop.engine.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CommitTrackerTest
{
    private static Configuration members(final int... ids)
    {
        final long[] inc = new long[ids.length];
        for (int i = 0; i < ids.length; i++)
        {
            inc[i] = 100 + ids[i];
        }
        return Configuration.of(ids, inc);
    }

    @Test
    void theCommitIsWhatAMajorityAcceptedInTheEpoch()
    {
        final CommitTracker t = new CommitTracker(1, members(1, 2, 3, 4, 5));
        t.startEpoch(7, members(1, 2, 3, 4, 5), 10, 0);
        assertEquals(0, t.commit(), "the leader alone is no majority of 5");
        assertFalse(t.onAccepted(2, 7, 8));
        assertEquals(0, t.commit());
        assertTrue(t.onAccepted(3, 7, 9));
        assertEquals(8, t.commit(), "1 holds 10, 3 holds 9, 2 holds 8: three hold 8");
        assertFalse(t.onAccepted(4, 6, 10), "an OrderAck of another epoch counts for nothing");
        assertFalse(t.onAccepted(9, 7, 10), "nor one from outside the configuration");
        assertTrue(t.onAccepted(4, 7, 10));
        assertEquals(9, t.commit());
        assertFalse(t.onAccepted(4, 7, 5), "an older OrderAck changes nothing");
        assertEquals(10, t.accepted(4));
        assertFalse(t.ownAccepted(12), "1:12, 4:10, 3:9, 2:8, 5:0: the third highest is still 9");
        assertEquals(9, t.commit());
        assertTrue(t.onAccepted(5, 7, 12));
        assertEquals(10, t.commit(), "1:12, 5:12, 4:10");
    }

    @Test
    void aNewEpochCountsAfreshButTheCommitNeverGoesBack()
    {
        final CommitTracker t = new CommitTracker(2, members(1, 2, 3));
        t.startEpoch(1, members(1, 2, 3), 5, 0);
        t.onAccepted(3, 1, 5);
        assertEquals(5, t.commit());
        t.startEpoch(2, members(1, 2, 3), 5, t.commit());
        assertEquals(-1, t.accepted(3), "epoch 1's acceptances do not count in epoch 2");
        assertEquals(5, t.commit());
        assertFalse(t.ownAccepted(7), "alone in epoch 2: no majority");
        assertTrue(t.onAccepted(1, 2, 6));
        assertEquals(6, t.commit());
    }

    @Test
    void aCommittedConfigurationChangeMovesTheMajority()
    {
        final CommitTracker t = new CommitTracker(1, members(1, 2, 3));
        t.startEpoch(1, members(1, 2, 3), 20, 0);
        t.onAccepted(2, 1, 20);
        assertEquals(20, t.commit());
        t.configuration(members(1, 2, 3, 4, 5));
        t.ownAccepted(25);
        t.onAccepted(2, 1, 25);
        assertEquals(20, t.commit(), "two of five hold 25");
        assertTrue(t.onAccepted(5, 1, 30));
        assertEquals(25, t.commit());
        t.forget(2);
        t.configuration(members(1, 3, 4, 5));
        assertEquals(25, t.commit(), "the commit never goes back");
    }
}
