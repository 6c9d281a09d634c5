package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.transport.engine.Recorder.data;
import static org.lightwire.transport.engine.Recorder.pattern;
import static org.lightwire.transport.protocol.MessageType.COMPLETE;
import static org.lightwire.transport.protocol.MessageType.PARTIAL;

import org.junit.jupiter.api.Test;
import org.lightwire.transport.protocol.CloseCause;

/**
 * A client that sends part of a request and stops, or drips it out slowly, cannot hold a server
 * connection (and what it has received) for ever: the engine gives the request up after the
 * peer timeout of silence or the request timeout, whichever comes first.
 */
class HalfSentRequestTest
{
    private static final long MS = 1_000_000L;
    private static final EngineConfig CONFIG = ClientEngineTest.CONFIG.toBuilder().requestTimeoutNs(3_000 * MS).build();

    private final Recorder rec = new Recorder();
    private final ServerEngine server = new ServerEngine(CONFIG, rec, rec, rec);
    private final long start = 7_000 * MS;

    /** Fires the server's timer at every deadline up to {@code until}. */
    private void runUntil(final long until)
    {
        long t = server.nextDeadlineNs();
        while (t != ProtocolEngine.NO_DEADLINE && t - until <= 0 && !server.isZombie())
        {
            server.onTimer(t);
            t = server.nextDeadlineNs();
        }
    }

    @Test
    void anExactlyOnceRequestWhoseClientFallsSilentEndsTheConnectionAfterThePeerTimeout()
    {
        server.onPacket(data(PARTIAL, true, 1, 0, true, pattern(50, 0)), start);
        assertEquals(ServerEngine.State.REQUEST_IN_PROGRESS, server.state());
        assertEquals(start + CONFIG.peerTimeoutNs(), server.nextDeadlineNs());
        runUntil(start + CONFIG.peerTimeoutNs() - 1);
        assertFalse(server.isZombie());
        runUntil(start + CONFIG.peerTimeoutNs());
        assertTrue(server.isZombie());
        assertEquals(CloseCause.PEER_SILENT, server.zombieCause());
        assertTrue(server.zombieReason().contains("receiving the request of call 1"), server.zombieReason());
        assertEquals(0, rec.messages.size());
    }

    @Test
    void aRequestDrippedSlowerThanTheRequestTimeoutEndsTheConnection()
    {
        // One packet every 900 ms: never silent for the peer timeout (1 s), but the request is
        // not whole 3 s after its first packet.
        long t = start;
        for (int p = 0; p < 10; p++)
        {
            runUntil(t - 1);
            if (server.isZombie())
            {
                break;
            }
            server.onPacket(data(PARTIAL, true, 1, p, true, pattern(50, p)), t);
            t += 900 * MS;
        }
        assertTrue(server.isZombie());
        assertEquals(CloseCause.REQUEST_TIMEOUT, server.zombieCause());
        assertTrue(server.zombieReason().contains("requestTimeoutNs = 3000000000"), server.zombieReason());
        assertEquals(0, rec.messages.size());
    }

    @Test
    void aRequestWholeWithinTheTimeoutIsServed()
    {
        long t = start;
        for (int p = 0; p < 3; p++)
        {
            server.onPacket(data(p == 2 ? COMPLETE : PARTIAL, true, 1, p, p != 2, pattern(50, p)), t);
            t += 900 * MS;
        }
        runUntil(t + 10_000 * MS);
        assertFalse(server.isZombie(), "an executing request has no deadline: the servant may take its time");
        assertEquals(ServerEngine.State.EXECUTING, server.state());
        assertEquals(1, rec.messages.size());
    }

    @Test
    void aOneWayWhoseTailWasLostIsGivenUpButTheConnectionLives()
    {
        server.onPacket(data(PARTIAL, false, 1, 0, true, pattern(50, 0)), start);
        runUntil(start + CONFIG.peerTimeoutNs());
        assertFalse(server.isZombie());
        assertEquals(ServerEngine.State.IDLE, server.state());
        assertEquals(1, rec.aborts.size());
        assertEquals(ProtocolEngine.NO_DEADLINE, server.nextDeadlineNs());
        server.onPacket(data(COMPLETE, true, 2, 0, false, pattern(5, 2)), start + 2 * CONFIG.peerTimeoutNs());
        assertEquals(1, rec.messages.size());
    }
}
