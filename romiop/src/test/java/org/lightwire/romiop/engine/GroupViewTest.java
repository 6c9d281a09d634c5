package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GroupViewTest
{
    private static final long SILENCE = 100;

    @Test
    void keepsItsMembersAscendingAndReplacesRatherThanChangesTheArray()
    {
        final GroupView view = new GroupView(2, new int[] {3, 1, 2}, SILENCE);
        final int[] before = view.ids();
        assertArrayEquals(new int[] {1, 2, 3}, before);
        view.add(0);
        view.add(3);
        assertArrayEquals(new int[] {0, 1, 2, 3}, view.ids());
        view.remove(1);
        assertArrayEquals(new int[] {0, 2, 3}, view.ids());
        assertArrayEquals(new int[] {1, 2, 3}, before, "a caller iterating the old array is not disturbed");
        view.leave();
        assertArrayEquals(new int[] {0, 3}, view.ids());
        view.alone();
        assertArrayEquals(new int[] {2}, view.ids());
    }

    @Test
    void aMemberIsSilentOnlyPastTheTimeoutAndNeverItself()
    {
        final GroupView view = new GroupView(1, new int[] {1, 2, 3}, SILENCE);
        view.start(1_000);
        view.heard(2, 1_050);
        view.heard(9, 1_150);
        assertFalse(view.silent(3, 1_100), "exactly the timeout is not past it");
        assertTrue(view.silent(3, 1_101));
        assertFalse(view.silent(2, 1_101));
        assertFalse(view.silent(1, 5_000), "never itself");
        assertEquals(2, view.silentCount(1_151), "2 and 3; 9, no member, is not counted");
        assertFalse(view.contains(9), "hearing a non-member does not add it");
    }

    @Test
    void aNewViewCountsNewcomersHeardNowAndForgetsWhoLeftIt()
    {
        final GroupView view = new GroupView(1, new int[] {1, 2, 3}, SILENCE);
        view.start(0);
        view.heardAt(7, 0);
        view.set(new int[] {1, 3, 4}, 500);
        assertArrayEquals(new int[] {1, 3, 4}, view.ids());
        assertTrue(view.silent(3, 500), "a member already in the view keeps its time");
        assertFalse(view.silent(4, 600), "a newcomer is heard when the view came");
        view.set(new int[] {1, 2, 7}, 10_000);
        assertFalse(view.silent(7, 10_050), "7's old time was forgotten when the view without it came");
        assertFalse(view.silent(2, 10_050));
    }

    @Test
    void anAdmittedMemberIsHeardNow()
    {
        final GroupView view = new GroupView(1, new int[] {1}, SILENCE);
        view.start(0);
        view.admit(5, 1_000);
        assertArrayEquals(new int[] {1, 5}, view.ids());
        assertFalse(view.silent(5, 1_100));
        assertTrue(view.silent(5, 1_101));
    }
}
