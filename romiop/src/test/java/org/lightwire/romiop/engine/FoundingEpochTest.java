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

    /**
     * Group [1, 2, 3]; 3 starts 500 ms late, five KeepAlive timeouts. Member 2 promised epoch 2 to
     * its founding leader's check and takes no order of epoch 1 since, but the still-checking
     * leader's epoch-1 KeepAlives keep it following: it never takes over meanwhile, and once 3 has
     * answered, the group orders.
     */
    @Test
    void aMemberThatPromisedFollowsItsFoundingLeaderWhileItsCheckWaits()
    {
        final HandWiredNet net = new HandWiredNet();
        net.add(1, new GroupConfig(1, 1, 1, 2, 3));
        net.add(2, new GroupConfig(2, 1, 1, 2, 3));
        net.runMs(500);
        final MemberEngine two = net.engines.get(2);
        assertEquals(MemberEngine.State.MEMBER, two.state(), two.deliverySummary());
        assertEquals(1, two.leaderId());
        assertEquals(0, two.counters().recoveries());
        assertEquals(true, net.engines.get(1).foundingCheckPending());
        net.add(3, new GroupConfig(3, 1, 1, 2, 3));
        net.runMs(25);
        net.request(100, 1, 1, 2, 3);
        net.runMs(10);
        for (final int id : new int[] {1, 2, 3})
        {
            assertEquals("100/1", net.delivered.get(id).get(1L), id + ": " + net.delivered);
        }
    }
}
