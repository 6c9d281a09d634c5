package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.transport.engine.Recorder.control;
import static org.lightwire.transport.engine.Recorder.data;
import static org.lightwire.transport.engine.Recorder.pattern;
import static org.lightwire.transport.protocol.MessageType.COMPLETE;
import static org.lightwire.transport.protocol.MessageType.NACK;
import static org.lightwire.transport.protocol.MessageType.PARTIAL;
import static org.lightwire.transport.protocol.MessageType.RECLAIM_ACK;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/** The reply wait inside the client engine: exact timer deadlines and packet counts, virtual time only. */
class ReplyWaitEngineTest
{
    static final long MS = 1_000_000L;

    final Recorder rec = new Recorder();
    long now = 1_000 * MS;

    private static ByteBuffer request()
    {
        return ByteBuffer.wrap(pattern(10, 7));
    }

    private long nacks()
    {
        return rec.take().stream().filter(s -> s.type() == NACK).count();
    }

    /**
     * Once the first reply packet has come the server is no longer executing: a lost later
     * packet is a network loss, and the asks for it back off from the RTO, not from the usual
     * reply time nor the time waited since the request.
     */
    @Test
    void askForAMissingReplyPacketBacksOffFromTheRtoNotFromTheCallsWait()
    {
        final ClientEngine engine = new ClientEngine(ClientEngineTest.CONFIG.toBuilder().retransmitInitialNs(200 * MS).build(), rec, rec, rec);
        // Call 1 teaches a usual reply time of 100 ms + 4 x 50 ms = 300 ms (no ask: initial RTO 200 ms).
        engine.send(request(), true, true, now);
        now += 100 * MS;
        engine.onPacket(data(COMPLETE, true, 1, 0, false, pattern(3, 1)), now);
        engine.onRttSample(2 * MS); // a probe's answer: RTO = 2 + 4 x 1 = 6 ms
        // Call 2: the first of its two reply packets comes after 250 ms; the second is lost.
        now += MS;
        final long sent = now;
        engine.send(request(), true, true, now);
        assertEquals(sent + 300 * MS, engine.nextDeadlineNs());
        now = sent + 250 * MS;
        engine.onPacket(data(PARTIAL, true, 2, 0, true, pattern(100, 0)), now);
        assertEquals(now + 6 * MS, engine.nextDeadlineNs(), "the rest of a reply is awaited for an RTO");
        rec.take();
        now = engine.nextDeadlineNs();
        engine.onTimer(now);
        assertEquals(1, nacks());
        // The server has executed the call: the backed-off RTO (12 ms), not the usual reply time
        // (300 ms) nor the time waited.
        assertEquals(now + 12 * MS, engine.nextDeadlineNs(), "second ask for packet 1 of a reply already flowing");
    }

    /**
     * A connection whose replies took 0.5 ms learns a usual reply time below the 1 ms RTO floor;
     * then the server gets loaded and every reply takes 30 ms. Every call asks (at 1, 3, 7, 15
     * ms, each answered "still executing"); were such calls no sample (Karn's rule taken whole),
     * the estimate would never move and every call would ask four times for ever.
     */
    @Test
    void aConnectionWhoseRepliesSlowDownLearnsTheNewReplyTime()
    {
        final ClientEngine engine = new ClientEngine(ClientEngineTest.CONFIG, rec, rec, rec);
        engine.onRttSample(200_000); // a probe's answer: RTO = 1 ms floor
        int call = 0;
        for (int i = 0; i < 20; i++)
        {
            engine.send(request(), true, true, now);
            now += 500_000;
            engine.onPacket(data(COMPLETE, true, ++call, 0, false, pattern(3, 1)), now);
            now += MS;
        }
        rec.take();
        long lastTen = 0;
        for (int i = 0; i < 40; i++)
        {
            engine.send(request(), true, true, now);
            call++;
            final long replyAt = now + 30 * MS;
            long asks = 0;
            while (engine.nextDeadlineNs() - replyAt < 0)
            {
                now = engine.nextDeadlineNs();
                engine.onTimer(now);
                final long n = nacks();
                asks += n;
                if (n > 0)
                {
                    engine.onPacket(control(RECLAIM_ACK, call, 1), now); // "still executing"
                }
            }
            now = replyAt;
            engine.onPacket(data(COMPLETE, true, call, 0, false, pattern(3, 1)), now);
            now += MS;
            if (i >= 30)
            {
                lastTen += asks;
            }
        }
        assertTrue(lastTen <= 10, "NACKs in the last 10 of 40 calls that each take 30 ms: " + lastTen);
    }

    /**
     * EngineConfig: "A silent peer is probed (NACK, RECLAIM, retransmission) at least twice before
     * it is declared dead" (peerTimeoutNs >= 2 x retransmitMaxNs). With a usual reply time at the
     * cap the first ask goes out at retransmitMax, the second would at 2 x retransmitMax, where the
     * zombie check (run first) fires: one probe, so one lost NACK kills a live connection.
     */
    @Test
    void aSilentServerIsAskedAtLeastTwiceBeforeTheConnectionIsGivenUp()
    {
        final EngineConfig config = ClientEngineTest.CONFIG.toBuilder()
            .retransmitMaxNs(100 * MS).retransmitInitialNs(100 * MS).peerTimeoutNs(200 * MS).build();
        final ClientEngine engine = new ClientEngine(config, rec, rec, rec);
        // Call 1: its reply takes 90 ms, within the initial RTO (no ask): usual = 270 ms, capped at 100.
        engine.send(request(), true, true, now);
        now += 90 * MS;
        engine.onPacket(data(COMPLETE, true, 1, 0, false, pattern(3, 1)), now);
        engine.onRttSample(200_000); // the network: RTO 1 ms
        now += MS;
        rec.take();
        engine.send(request(), true, true, now);
        rec.take();
        while (!engine.isZombie())
        {
            now = engine.nextDeadlineNs();
            engine.onTimer(now);
        }
        assertTrue(engine.counters().nacksSent() >= 2, "NACKs before the zombie: " + engine.counters().nacksSent());
    }
}
