package org.lightwire.romiop.engine.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PresenceTest
{
    private static final Configuration FIVE = Configuration.of(new int[] {1, 2, 3, 4, 5}, new long[] {1, 2, 3, 4, 5});

    @Test
    void theLeaseHoldsWhileAMajorityIsHeardWithinTheWindow()
    {
        final Presence p = new Presence(1);
        assertFalse(p.majorityPresent(FIVE, 0, 100), "only itself");
        p.heard(2, 0);
        p.heard(3, 40);
        assertTrue(p.majorityPresent(FIVE, 50, 100));
        assertEquals(100, p.majorityExpiresNs(FIVE, 100), "member 2, heard at 0, ages out at 100");
        assertTrue(p.majorityPresent(FIVE, 99, 100));
        assertFalse(p.majorityPresent(FIVE, 100, 100));
        p.heard(4, 90);
        assertTrue(p.majorityPresent(FIVE, 100, 100), "3 and 4 now");
        assertEquals(140, p.majorityExpiresNs(FIVE, 100));
        p.forget(3);
        assertFalse(p.majorityPresent(FIVE, 100, 100));
        p.heardAll(FIVE, 200);
        assertTrue(p.isPresent(5, 250, 100));
        assertTrue(p.isPresent(1, Long.MAX_VALUE, 1), "itself, always");
    }
}
