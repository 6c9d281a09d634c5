package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

/**
 * A founding leader that no member ever hears (it never starts, or its packets are lost until it
 * fails): members suspect a leader they never heard only after {@link GroupConfig#foundingWaitNs()}
 * (here 1 s, ten KeepAlive timeouts), then take over as from any failed leader. From a review:
 * members that waited for such a leader for good left a group of five stuck by one fault. On a
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

    /** Starts every member of {@code all} but the first, its founding leader, and runs 3 s. */
    private static HandWiredNet withoutTheFoundingLeader(final HandWiredNet net, final int... all)
    {
        for (final int id : Arrays.copyOfRange(all, 1, all.length))
        {
            net.add(id, new GroupConfig(id, all[0], all));
        }
        net.runMs(3000);
        return net;
    }

    /** [1..5], 1 never starts: one fault of five. */
    @Test
    void aGroupOfFiveWhoseFoundingLeaderNeverStartsTakesOver()
    {
        callAndAssertDelivered(withoutTheFoundingLeader(new HandWiredNet(), 1, 2, 3, 4, 5), 2, 3, 4, 5);
    }

    /**
     * [1,2,3], 1 never starts: 2's takeover finishes only when 2 and 3 know they are first starts
     * (without start counts each may be a restarted process and the group waits).
     */
    @Test
    void aGroupOfThreeWhoseFoundingLeaderNeverStartsTakesOverCountingStarts()
    {
        callAndAssertDelivered(withoutTheFoundingLeader(new HandWiredNet().countingStarts(), 1, 2, 3), 2, 3);
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

    /**
     * [1..5]: 3, 4 and 5 promise 1's check; 1 fails during it; 2, the successor, starts after and
     * never hears 1. 3 takes over once 2 is passed over; 2's report counts for nothing (it did not
     * promise the check, and others did), and 3, which may be a restarted process, does not count
     * itself: only start counts let it (without them the group waits).
     */
    @Test
    void aSuccessorStartedAfterTheFoundingLeaderFailedDuringItsCheckCountingStarts()
    {
        final int[] all = {1, 2, 3, 4, 5};
        final HandWiredNet net = new HandWiredNet().countingStarts();
        for (final int id : new int[] {1, 3, 4, 5})
        {
            net.add(id, new GroupConfig(id, 1, all));
        }
        net.runMs(30);
        net.crash(1);
        net.runMs(10);
        net.add(2, new GroupConfig(2, 1, all));
        net.runMs(3000);
        callAndAssertDelivered(net, 2, 3, 4, 5);
    }
}
