package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/**
 * A member taking over while its founding leader, restarted, runs its check, from a review: the
 * takeover must not promise the founding check's epoch and then lead that epoch on the reports it
 * gathered for its own proposal, beside the founding leader (group of five; with a second
 * restart, and without). A member taking over counts as knowing of orders: the founding leader
 * joins its group. On a {@link HandWiredNet}, links that pass only the founding leader's asks.
 */
class TakeoverDuringFoundingCheckTest
{
    static final int[] ALL = {1, 2, 3, 4, 5};

    static boolean isFoundingAsk(final byte[] bytes)
    {
        final ByteBuffer b = ByteBuffer.wrap(bytes).order((bytes[5] & 1) != 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        if (b.getShort(6) != 6)
        {
            return false;
        }
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        return m.status() == MemberChangeFlyweight.STATUS_EPOCH_ASK && m.memberCount() > 2;
    }

    /**
     * Group [1..5]: 1 is heard (its asks are lost, so its check does not pass) and fails; 2 takes
     * over with 5 cut from it; 1 restarts once 2 is taking over, its packets to 2 and 4 all lost
     * but its asks; requests 100/1 (to 1) and 200/1 (to 2) follow.
     */
    private static HandWiredNet lateFounderWhileTwoTakesOver()
    {
        final HandWiredNet net = new HandWiredNet();
        for (final int id : new int[] {2, 3, 4, 5})
        {
            net.passOnly(1, id, bytes -> !isFoundingAsk(bytes));
        }
        for (final int id : ALL)
        {
            net.add(id, new GroupConfig(id, 1, ALL));
        }
        net.runMs(50);
        net.crash(1);
        net.cutBetween(new int[] {2}, new int[] {5});
        while (net.engines.get(2).state() != MemberEngine.State.LEADER_RECOVERING)
        {
            net.runMs(1);
        }
        net.runMs(2);
        net.passOnly(1, 2, TakeoverDuringFoundingCheckTest::isFoundingAsk);
        net.passOnly(1, 3, bytes -> true);
        net.passOnly(1, 4, TakeoverDuringFoundingCheckTest::isFoundingAsk);
        net.passOnly(1, 5, bytes -> true);
        net.restart(1, new GroupConfig(1, 1, ALL));
        net.runMs(5);
        net.request(100, 1, 1);
        net.runMs(10);
        net.runMs(100);
        net.request(200, 1, 2);
        net.runMs(10);
        assertEquals(1, net.engines.get(1).counters().foundingRestartsFound(), "2, taking over, told 1 it knows of orders");
        return net;
    }

    /**
     * Group [1..5]. 1 fails; 2 takes over (epoch 2) with reports from 3 and 4 (5 is cut from 2,
     * so 2 waits for the timeout). 1 restarts: its asks reach everyone (its other packets to 2
     * and 4 are lost). 2, taking over, answers that it knows of orders: 1 rejoins. (When 2
     * told its epoch without a promise, 1 raised to 3, 2 promised 3 to 1's check, 1 ordered
     * 100/1 in epoch 3 and 2, deciding on the epoch-2 reports of 3 and 4, led epoch 3 too and
     * ordered 200/1 at 1, acknowledged by 3 restarted.)
     */
    @Test
    void aTakeoverPromisesTheFoundingCheckAndLeadsTheSameEpoch()
    {
        final HandWiredNet net = lateFounderWhileTwoTakesOver();
        // A second restart: 3 (it took 1's epoch-3 orders) comes back without memory, cut from 1.
        net.cutOneWay(1, 3);
        net.restart(3, new GroupConfig(3, 1, ALL));
        net.runMs(300);
        net.assertOneOrder();
    }

    /** The same without the second restart: 3 -> 1 is cut; 1 removes 3, which rejoins 2's group from its delivered 1. */
    @Test
    void theSameWithoutASecondRestart()
    {
        final HandWiredNet net = lateFounderWhileTwoTakesOver();
        net.cutOneWay(3, 1);
        net.runMs(300);
        net.assertOneOrder();
    }
}
