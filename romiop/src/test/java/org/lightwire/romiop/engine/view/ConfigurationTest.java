package org.lightwire.romiop.engine.view;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ConfigurationTest
{
    @Test
    void membersAreSortedWithTheirIncarnationsAndAMajorityIsMoreThanHalf()
    {
        final Configuration c = Configuration.of(new int[] {3, 1, 2}, new long[] {33, 11, 22});
        assertArrayEquals(new int[] {1, 2, 3}, c.ids());
        assertEquals(22, c.incarnation(2));
        assertTrue(c.contains(3, 33));
        assertFalse(c.contains(3, 34), "another incarnation of 3 is not the member");
        assertEquals(2, c.quorum());
        assertEquals(3, Configuration.of(new int[] {1, 2, 3, 4}, new long[] {1, 2, 3, 4}).quorum());
        assertEquals(1, Configuration.of(new int[] {9}, new long[] {9}).quorum());
        assertTrue(c.isQuorum(id -> id != 2));
        assertFalse(c.isQuorum(id -> id == 2));
        assertEquals("[1/b, 2/16, 3/21]", c.toString());
    }

    @Test
    void oneMemberChangesAtATimeAndEveryMajorityOfTheOldAndNewIntersect()
    {
        final Configuration c = Configuration.of(new int[] {1, 2, 3}, new long[] {11, 22, 33});
        final Configuration restarted = c.with(2, 23);
        assertArrayEquals(new int[] {1, 2, 3}, restarted.ids());
        assertEquals(23, restarted.incarnation(2));
        final Configuration grown = c.with(4, 44);
        assertArrayEquals(new int[] {1, 2, 3, 4}, grown.ids());
        final Configuration shrunk = c.without(1);
        assertArrayEquals(new int[] {2, 3}, shrunk.ids());
        assertEquals(c, c.without(9));
        assertThrows(IllegalArgumentException.class, () -> Configuration.of(new int[] {5}, new long[] {5}).without(5));
        assertThrows(IllegalArgumentException.class, () -> Configuration.of(new int[] {1, 1}, new long[] {1, 2}));
        // Exhaustively for sizes 1..7: no two disjoint sets are majorities of C and of C +/- one member.
        for (int n = 1; n <= 7; n++)
        {
            for (final int delta : new int[] {-1, 1})
            {
                final int m = n + delta;
                if (m < 1)
                {
                    continue;
                }
                final int union = Math.max(n, m);
                assertTrue(quorum(n) + quorum(m) > union, n + " -> " + m);
            }
        }
    }

    private static int quorum(final int size)
    {
        final int[] ids = new int[size];
        final long[] inc = new long[size];
        for (int i = 0; i < size; i++)
        {
            ids[i] = i + 1;
        }
        return Configuration.of(ids, inc).quorum();
    }
}
