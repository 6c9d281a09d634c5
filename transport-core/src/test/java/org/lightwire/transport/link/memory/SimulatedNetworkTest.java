package org.lightwire.transport.link.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.transport.link.memory.PacketKind.CONTROL;
import static org.lightwire.transport.link.memory.PacketKind.DATA;
import static org.lightwire.transport.link.memory.TestPackets.header;
import static org.lightwire.transport.link.memory.TestPackets.payload;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lightwire.transport.engine.PacketSender;
import org.lightwire.transport.protocol.MessageType;

@ExtendWith(SeedReporter.class)
class SimulatedNetworkTest
{
    private static final long LATENCY_NS = 1_000;
    private static final Faults HEAVY = Faults.builder()
        .dropRate(0.2)
        .duplicateRate(0.2)
        .reorderRate(0.2)
        .delayNs(DATA, 0, 5_000)
        .delayNs(CONTROL, 100, 300)
        .build();

    private final List<Delivery> deliveries = new ArrayList<>();
    private final PacketConsumer recorder = (to, packet, nowNs) -> deliveries.add(new Delivery(to, nowNs, packet));

    @Test
    void sameSeedGivesTheSameDeliveriesByteForByteAndInOrder()
    {
        final List<String> first = runTraffic(SeedReporter.register(42L, "network A<->B"), HEAVY, HEAVY);
        final List<String> second = runTraffic(42L, HEAVY, HEAVY);

        assertEquals(first, second);
        // The trace must be rich enough to mean something: both directions, all faults at work.
        assertTrue(first.size() > 500, "deliveries " + first.size());
        assertNotEquals(first, runTraffic(43L, HEAVY, HEAVY));
    }

    @Test
    void faultsOfOneDirectionDoNotChangeTheOther()
    {
        final long seed = SeedReporter.register(7L, "network A<->B");
        final List<String> quietReturn = onlyTo(Side.B, runTraffic(seed, HEAVY, Faults.NONE));
        final List<String> lossyReturn = onlyTo(Side.B, runTraffic(seed, HEAVY, Faults.builder().dropRate(1.0).build()));
        final List<String> heavyReturn = onlyTo(Side.B, runTraffic(seed, HEAVY, HEAVY));

        assertEquals(quietReturn, lossyReturn);
        assertEquals(quietReturn, heavyReturn);
    }

    @Test
    void dropRateOneDropsEveryPacket()
    {
        final SimulatedNetwork network =
            new SimulatedNetwork(1L, LATENCY_NS, Faults.builder().dropRate(1.0).build(), Faults.NONE);
        for (int i = 0; i < 100; i++)
        {
            network.send(Side.A, header(i % 2 == 0 ? MessageType.COMPLETE : MessageType.NACK, i, 0), null, i);
        }

        assertEquals(0, network.inFlight());
        assertEquals(Long.MAX_VALUE, network.nextDeliveryNs());
        assertEquals(0, network.deliverDue(Long.MAX_VALUE - 1, recorder));
        assertCounters(network.counters(Side.A), 100, 100, 0, 0, 0);
        assertCounters(network.counters(Side.B), 0, 0, 0, 0, 0);
    }

    @Test
    void withoutFaultsEveryPacketArrivesOnceInOrderAfterTheBaseLatency()
    {
        final SimulatedNetwork network = new SimulatedNetwork(1L, LATENCY_NS);
        final List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++)
        {
            final ByteBuffer header = header(i % 3 == 0 ? MessageType.CALL_ACK : MessageType.PARTIAL, i, 16);
            final ByteBuffer payload = payload(i, 16);
            sent.add(TestPackets.bytes(header, payload));
            network.send(Side.A, header, payload, i * 100L);
        }

        drain(network);

        assertEquals(200, deliveries.size());
        for (int i = 0; i < 200; i++)
        {
            final Delivery delivery = deliveries.get(i);
            assertEquals(Side.B, delivery.to);
            assertEquals(i * 100L + LATENCY_NS, delivery.atNs);
            assertArrayEquals(sent.get(i), delivery.bytes);
        }
        assertCounters(network.counters(Side.A), 200, 0, 0, 0, 200);
    }

    @Test
    void packetsDueAtTheSameTimeLeaveInTheOrderTheyWereSent()
    {
        final SimulatedNetwork network = new SimulatedNetwork(1L, 0);
        for (int i = 0; i < 10; i++)
        {
            network.send(i % 2 == 0 ? Side.A : Side.B, header(MessageType.COMPLETE, i, 0), null, 5);
        }

        assertEquals(10, network.deliverDue(5, recorder));
        for (int i = 0; i < 10; i++)
        {
            assertEquals(i, TestPackets.id(deliveries.get(i).bytes));
            assertEquals(i % 2 == 0 ? Side.B : Side.A, deliveries.get(i).to);
        }
    }

    @Test
    void duplicateRateOneDeliversEveryPacketExactlyTwiceAsSeparateCopies()
    {
        final SimulatedNetwork network = new SimulatedNetwork(
            SeedReporter.register(3L, "network A<->B"), LATENCY_NS,
            Faults.builder().duplicateRate(1.0).delayNs(0, 2_000).build(), Faults.NONE);
        for (int i = 0; i < 50; i++)
        {
            network.send(Side.A, header(i % 2 == 0 ? MessageType.COMPLETE : MessageType.RECLAIM, i, 4), payload(i, 4), i * 10L);
        }

        // Scribbling over each delivered buffer shows whether the two copies share their bytes.
        final PacketConsumer scribbler = (to, packet, nowNs) ->
        {
            recorder.onPacket(to, packet, nowNs);
            Arrays.fill(packet.array(), (byte)0x55);
        };
        while (network.nextDeliveryNs() != Long.MAX_VALUE)
        {
            network.deliverNext(network.nextDeliveryNs(), scribbler);
        }

        final Map<Integer, Integer> copiesById = new HashMap<>();
        for (final Delivery delivery : deliveries)
        {
            final int id = TestPackets.id(delivery.bytes);
            copiesById.merge(id, 1, Integer::sum);
            assertArrayEquals(TestPackets.bytes(header(id % 2 == 0 ? MessageType.COMPLETE : MessageType.RECLAIM, id, 4), payload(id, 4)),
                delivery.bytes, "packet " + id);
        }
        assertEquals(50, copiesById.size());
        copiesById.forEach((id, copies) -> assertEquals(2, copies, "copies of packet " + id));
        assertCounters(network.counters(Side.A), 50, 0, 50, 0, 100);
    }

    @Test
    void reorderedPacketIsOvertakenByEveryPacketSentWithinOneBaseLatency()
    {
        final SimulatedNetwork network = new SimulatedNetwork(
            SeedReporter.register(11L, "network A<->B"), LATENCY_NS,
            Faults.builder().reorderRate(CONTROL, 1.0).delayNs(DATA, 0, 400).delayNs(CONTROL, 0, 50).build(), Faults.NONE);

        network.send(Side.A, header(MessageType.NACK, 0, 0), null, 0);
        network.send(Side.A, header(MessageType.PARTIAL, 1, 0), null, 0);
        network.send(Side.A, header(MessageType.PARTIAL, 2, 0), null, LATENCY_NS / 2);
        network.send(Side.A, header(MessageType.COMPLETE, 3, 0), null, LATENCY_NS);
        drain(network);

        assertEquals(List.of(1, 2, 3, 0), ids(deliveries));
        assertCounters(network.counters(Side.A), 4, 0, 0, 1, 4);
    }

    @Test
    void reorderRateWithKnownSeedReordersAnExactNumberOfPackets()
    {
        final long seed = SeedReporter.register(2024L, "network A<->B");
        final SimulatedNetwork network = new SimulatedNetwork(
            seed, LATENCY_NS, Faults.builder().reorderRate(DATA, 0.1).delayNs(0, 200).build(), Faults.NONE);
        for (int i = 0; i < 1_000; i++)
        {
            network.send(Side.A, header(MessageType.PARTIAL, i, 0), null, i * (LATENCY_NS / 4));
        }
        drain(network);

        final List<Integer> order = ids(deliveries);
        int overtaken = 0;
        for (int i = 0; i < order.size(); i++)
        {
            // A packet is overtaken when one sent after it arrives before it.
            for (int j = 0; j < i; j++)
            {
                if (order.get(j) > order.get(i))
                {
                    overtaken++;
                    break;
                }
            }
        }
        final long reordered = network.counters(Side.A).reordered();
        assertEquals(REORDERED_FOR_SEED_2024, reordered);
        assertTrue(reordered > 60 && reordered < 140, "reordered " + reordered + " of 1000 at rate 0.1");
        // Every held-back packet was overtaken, and nothing else was: the delay range is shorter
        // than the sending interval.
        assertEquals(reordered, overtaken);
        assertEquals(1_000, order.size());
    }

    @Test
    void controlAndDataFaultsApplySeparately()
    {
        final SimulatedNetwork network = new SimulatedNetwork(
            5L, LATENCY_NS, Faults.builder().dropRate(CONTROL, 1.0).duplicateRate(DATA, 1.0).build(), Faults.NONE);
        final MessageType[] types = MessageType.values();
        for (int i = 0; i < 60; i++)
        {
            network.send(Side.A, header(types[i % types.length], i, 0), null, i);
        }
        drain(network);

        // PARTIAL and COMPLETE are 2 of the 6 types: 20 data packets, each twice.
        assertEquals(40, deliveries.size());
        for (final Delivery delivery : deliveries)
        {
            assertEquals(DATA, PacketKind.of(delivery.bytes));
        }
        assertCounters(network.counters(Side.A), 60, 40, 20, 0, 40);
    }

    @Test
    void countersAreExactForAKnownSeed()
    {
        final long seed = SeedReporter.register(99L, "network A<->B");
        final List<String> trace = runTraffic(seed, HEAVY, HEAVY);
        final SimulatedNetwork network = lastNetwork;
        final FaultCounters aToB = network.counters(Side.A);
        final FaultCounters bToA = network.counters(Side.B);

        assertCounters(aToB, 600, A_DROPPED_99, A_DUPLICATED_99, A_REORDERED_99, 600 - A_DROPPED_99 + A_DUPLICATED_99);
        assertCounters(bToA, 600, B_DROPPED_99, B_DUPLICATED_99, B_REORDERED_99, 600 - B_DROPPED_99 + B_DUPLICATED_99);
        for (final FaultCounters counters : List.of(aToB, bToA))
        {
            // 0.2 of 600 is 120; the duplicate and reorder draws apply to the 0.8 that survive.
            assertTrue(counters.dropped() > 80 && counters.dropped() < 160, counters.toString());
            assertTrue(counters.duplicated() > 60 && counters.duplicated() < 140, counters.toString());
            assertTrue(counters.reordered() > 60 && counters.reordered() < 140, counters.toString());
        }
        assertEquals(aToB.delivered() + bToA.delivered(), trace.size());
    }

    @Test
    void shortAndMalformedPacketsAreCarriedByteForByte()
    {
        final SimulatedNetwork network = new SimulatedNetwork(
            8L, LATENCY_NS, Faults.builder().dropRate(CONTROL, 1.0).build(), Faults.NONE);
        final byte[][] carried = {
            {},
            { 0 },
            { (byte)0xFF },
            { 9, 9, 9 },
            { 1, 0 },
            { 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 },
        };
        for (final byte[] packet : carried)
        {
            network.send(Side.A, ByteBuffer.wrap(packet), null, 0);
        }
        // A short packet with a control type code is still control, and control is dropped here.
        network.send(Side.A, ByteBuffer.wrap(new byte[]{ 4, 0, 0 }), null, 0);
        drain(network);

        assertEquals(carried.length, deliveries.size());
        for (int i = 0; i < carried.length; i++)
        {
            assertArrayEquals(carried[i], deliveries.get(i).bytes, "packet " + i);
        }
        assertCounters(network.counters(Side.A), carried.length + 1, 1, 0, 0, carried.length);
    }

    @Test
    void sendCopiesFromPositionToLimitWithoutMovingEither()
    {
        final SimulatedNetwork network = new SimulatedNetwork(1L, 0);
        final ByteBuffer header = ByteBuffer.wrap(new byte[]{ 99, 2, 0, 10, 0, 0, 0, 0, 0, 0, 99 });
        header.position(1).limit(9);
        final ByteBuffer payload = ByteBuffer.wrap(new byte[]{ 77, 5, 6, 77 });
        payload.position(1).limit(3);

        network.send(Side.B, header, payload, 0);
        drain(network);

        assertEquals(1, header.position());
        assertEquals(9, header.limit());
        assertEquals(1, payload.position());
        assertArrayEquals(new byte[]{ 2, 0, 10, 0, 0, 0, 0, 0, 5, 6 }, deliveries.get(0).bytes);
        assertEquals(Side.A, deliveries.get(0).to);
    }

    @Test
    void deliverNextWaitsUntilThePacketIsDue()
    {
        final SimulatedNetwork network = new SimulatedNetwork(1L, LATENCY_NS);
        network.send(Side.A, header(MessageType.COMPLETE, 1, 0), null, 500);

        assertEquals(500 + LATENCY_NS, network.nextDeliveryNs());
        assertFalse(network.deliverNext(500 + LATENCY_NS - 1, recorder));
        assertEquals(0, network.deliverDue(500 + LATENCY_NS - 1, recorder));
        assertEquals(1, network.inFlight());
        assertTrue(network.deliverNext(500 + LATENCY_NS, recorder));
        assertFalse(network.deliverNext(Long.MAX_VALUE - 1, recorder));
        assertEquals(1, deliveries.size());
        assertEquals(500 + LATENCY_NS, deliveries.get(0).atNs);
    }

    @Test
    void deliveredBufferIsAHeapBufferOverThePacket()
    {
        final SimulatedNetwork network = new SimulatedNetwork(1L, 0);
        network.send(Side.A, header(MessageType.COMPLETE, 1, 3), payload(1, 3), 0);
        final ByteBuffer[] seen = new ByteBuffer[1];
        network.deliverNext(0, (to, packet, nowNs) -> seen[0] = packet);

        assertTrue(seen[0].hasArray());
        assertFalse(seen[0].isReadOnly());
        assertEquals(0, seen[0].position());
        assertEquals(org.lightwire.transport.protocol.HeaderFlyweight.HEADER_LENGTH + 3, seen[0].limit());
    }

    @Test
    void deliverDueLeavesPacketsTheConsumerSendsForTheNextCall()
    {
        final SimulatedNetwork network = new SimulatedNetwork(1L, 0);
        final PacketConsumer echo = (to, packet, nowNs) ->
        {
            deliveries.add(new Delivery(to, nowNs, packet));
            network.send(to, packet, null, nowNs);
        };
        network.send(Side.A, header(MessageType.COMPLETE, 1, 0), null, 0);

        assertEquals(1, network.deliverDue(0, echo));
        assertEquals(1, network.deliverDue(0, echo));
        assertEquals(1, network.deliverDue(0, echo));
        assertEquals(List.of(Side.B, Side.A, Side.B), deliveries.stream().map(d -> d.to).toList());
        assertEquals(1, network.inFlight());
    }

    @Test
    void orderIsRightWhenTheClockWrapsPastLongMaxValue()
    {
        final SimulatedNetwork network = new SimulatedNetwork(1L, LATENCY_NS);
        final long startNs = Long.MAX_VALUE - 1_500;
        for (int i = 0; i < 4; i++)
        {
            network.send(Side.A, header(MessageType.COMPLETE, i, 0), null, startNs + i * 1_000L);
        }

        long nowNs = startNs;
        while (network.nextDeliveryNs() != Long.MAX_VALUE || network.inFlight() > 0)
        {
            nowNs = network.nextDeliveryNs();
            network.deliverNext(nowNs, recorder);
        }

        assertEquals(List.of(0, 1, 2, 3), ids(deliveries));
        assertEquals(startNs + 3_000L + LATENCY_NS, nowNs);
    }

    @Test
    void delaysAreDrawnFromTheRangeOnTopOfTheBaseLatency()
    {
        final SimulatedNetwork network = new SimulatedNetwork(
            SeedReporter.register(17L, "network A<->B"), LATENCY_NS,
            Faults.builder().delayNs(DATA, 200, 700).delayNs(CONTROL, 50, 50).build(), Faults.NONE);
        for (int i = 0; i < 300; i++)
        {
            network.send(Side.A, header(i % 2 == 0 ? MessageType.PARTIAL : MessageType.CALL_ACK, i, 0), null, 0);
        }
        drain(network);

        long minDataNs = Long.MAX_VALUE;
        long maxDataNs = Long.MIN_VALUE;
        for (final Delivery delivery : deliveries)
        {
            if (PacketKind.of(delivery.bytes) == CONTROL)
            {
                assertEquals(LATENCY_NS + 50, delivery.atNs);
            }
            else
            {
                minDataNs = Math.min(minDataNs, delivery.atNs);
                maxDataNs = Math.max(maxDataNs, delivery.atNs);
            }
        }
        assertTrue(minDataNs >= LATENCY_NS + 200 && minDataNs < LATENCY_NS + 210, "min " + minDataNs);
        assertTrue(maxDataNs <= LATENCY_NS + 700 && maxDataNs > LATENCY_NS + 690, "max " + maxDataNs);
    }

    @Test
    void changingFaultsAppliesFromTheNextSend()
    {
        final SimulatedNetwork network = new SimulatedNetwork(1L, 0);
        network.send(Side.A, header(MessageType.COMPLETE, 1, 0), null, 0);
        final Faults dropAll = Faults.builder().dropRate(1.0).build();
        network.faults(Side.A, dropAll);
        network.send(Side.A, header(MessageType.COMPLETE, 2, 0), null, 0);
        network.send(Side.B, header(MessageType.COMPLETE, 3, 0), null, 0);
        drain(network);

        assertSame(dropAll, network.faults(Side.A));
        assertSame(Faults.NONE, network.faults(Side.B));
        assertEquals(List.of(1, 3), ids(deliveries));
    }

    @Test
    void senderAdapterSendsFromItsSideAtTheClockTime()
    {
        final SimulatedNetwork network = new SimulatedNetwork(1L, LATENCY_NS);
        final long[] clockNs = { 300 };
        final PacketSender sender = network.sender(Side.B, () -> clockNs[0]);
        sender.sendPacket(header(MessageType.RECLAIM_ACK, 4, 0), null);

        assertEquals(300 + LATENCY_NS, network.nextDeliveryNs());
        drain(network);
        assertEquals(Side.A, deliveries.get(0).to);
    }

    @Test
    void invalidArgumentsAreRejected()
    {
        assertEquals("baseLatencyNs is -1; allowed range is [0, 3600000000000]",
            assertThrows(IllegalArgumentException.class, () -> new SimulatedNetwork(1L, -1)).getMessage());
        assertThrows(NullPointerException.class, () -> new SimulatedNetwork(1L, 0, null, Faults.NONE));
        assertThrows(NullPointerException.class, () -> new SimulatedNetwork(1L, 0).faults(Side.A, null));
        assertThrows(NullPointerException.class, () -> new SimulatedNetwork(1L, 0).send(Side.A, null, null, 0));
    }

    @Test
    void seedAndToStringNameTheRun()
    {
        final SimulatedNetwork network = new SimulatedNetwork(-5L, 10);
        assertEquals(-5L, network.seed());
        assertEquals(10L, network.baseLatencyNs());
        assertTrue(network.toString().startsWith("SimulatedNetwork{seed=-5, baseLatencyNs=10, inFlight=0, A->B={Faults{"),
            network.toString());
    }

    // Counted once with these seeds; a change means the fault decisions changed, so replays of
    // recorded seeds would no longer reproduce their runs.
    private static final long REORDERED_FOR_SEED_2024 = 92;
    private static final long A_DROPPED_99 = 129;
    private static final long A_DUPLICATED_99 = 101;
    private static final long A_REORDERED_99 = 74;
    private static final long B_DROPPED_99 = 109;
    private static final long B_DUPLICATED_99 = 91;
    private static final long B_REORDERED_99 = 100;

    private SimulatedNetwork lastNetwork;

    /**
     * Both sides send 600 packets, one every 250 ns, every third a control packet, while the
     * driver delivers in time order; then the network is drained.
     *
     * @return every delivery as "to@timeNs:hex".
     */
    private List<String> runTraffic(final long seed, final Faults aToB, final Faults bToA)
    {
        final SimulatedNetwork network = new SimulatedNetwork(seed, LATENCY_NS, aToB, bToA);
        lastNetwork = network;
        final List<String> trace = new ArrayList<>();
        final PacketConsumer tracer = (to, packet, nowNs) ->
            trace.add(to + "@" + nowNs + ":" + HexFormat.of().formatHex(TestPackets.toArray(packet)));
        for (int i = 0; i < 600; i++)
        {
            final long nowNs = i * 250L;
            while (network.nextDeliveryNs() <= nowNs)
            {
                network.deliverNext(network.nextDeliveryNs(), tracer);
            }
            final MessageType type = i % 3 == 0 ? MessageType.NACK : MessageType.COMPLETE;
            network.send(Side.A, header(type, i, 8), payload(i, 8), nowNs);
            network.send(Side.B, header(type, 1_000 + i, 4), payload(1_000 + i, 4), nowNs);
        }
        while (network.nextDeliveryNs() != Long.MAX_VALUE)
        {
            network.deliverNext(network.nextDeliveryNs(), tracer);
        }
        return trace;
    }

    private void drain(final SimulatedNetwork network)
    {
        while (network.nextDeliveryNs() != Long.MAX_VALUE)
        {
            assertTrue(network.deliverNext(network.nextDeliveryNs(), recorder));
        }
    }

    private static List<String> onlyTo(final Side to, final List<String> trace)
    {
        return trace.stream().filter(line -> line.startsWith(to + "@")).toList();
    }

    private static List<Integer> ids(final List<Delivery> deliveries)
    {
        return deliveries.stream().map(d -> TestPackets.id(d.bytes)).toList();
    }

    private static void assertCounters(
        final FaultCounters counters,
        final long sent,
        final long dropped,
        final long duplicated,
        final long reordered,
        final long delivered)
    {
        assertEquals(
            "FaultCounters{sent=" + sent + ", dropped=" + dropped + ", duplicated=" + duplicated +
                ", reordered=" + reordered + ", delivered=" + delivered + '}',
            counters.toString());
        assertEquals(sent, counters.sent());
        assertEquals(dropped, counters.dropped());
        assertEquals(duplicated, counters.duplicated());
        assertEquals(reordered, counters.reordered());
        assertEquals(delivered, counters.delivered());
    }

    private static final class Delivery
    {
        final Side to;
        final long atNs;
        final byte[] bytes;

        Delivery(final Side to, final long atNs, final ByteBuffer packet)
        {
            this.to = to;
            this.atNs = atNs;
            this.bytes = TestPackets.toArray(packet);
        }
    }
}
