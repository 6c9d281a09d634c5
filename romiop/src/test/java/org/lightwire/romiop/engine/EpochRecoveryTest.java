package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
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
        assertFalse(r.answer(1, nonce + 2, 9, 0, 0, 0, NONE, FIVE), "another ask's answer");
        assertFalse(r.answer(6, nonce, 9, 0, 0, 0, NONE, FIVE), "from outside the group");
        assertFalse(r.answer(1, nonce, 3, 0, 0, 0, NONE, FIVE));
        assertFalse(r.answer(1, nonce, 3, 0, 0, 0, NONE, FIVE), "the same member twice");
        assertFalse(r.answer(2, nonce, 0x8000_0000, 0, 0, 0, NONE, FIVE));
        assertTrue(r.answer(4, nonce, 7, 0, 0, 0, NONE, FIVE));
        assertTrue(r.learned());
        assertEquals(0x8000_0000, r.newestTold(), "epochs compare unsigned");
        assertFalse(r.answer(3, nonce, 99, 0, 0, 0, NONE, FIVE), "nothing more to learn");
        assertEquals(0x8000_0000, r.newestTold());
    }

    @Test
    void inGroupsOfThreeAndFourTwoOthersAreEnough()
    {
        for (final int[] group : new int[][] {{1, 2, 3}, {1, 2, 3, 4}})
        {
            final EpochRecovery r = new EpochRecovery();
            r.restart(7, 1);
            assertFalse(r.answer(2, r.nonce(), 4, 0, 0, 0, NONE, group));
            assertTrue(r.answer(3, r.nonce(), 4, 0, 0, 0, NONE, group));
        }
    }

    @Test
    void aRestartedAskForgetsTheAnswersToTheLastOne()
    {
        final EpochRecovery r = new EpochRecovery();
        r.restart(1_000, 3);
        final int first = r.nonce();
        r.answer(1, first, 5, 40, 0, 5, NONE, new int[] {1, 2, 3});
        assertTrue(r.answeredLeading(1, 5));
        r.restart(2_000, 3);
        assertNotEquals(first, r.nonce());
        assertEquals(0, r.newestTold());
        assertFalse(r.answer(2, r.nonce(), 5, 0, 0, 0, NONE, new int[] {1, 2, 3}), "1's answer was to the earlier ask");
        assertFalse(r.answeredLeading(1, -1));
        assertEquals(0, r.lastOrderSeqTold(1, 5));
    }

    @Test
    void aLeadersAnswersTellItsLastOrderInTheEpochItOrdersIn()
    {
        final EpochRecovery r = new EpochRecovery();
        r.restart(1_000, 3);
        final int[] three = {1, 2, 3};
        assertFalse(r.answer(2, r.nonce(), 0, 7, 0, 0, NONE, three), "epoch 0 teaches no epoch");
        assertFalse(r.answeredLeading(2, -1), "2 leads nothing");
        assertFalse(r.answer(2, r.nonce(), 5, 7, 0, 0, NONE, three));
        assertTrue(r.answer(3, r.nonce(), 5, 9, 0, 0, NONE, three));
        assertFalse(r.answer(1, r.nonce() + 2, 5, 50, 0, 5, NONE, three), "another ask's answer");
        assertFalse(r.answeredLeading(1, -1));
        assertFalse(r.answer(1, r.nonce(), 0, 30, 0, 5, NONE, three), "a restarted leader that forgot its epochs, ordering in 5, still answers");
        assertFalse(r.answer(1, r.nonce(), 5, 20, 0, 5, NONE, three), "an older copy");
        assertEquals(List.of(true, false, 30L, 0L), List.of(r.answeredLeading(1, 5), r.answeredLeading(1, 6), r.lastOrderSeqTold(1, 5),
            r.lastOrderSeqTold(1, 6)));
        assertFalse(r.answer(1, r.nonce(), 6, 35, 0, 6, NONE, three), "it leads a newer epoch now");
        assertEquals(List.of(false, true, 35L), List.of(r.answeredLeading(1, 5), r.answeredLeading(1, 6), r.lastOrderSeqTold(1, 6)));
        assertFalse(r.answer(1, r.nonce(), 6, 99, 0, 5, NONE, three), "a delayed answer from when it led 5");
        assertEquals(35L, r.lastOrderSeqTold(1, 6));
    }

    @Test
    void anAnswerFromAnIncarnationOlderThanOneKnownCountsForNothing()
    {
        final EpochRecovery r = new EpochRecovery();
        final KnownIncarnations known = new KnownIncarnations();
        r.restart(1_000, 3);
        assertFalse(r.answer(1, r.nonce(), 5, 0, 7, 0, known, new int[] {1, 2, 3}));
        // 2's answer names 1's incarnation 8: 1 restarted since it answered, and may have forgotten it.
        known.raise(1, 8, id -> true);
        assertFalse(r.answer(2, r.nonce(), 5, 0, 3, 0, known, new int[] {1, 2, 3}), "1's answer is of an older incarnation");
        assertFalse(r.learned());
        assertTrue(r.answer(1, r.nonce(), 5, 0, 8, 0, known, new int[] {1, 2, 3}), "1's new incarnation answered");
    }
}
