package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * Members and clients over one {@link SimulatedGroupNetwork}, driven by one simulated clock, with
 * faults injected when a condition first holds (crash, cut-off, join, leave, cancel). Each member
 * answers every delivered request with "memberId:clientId/requestId"; each client records the
 * replies it is handed. Everything derives from the seed.
 */
final class GroupHarness
{
    static final long MS = 1_000_000L;

    final long seed;
    final SimulatedGroupNetwork net;
    final SplittableRandom random;
    final Map<Integer, Member> members = new TreeMap<>();
    final Map<Integer, Client> clients = new TreeMap<>();
    private final List<Trigger> triggers = new ArrayList<>();
    long nowNs;
    private long nextSendNs;
    /**
     * Members added from now on give and take their state ({@link StateHandler}: their delivered
     * requests), answering a capture at the next step, as an application that queues requests does.
     */
    boolean stateTransfer;
    /** Each client multicasts at most one request per interval (fewer when its window is full). */
    long sendIntervalNs = 50_000L;

    GroupHarness(final long seed, final double drop, final double dup)
    {
        this.seed = seed;
        this.net = new SimulatedGroupNetwork(seed, new int[0], drop, dup, 50_000L, 400_000L);
        this.random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        TraceDigest.harnessCreated(this);
    }

    static GroupConfig tuned(final GroupConfig config)
    {
        return config.orderInterval(1 * MS, true).retransmitTimeoutNs(5 * MS).nakDelayNs(1 * MS)
            .keepAlive(20 * MS, 100 * MS).joinTimeoutNs(60 * MS).cancelHoldNs(200 * MS);
    }

    final class Member
    {
        final int id;
        final MemberEngine engine;
        /** Order sequence number to "clientId/requestId", as delivered. */
        final TreeMap<Long, String> delivered = new TreeMap<>();
        /** Delivery jumps (a rejoin); every other delivery follows the previous by one. */
        int jumps;
        boolean alive = true;
        boolean cutOff;
        /**
         * With state transfer: what the application did, in order: "S" and the cut for each state
         * installed, the order number of each request executed.
         */
        final List<String> executions = new ArrayList<>();
        /** With state transfer: each refusal's reason. */
        final List<String> refusals = new ArrayList<>();
        /** With state transfer: answers {@link StateHandler#captureState} with this reason instead of its state, when set. */
        String unavailable;

        Member(final int id, final GroupConfig config)
        {
            this.id = id;
            final MemberEngine[] self = new MemberEngine[1];
            final StateHandler state = !stateTransfer ? null : new StateHandler()
            {
                @Override
                public void captureState(final long cut)
                {
                    final byte[] image = stateImage();
                    final MemberEngine engineThen = self[0];
                    when(() -> true, () ->
                    {
                        if (alive)
                        {
                            if (unavailable != null)
                            {
                                engineThen.stateUnavailable(cut, unavailable, nowNs);
                            }
                            else
                            {
                                engineThen.stateCaptured(cut, image, nowNs);
                            }
                        }
                    });
                }

                @Override
                public void installState(final long cut, final byte[] image)
                {
                    executions.add("S" + cut);
                    delivered.clear();
                    for (final String line : new String(image, StandardCharsets.US_ASCII).split("\n"))
                    {
                        if (!line.isEmpty())
                        {
                            final int space = line.indexOf(' ');
                            delivered.put(Long.parseLong(line.substring(0, space)), line.substring(space + 1));
                        }
                    }
                }

                @Override
                public void stateRefused(final String reason)
                {
                    refusals.add(reason);
                }
            };
            this.engine = new MemberEngine(tuned(config), net.senderFor(id), (orderSeq, senderId, packetId, requestId, payload, offset, length) ->
            {
                executions.add(Long.toString(orderSeq));
                final String text = StandardCharsets.US_ASCII.decode(payload.slice(offset, length)).toString();
                if (!text.equals(senderId + "/" + requestId))
                {
                    throw new AssertionError("member " + id + " delivered payload " + text + " for " + senderId + "/" + requestId);
                }
                if (!delivered.isEmpty() && orderSeq != delivered.lastKey() + 1)
                {
                    if (orderSeq <= delivered.lastKey())
                    {
                        throw new AssertionError("member " + id + " delivered order " + orderSeq + " after " + delivered.lastKey());
                    }
                    jumps++;
                }
                delivered.put(orderSeq, text);
                final byte[] answer = (id + ":" + text).getBytes(StandardCharsets.US_ASCII);
                self[0].sendReply(senderId, packetId, requestId, ByteBuffer.wrap(answer), 0, answer.length, nowNs);
            }, state);
            self[0] = engine;
        }

        /** The application's state: one line "orderSeq request" per request it executed. */
        byte[] stateImage()
        {
            final StringBuilder sb = new StringBuilder();
            delivered.forEach((seq, request) -> sb.append(seq).append(' ').append(request).append('\n'));
            return sb.toString().getBytes(StandardCharsets.US_ASCII);
        }
    }

    final class Client
    {
        final int id;
        final GroupClientEngine engine;
        final int toSend;
        int sent;
        /** Packet ids of cancelled requests to their request ids. */
        final Map<Integer, Integer> cancelled = new TreeMap<>();
        final Set<String> replies = new TreeSet<>();
        final List<String> views = new ArrayList<>();
        /** Request id to the members of the client's view when it multicast the request (those whose replies it counts). */
        final Map<Integer, int[]> viewAtSend = new TreeMap<>();
        double cancelRate;

        Client(final int id, final GroupConfig config, final int toSend)
        {
            this.id = id;
            this.toSend = toSend;
            this.engine = new GroupClientEngine(config.retransmitTimeoutNs(5 * MS).maxOutstandingRequests(32), net.senderFor(id),
                (memberId, packetId, requestId, payload, offset, length) ->
                {
                    final String text = StandardCharsets.US_ASCII.decode(payload.slice(offset, length)).toString();
                    if (!text.equals(memberId + ":" + id + "/" + requestId) || !replies.add(text))
                    {
                        throw new AssertionError("client " + id + " got reply " + text + " from " + memberId + " for request " + requestId);
                    }
                },
                (memberIds, leaderId) -> views.add(leaderId + ":" + java.util.Arrays.toString(memberIds)));
        }

        long repliesFrom(final int memberId)
        {
            return replies.stream().filter(r -> r.startsWith(memberId + ":")).count();
        }
    }

    Member addMember(final int id, final GroupConfig config)
    {
        final Member m = new Member(id, config);
        members.put(id, m);
        net.attachMember(id, m.engine::onPacket);
        m.engine.start(nowNs);
        return m;
    }

    Client addClient(final int id, final GroupConfig config, final int toSend)
    {
        final Client c = new Client(id, config, toSend);
        clients.put(id, c);
        net.attach(id, c.engine::onPacket);
        // A client added mid-run starts sending at the next step.
        nextSendNs = Math.min(nextSendNs, nowNs);
        return c;
    }

    /** Runs {@code action} once, at the first step where {@code condition} holds. */
    void when(final BooleanSupplier condition, final Runnable action)
    {
        triggers.add(new Trigger(condition, action));
    }

    void crash(final int id)
    {
        final Member m = members.get(id);
        m.alive = false;
        net.detach(id);
    }

    /** Cuts the member off the network; it keeps running its timers. */
    void cutOff(final int id)
    {
        members.get(id).cutOff = true;
        net.detach(id);
    }

    void reconnect(final int id)
    {
        final Member m = members.get(id);
        m.cutOff = false;
        net.attachMember(id, m.engine::onPacket);
    }

    /** Runs until {@code done} holds; fails, naming the seed, after {@code maxNs} simulated time. */
    void runUntil(final BooleanSupplier done, final long maxNs)
    {
        while (!done.getAsBoolean())
        {
            long next = Math.min(net.nextDeliveryNs(), nextSendNs);
            for (final Member m : members.values())
            {
                if (m.alive)
                {
                    next = Math.min(next, m.engine.nextDeadlineNs());
                }
            }
            for (final Client c : clients.values())
            {
                next = Math.min(next, c.engine.nextDeadlineNs());
            }
            if (next == Long.MAX_VALUE)
            {
                throw new AssertionError("seed " + seed + ": stalled at " + nowNs + " ns with nothing scheduled:" + state());
            }
            nowNs = Math.max(nowNs, next);
            if (nowNs > maxNs)
            {
                throw new AssertionError("seed " + seed + ": not done after " + maxNs + " simulated ns:" + state());
            }
            net.deliverDue(nowNs);
            if (nextSendNs <= nowNs)
            {
                sendSome();
            }
            for (final Member m : members.values())
            {
                if (m.alive && m.engine.nextDeadlineNs() - nowNs <= 0)
                {
                    m.engine.onTimer(nowNs);
                }
            }
            for (final Client c : clients.values())
            {
                if (c.engine.nextDeadlineNs() - nowNs <= 0)
                {
                    c.engine.onTimer(nowNs);
                }
            }
            for (final Trigger t : List.copyOf(triggers))
            {
                if (!t.fired && t.condition.getAsBoolean())
                {
                    t.fired = true;
                    t.action.run();
                }
            }
            triggers.removeIf(t -> t.fired);
        }
    }

    private void sendSome()
    {
        boolean more = false;
        for (final Client c : clients.values())
        {
            if (c.sent < c.toSend && c.engine.canMulticast())
            {
                final int requestId = c.sent++;
                final byte[] payload = (c.id + "/" + requestId).getBytes(StandardCharsets.US_ASCII);
                final int packetId = c.engine.multicast(requestId, 3, ByteBuffer.wrap(payload), 0, payload.length, nowNs);
                c.viewAtSend.put(requestId, c.engine.currentMembers());
                if (c.cancelRate > 0 && random.nextDouble() < c.cancelRate)
                {
                    // Cancelled within a fraction of a millisecond: some before the leader orders them, some after.
                    final long at = nowNs + random.nextLong(600_000L);
                    when(() -> nowNs >= at, () ->
                    {
                        c.cancelled.put(packetId, requestId);
                        c.engine.cancel(packetId, nowNs);
                    });
                }
            }
            more |= c.sent < c.toSend;
        }
        nextSendNs = more ? nowNs + sendIntervalNs : Long.MAX_VALUE;
    }

    boolean allSent()
    {
        return clients.values().stream().allMatch(c -> c.sent == c.toSend);
    }

    boolean clientsIdle()
    {
        return clients.values().stream().allMatch(c -> c.sent == c.toSend && c.engine.outstandingRequests() == 0 &&
            c.engine.nextDeadlineNs() == Long.MAX_VALUE);
    }

    /** Every live, connected member delivered {@code total} and has no reply left unACKed. */
    boolean delivered(final long total, final int... memberIds)
    {
        for (final int id : memberIds)
        {
            final Member m = members.get(id);
            if (m.engine.deliveredSeq() < total || m.engine.pendingReplies() > 0)
            {
                return false;
            }
        }
        return true;
    }

    String state()
    {
        final StringBuilder sb = new StringBuilder();
        for (final Member m : members.values())
        {
            sb.append("\n member ").append(m.id).append(m.alive ? "" : " (crashed)").append(' ').append(m.engine.state())
                .append(" leader=").append(m.engine.leaderId()).append(" view=").append(java.util.Arrays.toString(m.engine.currentMembers()))
                .append(" deliveredSeq=").append(m.engine.deliveredSeq()).append(' ').append(m.engine.counters());
        }
        for (final Client c : clients.values())
        {
            sb.append("\n client ").append(c.id).append(" sent=").append(c.sent).append(" outstanding=").append(c.engine.outstandingRequests())
                .append(" view=").append(java.util.Arrays.toString(c.engine.currentMembers())).append(' ').append(c.engine.counters());
        }
        return sb.toString();
    }

    private static final class Trigger
    {
        final BooleanSupplier condition;
        final Runnable action;
        boolean fired;

        Trigger(final BooleanSupplier condition, final Runnable action)
        {
            this.condition = condition;
            this.action = action;
        }
    }
}
