package org.lightwire.bench;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

import org.lightwire.romiop.engine.GroupClientEngine;
import org.lightwire.romiop.engine.GroupConfig;
import org.lightwire.romiop.engine.GroupSender;
import org.lightwire.romiop.engine.MemberEngine;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The group protocol's own cost, without I/O: a client engine and three member engines (leader
 * 1) joined by an in-memory multicast, one two-way call per operation: the client's request to
 * the group, the leader's order, delivery at every member, three replies, and whatever ACKs the
 * engines' timers send as the clock moves 100 µs per call. All four engines run on the
 * benchmark's thread, so the figure is the sum of the Java work the four processes do per call
 * (warm caches; in the real group each process does its share after a wake-up). Each datagram is
 * copied once, as a link's receive would.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
// Longer than the other engine benchmarks: the member engine is large, and with 1 s iterations
// C2 had not finished with it before the measurement began (13 µs in the first warm-up second).
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class GroupEngineBenchmark
{
    private static final int CLIENT = 100;
    private static final int[] MEMBERS = {1, 2, 3};
    private static final long CALL_NS = 100_000;

    /** One datagram in flight: its destination and its bytes. */
    private record Datagram(int from, int to, ByteBuffer bytes)
    {
    }

    private final ArrayDeque<Datagram> inFlight = new ArrayDeque<>();
    private final MemberEngine[] members = new MemberEngine[MEMBERS.length];
    private GroupClientEngine client;
    private final ByteBuffer request = ByteBuffer.allocate(32);
    private final ByteBuffer reply = ByteBuffer.allocate(32);
    private long nowNs;
    private int replies;
    private int delivered;
    private int requestId;

    @Setup
    public void setUp()
    {
        for (int i = 0; i < members.length; i++)
        {
            final int index = i;
            members[i] = new MemberEngine(new GroupConfig(MEMBERS[i], 1, MEMBERS), sender(MEMBERS[i]),
                (orderSeq, senderId, packetId, requestId, payload, offset, length) ->
                {
                    delivered++;
                    members[index].sendReply(senderId, packetId, requestId, reply, 0, reply.capacity(), nowNs);
                });
            members[i].start(nowNs);
        }
        client = new GroupClientEngine(new GroupConfig(CLIENT, 1, MEMBERS), sender(CLIENT),
            (memberId, packetId, requestId, payload, offset, length) -> replies++);
        pump();
    }

    private GroupSender sender(final int from)
    {
        return (to, packet, length) ->
        {
            final ByteBuffer copy = ByteBuffer.allocate(length);
            copy.put(0, packet, 0, length);
            inFlight.add(new Datagram(from, to, copy));
        };
    }

    /** Delivers what is in flight, and what that sends, until nothing is; then fires due timers. */
    private void pump()
    {
        Datagram d;
        while ((d = inFlight.poll()) != null)
        {
            if (d.to == GroupSender.GROUP)
            {
                for (int i = 0; i < members.length; i++)
                {
                    if (MEMBERS[i] != d.from)
                    {
                        members[i].onPacket(d.bytes, 0, d.bytes.capacity(), nowNs);
                    }
                }
            }
            else if (d.to == CLIENT)
            {
                client.onPacket(d.bytes, 0, d.bytes.capacity(), nowNs);
            }
            else
            {
                members[d.to - 1].onPacket(d.bytes, 0, d.bytes.capacity(), nowNs);
            }
        }
        for (final MemberEngine m : members)
        {
            if (m.nextDeadlineNs() - nowNs <= 0)
            {
                m.onTimer(nowNs);
            }
        }
        if (client.nextDeadlineNs() - nowNs <= 0)
        {
            client.onTimer(nowNs);
        }
    }

    /** @return the client's engine, for a check of its counters. */
    GroupClientEngine client()
    {
        return client;
    }

    /** @return member {@code id}'s engine (1 is the leader). */
    MemberEngine member(final int id)
    {
        return members[id - 1];
    }

    /** The engines' counters: a figure paid for by retransmissions or NAKs would say so here. */
    @TearDown
    public void tearDown()
    {
        System.out.println("client: " + client.counters());
        for (final MemberEngine m : members)
        {
            System.out.println("member " + m.state() + ": " + m.counters());
        }
    }

    @Benchmark
    public int twoWayCallToThree()
    {
        nowNs += CALL_NS;
        final int before = replies;
        final int packetId = client.multicast(++requestId, 3, request, 0, request.capacity(), nowNs);
        pump();
        if (replies - before != MEMBERS.length)
        {
            throw new IllegalStateException("a call to 3 members got " + (replies - before) + " replies (delivered so far " + delivered + ")");
        }
        // As the plug-in's client does once the replies are consolidated.
        client.callDone(packetId);
        return replies;
    }
}
