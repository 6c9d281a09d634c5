package org.lightwire.transport.link.udp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RejectLimiterTest
{
    private static final long MS = 1_000_000L;
    private static final long START_NS = Long.MAX_VALUE - 50 * MS;

    @Test
    void oneRejectPerIdPerInterval()
    {
        final RejectLimiter limiter = new RejectLimiter(16, 100 * MS, 10, MS, START_NS);
        assertTrue(limiter.tryAcquire(7, START_NS));
        assertFalse(limiter.tryAcquire(7, START_NS + 99 * MS));
        assertTrue(limiter.tryAcquire(8, START_NS + 99 * MS));
        assertTrue(limiter.tryAcquire(7, START_NS + 100 * MS));
    }

    @Test
    void burstIsBoundedAndRefills()
    {
        final RejectLimiter limiter = new RejectLimiter(1024, 100 * MS, 3, 10 * MS, START_NS);
        assertTrue(limiter.tryAcquire(1, START_NS));
        assertTrue(limiter.tryAcquire(2, START_NS));
        assertTrue(limiter.tryAcquire(3, START_NS));
        assertFalse(limiter.tryAcquire(4, START_NS + 9 * MS));
        assertTrue(limiter.tryAcquire(4, START_NS + 10 * MS));
        assertFalse(limiter.tryAcquire(5, START_NS + 10 * MS));
        // A long silence refills no more than the burst.
        assertTrue(limiter.tryAcquire(5, START_NS + 10_000 * MS));
        assertEquals(2, limiter.tokens());
    }
}
