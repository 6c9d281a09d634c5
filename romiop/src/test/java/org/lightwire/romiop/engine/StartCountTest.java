package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Processes that know their start count ({@link GroupConfig#startCount}, kept on disk with
 * {@code jacorb.lightwire.romiop.start_count_dir}): a first start forgot nothing, so it counts
 * toward a takeover's majority even with nothing accepted. The groups below wait for good when
 * their processes cannot tell a first start from a restart (docs/romiop.md, "Restarted
 * processes"); counting starts, each orders. On a {@link HandWiredNet}; requests 200/k after the
 * faults.
 */
class StartCountTest
{
    private static void assertDelivered(final HandWiredNet net, final int... ids)
    {
        net.assertOneOrder();
        for (final int id : ids)
        {
            assertEquals("200/1", net.delivered.get(id).get(1L), id + ": " + net.engines.get(id).state() + ", " +
                net.engines.get(id).deliverySummary());
        }
    }

    /** [1,2,3]: the founding leader's check passed, and it fails before any order; 2 and 3 take over. */
    @Test
    void aGroupOfThreeWhoseFoundingLeaderFailsBeforeAnyOrderTakesOver()
    {
        final HandWiredNet net = new HandWiredNet().countingStarts().founded(1, 2, 3);
        net.runMs(30);
        net.crash(1);
        net.runMs(1500);
        net.request(200, 1, 2, 3);
        net.runMs(100);
        assertDelivered(net, 2, 3);
    }

    /** The same, the founding leader restarted (its second start) within the KeepAlive timeout: it rejoins, and all three order. */
    @Test
    void aFoundingLeaderRestartedBeforeAnyOrderRejoins()
    {
        final HandWiredNet net = new HandWiredNet().countingStarts().founded(1, 2, 3);
        net.runMs(30);
        net.restart(1, new GroupConfig(1, 1, 1, 2, 3));
        assertEquals(2, net.engines.get(1).startCount());
        net.runMs(1500);
        net.request(200, 1, 1, 2, 3);
        net.runMs(100);
        assertDelivered(net, 1, 2, 3);
    }

    /**
     * [1..5]: the founding leader fails during its check, 2 and 3 having promised it, 4 and 5 not
     * (they start after it failed). Knowing they are first starts, 4's and 5's reports count.
     */
    @Test
    void aGroupWhoseFoundingLeaderFailsDuringItsCheckTakesOver()
    {
        assertDelivered(new HandWiredNet().countingStarts().foundingLeaderFailedDuringItsCheck(), 2, 3, 4, 5);
    }

    /**
     * [1,2,3]: the answers to the founding leader's check are lost, then it is cut off from both
     * others; 2 takes over with 3. Healed, 1's check hears of 2's group: 1, a first start, rejoins
     * it as any member would, and all three order.
     */
    @Test
    void aFoundingLeaderCutOffDuringItsCheckJoinsTheGroupTheOthersFormed()
    {
        final HandWiredNet net = new HandWiredNet().countingStarts();
        net.cutOneWay(2, 1);
        net.cutOneWay(3, 1);
        for (final int id : new int[] {1, 2, 3})
        {
            net.add(id, new GroupConfig(id, 1, 1, 2, 3));
        }
        net.runMs(20);
        net.cutBetween(new int[] {1}, new int[] {2, 3});
        net.runMs(1000);
        net.heal();
        net.runMs(1500);
        net.request(200, 1, 1, 2, 3);
        net.runMs(200);
        assertDelivered(net, 1, 2, 3);
    }
}
