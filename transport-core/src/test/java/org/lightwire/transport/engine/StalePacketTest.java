package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.transport.engine.Recorder.control;
import static org.lightwire.transport.engine.Recorder.data;
import static org.lightwire.transport.engine.Recorder.pattern;
import static org.lightwire.transport.protocol.MessageType.CALL_ACK;
import static org.lightwire.transport.protocol.MessageType.COMPLETE;
import static org.lightwire.transport.protocol.MessageType.NACK;
import static org.lightwire.transport.protocol.MessageType.PARTIAL;
import static org.lightwire.transport.protocol.MessageType.RECLAIM;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.lightwire.transport.protocol.CloseCause;

/**
 * A delayed duplicate, a replay and a lost run of packets as long as the paper's 8-bit numbers
 * count, against the engines with a hand-advanced clock: none may act. Each case failed with the
 * 8-bit numbers alone (a copy of a request 129 or more calls old was executed again and the
 * connection then hung; a one-way of 300 packets with 256 lost in a row was delivered whole).
 */
class StalePacketTest
{
    private static final long MS = 1_000_000L;

    private final Recorder rec = new Recorder();
    private final ServerEngine server = new ServerEngine(ClientEngineTest.CONFIG, rec, rec, rec);
    private long now = 5_000 * MS;

    /** Call {@code call}: its one-packet request arrives, the server replies at once. */
    private ByteBuffer serve(final int call)
    {
        final ByteBuffer request = data(COMPLETE, true, call, 0, false, pattern(20, call));
        server.onPacket(request.duplicate(), now);
        server.send(ByteBuffer.wrap(pattern(10, call)), true, now);
        rec.take();
        return request;
    }

    @Test
    void aRequestDuplicatedAnyNumberOfCallsLaterIsNeverExecutedAgain()
    {
        final List<ByteBuffer> requests = new ArrayList<>();
        for (int call = 1; call <= 600; call++)
        {
            requests.add(serve(call));
        }
        assertEquals(600, rec.messages.size());
        // Every earlier request, including those 128, 129 and 256 calls old that the 8-bit
        // numbers took for calls ahead or for the current one, arrives again.
        final int stalesBefore = (int)server.counters().stale();
        for (int call = 1; call < 600; call++)
        {
            server.onPacket(requests.get(call - 1).duplicate(), now + call);
        }
        assertEquals(600, rec.messages.size(), "no request was executed again");
        assertEquals(599, server.counters().stale() - stalesBefore);
        assertEquals(0, rec.sent.size(), "a stale packet is not answered either");
        assertEquals(ServerEngine.State.IDLE, server.state());
        assertEquals(600, server.callNumber());

        // The connection goes on: the next call is served, as the 8-bit engine no longer could.
        serve(601);
        assertEquals(601, rec.messages.size());
        assertArrayEquals(pattern(20, 601), rec.messages.get(600));
    }

    @Test
    void stalePacketsNeitherActNorKeepASilentClientAlive()
    {
        for (int call = 1; call <= 300; call++)
        {
            serve(call);
        }
        // The server holds call 300's reply; the client has gone. A replayer sends old control
        // packets and requests of every kind throughout the peer timeout.
        final long peerTimeoutNs = ClientEngineTest.CONFIG.peerTimeoutNs();
        final long start = now;
        for (long t = start; t - start < 2 * peerTimeoutNs; t += 10 * MS)
        {
            final int old = 1 + (int)((t - start) / (10 * MS)) % 299;
            server.onPacket(control(NACK, old, 0), t);
            server.onPacket(control(CALL_ACK, old, 1), t);
            server.onPacket(control(RECLAIM, old, 0), t);
            server.onPacket(data(PARTIAL, true, old, 0, true, pattern(5, old)), t);
            if (server.nextDeadlineNs() - t <= 0)
            {
                server.onTimer(t);
            }
            if (server.isZombie())
            {
                break;
            }
        }
        assertTrue(server.isZombie(), "the replays did not reset the silence timer");
        assertEquals(CloseCause.PEER_SILENT, server.zombieCause());
        assertEquals(300, rec.messages.size());
        assertTrue(rec.sent.stream().allMatch(s -> s.call() == 300), "only call 300's reply was retransmitted: " + rec.sent.size());
    }

    @Test
    void aClientNeverTakesAStaleReplyForTheReplyOfItsCall()
    {
        final Recorder crec = new Recorder();
        final ClientEngine client = new ClientEngine(ClientEngineTest.CONFIG, crec, crec, crec);
        final List<ByteBuffer> replies = new ArrayList<>();
        for (int call = 1; call <= 300; call++)
        {
            client.send(ByteBuffer.wrap(pattern(5, call)), true, true, now);
            final ByteBuffer reply = data(COMPLETE, true, call, 0, false, pattern(7, call));
            replies.add(reply);
            client.onPacket(reply.duplicate(), now);
        }
        assertEquals(300, crec.messages.size());
        client.send(ByteBuffer.wrap(pattern(5, 301)), true, true, now);
        crec.take();
        // Call 45's reply has call 301's sequence byte (301 - 256): 8-bit numbers took it for
        // the reply awaited.
        client.onPacket(replies.get(44).duplicate(), now);
        client.onPacket(replies.get(172).duplicate(), now);
        assertEquals(300, crec.messages.size());
        assertEquals(ClientEngine.State.WAITING_FOR_REPLY, client.state());
        assertEquals(2, client.counters().stale());
        client.onPacket(data(COMPLETE, true, 301, 0, false, pattern(7, 301)), now);
        assertEquals(301, crec.messages.size());
        assertArrayEquals(pattern(7, 301), crec.messages.get(300));
    }

    @Test
    void aOneWayOfThreeHundredPacketsMissingTwoHundredAndFiftySixInARowIsNeverDeliveredWhole()
    {
        // Packet 0 arrives, packets 1..256 are lost, 257..299 arrive: 257 has packet 1's
        // sequence byte, so 8-bit numbers took it for packet 1 and delivered a whole message.
        server.onPacket(data(PARTIAL, false, 1, 0, true, pattern(10, 0)), now);
        for (int p = 257; p < 300; p++)
        {
            server.onPacket(data(p == 299 ? COMPLETE : PARTIAL, false, 1, p, p != 299, pattern(10, p)), now);
        }
        assertEquals(0, rec.messages.size());
        assertEquals(1, rec.aborts.size());
        assertEquals(ServerEngine.State.IDLE, server.state());
        // The next one-way is delivered whole.
        server.onPacket(data(COMPLETE, false, 2, 0, false, pattern(10, 2)), now);
        assertEquals(1, rec.messages.size());
    }

    @Test
    void aLongOneWayWithEveryPacketIsDeliveredWhole()
    {
        final ByteBuffer whole = ByteBuffer.allocate(300 * 10);
        for (int p = 0; p < 300; p++)
        {
            final byte[] piece = pattern(10, p);
            whole.put(piece);
            server.onPacket(data(p == 299 ? COMPLETE : PARTIAL, false, 1, p, p != 299, piece), now);
        }
        assertEquals(1, rec.messages.size());
        assertArrayEquals(whole.array(), rec.messages.get(0));
    }
}
