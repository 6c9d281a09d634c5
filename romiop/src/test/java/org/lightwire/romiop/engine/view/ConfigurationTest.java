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
    void aMemberIsListedOnce()
    {
        assertThrows(IllegalArgumentException.class, () -> Configuration.of(new int[] {1, 1}, new long[] {1, 2}));
    }
}
