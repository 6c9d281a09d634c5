package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The state a leader takes for a joiner at its admission ({@code StateDonor.prepare}), under
 * admissions that never ask for it and a re-admission during a transfer: the joiner still answers
 * every call the client counted it for.
 */
class JoinStateAtStartTest
{
    private static final long MS = GroupHarness.MS;
    private static final long MAX_NS = 60_000 * MS;
    private static final int TOTAL = 400;

    private static boolean has(final int[] ids, final int id)
    {
        return Arrays.stream(ids).anyMatch(x -> x == id);
    }

    private static GroupHarness group(final long seed)
    {
        final GroupHarness h = new GroupHarness(seed, 0, 0);
        h.stateTransfer = true;
        for (final int id : new int[] {1, 2, 3})
        {
            h.addMember(id, new GroupConfig(id, 1, 1, 2, 3));
        }
        return h;
    }

    /**
     * Runs until every call is delivered by the three members and joiner 4, then a second past
     * {@code admittedAtNs[0]} (replies and their ACKs settle).
     *
     * @return the joiner, which delivered exactly what the leader did.
     */
    private static GroupHarness.Member runPastAdmission(final GroupHarness h, final int total, final long[] admittedAtNs)
    {
        h.runUntil(() -> h.allSent() && h.delivered(total, 1, 2, 3) && h.members.containsKey(4) && h.delivered(total, 4), MAX_NS);
        h.runUntil(() -> h.nowNs > admittedAtNs[0] + 1000 * MS, 2 * MAX_NS);
        final GroupHarness.Member joiner = h.members.get(4);
        assertEquals(h.members.get(1).delivered, joiner.delivered);
        return joiner;
    }

    /** Calls of {@code client} with request id >= fromRequest whose view named {@code joiner} and that it never answered. */
    private static List<Integer> unanswered(final GroupHarness.Client client, final int joiner, final int fromRequest)
    {
        final List<Integer> out = new ArrayList<>();
        client.viewAtSend.forEach((requestId, view) ->
        {
            if (requestId >= fromRequest && has(view, joiner) && !client.replies.contains(joiner + ":" + client.id + "/" + requestId))
            {
                out.add(requestId);
            }
        });
        return out;
    }

    /**
     * Four ADDED from ids of nobody's (forged, or joiners that die before they ask) just before a
     * real joiner: each admission takes a state that nobody claims, which would hold one of the donor's
     * four places for twice the KeepAlive timeout. Were a real joiner to get no state prepared (no
     * room) and its ASKs dropped (stateAsksIgnored), it would change donor a KeepAlive
     * timeout later, and the state it then gets is far past its start: every call sent meanwhile,
     * which the client counted it for, would go unanswered. A state nobody claimed makes room.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {51, 52, 54, 55, 57})
    void admissionsThatNeverAskDoNotStarveARealJoiner(final long seed)
    {
        final GroupHarness h = group(seed);
        final GroupHarness.Client client = h.addClient(101, new GroupConfig(101, 1, 1, 2, 3), TOTAL);
        final long[] admittedAtNs = {-1};
        h.when(() -> h.members.get(1).engine.deliveredSeq() >= TOTAL / 4, () ->
        {
            for (int id = 1000; id < 1004; id++)
            {
                final ByteBuffer b = WirePackets.added(id, 1, 0);
                h.members.get(1).engine.onPacket(b, 0, b.capacity(), h.nowNs);
            }
            h.addMember(4, new GroupConfig(4, 1, 1, 2, 3));
        });
        h.when(() -> h.members.containsKey(4) && has(h.members.get(1).engine.currentMembers(), 4), () -> admittedAtNs[0] = h.nowNs);
        final GroupHarness.Member joiner = runPastAdmission(h, TOTAL, admittedAtNs);
        final GroupCounters leader = h.members.get(1).engine.counters();
        final List<Integer> missed = unanswered(client, 4, 0);
        assertEquals("ignored=0 given=1 missed=[]", "ignored=" + leader.stateAsksIgnored() + " given=" + leader.statesGiven() + " missed=" + missed,
            "the leader's four places held states for ADDED that never ask: it dropped the real joiner's ASKs, gave it nothing, and the"
                + " joiner's later state (" + joiner.executions.get(0) + ", from member " + joiner.engine.counters().stateDonorsChanged()
                + " donor change) left counted calls unanswered");
    }

    /**
     * The same without forgery: four replicas whose application keeps no state (no StateHandler:
     * they start at the leader's commit and never ASK) join just before a stateful one. Each
     * admission takes a full state that nobody will claim; the four must not keep the stateful
     * joiner's ASKs out (it would change donor a KeepAlive timeout later, get a state far past
     * its start, and leave every call the client sent it in between unanswered: atomic calls
     * would end NO_QUORUM).
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {51, 52})
    void statelessJoinersDoNotStarveAStatefulOne(final long seed)
    {
        final GroupHarness h = group(seed);
        final GroupHarness.Client client = h.addClient(101, new GroupConfig(101, 1, 1, 2, 3), TOTAL);
        final long[] admittedAtNs = {-1};
        h.when(() -> h.members.get(1).engine.deliveredSeq() >= TOTAL / 4, () ->
        {
            h.stateTransfer = false;
            for (int id = 5; id <= 8; id++)
            {
                h.addMember(id, new GroupConfig(id, 1, 1, 2, 3));
            }
            h.stateTransfer = true;
        });
        h.when(() -> Arrays.stream(new int[] {5, 6, 7, 8}).allMatch(id -> has(h.members.get(1).engine.currentMembers(), id)),
            () -> h.addMember(4, new GroupConfig(4, 1, 1, 2, 3)));
        h.when(() -> h.members.containsKey(4) && has(h.members.get(1).engine.currentMembers(), 4), () -> admittedAtNs[0] = h.nowNs);
        final GroupHarness.Member joiner = runPastAdmission(h, TOTAL, admittedAtNs);
        final GroupCounters leader = h.members.get(1).engine.counters();
        final List<Integer> missed = unanswered(client, 4, 0);
        assertEquals("ignored=0 missed=[]", "ignored=" + leader.stateAsksIgnored() + " missed=" + (missed.isEmpty() ? "[]" : missed.size() + " calls " + missed.get(0) + ".." + missed.get(missed.size() - 1)),
            "four stateless joiners' unclaimed states held the leader's places; the stateful joiner's state was " + joiner.executions.get(0)
                + " after " + joiner.engine.counters().stateDonorsChanged() + " donor change(s)");
    }

    private static boolean isState(final ByteBuffer b, final int offset)
    {
        final org.lightwire.romiop.protocol.PacketHeader_1_0 header = new org.lightwire.romiop.protocol.PacketHeader_1_0().wrap(b, offset);
        return header.typeCode() == org.lightwire.romiop.protocol.PacketType.STATE.code();
    }

    /**
     * A joiner is removed while it fetches the state it claimed (its CHUNKs do not get through,
     * then nothing of it reaches the leader for a KeepAlive timeout), and is re-admitted while the
     * leader still holds that state (taken at its first start, claimed by its transfer). The
     * re-admission starts it at the leader's commit now, and the state held is below that start:
     * the leader takes one at the new start, which the joiner's ASK (same transfer, minCut raised)
     * claims. Taken at the ASK instead, it would hold the calls the client sent once the second
     * LIST named the joiner, ordered before that (8 ms late) ASK, and they would go unanswered.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {51, 52, 54, 55, 57})
    void aJoinerReadmittedWhileItFetchesRepliesToEveryCallSentOnceCountedAgain(final long seed)
    {
        final GroupHarness h = group(seed);
        final GroupHarness.Client client = h.addClient(101, new GroupConfig(101, 1, 1, 2, 3), 3 * TOTAL);
        h.sendIntervalNs = MS / 2;
        // 0: before; 1: admitted (leader's CHUNKs to 4 lost); 2: 4 cut from the leader; 3: removed; 4: re-admitted.
        final int[] phase = {0};
        final long[] readmittedAtNs = {-1};
        final int[] sentAtReadmission = {-1};
        h.when(() -> h.members.get(1).engine.deliveredSeq() >= TOTAL / 4, () ->
        {
            final GroupHarness.Member j = h.addMember(4, new GroupConfig(4, 1, 1, 2, 3));
            h.net.attachMember(4, (b, o, l, t) ->
            {
                if (phase[0] >= 1 && phase[0] <= 3 && isState(b, o))
                {
                    return;
                }
                j.engine.onPacket(b, o, l, t);
            });
            for (final int donor : new int[] {2, 3})
            {
                final GroupHarness.Member d = h.members.get(donor);
                // Only the leader gives 4 a state (the other members never see its ASKs).
                h.net.attachMember(donor, (b, o, l, t) ->
                {
                    if (isState(b, o))
                    {
                        return;
                    }
                    d.engine.onPacket(b, o, l, t);
                });
            }
        });
        final long[] admittedAtNs = {-1};
        h.when(() -> h.members.containsKey(4) && has(h.members.get(1).engine.currentMembers(), 4), () ->
        {
            phase[0] = 1;
            admittedAtNs[0] = h.nowNs;
        });
        h.when(() -> phase[0] == 1 && h.members.get(1).engine.counters().statesCaptured() > 0 && h.nowNs > admittedAtNs[0] + 10 * MS, () -> phase[0] = 2);
        h.when(() -> phase[0] == 2 && !has(h.members.get(1).engine.currentMembers(), 4), () -> phase[0] = 3);
        h.when(() -> phase[0] == 3 && has(h.members.get(1).engine.currentMembers(), 4), () ->
        {
            phase[0] = 4;
            readmittedAtNs[0] = h.nowNs;
            sentAtReadmission[0] = client.sent;
        });
        h.net.linkFilter((from, to) -> !(from == 4 && to == 1 && (phase[0] == 2 || phase[0] == 4 && h.nowNs - readmittedAtNs[0] < 8 * MS)));
        final GroupHarness.Member joiner = runPastAdmission(h, 3 * TOTAL, readmittedAtNs);
        final GroupCounters leader = h.members.get(1).engine.counters();
        final List<Integer> missed = unanswered(client, 4, sentAtReadmission[0]);
        assertEquals(4, phase[0], "the joiner was removed and re-admitted");
        assertEquals(List.of(), missed, "calls counted for the re-admitted joiner that it never answered (its state " + joiner.executions.get(0) + ")");
    }
}
