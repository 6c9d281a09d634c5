package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Tier 1: a Cancel at the leader and at a member, alone; a hand-advanced clock. */
class CancelTrackerTest
{
    private static final long MS = 1_000_000L;
    private static final int CLIENT = 100;

    private final GroupConfig config = new GroupConfig(2, 1, 1, 2, 3).cancelHoldNs(100 * MS);
    private final GroupCounters counters = new GroupCounters();
    private final List<Long> delivered = new ArrayList<>();
    private final OrderedDelivery delivery = new OrderedDelivery(new Outbox(config, new SentPackets()),
        (orderSeq, held) -> delivered.add(held.key));
    private final DuplicateFilter finished = new DuplicateFilter(16, 16, counters);
    private final List<Long> unqueued = new ArrayList<>();
    private final Set<Long> orderedUndelivered = new HashSet<>();
    private boolean ordering;
    private final CancelTracker cancels = new CancelTracker(config, counters, delivery, finished, new CancelTracker.Orders()
    {
        @Override
        public boolean ordering()
        {
            return ordering;
        }

        @Override
        public boolean isOrderedUndelivered(final long key)
        {
            return orderedUndelivered.contains(key);
        }

        @Override
        public void unqueue(final long key)
        {
            unqueued.add(key);
        }
    });

    private static long key(final int packetId)
    {
        return HeldRequest.key(CLIENT, packetId);
    }

    private void hold(final int packetId)
    {
        delivery.hold(new HeldRequest(key(packetId), packetId, 1, 0, new byte[] {1}));
    }

    @Test
    void theLeaderDropsARequestItHasNotOrderedForGood()
    {
        ordering = true;
        hold(10);
        cancels.onCancel(CLIENT, 10, 0);
        assertEquals(List.of(key(10)), unqueued);
        assertFalse(delivery.isHeld(key(10)));
        assertTrue(finished.isFinished(CLIENT, 10), "a late copy is a duplicate");
        assertEquals(1, counters.requestsCancelled());
        assertEquals(Deadlines.NONE, cancels.nextDeadlineNs(), "the leader decides at once");
    }

    @Test
    void aMemberKeepsACancelledRequestForTheHoldThenDropsIt()
    {
        hold(10);
        cancels.onCancel(CLIENT, 10, 5 * MS);
        assertTrue(delivery.isHeld(key(10)), "the leader may have ordered it first");
        assertTrue(cancels.isCancelled(key(10)));
        assertEquals(105 * MS, cancels.nextDeadlineNs());
        cancels.onTimer(105 * MS - 1);
        assertTrue(delivery.isHeld(key(10)));
        cancels.onTimer(105 * MS);
        assertFalse(delivery.isHeld(key(10)));
        assertTrue(finished.isFinished(CLIENT, 10));
        assertEquals(1, counters.requestsCancelled());
        assertEquals(Deadlines.NONE, cancels.nextDeadlineNs());
    }

    @Test
    void aRequestAnOrderNamedMeanwhileIsKeptAndItsDeliveryIsATooLateCancel()
    {
        hold(10);
        hold(11);
        cancels.onCancel(CLIENT, 10, 0);
        cancels.onCancel(CLIENT, 11, 1 * MS);
        orderedUndelivered.add(key(10));
        cancels.onTimer(101 * MS);
        assertTrue(delivery.isHeld(key(10)), "ordered before the hold ended: it is delivered");
        assertFalse(delivery.isHeld(key(11)));
        assertEquals(1, counters.requestsCancelled());

        hold(12);
        cancels.onCancel(CLIENT, 12, 2 * MS);
        delivery.order(1, key(12));
        delivery.deliverReady(Long.MAX_VALUE);
        cancels.onDelivered(key(12));
        assertEquals(1, counters.cancelsTooLate());
        assertFalse(cancels.isCancelled(key(12)));
        cancels.onDelivered(key(13));
        assertEquals(1, counters.cancelsTooLate(), "a delivery of a request not cancelled counts nothing");
    }

    @Test
    void aCancelOfAnOrderedHeldRequestIsNotTracked()
    {
        hold(10);
        orderedUndelivered.add(key(10));
        cancels.onCancel(CLIENT, 10, 0);
        assertFalse(cancels.isCancelled(key(10)));
        assertEquals(Deadlines.NONE, cancels.nextDeadlineNs());
        assertEquals(0, counters.requestsCancelled());
    }

    @Test
    void aCancelBeforeTheRequestArrivesFinishesItAndOneAfterDeliveryIsTooLate()
    {
        cancels.onCancel(CLIENT, 10, 0);
        assertTrue(finished.isFinished(CLIENT, 10));
        assertEquals(1, counters.requestsCancelled());
        cancels.onCancel(CLIENT, 10, 0);
        assertEquals(1, counters.requestsCancelled(), "finished already: nothing more");

        hold(11);
        delivery.order(1, key(11));
        delivery.deliverReady(Long.MAX_VALUE);
        cancels.onCancel(CLIENT, 11, 0);
        assertEquals(1, counters.cancelsTooLate());
        hold(12);
        cancels.onCancel(CLIENT, 12, 0);
        cancels.onCancel(CLIENT, 12, 1 * MS);
        assertEquals(1, counters.cancelsTooLate(), "a repeated Cancel of a request kept is no news");
        assertEquals(100 * MS, cancels.nextDeadlineNs(), "from the first Cancel");
    }

    @Test
    void aNewLeaderKeepsWhatItReordersAndDropsTheRestOfTheCancelled()
    {
        hold(10);
        hold(11);
        hold(12);
        cancels.onCancel(CLIENT, 10, 0);
        cancels.onCancel(CLIENT, 11, 0);
        cancels.onCancel(CLIENT, 12, 0);
        cancels.keep(key(11));
        assertEquals(List.of(key(10), key(12)), List.copyOf(cancels.cancelled()));
        cancels.dropAll();
        assertEquals(List.of(key(11)), List.copyOf(delivery.heldByKey().keySet()));
        assertEquals(2, counters.requestsCancelled());
        assertEquals(Deadlines.NONE, cancels.nextDeadlineNs());
        cancels.onCancel(CLIENT, 13, 0);
        hold(14);
        cancels.onCancel(CLIENT, 14, 0);
        cancels.clear();
        assertFalse(cancels.isCancelled(key(14)));
    }
}
