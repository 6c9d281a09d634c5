package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class EpochRecoveryTest
{
    private static final int[] FIVE = {1, 2, 3, 4, 5};
    private static final KnownIncarnations NONE = new KnownIncarnations();

    @Test
    void inAGroupOfFiveThreeOthersMustTellTheirEpochOnceEachToThisAsk()
    {
        final EpochRecovery r = new EpochRecovery();
        r.restart(1_000, 5);
        final int nonce = r.nonce();
        assertFalse(r.answer(1, nonce + 2, 9, 0, 0, NONE, FIVE), "another ask's answer");
        assertFalse(r.answer(6, nonce, 9, 0, 0, NONE, FIVE), "from outside the group");
        assertFalse(r.answer(1, nonce, 3, 0, 0, NONE, FIVE));
        assertFalse(r.answer(1, nonce, 3, 0, 0, NONE, FIVE), "the same member twice");
        assertFalse(r.answer(2, nonce, 0x8000_0000, 0, 0, NONE, FIVE));
        assertTrue(r.answer(4, nonce, 7, 0, 0, NONE, FIVE));
        assertTrue(r.learned());
        assertEquals(0x8000_0000, r.newestTold(), "epochs compare unsigned");
        assertFalse(r.answer(3, nonce, 99, 0, 0, NONE, FIVE), "nothing more to learn");
        assertEquals(0x8000_0000, r.newestTold());
    }

    @Test
    void inGroupsOfThreeAndFourTwoOthersAreEnough()
    {
        for (final int[] group : new int[][] {{1, 2, 3}, {1, 2, 3, 4}})
        {
            final EpochRecovery r = new EpochRecovery();
            r.restart(7, 1);
            assertFalse(r.answer(2, r.nonce(), 4, 0, 0, NONE, group));
            assertTrue(r.answer(3, r.nonce(), 4, 0, 0, NONE, group));
        }
    }

    @Test
    void aRestartedAskForgetsTheAnswersToTheLastOne()
    {
        final EpochRecovery r = new EpochRecovery();
        r.restart(1_000, 3);
        final int first = r.nonce();
        r.answer(1, first, 5, 40, 0, NONE, new int[] {1, 2, 3});
        r.restart(2_000, 3);
        assertNotEquals(first, r.nonce());
        assertEquals(0, r.newestTold());
        assertFalse(r.answer(2, r.nonce(), 5, 0, 0, NONE, new int[] {1, 2, 3}), "1's answer was to the earlier ask");
        assertFalse(r.answeredBy(1));
        assertEquals(0, r.lastOrderSeqTold(1));
    }

    @Test
    void answersAfterItLearnedStillTellTheOrders()
    {
        final EpochRecovery r = new EpochRecovery();
        r.restart(1_000, 3);
        assertFalse(r.answeredBy(1));
        assertFalse(r.answer(2, r.nonce(), 0, 7, 0, NONE, new int[] {1, 2, 3}), "epoch 0 teaches no epoch");
        assertFalse(r.learned());
        assertFalse(r.answer(2, r.nonce(), 5, 7, 0, NONE, new int[] {1, 2, 3}));
        assertTrue(r.answer(3, r.nonce(), 5, 9, 0, NONE, new int[] {1, 2, 3}));
        assertFalse(r.answer(1, r.nonce() + 2, 5, 50, 0, NONE, new int[] {1, 2, 3}), "another ask's answer");
        assertFalse(r.answeredBy(1));
        assertFalse(r.answer(1, r.nonce(), 0, 30, 0, NONE, new int[] {1, 2, 3}), "epoch 0: a restarted leader that forgot its epochs, still answering");
        assertFalse(r.answer(1, r.nonce(), 5, 20, 0, NONE, new int[] {1, 2, 3}), "an older copy");
        assertEquals(java.util.List.of(true, 30L, 7L, 9L), java.util.List.of(r.answeredBy(1), r.lastOrderSeqTold(1), r.lastOrderSeqTold(2),
            r.lastOrderSeqTold(3)));
    }

    @Test
    void anAnswerFromAnIncarnationOlderThanOneKnownCountsForNothing()
    {
        final EpochRecovery r = new EpochRecovery();
        final KnownIncarnations known = new KnownIncarnations();
        r.restart(1_000, 3);
        assertFalse(r.answer(1, r.nonce(), 5, 0, 7, known, new int[] {1, 2, 3}));
        // 2's answer names 1's incarnation 8: 1 restarted since it answered, and may have forgotten it.
        known.raise(1, 8, id -> true);
        assertFalse(r.answer(2, r.nonce(), 5, 0, 3, known, new int[] {1, 2, 3}), "1's answer is of an older incarnation");
        assertFalse(r.learned());
        assertTrue(r.answer(1, r.nonce(), 5, 0, 8, known, new int[] {1, 2, 3}), "1's new incarnation answered");
    }
}
