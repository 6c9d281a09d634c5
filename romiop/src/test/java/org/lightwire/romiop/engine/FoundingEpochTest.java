package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * A founding leader orders in an epoch every other member promised to its check (that check's
 * nonce), past any epoch promised to an earlier check: a MsgOrder of an earlier incarnation of the
 * leader's id, delayed past that incarnation's restart, can never pass for the new one's. On
 * {@link HandWiredNet}: real engines, a hand-wired network, one clock.
 */
class FoundingEpochTest
{
    /**
     * Group [1, 2, 3]. Leader 1's check passes (2 and 3 promise it epoch 2); it orders request
     * 300/1 (only it heard it) at 1, and that MsgOrder is held by the network. 1 restarts with the
     * founding configuration: its new check hears 2 and 3 name the epoch they promised the earlier
     * check, knowing of no order, so it proposes epoch 3 and orders there. The delayed MsgOrder of
     * epoch 2 then reaches 2: stale, never delivered; 200/1 is order 1 everywhere. (When the
     * promise was not bound to its check's nonce, the new incarnation ordered 200/1 at 1 in epoch
     * 2 too, and the delayed 300/1 was delivered at 1 beside it.)
     */
    @Test
    void aRestartedFoundingLeaderNeverOrdersInTheEpochPromisedToItsEarlierIncarnation()
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2, 3);
        assertEquals(OneEngine.ORDERING_EPOCH, net.engines.get(1).epoch(), "the check passed: " + net.engines.get(1).deliverySummary());

        // The earlier incarnation's order, never delivered by the network until later.
        final ByteBuffer delayedRequest = WirePackets.request(300, 1);
        final ByteBuffer delayedOrder = WirePackets.order(1, 5000, OneEngine.ORDERING_EPOCH, 1, 300, 1, 0);
        net.crash(1);
        net.add(1, new GroupConfig(1, 1, 1, 2, 3));
        net.runMs(25);
        final MemberEngine restarted = net.engines.get(1);
        assertEquals(1, restarted.counters().foundingProposalsRaised(), restarted.deliverySummary());
        assertEquals(OneEngine.ORDERING_EPOCH + 1, restarted.epoch());
        assertEquals(0, restarted.counters().foundingRestartsFound());

        net.inject(2, delayedRequest);
        net.inject(2, delayedOrder);
        assertEquals(1, net.engines.get(2).counters().staleEpochPackets(), net.engines.get(2).deliverySummary());
        net.request(200, 1, 1, 2, 3);
        net.runMs(100);
        for (final int id : new int[] {1, 2, 3})
        {
            assertEquals("200/1", net.delivered.get(id).get(1L), id + ": " + net.delivered);
        }
        net.assertOneOrder();
    }
}
