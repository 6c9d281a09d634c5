package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Tier 1: the sequencer's per-client FIFO alone, a hand-advanced clock, a recording queue. */
class ClientFifoTest
{
    private static final long MS = 1_000_000L;
    private static final int CLIENT = 100;
    private static final int OTHER = 200;

    private final List<Long> ordered = new ArrayList<>();
    /** Requests still held; a key removed here was cancelled while it waited. */
    private final Set<Long> held = new HashSet<>();
    private final GroupCounters counters = new GroupCounters();

    private ClientFifo fifo(final GroupConfig config)
    {
        return new ClientFifo(config, counters, new ClientFifo.Orderer()
        {
            @Override
            public void orderSoon(final long key, final long nowNs)
            {
                ordered.add(key);
            }

            @Override
            public boolean isHeld(final long key)
            {
                return held.contains(key);
            }
        });
    }

    private static GroupConfig config()
    {
        return new GroupConfig(1, 1, 1).fifoWaitNs(50 * MS);
    }

    private long arrive(final ClientFifo fifo, final int clientId, final int packetId, final int clientSeq, final long nowNs)
    {
        final long key = HeldRequest.key(clientId, packetId);
        held.add(key);
        fifo.admit(key, clientSeq, nowNs);
        return key;
    }

    @Test
    void aRequestThatOvertookAnEarlierOneWaitsForItAndBothGoInTheClientsOrder()
    {
        final ClientFifo fifo = fifo(config());
        final long second = arrive(fifo, CLIENT, 11, 2, 0);
        assertEquals(List.of(), ordered);
        assertEquals(1, fifo.held());
        assertEquals(50 * MS, fifo.nextDeadlineNs());
        final long first = arrive(fifo, CLIENT, 10, 1, 1 * MS);
        assertEquals(List.of(first, second), ordered);
        assertEquals(0, fifo.held());
        assertEquals(Deadlines.NONE, fifo.nextDeadlineNs(), "the gap closed: no deadline left");
        assertEquals(1, counters.requestsHeldForFifo());
    }

    @Test
    void aGapIsGivenUpOnAfterTheWaitFromTheNearestNumberAndALateRequestGoesAtOnce()
    {
        final ClientFifo fifo = fifo(config());
        arrive(fifo, CLIENT, 10, 1, 0);
        final long fifth = arrive(fifo, CLIENT, 14, 5, 2 * MS);
        final long fourth = arrive(fifo, CLIENT, 13, 4, 3 * MS);
        assertEquals(1, ordered.size());
        assertEquals(52 * MS, fifo.nextDeadlineNs(), "from the first request that waits");
        fifo.onTimer(52 * MS - 1);
        assertEquals(1, ordered.size());
        fifo.onTimer(52 * MS);
        assertEquals(List.of(HeldRequest.key(CLIENT, 10), fourth, fifth), ordered, "from number 4 on, 2 and 3 given up");
        assertEquals(1, counters.fifoGapsSkipped());
        assertEquals(Deadlines.NONE, fifo.nextDeadlineNs());

        final long third = arrive(fifo, CLIENT, 12, 3, 60 * MS);
        assertEquals(third, ordered.get(3), "behind the next number: ordered at once");
        assertEquals(1, counters.fifoLateRequests());
        final long sixth = arrive(fifo, CLIENT, 15, 6, 61 * MS);
        assertEquals(sixth, ordered.get(4), "the numbering goes on from 6");
    }

    @Test
    void aCancelledRequestTakesItsNumbersTurnAndWhatWasCancelledWhileWaitingIsNotOrdered()
    {
        final ClientFifo fifo = fifo(config());
        final long third = arrive(fifo, CLIENT, 12, 3, 0);
        final long second = arrive(fifo, CLIENT, 11, 2, 0);
        held.remove(second);
        // Number 1 was cancelled before it reached the sequencer: its duplicate passes it over.
        fifo.passOver(CLIENT, 1, HeldRequest.key(CLIENT, 10), 1 * MS);
        assertEquals(List.of(third), ordered, "2 was cancelled while it waited: skipped, not ordered");
        assertEquals(0, fifo.held());

        // A number passed over before its turn comes is skipped when it does.
        fifo.passOver(CLIENT, 5, HeldRequest.key(CLIENT, 14), 2 * MS);
        assertEquals(1, fifo.held(), "the passed-over number waits in its place");
        final long sixth = arrive(fifo, CLIENT, 15, 6, 3 * MS);
        assertEquals(1, ordered.size());
        final long fourth = arrive(fifo, CLIENT, 13, 4, 4 * MS);
        assertEquals(List.of(third, fourth, sixth), ordered);
        assertEquals(0, counters.fifoGapsSkipped());
    }

    @Test
    void numbersWrapPastZeroWhichNumberingSkips()
    {
        assertEquals(1, ClientFifo.nextClientSeq(0xFF_FFFF));
        assertEquals(1, ClientFifo.clientSeqDistance(1, 0xFF_FFFF));
        assertEquals(3, ClientFifo.clientSeqDistance(2, 0xFF_FFFE), "0xFFFFFF, 1, 2: 0 is skipped");
        assertEquals(0xFF_FFFF - 1, ClientFifo.clientSeqDistance(0xFF_FFFF, 1));

        final ClientFifo fifo = fifo(config());
        fifo.reset();
        final long last = arrive(fifo, CLIENT, 10, 0xFF_FFFF, 0);
        final long afterWrap = arrive(fifo, CLIENT, 12, 2, 0);
        final long wrapped = arrive(fifo, CLIENT, 11, 1, 0);
        assertEquals(List.of(last, wrapped, afterWrap), ordered);
    }

    @Test
    void unnumberedRequestsAndAZeroWaitAreOrderedAsTheyCome()
    {
        final ClientFifo fifo = fifo(config());
        final long unnumbered = arrive(fifo, CLIENT, 10, 0, 0);
        assertEquals(List.of(unnumbered), ordered);
        assertFalse(fifo.knows(CLIENT), "an unnumbered request starts no numbering");

        ordered.clear();
        final ClientFifo off = fifo(config().fifoWaitNs(0));
        final long second = arrive(off, CLIENT, 11, 2, 0);
        final long first = arrive(off, CLIENT, 10, 1, 0);
        assertEquals(List.of(second, first), ordered);
        assertEquals(0, counters.requestsHeldForFifo());
    }

    @Test
    void aSequencerThatTookOverStartsEachClientAtTheFirstNumberItSees()
    {
        final ClientFifo fromStart = fifo(config());
        arrive(fromStart, CLIENT, 17, 7, 0);
        assertEquals(List.of(), ordered, "since the group began, a client starts at 1");

        final ClientFifo tookOver = fifo(config());
        tookOver.reset();
        final long seventh = arrive(tookOver, CLIENT, 17, 7, 0);
        final long eighth = arrive(tookOver, CLIENT, 18, 8, 0);
        assertEquals(List.of(seventh, eighth), ordered);
        assertTrue(tookOver.knows(CLIENT));
    }

    @Test
    void aClientForgottenBeyondMaxClientsHasItsWaitingRequestsOrderedAndComesBackAtAnyNumber()
    {
        final ClientFifo fifo = fifo(config().maxClients(1));
        final long waiting = arrive(fifo, CLIENT, 12, 3, 0);
        assertEquals(1, fifo.held());
        final long other = arrive(fifo, OTHER, 10, 1, 1 * MS);
        assertEquals(List.of(waiting, other), ordered, "the eldest client is forgotten: its gap given up on");
        assertEquals(1, counters.fifoGapsSkipped());
        assertFalse(fifo.knows(CLIENT));
        final long back = arrive(fifo, CLIENT, 20, 9, 2 * MS);
        assertEquals(back, ordered.get(2), "once a client was forgotten, any client starts where it is seen");
    }

    @Test
    void theDeadlineIsTheEarliestGapOverAllClients()
    {
        final ClientFifo fifo = fifo(config());
        arrive(fifo, CLIENT, 12, 3, 5 * MS);
        arrive(fifo, OTHER, 12, 3, 2 * MS);
        assertEquals(52 * MS, fifo.nextDeadlineNs());
        fifo.onTimer(52 * MS);
        assertEquals(1, ordered.size());
        assertEquals(55 * MS, fifo.nextDeadlineNs());
        assertEquals(1, fifo.held());
    }
}
