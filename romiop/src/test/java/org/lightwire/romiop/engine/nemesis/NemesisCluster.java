package org.lightwire.romiop.engine.nemesis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import org.lightwire.romiop.consolidation.ConsolidationPolicy;
import org.lightwire.romiop.consolidation.Decision;
import org.lightwire.romiop.consolidation.ReplyConsolidator;
import org.lightwire.romiop.engine.GroupClientEngine;
import org.lightwire.romiop.engine.GroupConfig;
import org.lightwire.romiop.engine.MemberEngine;
import org.lightwire.romiop.engine.SimulatedGroupNetwork;
import org.lightwire.romiop.engine.StateHandler;
import org.lightwire.romiop.engine.nemesis.History.Completion;
import org.lightwire.romiop.engine.nemesis.History.Incarnation;
import org.lightwire.romiop.engine.nemesis.History.Reply;
import org.lightwire.romiop.engine.nemesis.NemesisChecker.Violation;

/**
 * Member processes and clients over one {@link SimulatedGroupNetwork} whose links {@link LinkCuts}
 * filters, run by one simulated clock, with the faults a nemesis needs: crash (the process stops,
 * nothing it would send leaves), restart with the same id (a fresh engine, a new incarnation),
 * pause and resume (a GC pause: the process runs nothing; what reaches it waits in a bounded
 * socket buffer; then it goes on with its old state). Engines are used through their public API
 * only. Each member answers a delivered request with "orderSeq:clientId/requestId"; each client
 * consolidates its calls' replies (a majority of the group, all the same) and records everything
 * in the {@link History} the {@link NemesisChecker} reads.
 */
final class NemesisCluster
{
    static final long MS = 1_000_000L;
    /** Packets a paused process's socket buffer holds; the rest are lost. */
    static final int PAUSED_BUFFER_PACKETS = 1000;
    /** How long a member's application takes to answer for its state. */
    static final long CAPTURE_DELAY_NS = 2 * MS;

    final long seed;
    final int[] memberIds;
    final int firstLeader;
    final long keepAliveTimeoutNs = 100 * MS;
    final SimulatedGroupNetwork net;
    final LinkCuts links = new LinkCuts();
    final History history = new History();
    final NemesisChecker checker = new NemesisChecker(history);
    final Map<Integer, Node> nodes = new TreeMap<>();
    final Map<Integer, Client> clients = new TreeMap<>();
    long nowNs;
    /** Each client sends one call per interval while its window has room. */
    long sendIntervalNs = 10 * MS;
    private boolean sending = true;
    private long nextSendNs;
    /** When the run first violated something, and every process's state then (the report shows them); -1 and null before. */
    long firstViolationNs = -1;
    String stateAtFirstViolation;
    private final PriorityQueue<Timed> actions = new PriorityQueue<>();
    /** Each process knows its start count ({@link GroupConfig#startCount}): its incarnation number. */
    final boolean countingStarts;
    private long actionSerial;

    NemesisCluster(final long seed, final int members, final int clientCount, final double drop, final double dup, final long jitterNs)
    {
        this(seed, members, clientCount, drop, dup, jitterNs, new long[members], false);
    }

    /**
     * As above, each member started first at {@code startNs[i]} (0: at once), as replicas started
     * one by one are; until then it sends and receives nothing. With {@code countingStarts} each
     * process knows its start count, as one given {@code start_count_dir} does.
     */
    NemesisCluster(final long seed, final int members, final int clientCount, final double drop, final double dup, final long jitterNs,
        final long[] startNs, final boolean countingStarts)
    {
        this.countingStarts = countingStarts;
        this.seed = seed;
        this.memberIds = new int[members];
        for (int i = 0; i < members; i++)
        {
            memberIds[i] = i + 1;
        }
        this.firstLeader = memberIds[0];
        this.net = new SimulatedGroupNetwork(seed, new int[0], drop, dup, 50_000L, jitterNs);
        net.linkFilter(links);
        for (final int id : memberIds)
        {
            final Node node = new Node(id);
            nodes.put(id, node);
            final GroupConfig config = new GroupConfig(id, firstLeader, memberIds);
            if (startNs[id - 1] <= 0)
            {
                node.start(config);
            }
            else
            {
                node.crashed = true;
                at(startNs[id - 1], () ->
                {
                    node.start(config);
                    history.fault(nowNs, "start " + node.incarnation + " (late)");
                });
            }
        }
        for (int i = 0; i < clientCount; i++)
        {
            final Client c = new Client(101 + i);
            clients.put(c.id, c);
        }
    }

    /**
     * The group's timing: a 20 ms KeepAlive period and a 100 ms timeout, so that a run of a few
     * simulated seconds sees many failovers; a founding leader never heard is waited for 1.5 s
     * (members of {@link Nemesis#STAGGERED} start within {@link NemesisRun#STAGGER_NS} and a quarter of it);
     * a duplicate window of 64 request ids (twice a client's 32 outstanding), so that a run's few
     * hundred requests a client move the duplicate filter's watermark, and a replayed request
     * below it is tested (with the default 1,024 none is).
     */
    GroupConfig tuned(final GroupConfig config)
    {
        return config.orderInterval(1 * MS, true).retransmitTimeoutNs(5 * MS).nakDelayNs(1 * MS)
            .keepAlive(20 * MS, keepAliveTimeoutNs).joinTimeoutNs(60 * MS).cancelHoldNs(200 * MS)
            .foundingWaitNs(1500 * MS).duplicateWindow(64);
    }

    /** One member process: its current incarnation's engine, or none while crashed. */
    final class Node
    {
        final int id;
        Incarnation incarnation;
        MemberEngine engine;
        boolean crashed;
        boolean paused;
        private int incarnations;
        private final ArrayDeque<byte[]> socketBuffer = new ArrayDeque<>();

        Node(final int id)
        {
            this.id = id;
        }

        private void start(final GroupConfig config)
        {
            final Incarnation self = new Incarnation(id, ++incarnations);
            final MemberEngine[] engineOf = new MemberEngine[1];
            final ReplicaLog app = new ReplicaLog();
            final StateHandler state = new StateHandler()
            {
                @Override
                public void captureState(final long cut)
                {
                    // Taken now, answered later, as an application that queues its requests does.
                    final byte[] image = app.image();
                    answerCapture(engineOf[0], cut, image, nowNs + CAPTURE_DELAY_NS);
                }

                @Override
                public void installState(final long cut, final byte[] image)
                {
                    checker.onInstall(history.installed(self, cut, app.install(image), nowNs));
                }

                @Override
                public void stateRefused(final String reason)
                {
                    checker.violation(Violation.STATE_REFUSED, self + " was refused a state at " + NemesisChecker.ms(nowNs) + ": " + reason);
                }
            };
            engineOf[0] = new MemberEngine(tuned(countingStarts ? config.startCount(self.number()) : config.incarnation(self.number())), net.senderFor(id), (orderSeq, senderId, packetId, requestId, payload, offset, length) ->
            {
                final String request = senderId + "/" + requestId;
                final String text = StandardCharsets.US_ASCII.decode(payload.slice(offset, length)).toString();
                if (!text.equals(request))
                {
                    checker.violation(Violation.CORRUPT_DELIVERY, self + " delivered payload " + text + " as " + request);
                }
                app.executed(orderSeq, request);
                checker.onDelivery(history.delivered(self, orderSeq, request, nowNs));
                final byte[] answer = (orderSeq + ":" + request).getBytes(StandardCharsets.US_ASCII);
                engineOf[0].sendReply(senderId, packetId, requestId, ByteBuffer.wrap(answer), 0, answer.length, nowNs);
            }, state);
            incarnation = self;
            engine = engineOf[0];
            crashed = false;
            paused = false;
            socketBuffer.clear();
            history.started(self);
            net.attachMember(id, this::receive);
            guard(() -> engine.start(nowNs), "start");
        }

        private void receive(final ByteBuffer buffer, final int offset, final int length, final long atNs)
        {
            if (paused)
            {
                if (socketBuffer.size() < PAUSED_BUFFER_PACKETS)
                {
                    final byte[] copy = new byte[length];
                    buffer.get(offset, copy);
                    socketBuffer.add(copy);
                }
                return;
            }
            guard(() -> engine.onPacket(buffer, offset, length, atNs), "onPacket");
        }

        /**
         * The application's answer to a capture, at {@code atNs}: a paused process answers once it
         * runs again (a pause delays its application as it delays its engine), a crashed one never.
         */
        private void answerCapture(final MemberEngine engineThen, final long cut, final byte[] image, final long atNs)
        {
            at(atNs, () ->
            {
                if (engine != engineThen || crashed)
                {
                    return;
                }
                if (paused)
                {
                    answerCapture(engineThen, cut, image, nowNs + CAPTURE_DELAY_NS);
                    return;
                }
                guard(() -> engineThen.stateCaptured(cut, image, nowNs), "stateCaptured");
            });
        }

        private boolean runs()
        {
            return !crashed && !paused;
        }

        private void timerIfDue()
        {
            if (runs() && engine.nextDeadlineNs() - nowNs <= 0)
            {
                guard(() -> engine.onTimer(nowNs), "onTimer");
            }
        }

        private void guard(final Runnable call, final String what)
        {
            try
            {
                call.run();
            }
            catch (final RuntimeException e)
            {
                checker.violation(Violation.ENGINE_THREW, incarnation + " threw from " + what + " at " + NemesisChecker.ms(nowNs) + ": " + e);
                crash(id);
            }
        }

        String describe()
        {
            if (incarnation == null)
            {
                return "member " + id + " NOT STARTED";
            }
            return incarnation + " " + (crashed ? "CRASHED " : paused ? "PAUSED " : "") + engine.state() + " leader=" + engine.leaderId() +
                " view=" + Arrays.toString(engine.currentMembers()) + " deliveredSeq=" + engine.deliveredSeq() +
                (engine.state() == MemberEngine.State.LEADER_RECOVERING ? " (" + engine.deliverySummary() + ")" : "");
        }
    }

    /** A client and its open calls, each consolidated over a majority of the group. */
    final class Client
    {
        final int id;
        final GroupClientEngine engine;
        private final ConsolidationPolicy policy = ConsolidationPolicy.builder().mode(ConsolidationPolicy.Mode.QUORUM_COUNT)
            .quorum(memberIds.length / 2 + 1).consistency(ConsolidationPolicy.Consistency.ALL_SAME).build();
        private final Map<Integer, ReplyConsolidator> open = new HashMap<>();
        private final Map<Integer, String> requests = new HashMap<>();
        private int nextRequestId;

        Client(final int id)
        {
            this.id = id;
            this.engine = new GroupClientEngine(new GroupConfig(id, firstLeader, memberIds).retransmitTimeoutNs(5 * MS).maxOutstandingRequests(32),
                net.senderFor(id), this::onReply, (members, leaderId) ->
                {
                    for (final Integer packetId : List.copyOf(open.keySet()))
                    {
                        decided(packetId, open.get(packetId).onMembersChanged(members));
                    }
                });
            net.attach(id, engine::onPacket);
        }

        private void send()
        {
            final int requestId = nextRequestId++;
            final String request = id + "/" + requestId;
            final byte[] payload = request.getBytes(StandardCharsets.US_ASCII);
            history.sent(request, nowNs);
            final int packetId = engine.multicast(requestId, 3, ByteBuffer.wrap(payload), 0, payload.length, nowNs);
            open.put(packetId, new ReplyConsolidator(policy, engine.currentMembers(), nowNs));
            requests.put(packetId, request);
        }

        private void onReply(final int memberId, final int packetId, final int requestId, final ByteBuffer payload, final int offset, final int length)
        {
            final String text = StandardCharsets.US_ASCII.decode(payload.slice(offset, length)).toString();
            final String request = id + "/" + requestId;
            final int colon = text.indexOf(':');
            if (colon < 0 || !text.substring(colon + 1).equals(request))
            {
                checker.violation(Violation.CORRUPT_DELIVERY, "client " + id + " got reply " + text + " from " + memberId + " for " + request);
                return;
            }
            history.replied(new Reply(id, memberId, request, Long.parseLong(text.substring(0, colon)), nowNs));
            final ReplyConsolidator call = open.get(packetId);
            if (call != null)
            {
                decided(packetId, call.onReply(memberId, text.getBytes(StandardCharsets.US_ASCII)));
            }
        }

        private void decided(final int packetId, final Decision decision)
        {
            if (decision == null)
            {
                return;
            }
            open.remove(packetId);
            final String request = requests.remove(packetId);
            engine.callDone(packetId);
            if (decision.succeeded())
            {
                final String text = new String(decision.reply(), StandardCharsets.US_ASCII);
                final Completion c = new Completion(id, request, Long.parseLong(text.substring(0, text.indexOf(':'))), nowNs);
                history.completed(c);
                checker.onCompletion(c);
            }
        }

        String describe()
        {
            return "client " + id + " sent=" + nextRequestId + " open=" + open.size() + " outstanding=" + engine.outstandingRequests() +
                " leader=" + engine.leaderId() + " view=" + Arrays.toString(engine.currentMembers());
        }
    }

    private record Timed(long atNs, long serial, Runnable action) implements Comparable<Timed>
    {
        @Override
        public int compareTo(final Timed o)
        {
            return atNs != o.atNs ? Long.compare(atNs, o.atNs) : Long.compare(serial, o.serial);
        }
    }

    /** Runs {@code action} at simulated time {@code atNs} (now, if that has passed). */
    void at(final long atNs, final Runnable action)
    {
        actions.add(new Timed(atNs, actionSerial++, action));
    }

    void crash(final int id)
    {
        final Node n = nodes.get(id);
        if (n.crashed)
        {
            return;
        }
        history.fault(nowNs, "crash " + n.describe());
        n.crashed = true;
        n.socketBuffer.clear();
        history.ended(n.incarnation, nowNs);
        net.detach(id);
    }

    /** A fresh engine under the same id: with the group's founding configuration, or as a joiner. */
    void restart(final int id, final boolean founding)
    {
        final Node n = nodes.get(id);
        n.start(founding ? new GroupConfig(id, firstLeader, memberIds) : GroupConfig.joining(id, memberIds));
        history.fault(nowNs, "restart " + n.incarnation + (founding ? " with the founding config" : " joining"));
    }

    void pause(final int id)
    {
        final Node n = nodes.get(id);
        history.fault(nowNs, "pause " + n.describe());
        n.paused = true;
    }

    /**
     * Ends a pause: the process reads what its socket buffer holds and fires its timers, late, in
     * the order given (a driver may do either first).
     */
    void resume(final int id, final boolean timersFirst)
    {
        final Node n = nodes.get(id);
        if (!n.paused)
        {
            return;
        }
        history.fault(nowNs, "resume " + n.incarnation + " (" + n.socketBuffer.size() + " packets buffered, timers " +
            (timersFirst ? "first)" : "last)"));
        n.paused = false;
        if (timersFirst)
        {
            n.timerIfDue();
        }
        while (!n.socketBuffer.isEmpty() && n.runs())
        {
            final byte[] p = n.socketBuffer.poll();
            n.receive(ByteBuffer.wrap(p), 0, p.length, nowNs);
        }
        n.timerIfDue();
    }

    /** @return the leader most running members name (the lowest id on a tie), or -1. */
    int observedLeader()
    {
        final Map<Integer, Integer> votes = new TreeMap<>();
        for (final Node n : nodes.values())
        {
            if (n.runs() && n.engine.leaderId() > 0)
            {
                votes.merge(n.engine.leaderId(), 1, Integer::sum);
            }
        }
        return votes.entrySet().stream().max((a, b) -> a.getValue() != b.getValue() ? Integer.compare(a.getValue(), b.getValue())
            : Integer.compare(b.getKey(), a.getKey())).map(Map.Entry::getKey).orElse(-1);
    }

    List<Incarnation> live()
    {
        final List<Incarnation> live = new ArrayList<>();
        for (final Node n : nodes.values())
        {
            if (!n.crashed)
            {
                live.add(n.incarnation);
            }
        }
        return live;
    }

    /** @return each live member's admission reach ({@link MemberEngine#admissionReach}) now. */
    Map<Incarnation, Long> admissionReaches()
    {
        final Map<Incarnation, Long> reaches = new HashMap<>();
        for (final Node n : nodes.values())
        {
            if (!n.crashed)
            {
                reaches.put(n.incarnation, n.engine.admissionReach());
            }
        }
        return reaches;
    }

    String describe(final Incarnation i)
    {
        return nodes.get(i.memberId()).describe();
    }

    /** Runs until {@code stop} holds or the clock reaches {@code untilNs}. */
    void runUntil(final BooleanSupplier stop, final long untilNs)
    {
        while (!stop.getAsBoolean() && nowNs < untilNs)
        {
            long next = Math.min(untilNs, Math.min(net.nextDeliveryNs(), nextSendNs));
            if (!actions.isEmpty())
            {
                next = Math.min(next, actions.peek().atNs);
            }
            for (final Node n : nodes.values())
            {
                if (n.runs())
                {
                    next = Math.min(next, n.engine.nextDeadlineNs());
                }
            }
            for (final Client c : clients.values())
            {
                next = Math.min(next, c.engine.nextDeadlineNs());
            }
            nowNs = Math.max(nowNs, next);
            net.deliverDue(nowNs);
            if (nextSendNs <= nowNs)
            {
                sendSome();
            }
            for (final Node n : nodes.values())
            {
                n.timerIfDue();
            }
            for (final Client c : clients.values())
            {
                if (c.engine.nextDeadlineNs() - nowNs <= 0)
                {
                    c.engine.onTimer(nowNs);
                }
            }
            while (!actions.isEmpty() && actions.peek().atNs <= nowNs)
            {
                actions.poll().action.run();
            }
            if (firstViolationNs < 0 && !checker.verdict().ok())
            {
                firstViolationNs = nowNs;
                stateAtFirstViolation = describeAll();
            }
        }
    }

    /** @return a line per member process and per client. */
    String describeAll()
    {
        final StringBuilder sb = new StringBuilder();
        nodes.values().forEach(n -> sb.append('\n').append(n.describe()));
        clients.values().forEach(c -> sb.append('\n').append(c.describe()));
        return sb.toString();
    }

    private void sendSome()
    {
        if (sending)
        {
            for (final Client c : clients.values())
            {
                if (c.engine.canMulticast())
                {
                    c.send();
                }
            }
        }
        nextSendNs = sending ? nowNs + sendIntervalNs : Long.MAX_VALUE;
    }

    void clientsSending(final boolean on)
    {
        sending = on;
        nextSendNs = on ? nowNs : Long.MAX_VALUE;
    }
}
