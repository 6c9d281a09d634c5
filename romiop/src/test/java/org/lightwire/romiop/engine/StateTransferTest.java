package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.romiop.engine.OneEngine.feed;
import static org.lightwire.romiop.engine.WirePackets.keepAlive;
import static org.lightwire.romiop.engine.WirePackets.list;
import static org.lightwire.romiop.engine.WirePackets.order;
import static org.lightwire.romiop.engine.WirePackets.request;
import static org.lightwire.romiop.engine.WirePackets.start;
import static org.lightwire.romiop.engine.WirePackets.stateChunk;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.StateFlyweight;

/**
 * State transfer: a member that joins past orders it did not execute takes a state at a cut of
 * the order and executes from the order after the cut, so its application ends up as every other
 * member's. Whole groups over the simulated network ({@link GroupHarness} with state), and one
 * engine fed by hand for the rules a group run cannot pin down.
 */
class StateTransferTest
{
    private static final long MS = GroupHarness.MS;
    private static final long MAX_NS = 60_000 * MS;
    private static final int PER_CLIENT = 200;
    private static final int TOTAL = 2 * PER_CLIENT;

    private static GroupHarness group(final long seed, final int... memberIds)
    {
        final GroupHarness h = new GroupHarness(seed, 0.05, 0.03);
        h.stateTransfer = true;
        for (final int id : memberIds)
        {
            h.addMember(id, new GroupConfig(id, memberIds[0], memberIds));
        }
        h.addClient(101, new GroupConfig(101, memberIds[0], memberIds), PER_CLIENT);
        h.addClient(102, new GroupConfig(102, memberIds[0], memberIds), PER_CLIENT);
        return h;
    }

    /** The joiner's application: one state installed first, then every order after its cut, one by one, to {@code TOTAL}. */
    private static void assertStateThenEveryOrderAfterIt(final GroupHarness.Member joiner)
    {
        final String first = joiner.executions.get(0);
        assertTrue(first.startsWith("S"), "the joiner executed " + first + " before it had a state");
        final long cut = Long.parseLong(first.substring(1));
        final List<String> expected = new ArrayList<>();
        expected.add(first);
        LongStream.rangeClosed(cut + 1, TOTAL).forEach(seq -> expected.add(Long.toString(seq)));
        assertEquals(expected, joiner.executions);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {41, 42, 43})
    void aJoinerTakesAStateAtACutThenExecutesOnlyTheOrdersAfterIt(final long seed)
    {
        final GroupHarness h = group(seed, 1, 2, 3);
        h.when(() -> h.members.get(1).engine.deliveredSeq() >= TOTAL / 4, () -> h.addMember(4, new GroupConfig(4, 1, 1, 2, 3)));
        h.runUntil(() -> h.clientsIdle() && h.delivered(TOTAL, 1, 2, 3) && h.members.containsKey(4) && h.delivered(TOTAL, 4), MAX_NS);

        final GroupHarness.Member joiner = h.members.get(4);
        assertEquals(TOTAL, h.members.get(1).delivered.size());
        assertEquals(h.members.get(1).delivered, joiner.delivered, "the joiner's application holds every request, in the same places");
        assertEquals(h.members.get(2).delivered, joiner.delivered);
        assertStateThenEveryOrderAfterIt(joiner);
        assertTrue(Long.parseLong(joiner.executions.get(0).substring(1)) >= TOTAL / 4);
        assertEquals(1, joiner.engine.counters().stateTransfers());
        assertEquals(1, joiner.engine.counters().statesInstalled());
        // The leader takes a state when it admits the joiner, at its start; a joiner that missed the
        // start KeepAlive and started at a later one asks for a later cut, and a second is taken.
        final long captured = h.members.get(1).engine.counters().statesCaptured();
        assertTrue(captured == 1 || captured == 2, "the leader that admitted it gave it: " + captured);
        assertEquals(1, h.members.get(1).engine.counters().statesGiven());
        assertEquals(0, joiner.engine.counters().takeoverSkips());
    }

    /**
     * A client counts a joiner's reply for every call it sends once the leader's LIST names the
     * joiner (atomic consolidation waits for it). The joiner's first ASK is lost, so it reaches the
     * leader one retransmission later, after the leader ordered and executed calls the client sent
     * meanwhile: a state taken at the ASK (its cut past the joiner's start) holds those calls, and
     * the joiner never executes them nor replies to them. The state must be the one at its start.
     * (In seeds 53 and 56 the leader's start KeepAlive overtakes the LIST that admits the joiner:
     * it keeps the start until the LIST comes.)
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {51, 52, 53, 54, 55, 56, 57})
    void aJoinerRepliesToEveryCallSentOnceTheClientCountsItEvenWhenItsFirstAskIsLost(final long seed)
    {
        joinerAnswersEveryCallCountedForIt(seed);
    }

    private static void joinerAnswersEveryCallCountedForIt(final long seed)
    {
        final GroupHarness h = new GroupHarness(seed, 0, 0);
        h.stateTransfer = true;
        for (final int id : new int[] {1, 2, 3})
        {
            h.addMember(id, new GroupConfig(id, 1, 1, 2, 3));
        }
        final GroupHarness.Client client = h.addClient(101, new GroupConfig(101, 1, 1, 2, 3), TOTAL);
        final long[] admittedAtNs = {-1};
        // The joiner's packets to the leader are lost for 8 ms after the leader admits it (its first ASK among them).
        h.net.linkFilter((from, to) -> !(from == 4 && to == 1 && admittedAtNs[0] >= 0 && h.nowNs - admittedAtNs[0] < 8 * MS));
        h.when(() -> h.members.get(1).engine.deliveredSeq() >= TOTAL / 4, () -> h.addMember(4, new GroupConfig(4, 1, 1, 2, 3)));
        h.when(() -> h.members.containsKey(4) && java.util.Arrays.stream(h.members.get(1).engine.currentMembers()).anyMatch(id -> id == 4),
            () -> admittedAtNs[0] = h.nowNs);
        h.runUntil(() -> h.allSent() && h.delivered(TOTAL, 1, 2, 3) && h.members.containsKey(4) && h.delivered(TOTAL, 4), MAX_NS);
        h.runUntil(() -> h.nowNs > admittedAtNs[0] + 1000 * MS, 2 * MAX_NS);

        final GroupHarness.Member joiner = h.members.get(4);
        assertEquals(h.members.get(1).delivered, joiner.delivered);
        final long start = h.members.get(1).delivered.entrySet().stream()
            .filter(e -> java.util.Arrays.stream(client.viewAtSend.get(Integer.parseInt(e.getValue().substring(4)))).anyMatch(id -> id == 4))
            .mapToLong(java.util.Map.Entry::getKey).min().orElseThrow();
        final List<Integer> unanswered = new ArrayList<>();
        client.viewAtSend.forEach((requestId, view) ->
        {
            if (java.util.Arrays.stream(view).anyMatch(id -> id == 4) && !client.replies.contains("4:101/" + requestId))
            {
                unanswered.add(requestId);
            }
        });
        assertTrue(client.viewAtSend.values().stream().filter(v -> java.util.Arrays.stream(v).anyMatch(id -> id == 4)).count() > 100);
        assertEquals(List.of(), unanswered, "calls the client counted the joiner for, which it never answered (the joiner's state "
            + joiner.executions.get(0) + ", the first of those calls ordered at " + start + ")");
        assertTrue(joiner.engine.counters().stateTransfers() == 1, joiner.engine.counters().toString());
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {44, 45})
    void aRestartedReplicaGetsBackEverythingItsEarlierLifeAndTheGroupExecuted(final long seed)
    {
        final GroupHarness h = group(seed, 1, 2, 3);
        h.when(() -> h.members.get(3).engine.deliveredSeq() >= TOTAL / 4, () -> h.crash(3));
        h.when(() -> h.members.get(1).engine.deliveredSeq() >= TOTAL / 2, () -> h.addMember(3, GroupConfig.joining(3, 1, 2, 3)));
        h.runUntil(() -> h.clientsIdle() && h.delivered(TOTAL, 1, 2) && h.members.get(3).alive && h.delivered(TOTAL, 3), MAX_NS);

        final GroupHarness.Member restarted = h.members.get(3);
        assertEquals(TOTAL, restarted.delivered.size());
        assertEquals(h.members.get(1).delivered, restarted.delivered);
        assertStateThenEveryOrderAfterIt(restarted);
        assertEquals(1, restarted.engine.counters().statesInstalled());
    }

    @Test
    void aDonorCrashedWhileTakingItsStateIsReplacedByTheNextMember()
    {
        final GroupHarness h = group(46, 1, 2, 3);
        h.when(() -> h.members.get(1).engine.deliveredSeq() >= TOTAL / 4, () -> h.addMember(4, new GroupConfig(4, 1, 1, 2, 3)));
        // Registered first, so it runs before the leader's application answers: that answer never comes.
        h.when(() -> h.members.get(1).engine.counters().statesCaptured() == 1, () -> h.crash(1));
        h.runUntil(() -> h.clientsIdle() && h.delivered(TOTAL, 2, 3) && h.members.containsKey(4) && h.delivered(TOTAL, 4), MAX_NS);

        final GroupHarness.Member joiner = h.members.get(4);
        assertEquals(TOTAL, joiner.delivered.size());
        assertEquals(h.members.get(2).delivered, joiner.delivered);
        assertStateThenEveryOrderAfterIt(joiner);
        assertEquals(0, h.members.get(1).engine.counters().statesGiven());
        assertTrue(joiner.engine.counters().stateDonorsChanged() >= 1, joiner.engine.counters().toString());
        assertEquals(1, h.members.get(2).engine.counters().statesGiven() + h.members.get(3).engine.counters().statesGiven());
    }

    @Test
    void aJoinerRefusedAStateLeavesAndExecutesNothing()
    {
        final GroupHarness h = group(47, 1, 2, 3);
        final String reason = "member 1's servant does not implement Checkpointable";
        h.members.values().forEach(m -> m.unavailable = reason);
        h.when(() -> h.members.get(1).engine.deliveredSeq() >= TOTAL / 4, () -> h.addMember(4, new GroupConfig(4, 1, 1, 2, 3)));
        h.runUntil(() -> h.clientsIdle() && h.delivered(TOTAL, 1, 2, 3) && h.members.containsKey(4) &&
            h.members.get(4).engine.state() == MemberEngine.State.LEFT, MAX_NS);

        final GroupHarness.Member joiner = h.members.get(4);
        assertEquals(List.of(reason), joiner.refusals, "told once, when every member had refused");
        assertEquals(List.of(), joiner.executions);
        assertEquals(3, joiner.engine.counters().stateRefusalsReceived(), "members 1, 2 and 3 asked in turn");
        for (final int id : new int[] {1, 2, 3})
        {
            assertEquals(1, h.members.get(id).engine.counters().statesRefused(), "member " + id);
        }
    }

    @Test
    void aJoinerOfAGroupThatExecutedNothingNeedsNoState()
    {
        final GroupHarness h = new GroupHarness(48, 0.05, 0.03);
        h.stateTransfer = true;
        for (final int id : new int[] {1, 2, 3})
        {
            h.addMember(id, new GroupConfig(id, 1, 1, 2, 3));
        }
        h.members.values().forEach(m -> m.unavailable = "never asked");
        h.addMember(4, new GroupConfig(4, 1, 1, 2, 3));
        h.runUntil(() -> h.members.get(4).engine.state() == MemberEngine.State.MEMBER, MAX_NS);
        h.addClient(101, new GroupConfig(101, 1, 1, 2, 3, 4), PER_CLIENT);
        h.addClient(102, new GroupConfig(102, 1, 1, 2, 3, 4), PER_CLIENT);
        h.runUntil(() -> h.clientsIdle() && h.delivered(TOTAL, 1, 2, 3, 4), MAX_NS);
        assertEquals(0, h.members.get(4).engine.counters().stateTransfers());
        assertEquals(h.members.get(1).delivered, h.members.get(4).delivered);
    }

    // ---------------------------------------------------------------------------------------------
    // One engine, fed by hand.

    private final SentPackets sent = new SentPackets();
    private final List<String> executed = new ArrayList<>();
    private final List<String> installed = new ArrayList<>();
    private final List<String> refused = new ArrayList<>();

    private MemberEngine joinerAdmittedAt(final long commit, final GroupConfig config)
    {
        final MemberEngine m = OneEngine.started(config, sent,
            (seq, client, packetId, requestId, payload, offset, length) -> executed.add(seq + ":" + client + "/" + packetId),
            new StateHandler()
            {
                @Override
                public void captureState(final long cut)
                {
                    throw new AssertionError("not a donor here");
                }

                @Override
                public void installState(final long cut, final byte[] state)
                {
                    installed.add(cut + ":" + new String(state, StandardCharsets.US_ASCII));
                }

                @Override
                public void stateRefused(final String reason)
                {
                    refused.add(reason);
                }
            });
        feed(m, list(1, 80, 2, 4 | MemberChangeFlyweight.LEARNER), MS);
        feed(m, start(1, 81, 1, commit, commit), 2 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        return m;
    }

    private List<StateFlyweight> asks()
    {
        final List<StateFlyweight> list = new ArrayList<>();
        for (final SentPackets.Sent s : sent.ofType(PacketType.STATE))
        {
            final StateFlyweight f = new StateFlyweight();
            f.wrap(s.bytes(), 0);
            list.add(f);
        }
        return list;
    }

    /** A state image as a donor writes it: its executed requests, then the application's bytes. */
    static byte[] image(final DuplicateFilter executedThere, final String app)
    {
        final ByteBuffer engine = ByteBuffer.allocate(executedThere.imageBytes());
        executedThere.writeImage(engine);
        final byte[] a = app.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(4 + engine.capacity() + a.length).putInt(engine.capacity()).put(engine.array()).put(a).array();
    }

    @Test
    void aRequestTheStateExecutedIsNotExecutedAgainWhenALaterLeaderOrdersItAgain()
    {
        final MemberEngine m = joinerAdmittedAt(10, GroupConfig.joining(4));
        final StateFlyweight ask = asks().get(0);
        assertEquals(StateFlyweight.ASK, ask.kind());
        assertEquals(10, ask.cut());
        assertEquals(1, sent.ofType(PacketType.STATE).get(0).to(), "the leader that admitted it is asked first");

        // Order 11 comes before the state: accepted, not executed.
        feed(m, request(100, 6), 3 * MS);
        feed(m, order(1, 82, 1, 11, 100, 6, 11), 3 * MS);
        assertEquals(List.of(), executed);

        final DuplicateFilter there = new DuplicateFilter(1024, 16, new GroupCounters());
        there.finish(100, 5);
        final byte[] state = image(there, "app");
        feed(m, stateChunk(1, 83, 10, 0, state.length, state), 4 * MS);
        assertEquals(List.of("10:app"), installed);
        assertEquals(List.of("11:100/6"), executed, "order 11 right after the cut");
        final StateFlyweight done = asks().get(asks().size() - 1);
        assertEquals(state.length, done.stateOffset(), "the last ASK tells the donor it has it all");

        // A new leader orders request 5 again (its client resent it): executed in the state, skipped here.
        // (Its order first: a request this member finished comes in only when an order names it.)
        feed(m, order(1, 84, 1, 12, 100, 5, 12), 5 * MS);
        feed(m, request(100, 5), 5 * MS);
        feed(m, request(100, 7), 5 * MS);
        feed(m, order(1, 85, 1, 13, 100, 7, 13), 5 * MS);
        assertEquals(List.of("11:100/6", "13:100/7"), executed);
        assertEquals(1, m.counters().reorderedRequestsSkipped());
        assertEquals(13, m.deliveredSeq());
    }

    @Test
    void aMemberRemovedWhileItAwaitsAStateAsksNoMoreAndItsTimerMovesOnThenItAsksAgainOnceReadmitted()
    {
        final MemberEngine m = joinerAdmittedAt(10, GroupConfig.joining(4));
        feed(m, list(1, 90, 2), 3 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        final int asksBefore = asks().size();
        for (long t = 3 * MS; t <= 200 * MS; t += MS)
        {
            m.onTimer(t);
            assertTrue(m.nextDeadlineNs() - t > 0, "a deadline in the past at " + t + " ns: the driver would spin");
        }
        assertEquals(asksBefore, asks().size(), "no ASK while it is no member");
        feed(m, list(1, 91, 2, 4 | MemberChangeFlyweight.LEARNER), 201 * MS);
        feed(m, start(1, 92, 1, 10, 10), 202 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        assertEquals(asksBefore + 1, asks().size(), "it still awaits its state, and asks at once");
        assertEquals(1, m.counters().stateTransfers(), "the same transfer");
    }

    @Test
    void aRefusedJoinerAsksTheNextMemberAndStopsWithoutLeavingTheConfigurationWhenAllRefused()
    {
        final MemberEngine m = joinerAdmittedAt(10, GroupConfig.joining(4));
        feed(m, WirePackets.stateRefused(1, 90, 10, "member 1's get_state failed"), 3 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state(), "member 2 may give what 1 cannot");
        assertEquals(2, sent.ofType(PacketType.STATE).get(sent.ofType(PacketType.STATE).size() - 1).to(), "it asks member 2 at once");
        assertEquals(List.of(), refused);
        feed(m, WirePackets.stateRefused(2, 91, 10, "member 2's servant does not implement Checkpointable"), 4 * MS);
        assertEquals(List.of("member 2's servant does not implement Checkpointable"), refused);
        assertEquals(MemberEngine.State.LEFT, m.state());
        assertEquals(0, sent.memberChanges().stream().filter(c -> c.status() == org.lightwire.romiop.protocol.MemberChangeFlyweight.STATUS_REMOVED)
            .count(), "no REMOVED of itself: it stays in the configuration, counted as failed");
    }

    @Test
    void chunksFromAnotherMemberOrOutOfSequenceAreDroppedAndTheStateIsAssembledInOrder()
    {
        final MemberEngine m = joinerAdmittedAt(10, GroupConfig.joining(4).maxPacketBytes(512));
        final byte[] state = image(new DuplicateFilter(1024, 16, new GroupCounters()), "x".repeat(1000));
        final int chunk = 512 - StateFlyweight.HEADER_LENGTH;
        feed(m, stateChunk(2, 90, 10, 0, state.length, java.util.Arrays.copyOfRange(state, 0, chunk)), 3 * MS);
        assertEquals(1, m.counters().staleStateChunks(), "member 2 is not the donor asked");
        feed(m, stateChunk(1, 91, 10, chunk, state.length, java.util.Arrays.copyOfRange(state, chunk, 2 * chunk)), 3 * MS);
        assertEquals(2, m.counters().staleStateChunks(), "the first chunk is missing");
        for (int offset = 0; offset < state.length; offset += chunk)
        {
            feed(m, stateChunk(1, 92 + offset, 10, offset, state.length, java.util.Arrays.copyOfRange(state, offset, Math.min(state.length, offset + chunk))),
                4 * MS);
        }
        assertEquals(List.of("10:" + "x".repeat(1000)), installed);
        assertEquals(3, m.counters().stateChunksReceived());
    }

    @Test
    void aStateLargerThanMaxStateBytesIsRefusedByTheJoinerWhichLeaves()
    {
        final MemberEngine m = joinerAdmittedAt(10, GroupConfig.joining(4).maxStateBytes(100));
        feed(m, stateChunk(1, 90, 10, 0, 101, new byte[50]), 3 * MS);
        assertEquals(1, refused.size());
        assertTrue(refused.get(0).contains("101 bytes") && refused.get(0).contains("maxStateBytes (100, jacorb.lightwire.romiop.max_state_bytes)"),
            refused.get(0));
        assertEquals(MemberEngine.State.LEFT, m.state());
        assertEquals(List.of(), installed);
    }

    @Test
    void aMalformedStateIsRefusedNotInstalled()
    {
        final MemberEngine m = joinerAdmittedAt(10, GroupConfig.joining(4));
        final byte[] state = ByteBuffer.allocate(12).putInt(8).putInt(5).putInt(0).array();
        feed(m, stateChunk(1, 90, 10, 0, state.length, state), 3 * MS);
        assertEquals(List.of(), installed);
        assertEquals(1, refused.size());
        assertTrue(refused.get(0).startsWith("member 1's state after order 10 is malformed: "), refused.get(0));
        assertEquals(MemberEngine.State.LEFT, m.state());
    }

    @Test
    void aJoinerThatLostNothingNeedsNoState()
    {
        final MemberEngine m = OneEngine.started(GroupConfig.joining(4), sent, (seq, c, p, r, b, o, l) -> { }, new StateHandler()
        {
            @Override
            public void captureState(final long cut)
            {
            }

            @Override
            public void installState(final long cut, final byte[] state)
            {
            }

            @Override
            public void stateRefused(final String reason)
            {
            }
        });
        feed(m, list(1, 80, 2, 4 | MemberChangeFlyweight.LEARNER), MS);
        feed(m, start(1, 81, 1, 0, 0), 2 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        assertEquals(0, m.counters().stateTransfers());
        assertEquals(List.of(), sent.ofType(PacketType.STATE));
    }
}
