package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A leader alone in its view numbers its orders without multicasting them (nobody would take
 * them; on a shared host they would only come back as its own echo), and a member that joins it
 * later is not the worse for it: it starts after the commit, gets every order from there, and
 * delivers what the leader delivers.
 */
class GroupOfOneTest
{
    private static final long MS = GroupHarness.MS;
    private static final long MAX_NS = 60_000 * MS;
    private static final int TOTAL = 400;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void aLeaderAloneSendsNoOrderAndAJoinerLaterDeliversWhatItDelivers(final long seed)
    {
        final GroupHarness h = new GroupHarness(seed, 0.05, 0.02);
        final GroupHarness.Member leader = h.addMember(1, new GroupConfig(1, 1, 1));
        final GroupHarness.Client client = h.addClient(101, new GroupConfig(101, 1, 1), TOTAL);
        final long[] atJoin = new long[3];
        h.when(() -> leader.engine.deliveredSeq() >= TOTAL / 4, () ->
        {
            atJoin[0] = leader.engine.counters().ordersSent();
            atJoin[1] = leader.engine.counters().ordersUnsentAlone();
            atJoin[2] = leader.engine.deliveredSeq();
            h.addMember(2, new GroupConfig(2, 1, 1));
        });
        final long[] atAdmission = {-1, -1};
        h.when(() -> Arrays.stream(leader.engine.currentMembers()).anyMatch(id -> id == 2), () ->
        {
            atAdmission[0] = leader.engine.counters().ordersSent();
            atAdmission[1] = leader.engine.counters().ordersUnsentAlone();
        });
        h.runUntil(() -> h.allSent() && h.members.containsKey(2) && h.delivered(TOTAL, 1, 2) && client.engine.outstandingRequests() == 0,
            MAX_NS);

        assertEquals(0, atJoin[0], "orders multicast while the leader was alone");
        assertTrue(atJoin[1] > 0 && atJoin[1] <= atJoin[2],
            "orders numbered alone: " + atJoin[1] + " for " + atJoin[2] + " delivered (each order numbers one request or more)");
        final GroupCounters counters = leader.engine.counters();
        assertEquals(0, atAdmission[0], "orders multicast before the joiner was in the view");
        assertEquals(atAdmission[1], counters.ordersUnsentAlone(), "orders left unsent once the joiner was in the view");
        assertTrue(counters.ordersSent() > 0, "the joiner was sent its orders");

        final GroupHarness.Member joiner = h.members.get(2);
        assertTrue(Arrays.stream(leader.engine.currentMembers()).anyMatch(id -> id == 2), "the joiner is in the leader's view");
        final long start = joiner.delivered.firstKey() - 1;
        assertTrue(start >= atJoin[2], "the joiner starts after what the leader delivered when it asked: " + start);
        assertEquals(new TreeMap<>(leader.delivered.tailMap(start, false)), joiner.delivered,
            "the joiner delivers, from its start on, exactly the leader's sequence");
        assertEquals(TOTAL, leader.delivered.size(), "every request delivered once by the leader");
        assertEquals(TOTAL, client.repliesFrom(1), "every call answered by the leader");
    }
}
