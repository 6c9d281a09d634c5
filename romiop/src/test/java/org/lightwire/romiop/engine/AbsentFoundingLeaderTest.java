package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A founding leader that no member ever hears (it never starts, or its packets are lost until it
 * fails): members suspect a leader they never heard only after {@link GroupConfig#foundingWaitNs()}
 * (here 1 s, ten KeepAlive timeouts), then take over as from any failed leader. From a review:
 * members that waited for such a leader for good left a group of five stuck by one fault. (In a
 * group of three or four the takeover cannot finish: every member may be a restarted process.) On a
 * {@link HandWiredNet}; requests 200/1..5 to the others after 3 s.
 */
class AbsentFoundingLeaderTest
{
    private static void callAndAssertDelivered(final HandWiredNet net, final int... ids)
    {
        for (int k = 1; k <= 5; k++)
        {
            net.request(200, k, ids);
            net.runMs(100);
        }
        net.runMs(500);
        net.assertOneOrder();
        for (final int id : ids)
        {
            assertTrue(net.delivered.get(id).values().stream().anyMatch(v -> v.startsWith("200/")),
                id + " never delivered: " + net.engines.get(id).state() + " leader " + net.engines.get(id).leaderId() + ", " +
                    net.engines.get(id).deliverySummary());
        }
    }

    /** [1..5], 1 never starts: one fault of five. */
    @Test
    void aGroupOfFiveWhoseFoundingLeaderNeverStartsTakesOver()
    {
        final int[] all = {1, 2, 3, 4, 5};
        final HandWiredNet net = new HandWiredNet();
        for (final int id : new int[] {2, 3, 4, 5})
        {
            net.add(id, new GroupConfig(id, 1, all));
        }
        net.runMs(3000);
        callAndAssertDelivered(net, 2, 3, 4, 5);
    }

    /** [1..5]: 1 starts with every packet of its lost, and fails at 50 ms; the links heal. */
    @Test
    void aFoundingLeaderNeverHeardThatFailsIsTakenOverFrom()
    {
        final int[] all = {1, 2, 3, 4, 5};
        final HandWiredNet net = new HandWiredNet();
        for (final int id : new int[] {2, 3, 4, 5})
        {
            net.cutOneWay(1, id);
        }
        for (final int id : all)
        {
            net.add(id, new GroupConfig(id, 1, all));
        }
        net.runMs(50);
        net.crash(1);
        net.heal();
        net.runMs(3000);
        callAndAssertDelivered(net, 2, 3, 4, 5);
    }
}
