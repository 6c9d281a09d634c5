package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * A founding leader orders in the epoch after the founding one, which every other member promised
 * to its check (that check's nonce): a MsgOrder of an earlier incarnation of the leader's id,
 * delayed past that incarnation's restart, can never pass for the new incarnation's. On
 * {@link HandWiredNet}: real engines, a hand-wired network, one clock.
 */
class FoundingEpochTest
{
    /**
     * Group [1, 2, 3]. Leader 1's check passes (2 and 3 promise it epoch 2); it orders request
     * 300/1 (only it heard it) at 1, and that MsgOrder is delayed on the network. 1 restarts with
     * the founding configuration: its new check hears 2 and 3 name the epoch promised to its
     * earlier check, and it rejoins instead of ordering. The delayed MsgOrder then reaches 2 with
     * 300/1: a leader of epoch 2 did order it, and the group keeps it at 1. (When the promise was
     * not bound to its check, the new incarnation ordered 200/1 at 1 in epoch 2 too, and 2 and 3
     * delivered different requests there.)
     */
    @Test
    void aRestartedFoundingLeaderNeverOrdersInTheEpochPromisedToItsEarlierIncarnation()
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2, 3);
        assertEquals(OneEngine.ORDERING_EPOCH, net.engines.get(1).epoch(), "the check passed: " + net.engines.get(1).deliverySummary());

        // The earlier incarnation's order, never delivered by the network until later.
        final ByteBuffer delayedRequest = WirePackets.request(300, 1);
        final ByteBuffer delayedOrder = WirePackets.order(1, 5000, OneEngine.ORDERING_EPOCH, 1, 300, 1, 0);
        net.engines.remove(1);
        net.add(1, new GroupConfig(1, 1, 1, 2, 3));
        net.runMs(25);
        final MemberEngine restarted = net.engines.get(1);
        assertEquals(1, restarted.counters().foundingRestartsFound(), restarted.deliverySummary());
        assertNotEquals(MemberEngine.State.LEADER_IDLE, restarted.state());

        net.inject(2, delayedRequest);
        net.inject(2, delayedOrder);
        net.request(200, 1, 1, 2, 3);
        net.runMs(3000);
        for (final int id : new int[] {2, 3})
        {
            assertEquals("300/1", net.delivered.get(id).get(1L), id + ": " + net.delivered);
            assertEquals("200/1", net.delivered.get(id).get(2L), id + ": " + net.delivered);
        }
        final String first = net.delivered.get(1).get(1L);
        assertTrue(first == null || first.equals("300/1"), "1: " + net.delivered);
        assertEquals(0, restarted.counters().ordersSent(), "the restarted 1 ordered nothing");
    }
}
