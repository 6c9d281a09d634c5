package org.lightwire.transport.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.memory.Faults;
import org.lightwire.transport.link.memory.SeedReporter;
import org.lightwire.transport.link.memory.Side;
import org.lightwire.transport.protocol.MessageType;

/**
 * The second test tier: a client and a server engine over a seeded lossy network, many calls,
 * exact outcomes. A failure prints its seed (SeedReporter) and replays exactly.
 */
@ExtendWith(SeedReporter.class)
class SimulationTest
{
    static final long MS = 1_000_000L;
    static final EngineConfig CONFIG = EngineConfig.builder()
        .ackDelayNs(2 * MS)
        .retransmitMinNs(MS)
        .retransmitMaxNs(200 * MS)
        .retransmitInitialNs(5 * MS)
        .peerTimeoutNs(60_000 * MS)
        .rttProbeIntervalNs(100 * MS)
        .build();

    static EngineSimulation.Settings settings(final long seed, final int calls, final Faults faults, final double oneWayRate)
    {
        return settings(seed, calls, faults, oneWayRate, CONFIG);
    }

    static EngineSimulation.Settings settings(
        final long seed, final int calls, final Faults faults, final double oneWayRate, final EngineConfig config)
    {
        return new EngineSimulation.Settings(
            seed, calls,
            oneWayRate,
            0.07, 16 * 1024,
            0.01, 256 * 1024,
            1024,
            0.05, 10 * MS,
            50_000,
            faults, faults, config);
    }

    static final Faults HOSTILE = Faults.builder()
        .dropRate(0.20)
        .duplicateRate(0.05)
        .reorderRate(0.05)
        .delayNs(0, 20_000)
        .build();

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void hundredThousandMixedCallsAtTwentyPercentLossExecuteExactlyOnceWithIdenticalReplies(final long seed)
    {
        SeedReporter.register(seed, "EngineSimulation seed (network and workload)");
        final EngineSimulation.Result r = new EngineSimulation(settings(seed, 100_000, HOSTILE, 0.3)).run();
        System.out.printf("simulation seed %d: %d calls (%d exactly-once, %d one-way of which %d executed), %d retransmissions, %d NACKs, %.1f s virtual%n",
            seed, r.calls(), r.exactlyOnceCalls(), r.oneWayCalls(), r.oneWayExecuted(), r.retransmissions(), r.nacks(), r.virtualNs() / 1e9);
        assertEquals(r.exactlyOnceCalls(), r.repliesVerified());
        assertEquals(100_000, r.exactlyOnceCalls() + r.oneWayCalls());
        assertTrue(r.retransmissions() > 0, "at 20% loss something was retransmitted");
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {21, 22, 23})
    void everyPacketReplayedAtARandomLaterTimeExecutesNothingTwiceAndHangsNothing(final long seed)
    {
        SeedReporter.register(seed, "EngineSimulation seed (network, workload and replays)");
        // Lossy as HOSTILE, and every packet of either side sent once more, up to 20 s later:
        // thousands of calls after its own, past every 8-bit wrap of the paper's numbers.
        final EngineSimulation sim = new EngineSimulation(settings(seed, 20_000, HOSTILE, 0.3)).replayEveryPacket(20_000 * MS);
        final EngineSimulation.Result r = sim.run();
        System.out.printf("replay seed %d: %d calls, %d replays delivered, %d stale at the server, %d at the client, %.1f s virtual%n",
            seed, r.calls(), sim.replaysDelivered(), sim.server().counters().stale(), sim.client().counters().stale(), r.virtualNs() / 1e9);
        // run() checked every exactly-once call executed once and every one-way at most once,
        // each with its own bytes, and every reply byte for byte.
        assertEquals(r.exactlyOnceCalls(), r.repliesVerified());
        assertTrue(sim.replaysDelivered() > 40_000, "replays: " + sim.replaysDelivered());
        assertTrue(sim.server().counters().stale() > 10_000, "stale at the server: " + sim.server().counters().stale());
        assertTrue(sim.client().counters().stale() > 10_000, "stale at the client: " + sim.client().counters().stale());
    }

    @Test
    void losslessRunNeedsNoRetransmissionAndExecutesEveryOneWayCall()
    {
        final EngineSimulation.Result r = new EngineSimulation(settings(11, 5_000, Faults.NONE, 0.3)).run();
        assertEquals(0, r.retransmissions());
        assertEquals(0, r.nacks());
        assertEquals(r.oneWayCalls(), r.oneWayExecuted());
    }

    @Test
    void firstCallOfARunLost()
    {
        final int[] drops = new int[1];
        // Without round-trip probes, whose RECLAIM would reveal the loss sooner: the paper's path.
        final EngineConfig noProbes = CONFIG.toBuilder().rttProbeIntervalNs(0).build();
        final EngineSimulation sim = new EngineSimulation(settings(12, 3, Faults.NONE, 0, noProbes)).dropRule((from, h) ->
            // The first transmission of call 1's request: the first packet of the connection.
            from == Side.A && h.type().isData() && h.callNumber() == 1 && drops[0]++ == 0);
        final EngineSimulation.Result r = sim.run();
        assertEquals(1, r.packetsDroppedByRule());
        assertEquals(3, r.repliesVerified());
        // The client timed out and NACKed (case i); the server, which never saw call 1, NACKed
        // back for packet 0 (case iv); the client retransmitted the request once (case ii).
        assertEquals(1, sim.client().counters().timeouts());
        assertEquals(1, sim.server().counters().nacksSent());
        assertEquals(1, sim.client().counters().retransmissions());
        assertEquals(0, sim.server().counters().retransmissions());
    }

    @Test
    void lastCallOfARunLost()
    {
        final int calls = 200;
        final int[] drops = new int[2];
        final EngineSimulation sim = new EngineSimulation(settings(13, calls, Faults.NONE, 0)).dropRule((from, h) ->
        {
            final boolean lastRequest = from == Side.A && h.type().isData() && h.callNumber() == calls;
            final boolean lastAck = from == Side.A && h.type() == MessageType.CALL_ACK && h.callNumber() == calls;
            // The first transmission of the last request, and the first CALL_ACK of its reply:
            // no later call follows to acknowledge either implicitly.
            return (lastRequest && drops[0]++ == 0) || (lastAck && drops[1]++ == 0);
        });
        final EngineSimulation.Result r = sim.run();
        assertEquals(2, r.packetsDroppedByRule());
        assertEquals(calls, r.repliesVerified());
        assertEquals(0, sim.server().heldPackets(), "the last reply was acknowledged in the end");
        assertEquals(1, sim.client().counters().retransmissions(), "the last request was sent again once");
        assertEquals(2, drops[1], "the CALL_ACK of the last reply was lost, then sent again");
        assertEquals(1, sim.server().counters().timeouts(), "the server retransmitted its unacknowledged reply once");
    }
}
