package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lightwire.transport.engine.Recorder.control;
import static org.lightwire.transport.engine.Recorder.data;
import static org.lightwire.transport.engine.Recorder.pattern;
import static org.lightwire.transport.protocol.MessageType.COMPLETE;
import static org.lightwire.transport.protocol.MessageType.NACK;
import static org.lightwire.transport.protocol.MessageType.RECLAIM_ACK;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/**
 * The reply wait: a client whose replies usually take long asks for one only after that long; a
 * client on a path where replies come within the retransmission timeout asks after that timeout,
 * as before; a call it had to ask for teaches it nothing; waits never pass the timeout's maximum.
 */
class ReplyWaitTest
{
    private static final long MS = ClientEngineTest.MS;

    @Test
    void theFirstAskWaitsForTheUsualReplyTimeAndLaterOnesForAsLongAgain()
    {
        final ReplyWait w = new ReplyWait(400 * MS);
        w.sent(0);
        assertEquals(MS, w.deadlineNs(0, MS), "no sample yet: the retransmission timeout");
        w.replied(30 * MS);
        assertEquals(30 * MS + 4 * 15 * MS, w.usualNs(), "first sample: srtt 30 ms, rttvar half of it");
        w.sent(100 * MS);
        assertEquals(100 * MS + 90 * MS, w.deadlineNs(100 * MS, MS));
        w.asked();
        assertEquals(190 * MS + 90 * MS, w.deadlineNs(190 * MS, 2 * MS), "after an ask: at least as long again as it waited");
        assertEquals(400 * MS + 300 * MS, w.deadlineNs(400 * MS, 2 * MS), "as long again: 300 ms");
        assertEquals(1_000 * MS + 400 * MS, w.deadlineNs(1_000 * MS, 2 * MS), "never past the maximum");
        w.replied(1_010 * MS);
        assertEquals(90 * MS, w.usualNs(), "a call it asked for is no sample (Karn)");
        w.sent(2_000 * MS);
        w.asked();
        w.stillExecuting();
        w.replied(2_030 * MS);
        assertEquals(30 * MS + 4 * (15 * MS * 3 / 4), w.usualNs(), "asked, then told it still executes: a sample again");
    }

    /** What a reader that does not yet know of a call may count on: a call started now is asked for no sooner than this. */
    @Test
    void theLeadOfACallStartedNowIsItsFirstDeadlineLessNow()
    {
        final ReplyWait w = new ReplyWait(400 * MS);
        assertEquals(MS, w.leadNs(MS), "no sample yet: the retransmission timeout");
        w.sent(0);
        w.replied(30 * MS);
        w.sent(500 * MS);
        assertEquals(w.deadlineNs(500 * MS, MS) - 500 * MS, w.leadNs(MS), "90 ms: the usual reply time");
        assertEquals(120 * MS, w.leadNs(120 * MS), "a longer retransmission timeout wins");
        w.sent(600 * MS);
        w.replied(600 * MS + 2_000 * MS);
        w.sent(3_000 * MS);
        assertEquals(400 * MS, w.leadNs(MS), "never past the maximum");
        assertEquals(w.deadlineNs(3_000 * MS, MS) - 3_000 * MS, w.leadNs(MS));
    }

    @Test
    void repliesWithinTheTimeoutChangeNothing()
    {
        final ReplyWait w = new ReplyWait(400 * MS);
        for (int i = 0; i < 20; i++)
        {
            w.sent(i * MS);
            w.replied(i * MS + MS / 10);
        }
        w.sent(100 * MS);
        assertEquals(101 * MS, w.deadlineNs(100 * MS, MS));
    }

    /**
     * Replies that take 30 ms (a loaded server): with the timeout at its 1 ms floor the client
     * asked at 1, 3, 7 and 15 ms of every call (four NACKs before a reply at 30 ms), each answered
     * "still executing"; once it has seen such replies, it asks none.
     */
    @Test
    void aClientWhoseRepliesTakeThirtyMillisecondsStopsAskingForThem()
    {
        final Recorder rec = new Recorder();
        final ClientEngine engine = new ClientEngine(EngineConfig.builder().retransmitMinNs(MS).retransmitMaxNs(400 * MS)
            .retransmitInitialNs(MS).peerTimeoutNs(1_000 * MS).rttProbeIntervalNs(0).build(), rec, rec, rec);
        long now = 1_000 * MS;
        int firstCallNacks = -1;
        int lastCallNacks = -1;
        for (int call = 1; call <= 20; call++)
        {
            engine.send(ByteBuffer.wrap(pattern(10, 7)), true, true, now);
            final long replyAt = now + 30 * MS;
            while (engine.nextDeadlineNs() - replyAt < 0)
            {
                now = engine.nextDeadlineNs();
                engine.onTimer(now);
                // The server answers each NACK: still executing (RECLAIM_ACK for the whole request).
                engine.onPacket(control(RECLAIM_ACK, call, 1), now);
            }
            now = replyAt;
            engine.onPacket(data(COMPLETE, true, call, 0, false, pattern(4, 2)), now);
            final int nacks = (int)rec.take().stream().filter(s -> s.type() == NACK).count();
            firstCallNacks = call == 1 ? nacks : firstCallNacks;
            lastCallNacks = nacks;
            now += MS;
        }
        assertEquals(4, firstCallNacks);
        assertEquals(0, lastCallNacks);
    }
}
