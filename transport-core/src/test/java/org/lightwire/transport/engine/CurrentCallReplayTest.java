package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.transport.engine.Recorder.data;
import static org.lightwire.transport.engine.Recorder.pattern;
import static org.lightwire.transport.protocol.MessageType.COMPLETE;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/**
 * Replays of the current call's packets are indistinguishable from retransmissions and reset the
 * silence timer; a held reply that none of them acknowledges is still given up (twice the peer
 * timeout after the last sign that any of it arrived), so a replayer cannot keep a gone client's
 * connection for ever.
 */
class CurrentCallReplayTest
{
    private static final long MS = 1_000_000L;

    /**
     * The hazard: the server holds call 1's reply for a client that has gone. One replay of call 1's
     * request datagram per (peer timeout - epsilon) is dropped as a duplicate but sets
     * silentSinceNs (ServerEngine.onPacket sets it for every c >= call): the server never gives
     * the connection up, retransmits the reply at every RTO for ever, and, the reply being held,
     * UdpServer never closes the connection as idle either.
     */
    @Test
    void replaysOfTheCurrentCallsRequestDoNotKeepAGoneClientAlive()
    {
        final Recorder rec = new Recorder();
        final EngineConfig config = ClientEngineTest.CONFIG;
        final ServerEngine server = new ServerEngine(config, rec, rec, rec);
        long now = 1_000 * MS;
        final ByteBuffer request = data(COMPLETE, true, 1, 0, false, pattern(10, 1));
        server.onPacket(request.duplicate(), now);
        server.send(ByteBuffer.wrap(pattern(4, 2)), true, now);
        // The client has gone; a replayer re-sends the request datagram every 0.9 peer timeouts.
        final long end = now + 10 * config.peerTimeoutNs();
        long nextReplay = now + config.peerTimeoutNs() * 9 / 10;
        while (now - end < 0 && !server.isZombie())
        {
            final long deadline = server.nextDeadlineNs();
            if (deadline - nextReplay <= 0)
            {
                now = deadline;
                server.onTimer(now);
            }
            else
            {
                now = nextReplay;
                server.onPacket(request.duplicate(), now);
                nextReplay += config.peerTimeoutNs() * 9 / 10;
            }
        }
        assertTrue(server.isZombie(), "after 10 peer timeouts of replays the server still holds the reply for a gone client, " +
            rec.sent.size() + " retransmissions, duplicates " + server.counters().duplicates());
    }
}
