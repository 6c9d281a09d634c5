package org.lightwire.etf.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

class RequestIdTableTest
{
    private final Route route = new Route("/127.0.0.1:4000#1", null);

    @Test
    void aTakenCallIsGoneAndItsClientIdComesBack()
    {
        final RequestIdTable t = new RequestIdTable();
        final int a = t.add(null, 7, 0, 2, route);
        final int b = t.add(null, 7, 0, 2, route);
        assertNotEquals(a, b, "two clients' id 7 become two lane ids");
        assertEquals(2, t.size());
        final PendingCall p = t.take(b);
        assertEquals(7, p.originalId);
        assertSame(route, p.route);
        assertNull(t.take(b), "taken once");
        assertNull(t.take(b + 64), "an id that maps to a slot but was never given");
        assertEquals(1, t.size());
    }

    @Test
    void aCallThatWaitsLongKeepsItsSlotWhileLaterIdsSkipIt()
    {
        final RequestIdTable t = new RequestIdTable();
        final int slow = t.add(null, 1, 0, 2, route);
        final Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++)
        {
            final int id = t.add(null, i, 0, 2, route);
            assertNotEquals(slow, id);
            assertTrue(seen.add(id));
            assertEquals(i, t.take(id).originalId);
        }
        assertEquals(1, t.take(slow).originalId);
        assertEquals(0, t.size());
    }

    @Test
    void manyWaitingCallsGrowTheTableAndStayFindable()
    {
        final RequestIdTable t = new RequestIdTable();
        final int[] ids = new int[5000];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = t.add(null, i, 0, 2, route);
        }
        final int oneway = t.unrecordedId();
        for (int i = 0; i < ids.length; i++)
        {
            assertNotEquals(ids[i], oneway);
        }
        for (int i = ids.length - 1; i >= 0; i--)
        {
            assertEquals(i, t.take(ids[i]).originalId);
        }
        assertEquals(0, t.takeAll().size());
    }

    @Test
    void takeAllEmptiesTheTable()
    {
        final RequestIdTable t = new RequestIdTable();
        t.add(null, 1, 0, 2, route);
        final int b = t.add(null, 2, 0, 2, route);
        assertEquals(2, t.takeAll().size());
        assertNull(t.take(b));
        assertEquals(0, t.size());
    }
}
