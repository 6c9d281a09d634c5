package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.engine.view.Configuration;

/** A joiner's watch for a leader alone: member 3 of [1..5], KeepAlive timeout 100 ms. */
class LeaderSignsTest
{
    private static final long MS = 1_000_000L;
    private static final Configuration FIVE = Configuration.of(new int[] {1, 2, 3, 4, 5}, new long[5]);

    private final LeaderSigns signs = new LeaderSigns(3, 100 * MS);

    @Test
    void aTakeoverIsDueAfterTwoTimeoutsWithoutASignWhileAMajorityIsHeard()
    {
        signs.sign(0);
        signs.heard(4, 150 * MS);
        signs.heard(5, 150 * MS);
        assertFalse(signs.takeoverDue(FIVE, 199 * MS), "not two timeouts yet");
        assertTrue(signs.takeoverDue(FIVE, 200 * MS), "3, 4 and 5: a majority, no sign for 200 ms");
        assertFalse(signs.takeoverDue(FIVE, 251 * MS), "4 and 5 unheard for more than a timeout: no majority");
    }

    @Test
    void eachLowerIdHeardWaitsOneMoreTimeout()
    {
        signs.sign(0);
        signs.heard(1, 250 * MS);
        signs.heard(2, 250 * MS);
        assertFalse(signs.takeoverDue(FIVE, 300 * MS), "1 and 2 go first");
        assertFalse(signs.takeoverDue(FIVE, 340 * MS));
        signs.heard(1, 380 * MS);
        signs.heard(2, 380 * MS);
        assertTrue(signs.takeoverDue(FIVE, 400 * MS), "2 + 2 timeouts since the last sign");
    }

    @Test
    void aMembersAnswerIsASignUnlessItsLeaderAsksToJoinOrIsThisJoiner()
    {
        signs.sign(0);
        signs.heard(4, 200 * MS);
        signs.heard(5, 200 * MS);
        signs.answerNaming(4, 150 * MS);
        assertFalse(signs.takeoverDue(FIVE, 200 * MS), "4 may lead: a sign at 150 ms");
        signs.askedToJoin(4, 160 * MS);
        signs.answerNaming(4, 170 * MS);
        signs.answerNaming(3, 180 * MS);
        signs.heard(4, 340 * MS);
        signs.heard(5, 340 * MS);
        assertTrue(signs.takeoverDue(FIVE, 350 * MS), "4 asks to join, 3 is this joiner: no sign after 150 ms");
        signs.answerNaming(4, 361 * MS);
        assertFalse(signs.takeoverDue(FIVE, 362 * MS), "4's ADDED is more than a timeout old: a sign again");
    }
}
