package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A request replayed long after it was executed (a delayed duplicate, or an attacker repeating
 * what it saw), once the duplicate filter's watermark has passed it: no member executes it again.
 * Group [1,2,3] with a duplicate window of 64 ids on a {@link HandWiredNet}; client 100 sends
 * requests 1..300, then requests 1..20 again.
 */
class ReplayedRequestTest
{
    @Test
    void aRequestReplayedBelowTheWatermarkIsNotExecutedAgain()
    {
        final int[] all = {1, 2, 3};
        final HandWiredNet net = new HandWiredNet();
        for (final int id : all)
        {
            net.add(id, new GroupConfig(id, 1, all).duplicateWindow(64));
        }
        net.runMs(25);
        for (int k = 1; k <= 300; k++)
        {
            net.request(100, k, all);
            net.runMs(1);
        }
        net.runMs(200);
        final long[] duplicatesBefore = new long[4];
        for (final int id : all)
        {
            assertEquals(300, net.delivered.get(id).size(), id + ": " + net.engines.get(id).deliverySummary());
            duplicatesBefore[id] = net.engines.get(id).counters().duplicateRequests();
        }
        for (int k = 1; k <= 20; k++)
        {
            net.request(100, k, all);
        }
        net.runMs(500);
        net.assertOneOrder();
        for (final int id : all)
        {
            assertEquals(300, net.delivered.get(id).size(), id + " executed a replayed request again");
            assertEquals(20, net.engines.get(id).counters().duplicateRequests() - duplicatesBefore[id], id + " counted each replay");
        }
    }
}
