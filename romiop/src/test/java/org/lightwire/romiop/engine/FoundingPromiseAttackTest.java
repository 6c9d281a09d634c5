package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the founding leader's check and its promise, from a review: a restarted member that
 * answers a duplicate or a later incarnation's ask must stay a possibly restarted process (its
 * promise proves no memory of what its earlier incarnation accepted); and a founding leader
 * restarted before anything was ordered must lead again. On a {@link HandWiredNet}.
 */
class FoundingPromiseAttackTest
{
    /**
     * Group [1, 2, 3]; 1's check passes (epoch 2). 2 hears an epoch-2 KeepAlive, then 1-2 is cut.
     * 1 orders 100/1 and commits it with 3; 1 delivers it. 3 restarts (the one restart allowed).
     * A duplicate of 1's original founding ask (same nonce), delayed on the network, reaches the
     * new 3, which promises. 1 is cut off; 2 (epoch 2, a history) takes over. The new 3 must still
     * rejoin rather than report "nothing accepted" (it did once a promise counted as proof of
     * memory, and {2, 3} ordered 200/1 at 1 beside the committed 100/1).
     */
    @Test
    void aDelayedFoundingAskMakesARestartedMemberReportNothing()
    {
        run(true);
    }

    /** The same without the delayed ask: the new 3 rejoins, 2's takeover never decides; one order. */
    @Test
    void controlWithoutTheDelayedAsk()
    {
        run(false);
    }

    private static void run(final boolean injectAsk)
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2, 3);
        final int nonce = net.engines.get(1).foundingNonce();
        net.runMs(30);
        assertEquals(OneEngine.ORDERING_EPOCH, net.engines.get(1).epoch());
        assertEquals(OneEngine.ORDERING_EPOCH, net.engines.get(2).epoch(), net.engines.get(2).deliverySummary());
        net.cutBetween(new int[] {1}, new int[] {2});
        net.request(100, 1, 1, 3);
        net.runMs(5);
        assertEquals("100/1", net.delivered.get(1).get(1L), net.engines.get(1).deliverySummary());
        net.cutBetween(new int[] {1}, new int[] {3});
        net.restart(3, new GroupConfig(3, 1, 1, 2, 3));
        if (injectAsk)
        {
            net.inject(3, WirePackets.foundingAsk(1, 7, nonce, 1, 2, 3));
        }
        net.runMs(1000);
        net.request(200, 1, 2, 3);
        net.runMs(100);
        net.assertOneOrder();
    }

    /**
     * Group [1..5]; 1 commits 100/1 with {1, 3, 4} in epoch 2 while 2 and 5 are cut from it (they
     * heard its epoch-2 KeepAlive). 4 is then cut off (alive, holding 100/1); 3 and 1 restart (two
     * of five). The new 1's check asks the new 3, which promises it (then 2 and 5, who know of
     * orders, send 1 to rejoin). Having promised, the new 3 must still rejoin on 2's takeover (2 is
     * in epoch 2, a history) rather than report "nothing accepted" (it did once a promise counted as
     * proof of memory, and {2, 3, 5} ordered 200/1 at 1 beside the committed 100/1).
     */
    @Test
    void aLaterIncarnationsCheckLaundersARestartedMember()
    {
        five(false);
    }

    /** The same with the new 1's asks cut from the new 3, which then rejoins on 2's takeover; one order. */
    @Test
    void controlFiveWithoutTheAsk()
    {
        five(true);
    }

    private static void five(final boolean cutAsk)
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2, 3, 4, 5);
        net.runMs(30);
        net.cutBetween(new int[] {1}, new int[] {2, 5});
        net.request(100, 1, 1, 3, 4);
        net.runMs(5);
        assertEquals("100/1", net.delivered.get(4).get(1L), net.engines.get(4).deliverySummary());
        net.heal();
        net.cutBetween(new int[] {4}, new int[] {1, 2, 3, 5});
        net.crash(3);
        net.crash(1);
        net.delivered.put(1, new TreeMap<>());
        net.delivered.put(3, new TreeMap<>());
        net.add(3, new GroupConfig(3, 1, 1, 2, 3, 4, 5));
        if (cutAsk)
        {
            net.cutOneWay(1, 3);
        }
        net.add(1, new GroupConfig(1, 1, 1, 2, 3, 4, 5));
        net.runMs(1000);
        net.request(200, 1, 1, 2, 3, 5);
        net.runMs(200);
        net.assertOneOrder();
    }

    /**
     * Liveness: a group of two whose founding leader restarts before anything was ordered. Member 2
     * promised epoch 2 to the earlier check and knows of no order: the new check proposes epoch 3
     * and the group orders. (It stayed stuck while such an answer sent the new leader to rejoin.)
     */
    @Test
    void groupOfTwoLeaderRestartBeforeAnyOrder()
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2);
        net.runMs(30);
        net.crash(1);
        net.add(1, new GroupConfig(1, 1, 1, 2));
        net.runMs(3000);
        net.request(200, 1, 1, 2);
        net.runMs(3000);
        assertEquals("200/1", net.delivered.get(2).get(1L));
    }

    /** Liveness: as above in a group of three, with member 3 down 50 ms after the restart. */
    @Test
    void groupOfThreeLeaderRestartThenOneDown()
    {
        final HandWiredNet net = new HandWiredNet().founded(1, 2, 3);
        net.runMs(30);
        net.crash(1);
        net.add(1, new GroupConfig(1, 1, 1, 2, 3));
        net.runMs(50);
        net.crash(3);
        net.runMs(3000);
        net.request(200, 1, 1, 2);
        net.runMs(3000);
        assertEquals("200/1", net.delivered.get(2).get(1L));
    }
}
