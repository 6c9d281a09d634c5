package org.lightwire.romiop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.SystemExceptionReply;
import org.lightwire.romiop.consolidation.ConsolidationPolicy;
import org.lightwire.romiop.consolidation.Decision;
import org.lightwire.romiop.consolidation.Outcome;
import org.lightwire.romiop.consolidation.ReplyConsolidator;
import org.lightwire.romiop.driver.DrivenEngine;
import org.lightwire.romiop.driver.EngineDriver;
import org.lightwire.romiop.engine.GroupClientEngine;
import org.lightwire.romiop.engine.Unavailability;
import org.lightwire.romiop.link.UdpGroupLink;
import org.lightwire.romiop.protocol.RequestFlyweight;
import org.lightwire.romiop.protocol.FragmentHeader;
import org.omg.CORBA.SystemException;

/**
 * One client ORB's end of one group: its link, its {@link GroupClientEngine} on a
 * {@link EngineDriver}, the requests waiting for the engine's outstanding window, and the
 * two-way calls waiting for their consolidated reply.
 *
 * <p>Requests keep the order in which the ORB flushed them: each goes through one FIFO backlog
 * to the engine, which numbers them with increasing packet ids. The backlog is bounded
 * ({@code client.backlog}); when it is full the flushing ORB thread waits, which holds JacORB's
 * connection write lock and so throttles every caller.
 *
 * <p>Replies come reliably through the engine ({@code GroupClientEngine}'s reply handler: each
 * member's reply once, ACKed). Each two-way call has a {@link ReplyConsolidator} with the group's
 * policy ({@code jacorb.lightwire.romiop.consolidation.*}); a membership change from the leader
 * reaches every open call, and the policy's timeout is a deadline of the driver. The decision
 * becomes one GIOP Reply for the ORB: the chosen member's reply, or a system exception reply
 * whose message says what happened. A leader's UNAVAILABLE notice (it lacks a majority and orders
 * nothing) fails every open call at once with {@code TRANSIENT} and cancels its request.
 */
final class ClientGroup implements AutoCloseable
{
    /** Where consolidated GIOP replies go: the connection's reader. */
    interface ReplySink
    {
        void onReply(byte[] giopReply);
    }

    private final RomiopAddress address;
    private final RomiopConfig config;
    private final UdpGroupLink link;
    private final GroupClientEngine engine;
    private final EngineDriver driver;
    private final Semaphore backlogRoom;
    // Driver thread only.
    private final ArrayDeque<Outgoing> backlog = new ArrayDeque<>();
    private final Map<Integer, Call> calls = new HashMap<>();
    private volatile ReplySink sink;
    /** Connections holding this group; guarded by the factories' lock. */
    int users;

    final AtomicLong requestsSent = new AtomicLong();
    final AtomicLong onewaysSent = new AtomicLong();
    /** Pieces of requests larger than a packet. */
    final AtomicLong fragmentsSent = new AtomicLong();
    final AtomicLong repliesDelivered = new AtomicLong();
    final AtomicLong lateReplies = new AtomicLong();
    final AtomicLong unknownReplies = new AtomicLong();
    final AtomicLong consolidationFailures = new AtomicLong();
    final AtomicLong membershipChanges = new AtomicLong();
    final AtomicLong cancelsSent = new AtomicLong();
    /** Calls failed by a leader's UNAVAILABLE notice. */
    final AtomicLong unavailableFailures = new AtomicLong();
    private final ConsolidationPolicy policy;

    private static final class Outgoing
    {
        final byte[] message;
        final int requestId;
        final boolean twoWay;
        /** This call's own policy, or null for the group's. */
        final ConsolidationPolicy policy;
        /** Bytes handed to the engine so far, and the packet id of each piece (one for a message that fits a packet). */
        int sent;
        int[] packetIds;
        int pieces;

        Outgoing(final byte[] message, final int requestId, final boolean twoWay, final ConsolidationPolicy policy)
        {
            this.message = message;
            this.requestId = requestId;
            this.twoWay = twoWay;
            this.policy = policy;
        }
    }

    private static final class Call
    {
        /** The first piece's, which names the call (the only one unless the request went in pieces). */
        final int packetId;
        /** Every piece's, to cancel. */
        final int[] packetIds;
        final int requestId;
        final int giopMinor;
        final ReplyConsolidator consolidator;

        Call(final int[] packetIds, final int requestId, final int giopMinor, final ReplyConsolidator consolidator)
        {
            this.packetId = packetIds[0];
            this.packetIds = packetIds;
            this.requestId = requestId;
            this.giopMinor = giopMinor;
            this.consolidator = consolidator;
        }
    }

    /**
     * @param clientId this end's id in the group.
     * @param resume   {@code {packet id, client seq}} of the last request of an earlier end of this
     *                 group with the same client id (see {@link GroupClientEngine#resumeAfter}), or null.
     */
    ClientGroup(final RomiopAddress address, final RomiopConfig config, final int clientId, final int[] resume) throws IOException
    {
        this.address = address;
        this.config = config;
        final InetSocketAddress multicast = address.multicast();
        if (config.link == UdpGroupLink.Mode.MULTICAST && multicast == null)
        {
            throw new IOException("the group " + address.group() + " has no multicast address; set " + RomiopConfig.LINK + "=fanout");
        }
        final UdpGroupLink.Settings s = new UdpGroupLink.Settings().mode(config.link).group(multicast).selfId(clientId)
            .joinGroup(false).ttl(config.ttl).maxPacketBytes(config.maxPacketBytes).polled(config.pollingDriver);
        try
        {
            s.networkInterface(config.networkInterface());
        }
        catch (final org.jacorb.config.ConfigurationException e)
        {
            throw new IOException(e.getMessage(), e);
        }
        this.link = UdpGroupLink.open(s);
        try
        {
            for (final RomiopAddress.Member m : address.members())
            {
                final InetSocketAddress a = m.resolve();
                if (a != null)
                {
                    link.addMember(m.id, a);
                }
                else if (config.link == UdpGroupLink.Mode.FANOUT)
                {
                    throw new IOException("fan-out to group " + address.group() + " needs every member's address, member " + m.id +
                        " has none: list members as id@host:port in " + RomiopConfig.MEMBERS);
                }
            }
        }
        catch (final IOException e)
        {
            link.close();
            throw e;
        }
        this.policy = config.consolidation(address.group());
        this.engine = new GroupClientEngine(config.engine(clientId, address.leaderId(), address.memberIds()), link, this::onReply,
            this::onMembers, this::onUnavailable);
        if (resume != null)
        {
            engine.resumeAfter(resume[0], resume[1]);
        }
        this.backlogRoom = new Semaphore(config.clientBacklog);
        this.driver = config.driver("romiop-client-" + address.group(), link,
            DrivenEngine.of(this::onPacket, this::onTimer, this::nextDeadlineNs)).start();
    }

    void setSink(final ReplySink s)
    {
        sink = s;
    }

    RomiopAddress address()
    {
        return address;
    }

    /** @return the driver of this group's engine (a connection's reader polls through it when it polls). */
    EngineDriver driver()
    {
        return driver;
    }

    /**
     * Hands one GIOP Request to the group, in flush order.
     *
     * @throws IOException when the backlog stayed full for 60 s, or the request is longer than
     *                     {@code max_request_bytes}. A request larger than one packet goes in
     *                     pieces ({@link FragmentHeader}).
     */
    void send(final byte[] message, final int requestId, final boolean twoWay, final ConsolidationPolicy callPolicy) throws IOException
    {
        if (message.length > config.maxRequestBytes)
        {
            throw new IOException("a GIOP request of " + message.length + " bytes is larger than " + RomiopConfig.MAX_REQUEST_BYTES + " = " +
                config.maxRequestBytes + " (members refuse a longer one with the same setting)");
        }
        try
        {
            if (!backlogRoom.tryAcquire(60, TimeUnit.SECONDS))
            {
                throw new IOException("the group " + address.group() + " took no request for 60 s: " + config.clientBacklog +
                    " wait for members' ACKs (" + RomiopConfig.CLIENT_BACKLOG + ")");
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for room in the group's backlog", e);
        }
        final Outgoing o = new Outgoing(message, requestId, twoWay, callPolicy);
        try
        {
            driver.submit(now ->
            {
                backlog.add(o);
                pump(now);
            });
        }
        catch (final IllegalStateException e)
        {
            backlogRoom.release();
            throw new IOException("the group " + address.group() + " is closed: " + e.getMessage(), e);
        }
    }

    private void onPacket(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        engine.onPacket(buffer, offset, length, nowNs);
        pump(nowNs);
    }

    private void onTimer(final long nowNs)
    {
        engine.onTimer(nowNs);
        decideOpenCalls(c -> c.onTimer(nowNs));
        pump(nowNs);
    }

    /** The engine's deadline, or the earliest consolidation timeout. Driver thread. */
    private long nextDeadlineNs()
    {
        long deadline = engine.nextDeadlineNs();
        for (final Call call : calls.values())
        {
            final long d = call.consolidator.deadlineNs();
            if (deadline == Long.MAX_VALUE || d - deadline < 0)
            {
                deadline = d;
            }
        }
        return deadline;
    }

    /** The leader removed a member: no open call waits for it any more. Driver thread. */
    private void onMembers(final int[] memberIds, final int leaderId)
    {
        membershipChanges.incrementAndGet();
        decideOpenCalls(c -> c.onMembersChanged(memberIds));
    }

    /**
     * The leader lacks a majority and orders nothing: every open call no member has replied to
     * fails now, not at its consolidation timeout, and its request is cancelled so that the
     * leader does not order it once the majority is back. A call with a reply was ordered: it is
     * left to its consolidation. Driver thread.
     */
    private void onUnavailable(final Unavailability notice)
    {
        if (calls.isEmpty())
        {
            return;
        }
        final SystemException e = RomiopExceptions.groupUnavailable(address.group(), notice);
        for (final java.util.Iterator<Call> it = calls.values().iterator(); it.hasNext(); )
        {
            final Call call = it.next();
            if (call.consolidator.replied() > 0)
            {
                continue;
            }
            it.remove();
            cancel(call);
            unavailableFailures.incrementAndGet();
            final ReplySink s = decided(call);
            if (s != null)
            {
                s.onReply(SystemExceptionReply.build(call.giopMinor, call.requestId & 0xFFFF_FFFFL,
                    org.lightwire.etf.CorbaExceptions.repositoryId(e), e.minor, e.completed.value(),
                    org.jacorb.orb.dsi.ServerRequest.createExceptionDetailMessage(e.getMessage()).context_data));
            }
        }
    }

    /** Members drop the call's request if it is not yet ordered (best effort: once ordered, it runs). */
    private void cancel(final Call call)
    {
        final long now = System.nanoTime();
        for (final int packetId : call.packetIds)
        {
            engine.cancel(packetId, now);
        }
        cancelsSent.incrementAndGet();
    }

    /**
     * The call is decided: replies still to come for it are not wanted (the group's calls-done ACK
     * may cover it).
     *
     * @return where its GIOP Reply goes, or null when the connection is gone (counted).
     */
    private ReplySink decided(final Call call)
    {
        engine.callDone(call.packetId);
        final ReplySink s = sink;
        if (s == null)
        {
            unknownReplies.incrementAndGet();
        }
        return s;
    }

    /** Gives every open call's consolidator an input, and delivers the calls it decides. Driver thread. */
    private void decideOpenCalls(final java.util.function.Function<ReplyConsolidator, Decision> input)
    {
        for (final java.util.Iterator<Call> it = calls.values().iterator(); it.hasNext(); )
        {
            final Call call = it.next();
            final Decision d = input.apply(call.consolidator);
            if (d != null)
            {
                it.remove();
                deliver(call, d);
            }
        }
    }

    /**
     * Moves backlog requests into the engine while its window has room, a request larger than a
     * packet piece by piece (each piece a request of its own to the engine, so the window holds a
     * long one back as it holds many short ones). A call is named by the packet id of its first
     * piece, which members' replies answer. Driver thread.
     */
    private void pump(final long nowNs)
    {
        final int room = config.maxPacketBytes - RequestFlyweight.HEADER_LENGTH;
        while (!backlog.isEmpty() && engine.canMulticast())
        {
            final Outgoing o = backlog.peek();
            final int responseFlags = o.twoWay ? 3 : 0;
            if (o.message.length <= room)
            {
                o.packetIds = new int[] {engine.multicast(o.requestId, responseFlags, ByteBuffer.wrap(o.message), 0, o.message.length, nowNs)};
            }
            else
            {
                final int pieceRoom = room - FragmentHeader.HEADER_LENGTH;
                if (o.packetIds == null)
                {
                    o.packetIds = new int[(o.message.length + pieceRoom - 1) / pieceRoom];
                }
                final int length = Math.min(pieceRoom, o.message.length - o.sent);
                final byte[] piece = new byte[FragmentHeader.HEADER_LENGTH + length];
                FragmentHeader.write(piece, 0, o.sent == 0 ? 0 : o.packetIds[0], o.sent, o.message.length);
                System.arraycopy(o.message, o.sent, piece, FragmentHeader.HEADER_LENGTH, length);
                // Only the first piece asks for a reply: it names the call.
                o.packetIds[o.pieces++] = engine.multicast(o.requestId, o.sent == 0 ? responseFlags : 0, ByteBuffer.wrap(piece), 0, piece.length,
                    nowNs);
                o.sent += length;
                fragmentsSent.incrementAndGet();
                if (o.sent < o.message.length)
                {
                    continue;
                }
            }
            backlog.poll();
            backlogRoom.release();
            if (o.twoWay)
            {
                calls.put(o.packetIds[0], new Call(o.packetIds, o.requestId, GiopMessage.minor(o.message),
                    new ReplyConsolidator(o.policy != null ? o.policy : policy, engine.currentMembers(), nowNs)));
                requestsSent.incrementAndGet();
            }
            else
            {
                onewaysSent.incrementAndGet();
            }
        }
    }

    /** A member's reply, once per member and call (the engine drops duplicates). Driver thread. */
    private void onReply(final int memberId, final int packetId, final int requestId, final ByteBuffer payload, final int offset,
        final int length)
    {
        final Call call = calls.get(packetId);
        if (call == null || call.requestId != requestId)
        {
            lateReplies.incrementAndGet();
            return;
        }
        final Decision d = call.consolidator.onReply(memberId, payload, offset, length);
        if (d != null)
        {
            calls.remove(packetId);
            deliver(call, d);
        }
    }

    /** The call's one GIOP Reply for the ORB: the chosen reply, or a system exception reply. */
    private void deliver(final Call call, final Decision d)
    {
        final ReplySink s = decided(call);
        if (s == null)
        {
            return;
        }
        if (d.succeeded())
        {
            repliesDelivered.incrementAndGet();
            s.onReply(d.reply());
            return;
        }
        consolidationFailures.incrementAndGet();
        final Outcome o = d.outcome();
        if (o == Outcome.TIMEOUT)
        {
            // No member answered in time: the caller gives up, so the group should too.
            cancel(call);
        }
        final int completion = "COMPLETED_YES".equals(o.completion()) ? org.omg.CORBA.CompletionStatus._COMPLETED_YES :
            org.omg.CORBA.CompletionStatus._COMPLETED_MAYBE;
        final String text = "ROMIOP group " + address.group() + ": " + o + ": " + d.message();
        s.onReply(SystemExceptionReply.build(call.giopMinor, call.requestId & 0xFFFF_FFFFL, o.exceptionId(), o.minor(), completion,
            org.jacorb.orb.dsi.ServerRequest.createExceptionDetailMessage(text).context_data));
    }

    @Override
    public String toString()
    {
        return "group " + address.group() + ": requestsSent=" + requestsSent + ", onewaysSent=" + onewaysSent + ", fragmentsSent=" + fragmentsSent +
            ", repliesDelivered=" + repliesDelivered + ", lateReplies=" + lateReplies + ", unknownReplies=" + unknownReplies +
            ", consolidationFailures=" + consolidationFailures + ", membershipChanges=" + membershipChanges + ", cancelsSent=" + cancelsSent +
            ", unavailableFailures=" + unavailableFailures + ", reply pieces: " + engine.replyPieceCounters() + ", policy " + policy + ", driverFailures=" +
            driver.failures() + (driver.lastFailure() != null ? " (" + driver.lastFailure() + ")" : "") + ", " + driver + ", link " + link.counters() +
            ", engine " + engine.counters();
    }

    @Override
    public void close()
    {
        driver.close();
        link.close();
    }

    /** @return {@code {packet id, client seq}} to resume from in a later end with this client id; after {@link #close} only. */
    int[] numbering()
    {
        return new int[] {engine.lamport(), engine.clientSeq()};
    }
}
