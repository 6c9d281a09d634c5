package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lightwire.transport.engine.Recorder.control;
import static org.lightwire.transport.engine.Recorder.pattern;
import static org.lightwire.transport.protocol.MessageType.NACK;
import static org.lightwire.transport.protocol.MessageType.RECLAIM_ACK;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * A RECLAIM_ACK is matched to the outstanding RECLAIM by its call alone: a network duplicate of
 * the answer to an earlier RECLAIM of the same large request, arriving just after the next
 * RECLAIM, is a sample of microseconds. Only a probe's sample (matched by its marker) may start
 * the estimate afresh (found by a review: with every sample allowed to, this one dropped the RTO
 * from 60 ms to its 1 ms floor on a 20 ms path, and the wait for the reply drew four spurious
 * NACKs, each of which makes a server holding a reply resend all of it).
 */
class DuplicateReclaimAckRtoTest
{
    private static final long MS = 1_000_000L;
    private final Recorder rec = new Recorder();
    private final ClientEngine engine = new ClientEngine(ClientEngineTest.CONFIG.toBuilder().retransmitMaxNs(400 * MS).build(), rec, rec, rec);

    @Test
    void aDuplicatedEarlierReclaimAckDoesNotStartTheEstimateAfresh()
    {
        long now = 1_000 * MS;
        // Packets 0..7 fill the pool; the RECLAIM is answered after the path's 20 ms: a sample.
        engine.send(ByteBuffer.wrap(pattern(800, 1)), false, true, now);
        engine.reclaim(now);
        now += 20 * MS;
        engine.onPacket(control(RECLAIM_ACK, 1, 8), now);
        assertEquals(List.of(20 * MS, 60 * MS), List.of(engine.counters().srttNs(), engine.counters().rtoNs()));
        // Packets 8..15, a second RECLAIM, and 5 us later the network's duplicate of the first answer.
        engine.send(ByteBuffer.wrap(pattern(800, 2)), false, true, now);
        engine.reclaim(now);
        engine.onPacket(control(RECLAIM_ACK, 1, 8), now + 5_000);
        // RFC 6298 alone: srtt = 7/8 20 ms + 1/8 5 us, rttvar = 3/4 10 ms + 1/4 (20 ms - 5 us), rto = srtt + 4 rttvar.
        assertEquals(List.of(17_500_625L, 17_500_625L + 4 * 12_498_750L), List.of(engine.counters().srttNs(), engine.counters().rtoNs()));
        now += 20 * MS;
        engine.onPacket(control(RECLAIM_ACK, 1, 16), now);
        engine.send(ByteBuffer.wrap(pattern(10, 3)), true, true, now);
        rec.take();
        // The reply takes the path's 20 ms: no timeout fires before it.
        final long replyAt = now + 20 * MS;
        int nacks = 0;
        while (engine.nextDeadlineNs() - replyAt < 0)
        {
            now = engine.nextDeadlineNs();
            engine.onTimer(now);
            nacks += (int)rec.take().stream().filter(s -> s.type() == NACK).count();
        }
        assertEquals(0, nacks, "RTO " + engine.counters().rtoNs() + " ns on a 20 ms path");
    }
}
