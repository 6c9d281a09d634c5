package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
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
import org.lightwire.transport.engine.ClientEngine.State;

class ClientEngineTest
{
    static final long MS = 1_000_000L;
    static final int HEADER = org.lightwire.transport.protocol.HeaderFlyweight.HEADER_LENGTH;
    static final EngineConfig CONFIG = EngineConfig.builder()
        .maxPacketBytes(HEADER + 100)
        .bufferPoolPackets(8)
        .ackDelayNs(5 * MS)
        .retransmitMinNs(MS)
        .retransmitMaxNs(400 * MS)
        .retransmitInitialNs(10 * MS)
        .peerTimeoutNs(1000 * MS)
        .rttProbeIntervalNs(0)
        .build();

    final Recorder rec = new Recorder();
    ClientEngine engine = new ClientEngine(CONFIG, rec, rec, rec);
    long now = 1_000 * MS;

    private ByteBuffer request(final int length)
    {
        return ByteBuffer.wrap(pattern(length, 7));
    }

    private void receive(final ByteBuffer packet)
    {
        engine.onPacket(packet, now);
    }

    private void replyWhole(final int call, final byte[] reply)
    {
        receive(data(COMPLETE, true, call, 0, false, reply));
    }

    @Test
    void sendCompleteExactlyOnceSendsOneCompletePacketAndWaitsForReply()
    {
        final ByteBuffer req = request(40);
        engine.send(req, true, true, now);
        final Recorder.Sent s = rec.only();
        assertEquals(COMPLETE, s.type());
        assertEquals(1, s.call());
        assertEquals(0, s.packet());
        assertTrue(s.exactlyOnce());
        assertFalse(s.fragmented());
        assertEquals(HEADER + 40, s.size());
        assertArrayEquals(pattern(40, 7), s.payload());
        assertEquals(State.WAITING_FOR_REPLY, engine.state());
        assertEquals(1, engine.heldPackets());
        assertEquals(0, rec.releaseCount);
    }

    @Test
    void sendPartialMovesToRequestInProgressAndCompleteToWaitingForReply()
    {
        engine.send(request(10), false, true, now);
        assertEquals(State.REQUEST_IN_PROGRESS, engine.state());
        engine.send(request(10), false, true, now);
        assertEquals(State.REQUEST_IN_PROGRESS, engine.state());
        engine.send(request(10), true, true, now);
        assertEquals(State.WAITING_FOR_REPLY, engine.state());
        final List<Recorder.Sent> sent = rec.take();
        assertEquals(List.of(PARTIAL, PARTIAL, COMPLETE), sent.stream().map(Recorder.Sent::type).toList());
        assertEquals(List.of(0, 1, 2), sent.stream().map(Recorder.Sent::packet).toList());
        assertEquals(List.of(1, 1, 1), sent.stream().map(Recorder.Sent::call).toList());
    }

    @Test
    void largeBufferIsFragmentedWithoutCopyingThePayload()
    {
        final ByteBuffer req = request(250);
        engine.send(req, true, true, now);
        final List<Recorder.Sent> sent = rec.take();
        assertEquals(3, sent.size());
        assertEquals(List.of(PARTIAL, PARTIAL, COMPLETE), sent.stream().map(Recorder.Sent::type).toList());
        assertEquals(List.of(true, true, false), sent.stream().map(Recorder.Sent::fragmented).toList());
        assertEquals(List.of(HEADER + 100, HEADER + 100, HEADER + 50), sent.stream().map(Recorder.Sent::size).toList());
        for (final Recorder.Sent s : sent)
        {
            // Zero copy: the packet handler sends slices of the caller's own buffer.
            assertSame(req, s.payloadBuffer());
        }
        final byte[] joined = new byte[250];
        int at = 0;
        for (final Recorder.Sent s : sent)
        {
            System.arraycopy(s.payload(), 0, joined, at, s.payload().length);
            at += s.payload().length;
        }
        assertArrayEquals(pattern(250, 7), joined);
    }

    @Test
    void emptyRequestIsOnePacketOfHeaderOnly()
    {
        engine.send(request(0), true, true, now);
        final Recorder.Sent s = rec.only();
        assertEquals(HEADER, s.size());
        assertEquals(COMPLETE, s.type());
    }

    @Test
    void replyIsDeliveredAndItsLastPacketReturnsToIdleAndReleasesTheRequest()
    {
        final ByteBuffer req = request(10);
        engine.send(req, true, true, now);
        rec.take();
        receive(data(PARTIAL, true, 1, 0, true, pattern(100, 1)));
        assertEquals(State.WAITING_FOR_REPLY, engine.state());
        assertEquals(1, rec.releases.get(req), "the first reply packet acknowledges the request");
        receive(data(COMPLETE, true, 1, 1, false, pattern(5, 2)));
        assertEquals(State.IDLE, engine.state());
        assertEquals(1, rec.messages.size());
        assertEquals(105, rec.messages.get(0).length);
        assertTrue(engine.ackPending());
        assertEquals(0, rec.sent.size(), "no ack on the wire for an on-going interaction");
    }

    @Test
    void nextCallAcknowledgesTheLastReplyImplicitly()
    {
        engine.send(request(10), true, true, now);
        replyWhole(1, pattern(3, 3));
        rec.take();
        now += MS;
        engine.send(request(10), true, true, now);
        assertFalse(engine.ackPending());
        final Recorder.Sent s = rec.only();
        assertEquals(COMPLETE, s.type());
        assertEquals(2, s.call());
        now += 100 * MS;
        replyWhole(2, pattern(3, 3));
        engine.onTimer(now + 4 * MS);
        assertEquals(0, rec.sent.size(), "ack timer not yet due");
    }

    /**
     * A caller that stayed idle for longer than the ack delay before its call gets the reply's
     * CALL_ACK at once (its next request would not carry it either: no ack timer to wake for);
     * one that called within the delay keeps the acknowledgement for its next request.
     */
    @Test
    void aCallerIdleForLongerThanTheAckDelayAcknowledgesAtOnceOneThatIsNotWaits()
    {
        engine.send(request(10), true, true, now);
        replyWhole(1, pattern(3, 3));
        assertTrue(engine.ackPending(), "the first call: nothing known of the caller");
        now += 6 * MS;
        engine.send(request(10), true, true, now);
        now += MS;
        replyWhole(2, pattern(3, 3));
        final List<Recorder.Sent> sent = rec.take();
        assertEquals(List.of(COMPLETE, COMPLETE, CALL_ACK), sent.stream().map(Recorder.Sent::type).toList());
        assertEquals(2, sent.get(2).call());
        assertFalse(engine.ackPending());
        assertEquals(ProtocolEngine.NO_DEADLINE, engine.nextDeadlineNs(), "no timer left to wake for");
        now += 5 * MS;
        engine.send(request(10), true, true, now);
        now += MS;
        replyWhole(3, pattern(3, 3));
        assertEquals(List.of(COMPLETE), rec.take().stream().map(Recorder.Sent::type).toList(), "idle for exactly the ack delay: it waits");
        assertTrue(engine.ackPending());
        assertEquals(1, engine.counters().callAcksSent());
    }

    @Test
    void ackTimerSendsCallAckWhenTheClientStaysIdle()
    {
        engine.send(request(10), true, true, now);
        replyWhole(1, pattern(3, 3));
        rec.take();
        assertEquals(now + 5 * MS, engine.nextDeadlineNs());
        engine.onTimer(now + 5 * MS);
        final Recorder.Sent s = rec.only();
        assertEquals(CALL_ACK, s.type());
        assertEquals(1, s.call());
        assertEquals(ProtocolEngine.NO_DEADLINE, engine.nextDeadlineNs());
        assertEquals(1, engine.counters().callAcksSent());
    }

    @Test
    void oneWayCallReturnsToIdleAndGivesItsBufferBackAtOnce()
    {
        final ByteBuffer req = request(150);
        engine.send(req, true, false, now);
        assertEquals(State.IDLE, engine.state());
        final List<Recorder.Sent> sent = rec.take();
        assertEquals(2, sent.size());
        assertFalse(sent.get(0).exactlyOnce());
        assertEquals(0, engine.heldPackets());
        assertEquals(1, rec.releases.get(req));
        assertEquals(ProtocolEngine.NO_DEADLINE, engine.nextDeadlineNs());
    }

    @Test
    void oneWayPartialSendsGoThroughRequestInProgress()
    {
        engine.send(request(5), false, false, now);
        assertEquals(State.REQUEST_IN_PROGRESS, engine.state());
        engine.send(request(5), true, false, now);
        assertEquals(State.IDLE, engine.state());
        assertEquals(List.of(PARTIAL, COMPLETE), rec.take().stream().map(Recorder.Sent::type).toList());
    }

    @Test
    void exactlyOnceAndOneWayCallsInterleaveOnOneConnection()
    {
        engine.send(request(5), true, false, now);
        engine.send(request(5), true, true, now);
        replyWhole(2, pattern(4, 4));
        engine.send(request(5), true, false, now);
        engine.send(request(5), true, true, now);
        replyWhole(4, pattern(4, 5));
        final List<Recorder.Sent> sent = rec.take();
        assertEquals(List.of(1, 2, 3, 4), sent.stream().map(Recorder.Sent::call).toList());
        assertEquals(List.of(false, true, false, true), sent.stream().map(Recorder.Sent::exactlyOnce).toList());
        assertEquals(2, rec.messages.size());
        assertEquals(4, engine.counters().calls());
    }

    @Test
    void semanticsCannotChangeWithinACall()
    {
        engine.send(request(5), false, true, now);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> engine.send(request(5), true, false, now));
        assertTrue(e.getMessage().contains("exactly-once"), e.getMessage());
    }

    @Test
    void sendWhileWaitingForReplyIsMisuse()
    {
        engine.send(request(5), true, true, now);
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> engine.send(request(5), true, true, now));
        assertTrue(e.getMessage().contains("waiting for its reply"), e.getMessage());
    }

    @Test
    void clientErrorCase1TimeoutWhileWaitingForReplySendsNack()
    {
        engine.send(request(10), true, true, now);
        rec.take();
        final long deadline = engine.nextDeadlineNs();
        assertEquals(now + 10 * MS, deadline);
        engine.onTimer(deadline - 1);
        assertEquals(0, rec.sent.size());
        engine.onTimer(deadline);
        final Recorder.Sent nack = rec.only();
        assertEquals(NACK, nack.type());
        assertEquals(1, nack.call());
        assertEquals(0, nack.packet(), "the NACK names the first reply packet missing");
        assertEquals(1, engine.counters().timeouts());
        assertEquals(deadline + 20 * MS, engine.nextDeadlineNs(), "the timeout backs off");
    }

    @Test
    void clientErrorCase1OutOfSequenceReplyPacketSendsNack()
    {
        engine.send(request(10), true, true, now);
        rec.take();
        receive(data(PARTIAL, true, 1, 0, true, pattern(100, 0)));
        receive(data(PARTIAL, true, 1, 2, true, pattern(100, 2)));
        final Recorder.Sent nack = rec.only();
        assertEquals(NACK, nack.type());
        assertEquals(1, nack.call());
        assertEquals(1, nack.packet());
        receive(data(COMPLETE, true, 1, 3, false, pattern(100, 3)));
        assertEquals(0, rec.sent.size(), "one NACK per gap, not one per packet after it");
        assertEquals(2, engine.counters().outOfSequence());
        receive(data(PARTIAL, true, 1, 1, true, pattern(100, 1)));
        receive(data(PARTIAL, true, 1, 2, true, pattern(100, 2)));
        receive(data(COMPLETE, true, 1, 3, false, pattern(100, 3)));
        assertEquals(State.IDLE, engine.state());
        assertEquals(400, rec.messages.get(0).length);
    }

    @Test
    void clientErrorCase2NackFromServerRetransmitsHeldPacketsFromItsPacketSequence()
    {
        final ByteBuffer req = request(350);
        engine.send(req, true, true, now);
        assertEquals(4, rec.take().size());
        receive(control(NACK, 1, 2));
        final List<Recorder.Sent> again = rec.take();
        assertEquals(List.of(2, 3), again.stream().map(Recorder.Sent::packet).toList());
        assertEquals(List.of(PARTIAL, COMPLETE), again.stream().map(Recorder.Sent::type).toList());
        assertArrayEquals(java.util.Arrays.copyOfRange(pattern(350, 7), 200, 300), again.get(0).payload());
        assertArrayEquals(java.util.Arrays.copyOfRange(pattern(350, 7), 300, 350), again.get(1).payload());
        assertEquals(2, engine.heldPackets(), "packets before the NACKed one are acknowledged");
        assertEquals(2, engine.counters().retransmissions());
        assertEquals(1, engine.counters().nacksReceived());
    }

    @Test
    void clientErrorCase3HardErrorMakesTheConnectionAZombie()
    {
        final ByteBuffer req = request(10);
        engine.send(req, true, true, now);
        engine.onHardError("ECONNREFUSED");
        assertEquals(State.ZOMBIE, engine.state());
        assertEquals(1, rec.releases.get(req), "a zombie gives every held buffer back");
        final ZombieConnectionException e = assertThrows(ZombieConnectionException.class, () -> engine.send(request(1), true, true, now));
        assertTrue(e.getMessage().contains("zombie") && e.getMessage().contains("ECONNREFUSED"), e.getMessage());
        assertThrows(ZombieConnectionException.class, () -> engine.reclaim(now));
        rec.take();
        receive(data(COMPLETE, true, 1, 0, false, pattern(3, 3)));
        assertEquals(0, rec.messages.size());
        assertEquals(0, rec.sent.size());
        assertEquals(ProtocolEngine.NO_DEADLINE, engine.nextDeadlineNs());
    }

    @Test
    void silentServerMakesTheConnectionAZombieAfterThePeerTimeout()
    {
        engine.send(request(10), true, true, now);
        final long start = now;
        while (!engine.isZombie())
        {
            now = engine.nextDeadlineNs();
            engine.onTimer(now);
        }
        assertEquals(start + 1000 * MS, now);
        assertTrue(engine.zombieReason().contains("no packet from the server"), engine.zombieReason());
        assertTrue(engine.zombieReason().contains("peerTimeoutNs"), engine.zombieReason());
        final long nacks = engine.counters().nacksSent();
        assertEquals(6, nacks, "NACKs back off: at 10, 30, 70, 150, 310 and 630 ms");
    }

    @Test
    void serverStillExecutingKeepsTheClientWaiting()
    {
        engine.send(request(10), true, true, now);
        for (int i = 0; i < 20; i++)
        {
            now = engine.nextDeadlineNs();
            engine.onTimer(now);
            // The server answers each NACK: "I have your request" (RECLAIM_ACK for all of it).
            receive(control(RECLAIM_ACK, 1, 1));
        }
        assertEquals(State.WAITING_FOR_REPLY, engine.state());
        assertEquals(0, engine.heldPackets());
        replyWhole(1, pattern(2, 2));
        assertEquals(State.IDLE, engine.state());
    }

    @Test
    void reclaimAsksForAcknowledgementAndTheAnswerFreesTheBufferPool()
    {
        final ByteBuffer first = request(800);
        engine.send(first, false, true, now);
        assertEquals(0, engine.freePackets());
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> engine.send(request(1), true, true, now));
        assertTrue(e.getMessage().contains("bufferPoolPackets"), e.getMessage());
        rec.take();
        assertTrue(engine.reclaim(now));
        final Recorder.Sent reclaim = rec.only();
        assertEquals(RECLAIM, reclaim.type());
        assertEquals(8, reclaim.packet(), "RECLAIM names the next packet to be sent");
        now += 2 * MS;
        receive(control(RECLAIM_ACK, 1, 8));
        assertEquals(8, engine.freePackets());
        assertEquals(1, rec.releases.get(first));
        assertEquals(2 * MS, engine.counters().srttNs(), "RECLAIM/RECLAIM_ACK is a round-trip sample");
        engine.send(request(10), true, true, now);
        assertEquals(8, rec.only().packet());
    }

    @Test
    void reclaimAckShowingAGapRetransmitsFromIt()
    {
        engine.send(request(800), false, true, now);
        rec.take();
        engine.reclaim(now);
        rec.take();
        receive(control(RECLAIM_ACK, 1, 5));
        assertEquals(List.of(5, 6, 7), rec.take().stream().map(Recorder.Sent::packet).toList());
        assertEquals(5, engine.freePackets());
    }

    @Test
    void lostReclaimIsSentAgainAndGivesNoRoundTripSample()
    {
        engine.send(request(800), false, true, now);
        engine.reclaim(now);
        rec.take();
        now = engine.nextDeadlineNs();
        engine.onTimer(now);
        assertEquals(RECLAIM, rec.only().type());
        now += 3 * MS;
        receive(control(RECLAIM_ACK, 1, 8));
        assertEquals(0, engine.counters().srttNs(), "Karn: no sample from a retransmitted RECLAIM");
        assertEquals(8, engine.freePackets());
    }

    @Test
    void duplicateOfACompletedReplyIsAcknowledgedAtOnce()
    {
        engine.send(request(10), true, true, now);
        replyWhole(1, pattern(3, 3));
        rec.take();
        replyWhole(1, pattern(3, 3));
        final Recorder.Sent ack = rec.only();
        assertEquals(CALL_ACK, ack.type());
        assertEquals(1, ack.call());
        assertFalse(engine.ackPending());
        assertEquals(1, rec.messages.size(), "the duplicate is not delivered");
    }

    @Test
    void replyOfAnEarlierCallIsAcknowledgedWhenTheImplicitAckWasLost()
    {
        engine.send(request(10), true, true, now);
        replyWhole(1, pattern(3, 3));
        engine.send(request(10), true, false, now);
        rec.take();
        replyWhole(1, pattern(3, 3));
        final Recorder.Sent ack = rec.only();
        assertEquals(CALL_ACK, ack.type());
        assertEquals(1, ack.call());
    }

    @Test
    void reclaimFromServerIsAnsweredWithTheNextExpectedReplyPacket()
    {
        engine.send(request(10), true, true, now);
        receive(data(PARTIAL, true, 1, 0, true, pattern(100, 0)));
        receive(data(PARTIAL, true, 1, 1, true, pattern(100, 1)));
        rec.take();
        receive(control(RECLAIM, 1, 3));
        final Recorder.Sent ack = rec.only();
        assertEquals(RECLAIM_ACK, ack.type());
        assertEquals(2, ack.packet());
    }

    @Test
    void probeBeforeTheRequestMeasuresTheRoundTripWhileTheReplyIsAwaited()
    {
        engine = new ClientEngine(CONFIG.toBuilder().rttProbeIntervalNs(1000 * MS).build(), rec, rec, rec);
        engine.send(request(10), true, true, now);
        final List<Recorder.Sent> sent = rec.take();
        assertEquals(List.of(RECLAIM, COMPLETE), sent.stream().map(Recorder.Sent::type).toList());
        assertEquals(0, sent.get(0).call(), "the probe names the call before this one, which the server has finished");
        assertEquals(ClientEngine.PROBE_MARKER, sent.get(0).packet(), "the probe's packet number is a marker its answer echoes");
        now += 100_000;
        receive(control(RECLAIM_ACK, 0, 0));
        assertEquals(0, engine.counters().srttNs(), "another RECLAIM_ACK of call 0 is not the probe's answer");
        now += 200_000;
        receive(control(RECLAIM_ACK, 0, sent.get(0).packet()));
        assertEquals(300_000, engine.counters().srttNs());
        assertEquals(MS, engine.counters().rtoNs(), "bounded below by retransmitMinNs");
        assertEquals(1, engine.heldPackets(), "the probe's answer acknowledges nothing of this call");
        replyWhole(1, pattern(1, 1));
        engine.send(request(10), true, true, now + MS);
        assertEquals(List.of(COMPLETE), rec.take().stream().map(Recorder.Sent::type).toList(), "one probe per interval");
        replyWhole(2, pattern(1, 1));
        now += 1000 * MS;
        engine.send(request(10), true, true, now);
        final List<Recorder.Sent> again = rec.take();
        assertEquals(List.of(RECLAIM, COMPLETE), again.stream().map(Recorder.Sent::type).toList());
        assertEquals(2, again.get(0).call());
    }

    @Test
    void serverAnswersAProbeForTheCallItFinishedAtOnce()
    {
        final ServerEngine server = new ServerEngine(CONFIG, rec, rec, rec);
        server.onPacket(data(COMPLETE, true, 1, 0, false, pattern(3, 1)), now);
        server.send(ByteBuffer.allocate(2), true, now);
        rec.take();
        server.onPacket(control(RECLAIM, 1, ClientEngine.PROBE_MARKER | 7), now);
        final Recorder.Sent ack = rec.only();
        assertEquals(RECLAIM_ACK, ack.type());
        assertEquals(1, ack.call());
        assertEquals(ClientEngine.PROBE_MARKER | 7, ack.packet(), "the answer echoes the probe's marker");
        assertEquals(1, server.heldPackets(), "the reply stays held: a probe is no acknowledgement");
    }

    @Test
    void malformedPacketsAreDroppedAndCountedWithoutAChangeOfState()
    {
        engine.send(request(10), true, true, now);
        rec.take();
        final String before = engine.toString();
        receive(ByteBuffer.wrap(new byte[] {2, 1, 0}));
        final ByteBuffer badType = data(COMPLETE, true, 1, 0, false, new byte[2]);
        badType.put(0, (byte)99);
        receive(badType);
        final ByteBuffer badSize = data(COMPLETE, true, 1, 0, false, new byte[2]);
        badSize.put(3, (byte)11);
        receive(badSize);
        final ByteBuffer badBool = data(COMPLETE, true, 1, 0, false, new byte[2]);
        badBool.put(6, (byte)7);
        receive(badBool);
        receive(control(CALL_ACK, 1, 0));
        receive(data(COMPLETE, true, 9, 0, false, new byte[2]));
        assertEquals(before, engine.toString());
        assertEquals(4, engine.counters().invalidPackets());
        assertEquals(1, engine.counters().truncated());
        assertEquals(1, engine.counters().unknownType());
        assertEquals(1, engine.counters().sizeMismatch());
        assertEquals(1, engine.counters().badBoolean());
        assertEquals(2, engine.counters().unexpected());
        assertEquals(0, rec.sent.size());
        assertEquals(0, rec.deliveredChunks.size());
    }

    @Test
    void callNumbersGoOnPastTheEightBitSequenceField()
    {
        for (int i = 1; i <= 300; i++)
        {
            engine.send(request(1), true, true, now);
            replyWhole(i, pattern(1, i));
        }
        assertEquals(300, rec.messages.size());
        assertEquals(300, engine.callNumber());
    }
}
