package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.transport.engine.Recorder.control;
import static org.lightwire.transport.engine.Recorder.data;
import static org.lightwire.transport.engine.Recorder.pattern;
import static org.lightwire.transport.protocol.MessageType.CALL_ACK;
import static org.lightwire.transport.protocol.MessageType.COMPLETE;
import static org.lightwire.transport.protocol.MessageType.NACK;
import static org.lightwire.transport.protocol.MessageType.PARTIAL;
import static org.lightwire.transport.protocol.MessageType.RECLAIM;
import static org.lightwire.transport.protocol.MessageType.RECLAIM_ACK;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.lightwire.transport.engine.ServerEngine.State;

class ServerEngineTest
{
    static final long MS = 1_000_000L;

    final Recorder rec = new Recorder();
    final ServerEngine engine = new ServerEngine(ClientEngineTest.CONFIG, rec, rec, rec);
    long now = 5_000 * MS;

    private void receive(final ByteBuffer packet)
    {
        engine.onPacket(packet, now);
    }

    private void request(final int call, final boolean exactlyOnce, final byte[] bytes)
    {
        receive(data(COMPLETE, exactlyOnce, call, 0, false, bytes));
    }

    private ByteBuffer reply(final int length)
    {
        return ByteBuffer.wrap(pattern(length, 9));
    }

    /** Call {@code call} exactly-once, answered with a one-packet reply that is then held. */
    private ByteBuffer handleCall(final int call)
    {
        request(call, true, pattern(20, call));
        assertEquals(State.EXECUTING, engine.state());
        final ByteBuffer r = reply(30);
        engine.send(r, true, now);
        assertEquals(State.IDLE, engine.state());
        rec.take();
        return r;
    }

    @Test
    void exactlyOnceRequestIsDeliveredThenRepliedTo()
    {
        receive(data(PARTIAL, true, 1, 0, false, pattern(10, 1)));
        assertEquals(State.REQUEST_IN_PROGRESS, engine.state());
        receive(data(COMPLETE, true, 1, 1, false, pattern(10, 2)));
        assertEquals(State.EXECUTING, engine.state());
        assertEquals(1, rec.messages.size());
        assertEquals(20, rec.messages.get(0).length);
        engine.send(reply(10), false, now);
        assertEquals(State.REPLY_IN_PROGRESS, engine.state());
        engine.send(reply(10), true, now);
        assertEquals(State.IDLE, engine.state());
        final List<Recorder.Sent> sent = rec.take();
        assertEquals(List.of(PARTIAL, COMPLETE), sent.stream().map(Recorder.Sent::type).toList());
        assertEquals(List.of(1, 1), sent.stream().map(Recorder.Sent::call).toList());
        assertEquals(List.of(0, 1), sent.stream().map(Recorder.Sent::packet).toList());
        assertEquals(2, engine.heldPackets(), "the reply is held until acknowledged");
    }

    @Test
    void oneWayRequestReturnsToIdleAndCannotBeRepliedTo()
    {
        receive(data(PARTIAL, false, 1, 0, false, pattern(10, 1)));
        assertEquals(State.REQUEST_IN_PROGRESS, engine.state());
        receive(data(COMPLETE, false, 1, 1, false, pattern(10, 2)));
        assertEquals(State.IDLE, engine.state());
        assertEquals(1, rec.messages.size());
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> engine.send(reply(1), true, now));
        assertTrue(e.getMessage().contains("no exactly-once request"), e.getMessage());
    }

    @Test
    void nextCallAcknowledgesTheHeldReplyImplicitly()
    {
        final ByteBuffer r = handleCall(1);
        request(2, true, pattern(5, 5));
        assertEquals(1, rec.releases.get(r));
        assertEquals(0, engine.heldPackets());
        assertEquals(2, rec.messages.size());
    }

    @Test
    void callAckReleasesTheHeldReply()
    {
        final ByteBuffer r = handleCall(1);
        receive(control(CALL_ACK, 1, 1));
        assertEquals(1, rec.releases.get(r));
        assertEquals(ProtocolEngine.NO_DEADLINE, engine.nextDeadlineNs());
    }

    @Test
    void serverErrorCase1TimeoutRetransmitsTheUnacknowledgedReply()
    {
        request(1, true, pattern(20, 1));
        engine.send(reply(250), true, now);
        rec.take();
        final long deadline = engine.nextDeadlineNs();
        assertEquals(now + 5 * MS + 10 * MS, deadline, "ack delay plus one retransmission timeout");
        engine.onTimer(deadline);
        final List<Recorder.Sent> again = rec.take();
        assertEquals(List.of(0, 1, 2), again.stream().map(Recorder.Sent::packet).toList());
        assertArrayEquals(java.util.Arrays.copyOfRange(pattern(250, 9), 200, 250), again.get(2).payload());
        assertEquals(3, engine.counters().retransmissions());
    }

    @Test
    void serverErrorCase1TimeoutForAnIdleClientDoesNothing()
    {
        handleCall(1);
        receive(control(CALL_ACK, 1, 1));
        engine.onTimer(now + 60_000 * MS);
        assertEquals(0, rec.sent.size());
        assertEquals(State.IDLE, engine.state());
    }

    @Test
    void serverErrorCase3NackForTheCallJustHandledRetransmitsItsReply()
    {
        request(1, true, pattern(20, 1));
        engine.send(reply(250), true, now);
        rec.take();
        receive(control(NACK, 1, 1));
        final List<Recorder.Sent> again = rec.take();
        assertEquals(List.of(1, 2), again.stream().map(Recorder.Sent::packet).toList());
        assertEquals(2, engine.heldPackets(), "packet 0 is acknowledged by the NACK for packet 1");
        assertEquals(1, engine.counters().nacksReceived());
    }

    @Test
    void serverErrorCase4NackForACallNotYetBegunFreesThePreviousReplyAndNacksTheClient()
    {
        final ByteBuffer r = handleCall(1);
        receive(control(NACK, 2, 0));
        assertEquals(1, rec.releases.get(r), "the client has the previous reply");
        final Recorder.Sent nack = rec.only();
        assertEquals(NACK, nack.type());
        assertEquals(2, nack.call());
        assertEquals(0, nack.packet());
        request(2, true, pattern(5, 2));
        assertEquals(State.EXECUTING, engine.state());
        assertEquals(2, rec.messages.size());
        assertEquals(2, engine.counters().calls());
    }

    @Test
    void serverErrorCase5DroppedPacketOfAnExactlyOnceCallInProgressNacksTheClient()
    {
        receive(data(PARTIAL, true, 1, 0, true, pattern(100, 0)));
        receive(data(PARTIAL, true, 1, 2, true, pattern(100, 2)));
        final Recorder.Sent nack = rec.only();
        assertEquals(NACK, nack.type());
        assertEquals(1, nack.call());
        assertEquals(1, nack.packet());
        receive(data(COMPLETE, true, 1, 3, false, pattern(100, 3)));
        assertEquals(0, rec.sent.size(), "one NACK per gap");
        receive(data(PARTIAL, true, 1, 1, true, pattern(100, 1)));
        receive(data(PARTIAL, true, 1, 2, true, pattern(100, 2)));
        receive(data(COMPLETE, true, 1, 3, false, pattern(100, 3)));
        assertEquals(State.EXECUTING, engine.state());
        assertEquals(400, rec.messages.get(0).length);
        assertEquals(0, rec.aborts.size());
    }

    @Test
    void serverErrorCase5DroppedPacketOfAOneWayCallInProgressAbortsIt()
    {
        receive(data(PARTIAL, false, 1, 0, true, pattern(100, 0)));
        receive(data(PARTIAL, false, 1, 2, true, pattern(100, 2)));
        assertEquals(1, rec.aborts.size());
        assertTrue(rec.aborts.get(0).contains("one-way call 1"), rec.aborts.get(0));
        assertEquals(0, rec.sent.size(), "no NACK: a one-way call is never retransmitted");
        receive(data(COMPLETE, false, 1, 3, false, pattern(100, 3)));
        assertEquals(0, rec.messages.size(), "the rest of the aborted call is ignored");
        assertEquals(State.IDLE, engine.state());
        request(2, false, pattern(3, 3));
        assertEquals(1, rec.messages.size());
        assertEquals(1, engine.counters().aborts());
    }

    @Test
    void serverErrorCase6FirstPacketOfACallFurtherAheadProceeds()
    {
        request(1, false, pattern(3, 1));
        // Calls 2 and 3 (one-way) were lost whole.
        request(4, true, pattern(3, 4));
        assertEquals(State.EXECUTING, engine.state());
        assertEquals(2, rec.messages.size());
        assertArrayEquals(pattern(3, 4), rec.messages.get(1));
        assertEquals(0, rec.sent.size());
    }

    @Test
    void serverErrorCase7DroppedStartOfAOneWayCallIgnoresTheCall()
    {
        receive(data(PARTIAL, false, 1, 1, true, pattern(10, 1)));
        receive(data(COMPLETE, false, 1, 2, false, pattern(10, 2)));
        assertEquals(0, rec.messages.size());
        assertEquals(0, rec.aborts.size(), "the strand never saw the call: nothing to abort");
        assertEquals(0, rec.sent.size());
        request(2, false, pattern(3, 3));
        assertEquals(1, rec.messages.size());
    }

    @Test
    void serverErrorCase7DroppedStartOfAnExactlyOnceCallFreesThePreviousReplyAndNacks()
    {
        final ByteBuffer r = handleCall(1);
        receive(data(PARTIAL, true, 2, 1, true, pattern(100, 1)));
        assertEquals(1, rec.releases.get(r));
        final Recorder.Sent nack = rec.only();
        assertEquals(NACK, nack.type());
        assertEquals(2, nack.call());
        assertEquals(0, nack.packet());
        receive(data(PARTIAL, true, 2, 0, true, pattern(100, 0)));
        receive(data(COMPLETE, true, 2, 1, false, pattern(100, 1)));
        assertEquals(State.EXECUTING, engine.state());
        assertEquals(200, rec.messages.get(1).length);
    }

    @Test
    void lostNackIsSentAgainOnTimeout()
    {
        receive(data(PARTIAL, true, 1, 0, true, pattern(100, 0)));
        receive(data(COMPLETE, true, 1, 2, false, pattern(100, 2)));
        rec.take();
        now = engine.nextDeadlineNs();
        engine.onTimer(now);
        final Recorder.Sent nack = rec.only();
        assertEquals(NACK, nack.type());
        assertEquals(1, nack.packet());
    }

    @Test
    void nackWhileExecutingIsAnsweredWithRequestReceived()
    {
        receive(data(PARTIAL, true, 1, 0, true, pattern(100, 0)));
        receive(data(COMPLETE, true, 1, 1, false, pattern(100, 1)));
        receive(control(NACK, 1, 0));
        final Recorder.Sent ack = rec.only();
        assertEquals(RECLAIM_ACK, ack.type());
        assertEquals(2, ack.packet());
    }

    @Test
    void nackForARequestWhoseTailWasLostAsksForTheTail()
    {
        receive(data(PARTIAL, true, 1, 0, true, pattern(100, 0)));
        receive(control(NACK, 1, 0));
        final Recorder.Sent nack = rec.only();
        assertEquals(NACK, nack.type());
        assertEquals(1, nack.packet());
    }

    @Test
    void reclaimIsAnsweredWithTheNextExpectedPacket()
    {
        receive(data(PARTIAL, true, 1, 0, true, pattern(100, 0)));
        receive(data(PARTIAL, true, 1, 1, true, pattern(100, 1)));
        receive(control(RECLAIM, 1, 2));
        final Recorder.Sent ack = rec.only();
        assertEquals(RECLAIM_ACK, ack.type());
        assertEquals(1, ack.call());
        assertEquals(2, ack.packet());
    }

    @Test
    void reclaimForACallNeverSeenFreesThePreviousReplyAndAsksForEverything()
    {
        final ByteBuffer r = handleCall(1);
        receive(control(RECLAIM, 2, 8));
        assertEquals(1, rec.releases.get(r));
        final Recorder.Sent ack = rec.only();
        assertEquals(RECLAIM_ACK, ack.type());
        assertEquals(2, ack.call());
        assertEquals(0, ack.packet());
    }

    @Test
    void largeReplyIsReclaimedThroughTheBufferPool()
    {
        request(1, true, pattern(1, 1));
        final ByteBuffer big = reply(800);
        engine.send(big, false, now);
        assertEquals(0, engine.freePackets());
        rec.take();
        assertTrue(engine.reclaim(now));
        assertEquals(RECLAIM, rec.only().type());
        now += MS;
        receive(control(RECLAIM_ACK, 1, 8));
        assertEquals(1, rec.releases.get(big));
        assertEquals(8, engine.freePackets());
        assertEquals(MS, engine.counters().srttNs());
        engine.send(reply(10), true, now);
        final Recorder.Sent last = rec.only();
        assertEquals(COMPLETE, last.type());
        assertEquals(8, last.packet());
    }

    @Test
    void duplicatesOfTheRequestAreDroppedAndCounted()
    {
        request(1, true, pattern(5, 1));
        request(1, true, pattern(5, 1));
        engine.send(reply(3), true, now);
        request(1, true, pattern(5, 1));
        assertEquals(1, rec.messages.size());
        assertEquals(2, engine.counters().duplicates());
    }

    @Test
    void silentClientMakesTheConnectionAZombieAndFreesTheReply()
    {
        request(1, true, pattern(5, 1));
        final ByteBuffer r = reply(3);
        engine.send(r, true, now);
        while (!engine.isZombie())
        {
            now = engine.nextDeadlineNs();
            engine.onTimer(now);
        }
        assertEquals(1, rec.releases.get(r));
        assertTrue(engine.zombieReason().contains("no packet from the client"), engine.zombieReason());
        assertThrows(ZombieConnectionException.class, () -> engine.reclaim(now));
    }

    @Test
    void newCallWhileExecutingIsDroppedAsUnexpected()
    {
        request(1, true, pattern(5, 1));
        request(2, true, pattern(5, 2));
        assertEquals(1, rec.messages.size());
        assertEquals(1, engine.counters().unexpected());
        assertEquals(State.EXECUTING, engine.state());
    }
}
