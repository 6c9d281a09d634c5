package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lightwire.transport.engine.Recorder.pattern;
import static org.lightwire.transport.engine.Recorder.wire;
import static org.lightwire.transport.protocol.MessageType.COMPLETE;
import static org.lightwire.transport.protocol.MessageType.NACK;
import static org.lightwire.transport.protocol.MessageType.RECLAIM;
import static org.lightwire.transport.protocol.MessageType.RECLAIM_ACK;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The one packet of an earlier call a client takes, the answer to its round-trip probe, is told
 * from every other RECLAIM_ACK of that call (the server sends RECLAIM_ACK(N, ...) as "still
 * executing" too) by the probe's marker, which only the answer echoes.
 */
class StaleProbeAnswerTest
{
    private static final long MS = 1_000_000L;
    private static final EngineConfig CONFIG = ClientEngineTest.CONFIG.toBuilder().rttProbeIntervalNs(1000 * MS).build();

    private final Recorder clientOut = new Recorder();
    private final Recorder serverOut = new Recorder();
    private final ClientEngine client = new ClientEngine(CONFIG, clientOut, clientOut, clientOut);
    private final ServerEngine server = new ServerEngine(CONFIG, serverOut, serverOut, serverOut);

    private static Recorder.Sent only(final List<Recorder.Sent> sent, final org.lightwire.transport.protocol.MessageType type)
    {
        return sent.stream().filter(s -> s.type() == type).findFirst().orElseThrow(() -> new AssertionError("no " + type + " in " + sent));
    }

    /**
     * The hazard: a RECLAIM_ACK of call 1 sent by the server as "still executing" during call 1,
     * duplicated and delayed by the network, arrives just after the client's probe RECLAIM(1)
     * that precedes call 2: ClientEngine.onStale takes it for the probe's answer and feeds the
     * RTT estimator a sample of a few microseconds. An old packet changed the connection's state
     * (its SRTT and RTO: the client then NACKs, with its RTO floored at retransmitMinNs, long
     * before a reply can come); the real answer is then dropped as stale.
     */
    @Test
    void aDelayedReclaimAckOfTheLastCallIsNotTakenForTheProbesAnswer()
    {
        long now = 1_000 * MS;
        client.send(ByteBuffer.wrap(pattern(10, 1)), true, true, now);
        List<Recorder.Sent> out = clientOut.take();
        server.onPacket(wire(only(out, RECLAIM)), now + 10 * MS);
        server.onPacket(wire(only(out, COMPLETE)), now + 10 * MS);
        // The probe's answer: a 20 ms round trip.
        client.onPacket(wire(serverOut.only()), now + 20 * MS);
        assertEquals(20 * MS, client.counters().srttNs());

        // The servant is slow: the client's NACK is answered "still executing" (RECLAIM_ACK(1, 1)).
        now += 200 * MS;
        client.onTimer(now);
        server.onPacket(wire(only(clientOut.take(), NACK)), now + 10 * MS);
        final Recorder.Sent stillExecuting = serverOut.only();
        assertEquals(RECLAIM_ACK, stillExecuting.type());
        assertEquals(1, stillExecuting.call());
        client.onPacket(wire(stillExecuting), now + 20 * MS);

        // The reply; then, a second later, call 2 with its probe RECLAIM(1).
        server.send(ByteBuffer.wrap(pattern(5, 2)), true, now + 30 * MS);
        client.onPacket(wire(only(serverOut.take(), COMPLETE)), now + 40 * MS);
        now += 1_500 * MS;
        client.send(ByteBuffer.wrap(pattern(10, 3)), true, true, now);
        assertEquals(RECLAIM, clientOut.take().get(0).type());
        final long srttBefore = client.counters().srttNs();

        // A network duplicate of the old "still executing" RECLAIM_ACK(1, 1) arrives 5 us later.
        client.onPacket(wire(stillExecuting), now + 5_000);
        assertEquals(srttBefore, client.counters().srttNs(), "a stale RECLAIM_ACK of call 1 was taken as the probe's answer");
    }
}
