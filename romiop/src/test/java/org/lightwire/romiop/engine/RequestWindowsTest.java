package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The duplicate filter's bounded memory: per-client windows of request ids, and a bound on clients. */
class RequestWindowsTest
{
    @Test
    void aClientsOldRequestsBelowItsWindowStaySeenAndNewOnesAreNeverTakenForDuplicates()
    {
        final RequestWindows w = new RequestWindows(4, 10);
        // Lamport ids: increasing, with gaps.
        for (final int id : new int[] {1, 2, 5, 9, 10, 11})
        {
            assertTrue(w.add(7, id));
        }
        assertEquals(4, w.size(), "only the last 4 ids are held");
        assertFalse(w.add(7, 1), "1 fell under the window: still a duplicate");
        assertFalse(w.add(7, 2));
        assertFalse(w.add(7, 10), "in the window");
        // 4 was never seen and lies above the watermark (2): it may be a request that was lost and
        // is arriving late, so it is taken; only ids dropped from the window are old for sure.
        assertTrue(w.add(7, 4));
        assertTrue(w.add(7, 12), "a new request is higher than every earlier one");
        assertFalse(w.add(7, 12));
        assertTrue(w.add(8, 1), "another client's ids are its own");
    }

    @Test
    void idsCompareUnsignedAcrossTheSignBit()
    {
        final RequestWindows w = new RequestWindows(2, 10);
        assertTrue(w.add(1, 0x7FFF_FFFF));
        assertTrue(w.add(1, 0x8000_0000));
        assertTrue(w.add(1, 0x8000_0001));
        assertFalse(w.add(1, 0x7FFF_FFFF), "below the watermark, though negative ids sort first as signed ints");
        assertTrue(w.add(1, 0x8000_0002));
    }

    @Test
    void theLeastRecentlyActiveClientIsForgottenBeyondTheBound()
    {
        final RequestWindows w = new RequestWindows(4, 2);
        w.add(1, 1);
        w.add(2, 1);
        w.add(1, 2);
        w.add(3, 1);
        assertEquals(2, w.clients());
        assertEquals(1, w.clientsForgotten());
        assertFalse(w.add(1, 2), "client 1 was active last: kept");
        assertTrue(w.add(2, 1), "client 2 was forgotten: its old id looks new (the documented limit)");
    }
}
