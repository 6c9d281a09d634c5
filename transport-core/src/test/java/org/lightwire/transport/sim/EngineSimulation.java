package org.lightwire.transport.sim;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.BiPredicate;

import org.lightwire.transport.engine.BufferReleaser;
import org.lightwire.transport.engine.ClientEngine;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.engine.MessageHandler;
import org.lightwire.transport.engine.MessageWriter;
import org.lightwire.transport.engine.PacketSender;
import org.lightwire.transport.engine.ProtocolEngine;
import org.lightwire.transport.engine.ServerEngine;
import org.lightwire.transport.link.memory.Faults;
import org.lightwire.transport.link.memory.SimulatedNetwork;
import org.lightwire.transport.link.memory.Side;
import org.lightwire.transport.protocol.HeaderFlyweight;

/**
 * A discrete-event simulation of one client and one server engine over a {@link SimulatedNetwork}
 * with seeded faults, in virtual time. The client makes calls one after another (a connection
 * carries one call at a time), exactly-once and one-way mixed, with request and reply sizes drawn
 * from a seeded distribution; the server checks every request it executes byte for byte and
 * counts executions per call; the client checks every reply byte for byte.
 *
 * <p>Ground truth: call number n is the run's call n - 1 (call numbers never wrap).
 *
 * <p>{@link #replayEveryPacket} adds an attacker (or a network with unbounded delays) that sends
 * every packet either side ever sent once more, at a random later time: the checker then shows
 * that no replayed request is executed again and that the run still completes.
 */
public final class EngineSimulation
{
    /** The workload and the network. */
    public record Settings(
        long seed,
        int calls,
        double oneWayRate,
        double mediumRate,
        int mediumMaxBytes,
        double largeRate,
        int largeMaxBytes,
        int smallMaxBytes,
        double thinkRate,
        long thinkNs,
        long latencyNs,
        Faults clientToServer,
        Faults serverToClient,
        EngineConfig config)
    {
    }

    /** What a run measured. */
    public record Result(
        int calls,
        int exactlyOnceCalls,
        int oneWayCalls,
        int oneWayExecuted,
        int repliesVerified,
        long retransmissions,
        long nacks,
        long virtualNs,
        long events,
        long packetsDroppedByRule)
    {
    }

    private final Settings s;
    private final SplittableRandom workload;
    private final SimulatedNetwork network;
    private final ClientEngine client;
    private final ServerEngine server;
    private final MessageWriter requestWriter;
    private final MessageWriter replyWriter;
    private BiPredicate<Side, HeaderFlyweight> dropRule = (from, h) -> false;
    private long droppedByRule;
    /** Replays scheduled, soonest first; null when none are made. */
    private java.util.PriorityQueue<Replay> replays;
    private SplittableRandom replayRandom;
    private long replayMaxDelayNs;
    private long replaysDelivered;

    /** A copy of a packet sent earlier, to be delivered again at {@code atNs}. */
    private record Replay(long atNs, long order, Side from, byte[] packet)
    {
    }

    private long now = 1_000_000_000L;
    private long events;

    // Client side: the call in progress.
    private int callIndex = -1;
    private boolean callOpen;
    private boolean exactlyOnce;
    private byte[] request;
    private byte[] expectedReply;
    private final ByteArrayBuilder replyBytes = new ByteArrayBuilder();
    private long thinkUntilNs;
    private int repliesVerified;
    private int exactlyOnceCalls;
    private int oneWayCalls;

    // Server side: ground truth and executions.
    private final byte[][] requests;
    private final boolean[] oneWay;
    private final int[] executions;
    private final ByteArrayBuilder requestBytes = new ByteArrayBuilder();
    private boolean replyDue;
    private int replyIndex;

    public EngineSimulation(final Settings settings)
    {
        this.s = settings;
        this.workload = new SplittableRandom(settings.seed() * 31 + 7);
        this.network = new SimulatedNetwork(settings.seed(), settings.latencyNs(), settings.clientToServer(), settings.serverToClient());
        this.requests = new byte[settings.calls()][];
        this.oneWay = new boolean[settings.calls()];
        this.executions = new int[settings.calls()];
        final PacketSender toServer = filtered(Side.A, network.sender(Side.A, () -> now));
        final PacketSender toClient = filtered(Side.B, network.sender(Side.B, () -> now));
        client = new ClientEngine(settings.config(), toServer, new ClientHandler(), BufferReleaser.NONE);
        server = new ServerEngine(settings.config(), toClient, new ServerHandler(), BufferReleaser.NONE);
        requestWriter = MessageWriter.forClient(client);
        replyWriter = MessageWriter.forServer(server);
    }

    /** Drops, in addition to the network's faults, every packet the rule matches, given its sender. */
    public EngineSimulation dropRule(final BiPredicate<Side, HeaderFlyweight> rule)
    {
        this.dropRule = rule;
        return this;
    }

    /**
     * Sends a copy of every packet either side sends once more, straight to its peer at a random
     * time up to {@code maxDelayNs} later (after the call it belongs to is long over, most of
     * them), and runs until every copy was delivered.
     */
    public EngineSimulation replayEveryPacket(final long maxDelayNs)
    {
        replays = new java.util.PriorityQueue<>(java.util.Comparator.comparingLong(Replay::atNs).thenComparingLong(Replay::order));
        replayRandom = new SplittableRandom(s.seed() * 131 + 17);
        replayMaxDelayNs = maxDelayNs;
        return this;
    }

    private PacketSender filtered(final Side from, final PacketSender next)
    {
        final HeaderFlyweight h = new HeaderFlyweight();
        return (header, payload) ->
        {
            h.wrap(header, header.position());
            if (dropRule.test(from, h))
            {
                droppedByRule++;
                return;
            }
            if (replays != null)
            {
                final byte[] copy = new byte[header.remaining() + (payload == null ? 0 : payload.remaining())];
                header.get(header.position(), copy, 0, header.remaining());
                if (payload != null)
                {
                    payload.get(payload.position(), copy, header.remaining(), payload.remaining());
                }
                replays.add(new Replay(now + 1 + replayRandom.nextLong(replayMaxDelayNs), replays.size() + replaysDelivered, from, copy));
            }
            next.sendPacket(header, payload);
        };
    }

    /** @return copies of earlier packets delivered by {@link #replayEveryPacket}. */
    public long replaysDelivered()
    {
        return replaysDelivered;
    }

    private void deliverDueReplays()
    {
        while (replays != null && !replays.isEmpty() && replays.peek().atNs() - now <= 0)
        {
            final Replay r = replays.poll();
            replaysDelivered++;
            (r.from() == Side.A ? (ProtocolEngine)server : client).onPacket(ByteBuffer.wrap(r.packet()), now);
        }
    }

    public ClientEngine client()
    {
        return client;
    }

    public ServerEngine server()
    {
        return server;
    }

    public SimulatedNetwork network()
    {
        return network;
    }

    /**
     * Runs every call, then lets the connection settle (acknowledgements, timers) until nothing is
     * left to do.
     */
    public Result run()
    {
        final long limitNs = now + 3_600_000_000_000L;
        while (true)
        {
            drive();
            if (callIndex == s.calls() - 1 && !callOpen && !replyWriter.isActive() && !replyDue && settled() &&
                (replays == null || replays.isEmpty()))
            {
                break;
            }
            long next = network.nextDeliveryNs();
            if (replays != null && !replays.isEmpty())
            {
                next = earliest(next, replays.peek().atNs());
            }
            next = earliest(next, client.nextDeadlineNs());
            next = earliest(next, server.nextDeadlineNs());
            if (!callOpen && thinkUntilNs - now > 0)
            {
                next = earliest(next, thinkUntilNs);
            }
            if (next == Long.MAX_VALUE)
            {
                if (!callOpen && callIndex < s.calls() - 1)
                {
                    continue;
                }
                throw new AssertionError("deadlock at call " + callIndex + ": nothing in flight, no timer armed; client " + client + ", server " + server);
            }
            if (next - now > 0)
            {
                now = next;
            }
            if (now - limitNs > 0)
            {
                throw new AssertionError("virtual time limit passed at call " + callIndex + "; client " + client + ", server " + server);
            }
            events++;
            network.deliverDue(now, (to, packet, nowNs) -> (to == Side.A ? (ProtocolEngine)client : server).onPacket(packet, nowNs));
            deliverDueReplays();
            if (reached(client.nextDeadlineNs()))
            {
                client.onTimer(now);
            }
            if (reached(server.nextDeadlineNs()))
            {
                server.onTimer(now);
            }
            if (client.isZombie() || server.isZombie())
            {
                throw new AssertionError("zombie at call " + callIndex + ": client " + client.zombieReason() + "; server " + server.zombieReason());
            }
        }
        verifyExecutions();
        return new Result(s.calls(), exactlyOnceCalls, oneWayCalls, oneWayExecuted(), repliesVerified,
            client.counters().retransmissions() + server.counters().retransmissions(),
            client.counters().nacksSent() + server.counters().nacksSent(), now, events, droppedByRule);
    }

    private boolean settled()
    {
        return network.inFlight() == 0 && client.nextDeadlineNs() == ProtocolEngine.NO_DEADLINE &&
            server.nextDeadlineNs() == ProtocolEngine.NO_DEADLINE;
    }

    private boolean reached(final long deadlineNs)
    {
        return deadlineNs != ProtocolEngine.NO_DEADLINE && deadlineNs - now <= 0;
    }

    private static long earliest(final long a, final long b)
    {
        if (a == Long.MAX_VALUE)
        {
            return b;
        }
        if (b == Long.MAX_VALUE)
        {
            return a;
        }
        return a - b <= 0 ? a : b;
    }

    private void drive()
    {
        if (requestWriter.isActive())
        {
            requestWriter.pump(now);
        }
        if (replyDue)
        {
            replyDue = false;
            replyWriter.start(ByteBuffer.wrap(reply(replyIndex)), true);
        }
        if (replyWriter.isActive())
        {
            replyWriter.pump(now);
        }
        if (!callOpen && callIndex < s.calls() - 1 && thinkUntilNs - now <= 0)
        {
            startCall();
        }
    }

    private void startCall()
    {
        callIndex++;
        exactlyOnce = workload.nextDouble() >= s.oneWayRate();
        request = payload(callIndex, false);
        requests[callIndex] = request;
        oneWay[callIndex] = !exactlyOnce;
        if (exactlyOnce)
        {
            exactlyOnceCalls++;
            expectedReply = reply(callIndex);
            callOpen = true;
        }
        else
        {
            oneWayCalls++;
        }
        requestWriter.start(ByteBuffer.wrap(request), exactlyOnce);
        requestWriter.pump(now);
        if (!exactlyOnce && !requestWriter.isActive())
        {
            maybeThink();
        }
        else if (!exactlyOnce)
        {
            callOpen = true;
        }
    }

    private void maybeThink()
    {
        thinkUntilNs = workload.nextDouble() < s.thinkRate() ? now + s.thinkNs() : now;
    }

    private byte[] payload(final int index, final boolean isReply)
    {
        final SplittableRandom r = new SplittableRandom(s.seed() ^ (index * 0x9E3779B97F4A7C15L) ^ (isReply ? 0x5555L : 0));
        final double kind = r.nextDouble();
        final int length;
        if (kind < s.largeRate())
        {
            length = r.nextInt(s.mediumMaxBytes(), s.largeMaxBytes() + 1);
        }
        else if (kind < s.largeRate() + s.mediumRate())
        {
            length = r.nextInt(s.smallMaxBytes(), s.mediumMaxBytes() + 1);
        }
        else
        {
            length = r.nextInt(0, s.smallMaxBytes() + 1);
        }
        final byte[] bytes = new byte[length];
        r.nextBytes(bytes);
        return bytes;
    }

    private byte[] reply(final int index)
    {
        return payload(index, true);
    }

    private void verifyExecutions()
    {
        for (int i = 0; i < s.calls(); i++)
        {
            if (!oneWay[i] && executions[i] != 1)
            {
                throw new AssertionError("exactly-once call " + i + " executed " + executions[i] + " times");
            }
            if (oneWay[i] && executions[i] > 1)
            {
                throw new AssertionError("one-way call " + i + " executed " + executions[i] + " times");
            }
        }
        if (repliesVerified != exactlyOnceCalls)
        {
            throw new AssertionError(repliesVerified + " replies verified for " + exactlyOnceCalls + " exactly-once calls");
        }
    }

    private int oneWayExecuted()
    {
        int n = 0;
        for (int i = 0; i < s.calls(); i++)
        {
            if (oneWay[i] && executions[i] == 1)
            {
                n++;
            }
        }
        return n;
    }

    private final class ClientHandler implements MessageHandler
    {
        @Override
        public void onMessageData(final ByteBuffer payload, final boolean endOfMessage, final boolean isExactlyOnce)
        {
            replyBytes.append(payload);
            if (endOfMessage)
            {
                final byte[] got = replyBytes.take();
                if (!Arrays.equals(got, expectedReply))
                {
                    throw new AssertionError("reply to call " + callIndex + " differs: " + got.length + " bytes, expected " + expectedReply.length);
                }
                repliesVerified++;
                callOpen = false;
                maybeThink();
            }
        }

        @Override
        public void onMessageAborted(final String reason)
        {
            throw new AssertionError("a client is never asked to abort: " + reason);
        }
    }

    private final class ServerHandler implements MessageHandler
    {
        @Override
        public void onMessageData(final ByteBuffer payload, final boolean endOfMessage, final boolean isExactlyOnce)
        {
            requestBytes.append(payload);
            if (!endOfMessage)
            {
                return;
            }
            // Call numbers never wrap: call n is the run's call n - 1.
            final int index = (int)(server.callNumber() - 1);
            final byte[] got = requestBytes.take();
            if (index < 0 || index >= s.calls() || !Arrays.equals(got, requests[index]))
            {
                throw new AssertionError("server executed a request that is not call " + index + "'s (" + got.length + " bytes)");
            }
            if (isExactlyOnce == oneWay[index])
            {
                throw new AssertionError("call " + index + " arrived with the wrong semantics");
            }
            executions[index]++;
            if (isExactlyOnce)
            {
                replyDue = true;
                replyIndex = index;
            }
        }

        @Override
        public void onMessageAborted(final String reason)
        {
            requestBytes.take();
        }
    }

    /** A growable byte array without per-append allocation once grown. */
    private static final class ByteArrayBuilder
    {
        private byte[] bytes = new byte[1024];
        private int length;

        void append(final ByteBuffer buffer)
        {
            final int n = buffer.remaining();
            if (length + n > bytes.length)
            {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + n));
            }
            buffer.get(bytes, length, n);
            length += n;
        }

        byte[] take()
        {
            final byte[] result = Arrays.copyOf(bytes, length);
            length = 0;
            return result;
        }
    }
}
