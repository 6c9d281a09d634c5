package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class EpochPromiseTest
{
    @Test
    void enteringAnEpochRaisesAnOlderPromiseOnly()
    {
        final EpochPromise e = new EpochPromise(1, 1);
        assertEquals(0, e.promised());
        assertEquals(1, e.newest());
        assertEquals(0, e.promiseAbove());
        e.promise(5, 3);
        assertEquals(5, e.newest());
        assertEquals(5, e.promiseAbove());
        e.enter(4);
        assertEquals(4, e.current());
        assertEquals(5, e.promised(), "an epoch older than the promise leaves it");
        assertEquals(3, e.promisedTo());
        e.enter(6);
        assertEquals(6, e.promised());
        assertEquals(-1, e.promisedTo(), "raised by entering: promised to nobody");
        assertEquals(0, e.promiseAbove());
    }

    @Test
    void epochsCompareUnsigned()
    {
        final EpochPromise e = new EpochPromise(0x7FFF_FFFF, -1);
        e.promise(0x8000_0000, 2);
        assertEquals(0x8000_0000, e.newest(), "past 2^31 is newer, not negative");
        e.enter(0x8000_0001);
        assertEquals(0x8000_0001, e.promised());
    }

    @Test
    void aFoundingCheckIsRecognisedByAskerNonceAndEpoch()
    {
        final EpochPromise e = new EpochPromise(1, 1);
        assertFalse(e.foundingPromised());
        e.promiseFoundingCheck(2, 1, 77);
        assertTrue(e.foundingPromised());
        assertTrue(e.promisedToCheck(1, 77, 2));
        assertFalse(e.promisedToCheck(1, 78, 2), "another incarnation's check");
        assertFalse(e.promisedToCheck(3, 77, 2));
        assertFalse(e.promisedToCheck(1, 77, 3));
        assertTrue(e.promisedToCheckOf(1));
        e.promise(3, 1);
        assertFalse(e.promisedToCheckOf(1), "a takeover's promise carries no nonce");
        assertTrue(e.foundingPromised(), "kept for the process's life");
    }

    @Test
    void theLeaderOfAnEpochIsKept()
    {
        final EpochPromise e = new EpochPromise(1, -1);
        assertEquals(-1, e.leader());
        e.ledBy(4);
        assertEquals(4, e.leader());
    }
}
