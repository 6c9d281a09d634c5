package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.romiop.engine.OneEngine.feed;
import static org.lightwire.romiop.engine.WirePackets.keepAlive;
import static org.lightwire.romiop.engine.WirePackets.list;
import static org.lightwire.romiop.engine.WirePackets.start;
import static org.lightwire.romiop.engine.WirePackets.stateChunk;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/**
 * State transfer against what goes wrong around it: a joiner re-admitted by another leader
 * mid-transfer, a donor that forgot the state an ASK's offset was into, applications slower to
 * capture than the KeepAlive timeout, a member awaiting its state when its leader fails, a
 * takeover whose state donor fails. Each test failed before the rule it pins down was built.
 */
class StateTransferFaultsTest
{
    private static final long MS = GroupHarness.MS;

    // ---------------------------------------------------------------------------------------------
    // One engine, fed by hand.

    private final SentPackets sent = new SentPackets();
    private final List<String> executed = new ArrayList<>();
    private final List<String> installed = new ArrayList<>();
    private final List<String> refused = new ArrayList<>();

    private MemberEngine engine(final GroupConfig config)
    {
        return OneEngine.started(config, sent,
            (seq, client, packetId, requestId, payload, offset, length) -> executed.add(seq + ":" + client + "/" + packetId),
            new StateHandler()
            {
                @Override
                public void captureState(final long cut)
                {
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
    }

    /** A state image as a donor writes it: an empty executed-request filter, then the application's bytes. */
    private static byte[] image(final String app)
    {
        return StateTransferTest.image(new DuplicateFilter(1024, 16, new GroupCounters()), app);
    }

    /**
     * A joiner has the first part of leader 1's state at cut 10 when it is removed; leader 2 (a
     * newer epoch) re-admits it at the same start, and it asks member 2 now. Member 2's state
     * after order 10 holds the same entries serialized in another order (a hash map's, say), of
     * the same length: a chunk of it from the joiner's offset would fit, and half of one state
     * with half of the other is neither. The joiner drops what it had from another donor (and
     * each chunk names its state), so it installs one donor's state whole, or none.
     */
    @Test
    void aStateIsNeverAssembledFromTwoDonors()
    {
        final MemberEngine m = engine(GroupConfig.joining(4));
        feed(m, list(1, 80, 2, 4 | MemberChangeFlyweight.LEARNER), MS);
        feed(m, start(1, 81, 1, 10, 10), 2 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());

        final byte[] at1 = image("k1=a;k2=b;");
        final byte[] at2 = image("k2=b;k1=a;");
        assertEquals(at1.length, at2.length);
        final int half = at1.length - 5;
        feed(m, stateChunk(1, 82, 10, 0, at1.length, Arrays.copyOfRange(at1, 0, half)), 3 * MS);

        // Removed by leader 1, then admitted by leader 2 in epoch 2 at the same start.
        feed(m, list(1, 90, 2), 4 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        feed(m, list(2, 91, 4 | MemberChangeFlyweight.LEARNER), 5 * MS);
        feed(m, start(2, 92, 2, 10, 10), 6 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        assertEquals(1, m.counters().stateTransfers(), "still the same transfer");

        feed(m, stateChunk(2, 93, 10, half, at2.length, Arrays.copyOfRange(at2, half, at2.length)), 7 * MS);
        assertTrue(installed.isEmpty() || installed.equals(List.of("10:k1=a;k2=b;")) || installed.equals(List.of("10:k2=b;k1=a;")),
            "installed a state neither donor had: " + installed);
    }

    /**
     * A member awaiting its state has nothing to lead with: when its leader fails it passes
     * itself over (the others pass it over too when its takeover does not come) and reports to
     * the next member's takeover. Were it to take over, its delivered sequence, its start point,
     * would make it the holder of what is fixed, though it executed none of it.
     */
    @Test
    void aMemberAwaitingItsStateTakesNothingOverAndReportsToTheNextMember()
    {
        // A restarted member of [1, 2, 3]: it learns two others' epochs before it is admitted.
        final MemberEngine m = engine(GroupConfig.joining(2, 1, 2, 3));
        final int nonce = sent.lastEpochAskNonce();
        feed(m, WirePackets.leaderTold(1, 70, 2, nonce, 1, 10), 0);
        feed(m, WirePackets.epochTold(3, 71, 2, nonce, 1), 0);
        feed(m, list(1, 80, 2, 3), MS);
        feed(m, start(1, 81, 1, 10, 10), 2 * MS);
        assertEquals(MemberEngine.State.MEMBER, m.state());
        assertEquals(1, m.counters().stateTransfers());
        // Leader 1 is silent from now on.
        for (long t = 3 * MS; t < 400 * MS; t += MS)
        {
            m.onTimer(t);
        }
        assertEquals(MemberEngine.State.MEMBER, m.state(), "it is the lowest id after 1, but awaits its state");
        assertEquals(0, m.counters().recoveries());
        feed(m, WirePackets.takeover(3, 1, 2, 1, 8), 400 * MS);
        assertEquals(3, m.leaderId(), "it follows member 3's takeover");
        assertEquals(1, m.counters().reportsSent());
    }

    /**
     * A small lossless group whose applications answer captureState {@code captureNs} later (an
     * application that queues get_state behind its backlog, or has a large state).
     */
    private static final class SlowCaptureGroup
    {
        final SimulatedGroupNetwork net = new SimulatedGroupNetwork(7, new int[0], 0.0, 0.0, 50_000L, 100_000L);
        final java.util.Map<Integer, MemberEngine> members = new java.util.TreeMap<>();
        final java.util.Map<Integer, List<String>> apps = new java.util.TreeMap<>();
        final java.util.TreeMap<Long, List<Runnable>> scheduled = new java.util.TreeMap<>();
        final long captureNs;
        long nowNs;
        GroupClientEngine client;
        int sentRequests;
        int toSend = 20;

        SlowCaptureGroup(final long captureNs)
        {
            this.captureNs = captureNs;
        }

        void at(final long atNs, final Runnable r)
        {
            scheduled.computeIfAbsent(atNs, k -> new ArrayList<>()).add(r);
        }

        MemberEngine add(final int id, final GroupConfig config)
        {
            final List<String> app = new ArrayList<>();
            apps.put(id, app);
            final MemberEngine[] self = new MemberEngine[1];
            self[0] = new MemberEngine(GroupHarness.tuned(config), net.senderFor(id), (seq, c, packetId, requestId, payload, offset, length) ->
            {
                app.add(Long.toString(seq));
                final byte[] answer = "ok".getBytes(StandardCharsets.US_ASCII);
                self[0].sendReply(c, packetId, requestId, ByteBuffer.wrap(answer), 0, answer.length, nowNs);
            }, new StateHandler()
            {
                @Override
                public void captureState(final long cut)
                {
                    final byte[] image = String.join(",", app).getBytes(StandardCharsets.US_ASCII);
                    at(nowNs + captureNs, () -> self[0].stateCaptured(cut, image, nowNs));
                }

                @Override
                public void installState(final long cut, final byte[] state)
                {
                    app.clear();
                    app.add("S" + cut);
                }

                @Override
                public void stateRefused(final String reason)
                {
                    app.add("refused: " + reason);
                }
            });
            members.put(id, self[0]);
            net.attachMember(id, self[0]::onPacket);
            self[0].start(nowNs);
            return self[0];
        }

        void runUntil(final long untilNs, final java.util.function.BooleanSupplier done)
        {
            while (nowNs < untilNs && !done.getAsBoolean())
            {
                long next = Math.min(net.nextDeliveryNs(), scheduled.isEmpty() ? Long.MAX_VALUE : scheduled.firstKey());
                for (final MemberEngine m : members.values())
                {
                    next = Math.min(next, m.nextDeadlineNs());
                }
                if (client != null)
                {
                    next = Math.min(next, client.nextDeadlineNs());
                    if (sentRequests < toSend && client.canMulticast())
                    {
                        next = Math.min(next, nowNs + 100_000L);
                    }
                }
                nowNs = Math.max(nowNs, Math.min(next, untilNs));
                net.deliverDue(nowNs);
                while (!scheduled.isEmpty() && scheduled.firstKey() <= nowNs)
                {
                    scheduled.pollFirstEntry().getValue().forEach(Runnable::run);
                }
                if (client != null && sentRequests < toSend && client.canMulticast())
                {
                    final byte[] payload = new byte[] {1};
                    client.multicast(sentRequests++, 3, ByteBuffer.wrap(payload), 0, 1, nowNs);
                }
                for (final MemberEngine m : members.values())
                {
                    if (m.nextDeadlineNs() - nowNs <= 0)
                    {
                        m.onTimer(nowNs);
                    }
                }
                if (client != null && client.nextDeadlineNs() - nowNs <= 0)
                {
                    client.onTimer(nowNs);
                }
            }
        }
    }

    /**
     * The applications take 150 ms to answer captureState, more than the KeepAlive timeout
     * (100 ms; a large state, or a backlog ahead of get_state). A donor answers each ASK with
     * CAPTURING meanwhile, so the joiner stays with it instead of trying the next member every
     * timeout (and coming back after the first had forgotten its state): it gets its state, and
     * one capture serves.
     */
    @Test
    void aJoinerGetsAStateWhenCapturingTakesLongerThanTheKeepAliveTimeout()
    {
        final SlowCaptureGroup g = new SlowCaptureGroup(150 * MS);
        for (final int id : new int[] {1, 2, 3})
        {
            g.add(id, new GroupConfig(id, 1, 1, 2, 3));
        }
        g.client = new GroupClientEngine(new GroupConfig(101, 1, 1, 2, 3).retransmitTimeoutNs(5 * MS), g.net.senderFor(101));
        g.net.attach(101, g.client::onPacket);
        g.runUntil(2_000 * MS, () -> g.members.get(1).deliveredSeq() >= 20);
        assertEquals(20, g.members.get(1).deliveredSeq());
        final MemberEngine joiner = g.add(4, new GroupConfig(4, 1, 1, 2, 3));
        g.runUntil(g.nowNs + 10_000 * MS, () -> joiner.counters().statesInstalled() > 0);
        final long captures = g.members.values().stream().mapToLong(m -> m.counters().statesCaptured()).sum();
        assertEquals(1, joiner.counters().statesInstalled(), "after 10 s the joiner has no state; the members took " + captures + " states for it");
    }

    /** Control for the test above: an application that answers in 2 ms gives the joiner its state. */
    @Test
    void controlAJoinerGetsAStateWhenCapturingIsQuick()
    {
        final SlowCaptureGroup g = new SlowCaptureGroup(2 * MS);
        for (final int id : new int[] {1, 2, 3})
        {
            g.add(id, new GroupConfig(id, 1, 1, 2, 3));
        }
        g.client = new GroupClientEngine(new GroupConfig(101, 1, 1, 2, 3).retransmitTimeoutNs(5 * MS), g.net.senderFor(101));
        g.net.attach(101, g.client::onPacket);
        g.runUntil(2_000 * MS, () -> g.members.get(1).deliveredSeq() >= 20);
        final MemberEngine joiner = g.add(4, new GroupConfig(4, 1, 1, 2, 3));
        g.runUntil(g.nowNs + 10_000 * MS, () -> joiner.counters().statesInstalled() > 0);
        assertEquals(1, joiner.counters().statesInstalled());
    }

    /** Member 2 of [1..5], which delivered orders 1..5 of leader 1 and took over when 1 fell silent. */
    private MemberEngine takeoverByMember2()
    {
        return OneEngine.takingOverAfterFive(engine(new GroupConfig(2, 1, 1, 2, 3, 4, 5)));
    }

    /**
     * Member 2 takes over; member 3 reported the highest delivered sequence (12) but serves orders
     * from 11 on only, so member 2 awaits a state from it. Member 3 then fails; members 4 and 5
     * delivered 6. Orders up to 12 are committed (member 3 delivered them): a fresh takeover with
     * the reports of 4 and 5 could fix less and order other requests there. So member 2 never
     * starts over below 12: it asks the others for the state in turn, and while no holder is left
     * it proposes newer epochs (so that a holder that left its view reports again), each time
     * with 12 as its target.
     */
    @Test
    void aTakeoverWhoseHolderFailsNeverStartsOverBelowWhatItFixed()
    {
        final MemberEngine m = takeoverByMember2();
        final long t = 400 * MS;
        feed(m, WirePackets.reportEnd(3, 500, 2, 12, 12, 0), t);
        feed(m, WirePackets.reportEnd(4, 501, 2, 6, 6, 0), t);
        feed(m, WirePackets.reportEnd(5, 501, 2, 6, 6, 0), t);
        feed(m, WirePackets.servesFrom(3, 502, 2, 12, 11), t + MS);
        assertEquals(1, m.counters().stateTransfers(), "it awaits a state from member 3");
        int pid = 600;
        final java.util.Set<String> targets = new java.util.TreeSet<>();
        for (long u = t + 2 * MS; u < t + 5_000 * MS; u += MS)
        {
            final String proposing = m.deliverySummary().replaceAll(".*proposing epoch ", "");
            if (u % (20 * MS) == 0 && !proposing.equals(m.deliverySummary()))
            {
                // 4 and 5 report to each proposal, as members do.
                final int epoch = Integer.parseInt(proposing);
                feed(m, WirePackets.reportEnd(4, pid++, epoch, 6, 6, 0), u);
                feed(m, WirePackets.reportEnd(5, pid++, epoch, 6, 6, 0), u);
            }
            m.onTimer(u);
            targets.add(m.deliverySummary().replaceAll(".*(catching up to \\d+).*|.*", "$1"));
        }
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        assertTrue(m.counters().takeoversRetried() > 0, "it proposed newer epochs");
        targets.remove("");
        assertEquals(java.util.Set.of("catching up to 12"), targets, "never a target below what it fixed");
        assertEquals(0, m.counters().catchUpsRetried(), "no other reporter delivered 12");
        final java.util.Set<Integer> asked = new java.util.TreeSet<>();
        sent.ofType(org.lightwire.romiop.protocol.PacketType.STATE).forEach(s -> asked.add(s.to()));
        assertTrue(asked.containsAll(List.of(3, 4, 5)), "it asked every other member for the state: " + asked);
    }

    /**
     * A takeover that fixed orders up to 12 (committed: a survivor delivered them) and gives way
     * to a newer proposal before it holds them reports them as fixed, beside what it delivered:
     * the takeover it reports to never fixes less. (It reported only what it delivered, 5, and a
     * later takeover ordered other requests at 6..12: oneway 739.)
     */
    @Test
    void aTakeoverThatGivesWayReportsWhatItFixedNotOnlyWhatItDelivered()
    {
        final MemberEngine m = takeoverByMember2();
        final long t = 400 * MS;
        feed(m, WirePackets.reportEnd(3, 500, 2, 12, 12, 0), t);
        feed(m, WirePackets.reportEnd(4, 501, 2, 6, 6, 0), t);
        feed(m, WirePackets.reportEnd(5, 502, 2, 6, 6, 0), t);
        assertEquals(5, m.deliveredSeq(), "fixed through 12, catching up from member 3");
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        // Member 1 is back and proposes epoch 3: member 2 gives way and reports to it.
        feed(m, WirePackets.takeover(1, 3, 3, 1, 5), t + MS);
        assertEquals(1, m.leaderId());
        final var report = sent.keepAlives().stream().filter(k -> k.header().report()).reduce((x, y) -> y).orElseThrow();
        assertEquals(List.of(5L, 12L), List.of(report.commit(), report.fixed()), "delivered, and what its own takeover fixed");
        assertEquals(3, report.epoch());
    }

    private List<org.lightwire.romiop.protocol.StateFlyweight> chunksTo(final int to, final int fromIndex)
    {
        final List<org.lightwire.romiop.protocol.StateFlyweight> list = new ArrayList<>();
        final List<SentPackets.Sent> states = sent.ofType(org.lightwire.romiop.protocol.PacketType.STATE);
        for (final SentPackets.Sent x : states.subList(fromIndex, states.size()))
        {
            final org.lightwire.romiop.protocol.StateFlyweight f = new org.lightwire.romiop.protocol.StateFlyweight();
            f.wrap(x.bytes(), 0);
            if (x.to() == to && f.kind() == org.lightwire.romiop.protocol.StateFlyweight.CHUNK)
            {
                list.add(f);
            }
        }
        return list;
    }

    /**
     * An ASK's offset is into the state it names. Joiner 2 had 640 bytes of the state member 1
     * took after order 10 when it was removed for a while (member 1 forgot that state: no ASK for
     * twice the KeepAlive timeout). Readmitted, it asks from byte 640 again; member 1 takes a new
     * state, after order 12, shorter than 640 bytes. A retransmitted ASK(640) of the old state is
     * not read as "the joiner has it all" (which would end the transfer and drop every later ASK
     * as stale): an offset into another state gets the new one from its start.
     */
    @Test
    void anAskIsReadAgainstTheStateItWasSentFor()
    {
        final List<Long> captures = new ArrayList<>();
        final MemberEngine d = OneEngine.started(new GroupConfig(1, 3, 1, 2, 3).maxPacketBytes(200), sent,
            (seq, client, packetId, requestId, payload, offset, length) -> { }, new CaptureRecorder(captures));
        long t = MS;
        for (int i = 1; i <= 10; i++)
        {
            feed(d, WirePackets.request(100, i), t);
            feed(d, WirePackets.order(3, 80 + i, 1, i, 100, i, i), t);
        }
        assertEquals(10, d.deliveredSeq());
        feed(d, WirePackets.stateAsk(2, 500, 10, 0, 77), t);
        assertEquals(List.of(10L), captures);
        d.stateCaptured(10, new byte[1000], t);
        assertTrue(chunksTo(2, 0).size() >= 4);
        // The joiner has 640 bytes, then is silent (removed) for longer than twice the KeepAlive timeout; the group goes on.
        for (int i = 11; i <= 12; i++)
        {
            feed(d, WirePackets.request(100, i), t);
            feed(d, WirePackets.order(3, 80 + i, 1, i, 100, i, i), t);
        }
        for (long u = t; u < t + 300 * MS; u += MS)
        {
            feed(d, keepAlive(3, 100 + (int)(u / MS), 1, 12, 12), u);
            d.onTimer(u);
        }
        t += 300 * MS;
        feed(d, WirePackets.stateAsk(2, 501, 10, 640, 77), t);
        assertEquals(List.of(10L, 12L), captures, "the old state was forgotten; a new one is taken after order 12");
        final int before = sent.ofType(org.lightwire.romiop.protocol.PacketType.STATE).size();
        d.stateCaptured(12, new byte[500], t + 5 * MS);
        // The joiner's retransmitted ASK from byte 640, sent before it had the new chunks.
        feed(d, WirePackets.stateAsk(2, 502, 10, 640, 77), t + 20 * MS);
        // The joiner took the new state's first burst (cut 12) and asks for more.
        final int mark = sent.ofType(org.lightwire.romiop.protocol.PacketType.STATE).size();
        feed(d, WirePackets.stateAsk(2, 503, 10, 160, 77), t + 25 * MS);
        assertTrue(chunksTo(2, mark).size() > 0, "member 1 took a retransmitted ASK for the end of the old state as the end of the new one: " +
            "statesGiven " + d.counters().statesGiven() + ", and now drops the joiner's ASKs as stale (" + d.counters().staleStateAsks() + ")");
    }

    /** Member 1 of [1..6] that delivered orders 1..10 of leader 3, recording each capture it is asked for. */
    private MemberEngine donorAt10(final List<Long> captures)
    {
        final MemberEngine d = OneEngine.started(new GroupConfig(1, 3, 1, 2, 3, 4, 5, 6).maxPacketBytes(200), sent,
            (seq, client, packetId, requestId, payload, offset, length) -> { }, new CaptureRecorder(captures));
        for (int i = 1; i <= 10; i++)
        {
            feed(d, WirePackets.request(100, i), MS);
            feed(d, WirePackets.order(3, 80 + i, 1, i, 100, i, i), MS);
        }
        assertEquals(10, d.deliveredSeq());
        return d;
    }

    /** A delayed or duplicated copy of an ASK of a transfer the joiner finished starts no new capture. */
    @Test
    void aDelayedAskOfAFinishedTransferTakesNoNewState()
    {
        final List<Long> captures = new ArrayList<>();
        final MemberEngine d = donorAt10(captures);
        feed(d, WirePackets.stateAsk(2, 500, 10, 0, 77), 2 * MS);
        d.stateCaptured(10, new byte[100], 2 * MS);
        final int tag = chunksTo(2, 0).get(0).snapshot();
        final int total = chunksTo(2, 0).get(0).total();
        final ByteBuffer done = WirePackets.stateAsk(2, 501, 10, total, 77);
        done.put(org.lightwire.romiop.protocol.PacketHeader_1_0.HEADER_LENGTH + org.lightwire.romiop.protocol.StateFlyweight.KIND_OFFSET + 3, (byte)tag);
        feed(d, done, 3 * MS);
        assertEquals(1, d.counters().statesGiven());
        feed(d, WirePackets.stateAsk(2, 500, 10, 0, 77), 50 * MS);
        assertEquals(List.of(10L), captures, "no second capture");
        assertEquals(1, d.counters().staleStateAsks());
    }

    /**
     * A donor whose application cannot give its state refuses; the REFUSED is lost and the joiner
     * asks again in the same transfer: it is refused again (not dropped as a stale ASK of a finished
     * transfer, which left the joiner asking for good), and nothing is captured again.
     */
    @Test
    void aRepeatedAskOfARefusedTransferIsRefusedAgain()
    {
        final List<Long> captures = new ArrayList<>();
        final MemberEngine d = donorAt10(captures);
        feed(d, WirePackets.stateAsk(2, 500, 10, 0, 77), 2 * MS);
        d.stateUnavailable(10, "no Checkpointable servant", 2 * MS);
        feed(d, WirePackets.stateAsk(2, 501, 10, 0, 77), 30 * MS);
        final List<org.lightwire.romiop.protocol.StateFlyweight> refused = new ArrayList<>();
        for (final SentPackets.Sent x : sent.ofType(org.lightwire.romiop.protocol.PacketType.STATE))
        {
            final org.lightwire.romiop.protocol.StateFlyweight f = new org.lightwire.romiop.protocol.StateFlyweight();
            f.wrap(x.bytes(), 0);
            if (x.to() == 2 && f.kind() == org.lightwire.romiop.protocol.StateFlyweight.REFUSED)
            {
                refused.add(f);
            }
        }
        assertEquals(2, refused.size(), "refused, and refused again");
        assertEquals(List.of(10L), captures, "no second capture");
        assertEquals(1, d.counters().statesRefused());
        assertEquals(1, d.counters().stateRefusalsResent());
    }

    /** A donor takes states for at most four joiners at once: a fifth is dropped, counted, and asks again later. */
    @Test
    void aDonorServesAtMostFourJoinersAtOnce()
    {
        final List<Long> captures = new ArrayList<>();
        final MemberEngine d = donorAt10(captures);
        for (int joiner = 2; joiner <= 6; joiner++)
        {
            feed(d, WirePackets.stateAsk(joiner, 600 + joiner, 10, 0, 70 + joiner), 3 * MS);
        }
        assertEquals(List.of(10L), captures, "one capture at cut 10 serves every joiner taken");
        assertEquals(1, d.counters().stateAsksIgnored(), "the fifth joiner");
    }
}
