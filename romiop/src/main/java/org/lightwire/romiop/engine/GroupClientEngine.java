package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.CancelFlyweight;
import org.lightwire.romiop.protocol.Invalid;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.ReplyFlyweight;
import org.lightwire.romiop.protocol.RequestFlyweight;
import org.lightwire.romiop.protocol.ViewChangeFlyweight;
import org.lightwire.romiop.engine.view.Configuration;

/**
 * A client's side of the group (paper, Figure 4 lines 6-11, 19-20 and 41-45).
 *
 * <p>Requests: each is kept, multicast, and multicast again until every member of the client's
 * current view has ACKed it: first {@code retransmitTimeoutNs} after it was sent, then after twice
 * as long each time, up to {@code 2^GroupConfig.MAX_BACKOFF} times that (the pieces of a large
 * request on a busy host are ACKed late, not lost; a fixed interval sent them all again and
 * again). Cancel ({@link #cancel}) is multicast the same way until every member ACKs it.
 *
 * <p>Replies: each member's Reply is handed to the {@link ReplyHandler} once per member and
 * request, and ACKed. A new reply's ACK waits {@code replyAckDelayNs}: then one cumulative
 * "calls done" ACK goes to the group, naming the newest request up to which every two-way call is
 * done (every current member replied, or the caller {@link #callDone decided} or cancelled it),
 * and only replies to calls still open get an ACK of their own. Duplicates, stale and late
 * replies are ACKed at once (the member resends for want of that ACK). Replies are remembered for
 * the last {@code maxTrackedReplies} two-way requests; a reply to an older one is stale.
 *
 * <p>A reply too large for one packet comes in pieces (Reply packets with flags bit 3, each ACKed
 * like a reply): the engine puts each member's reply together ({@link FragmentAssembler}, up to
 * {@code maxReplyBytes}) and hands it on whole, once. Pieces of a call already decided are not
 * kept.
 *
 * <p>Membership: the view starts as the configured members and follows the leader's MemberChange
 * LIST packets (leader first in the list, then the epoch it leads). A request stops waiting for a member's ACK once that
 * member leaves the view. See {@link #acceptList} for which lists are taken.
 *
 * <p>A leader without a present majority answers requests with ViewChange UNAVAILABLE; one from a
 * member of the view goes to the {@link UnavailableHandler}, which fails the open calls. Any other
 * ViewChange is dropped and counted ({@code unavailableDropped}).
 *
 * <p>Requests larger than one packet are split by the caller (multicast refuses them). Not yet:
 * an allocation-free steady state (each request and reply record is a small allocation).
 */
public final class GroupClientEngine
{
    private static final ByteOrder WIRE_ORDER = ByteOrder.BIG_ENDIAN;
    private static final ReplyHandler NO_REPLIES = (memberId, packetId, requestId, payload, offset, length) -> { };

    private final GroupConfig config;
    private final GroupSender sender;
    private final ReplyHandler replyHandler;
    private final MembershipListener membershipListener;
    private final UnavailableHandler unavailableHandler;
    private final GroupCounters counters = new GroupCounters();
    private final ByteBuffer out;
    private final PacketHeader_1_0 header = new PacketHeader_1_0();
    private final RequestFlyweight request = new RequestFlyweight();
    private final CancelFlyweight cancelPacket = new CancelFlyweight();
    private final ReplyFlyweight reply = new ReplyFlyweight();
    private final AckFlyweight ack = new AckFlyweight();
    private final MemberChangeFlyweight memberChange = new MemberChangeFlyweight();
    private final ViewChangeFlyweight viewChange = new ViewChangeFlyweight();
    /** Unacknowledged requests by packet id, oldest first. */
    private final LinkedHashMap<Integer, Outstanding> outstanding = new LinkedHashMap<>();
    /** Unacknowledged cancels by the Cancel's own packet id. */
    private final Map<Integer, Outstanding> cancels = new HashMap<>();
    /** Two-way requests whose replies are still de-duplicated, oldest first. */
    private final LinkedHashMap<Integer, ReplyRecord> replyRecords = new LinkedHashMap<>();
    /**
     * The tracked records from the oldest one not known to be done, in the same order: the
     * "calls done" scan starts here instead of at the oldest tracked record, which would make
     * every reply ACK cost up to {@code maxTrackedReplies} steps.
     */
    private final ArrayDeque<ReplyRecord> undecided = new ArrayDeque<>();
    /** Members' replies that came in pieces, by (member, request packet id). */
    private final FragmentAssembler replyPieces;
    /** Replies to packet ids at or below this (unsigned) are stale: their records were evicted. */
    private int evictedReplyWatermark;
    private int[] members;
    private int leaderId;
    /** Something came from the current leader: the link knows where it is, so requests may go to it alone. */
    private boolean leaderHeard;
    private int lastListPacketId;
    /** The epoch of the last list taken: 0 while the view is the configured one. */
    private int listEpoch;
    private int lamport;
    /** This client's number for its last request: 1, 2, ... 2^24-1, 1, ... (the sequencer keeps their order). */
    private int clientSeq;
    private static final int CLIENT_SEQ_MAX = 0xFF_FFFF;
    /** The packet id of the newest request multicast (0 before the first). */
    private int lastRequestPacketId;
    /** Replies received and not yet ACKed: (member, reply packet id, request packet id) triples. */
    private int[] unackedReplies = new int[3 * 16];
    private int unackedReplyCount;
    private boolean replyAckArmed;
    private long replyAckDeadlineNs;

    public GroupClientEngine(final GroupConfig config, final GroupSender sender)
    {
        this(config, sender, NO_REPLIES, null);
    }

    public GroupClientEngine(final GroupConfig config, final GroupSender sender, final ReplyHandler replyHandler)
    {
        this(config, sender, replyHandler, null);
    }

    /**
     * @param replyHandler       receives each member's reply once.
     * @param membershipListener told of every change of the view; may be null.
     */
    public GroupClientEngine(final GroupConfig config, final GroupSender sender, final ReplyHandler replyHandler,
        final MembershipListener membershipListener)
    {
        this(config, sender, replyHandler, membershipListener, null);
    }

    /**
     * @param replyHandler       receives each member's reply once.
     * @param membershipListener told of every change of the view; may be null.
     * @param unavailableHandler told of each UNAVAILABLE notice from a member of the view; may be null.
     */
    public GroupClientEngine(final GroupConfig config, final GroupSender sender, final ReplyHandler replyHandler,
        final MembershipListener membershipListener, final UnavailableHandler unavailableHandler)
    {
        if (config.memberIds.length == 0)
        {
            throw new IllegalArgumentException("a client needs the group's members and leader: use new GroupConfig(clientId, leaderId, memberIds...)");
        }
        if (config.memberIndex(config.selfId) >= 0)
        {
            throw new IllegalArgumentException("client id " + config.selfId + " is also a member id; give the client its own id");
        }
        this.config = config;
        this.sender = sender;
        this.replyHandler = replyHandler;
        this.membershipListener = membershipListener;
        this.unavailableHandler = unavailableHandler;
        this.out = ByteBuffer.allocate(config.maxPacketBytes);
        this.members = config.memberIds.clone();
        Arrays.sort(members);
        this.leaderId = config.leaderId;
        this.replyPieces = new FragmentAssembler(config.maxReplyBytes, 4L * config.maxReplyBytes);
    }

    public GroupCounters counters()
    {
        return counters;
    }

    /** @return the counters of replies put together from pieces. */
    public String replyPieceCounters()
    {
        return replyPieces.counters("Replies");
    }

    /** @return the members in this client's current view, ascending (a copy). */
    public int[] currentMembers()
    {
        return members.clone();
    }

    /** @return the sequencer in this client's current view. */
    public int leaderId()
    {
        return leaderId;
    }

    /**
     * @return true when another request may be multicast now: fewer than
     *         {@code maxOutstandingRequests} have been multicast since the oldest request some member
     *         has not ACKed yet (a window that slides only from its oldest end, so members may forget
     *         old request ids: see DuplicateFilter).
     */
    public boolean canMulticast()
    {
        return outstanding.isEmpty() || counters.requestsSent - outstanding.values().iterator().next().sendSeq < config.maxOutstandingRequests;
    }

    public int outstandingRequests()
    {
        return outstanding.size();
    }

    /**
     * Continues the numbering of an earlier engine with this client id, which sent its last
     * request as packet {@code packetId} with client sequence number {@code seq}: members hold
     * every (client, packet id) they have seen as a duplicate and the sequencer waits for each
     * client's next sequence number, so a second end of the same client that started again from 1
     * would have its requests dropped as duplicates or held as out of order. Before the first
     * request only.
     *
     * @throws IllegalStateException once a request was sent.
     */
    public void resumeAfter(final int packetId, final int seq)
    {
        if (lastRequestPacketId != 0)
        {
            throw new IllegalStateException("client " + config.selfId + " already sent request " + lastRequestPacketId +
                ": resumeAfter must come before the first request");
        }
        if (Integer.compareUnsigned(packetId, lamport) > 0)
        {
            lamport = packetId;
        }
        clientSeq = seq;
    }

    /** @return the newest packet id this engine used or saw (its Lamport clock). */
    public int lamport()
    {
        return lamport;
    }

    /** @return the client sequence number of the newest request (0 before the first). */
    public int clientSeq()
    {
        return clientSeq;
    }

    /**
     * Multicasts one request to the group and keeps it until every member ACKs it.
     *
     * @param responseFlags GIOP's; non-zero means replies are expected and will be de-duplicated.
     * @return the request's packet id, which with this client's id names it in the group's order.
     */
    public int multicast(final int requestId, final int responseFlags, final ByteBuffer payload, final int offset, final int length, final long nowNs)
    {
        if (!canMulticast())
        {
            throw new IllegalStateException("the oldest unACKed request is " + config.maxOutstandingRequests +
                " requests back, the configured maximum (maxOutstandingRequests): wait until canMulticast()");
        }
        if (RequestFlyweight.HEADER_LENGTH + length > config.maxPacketBytes)
        {
            throw new IllegalArgumentException("payload of " + length + " bytes exceeds maxPacketBytes " + config.maxPacketBytes +
                " less the " + RequestFlyweight.HEADER_LENGTH + "-byte request header; fragmentation is not implemented yet");
        }
        final int packetId = ++lamport;
        request.wrap(out, 0);
        clientSeq = clientSeq == CLIENT_SEQ_MAX ? 1 : clientSeq + 1;
        request.set(WIRE_ORDER, config.selfId, packetId, requestId, responseFlags, length).clientSeq(clientSeq).payload(payload, offset, length);
        final byte[] copy = new byte[request.packetSize()];
        out.get(0, copy);
        final Outstanding o = new Outstanding(copy, requestId, nowNs);
        o.sendSeq = counters.requestsSent;
        outstanding.put(packetId, o);
        lastRequestPacketId = packetId;
        if (responseFlags != 0)
        {
            trackReplies(packetId, requestId);
        }
        counters.requestsSent++;
        if (config.requestsToSequencer && leaderHeard && copy.length + MsgOrderFlyweight.length(1) <= config.maxPacketBytes)
        {
            // The sequencer carries it to the group in its MsgOrder; the kept copy, which every
            // resend multicasts, has flags bit 2 clear.
            header.wrap(out, 0).toSequencer(true);
            counters.requestsToSequencer++;
            sender.send(leaderId, out, copy.length);
        }
        else
        {
            sender.send(GroupSender.GROUP, out, copy.length);
        }
        return packetId;
    }

    /**
     * Withdraws a request this client multicast (its call timed out): stops retransmitting it and
     * multicasts a Cancel until every member ACKs. Members drop the request if the leader has not
     * ordered it yet; once ordered it is delivered everywhere (and its replies are then dropped
     * here, counted {@code repliesAfterCancel}).
     *
     * @param packetId as returned by {@link #multicast}.
     */
    public void cancel(final int packetId, final long nowNs)
    {
        if (packetId == 0 || Integer.compareUnsigned(packetId, lamport) > 0)
        {
            throw new IllegalArgumentException("packet id " + Integer.toUnsignedString(packetId) + " was never returned by multicast()");
        }
        int requestId = 0;
        final Outstanding o = outstanding.remove(packetId);
        if (o != null)
        {
            requestId = o.requestId;
        }
        final ReplyRecord record = replyRecords.get(packetId);
        if (record != null)
        {
            record.cancelled = true;
            record.done = true;
            requestId = record.requestId;
            discardPieces(record);
        }
        final int cancelPacketId = ++lamport;
        cancelPacket.wrap(out, 0);
        cancelPacket.set(WIRE_ORDER, config.selfId, cancelPacketId, packetId, requestId);
        final byte[] copy = new byte[CancelFlyweight.LENGTH];
        out.get(0, copy);
        cancels.put(cancelPacketId, new Outstanding(copy, requestId, nowNs));
        counters.cancelsSent++;
        sender.send(GroupSender.GROUP, out, copy.length);
    }

    /** Handles one received datagram; never throws. */
    public void onPacket(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        header.wrap(buffer, offset);
        final Invalid invalid = header.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        switch (header.type())
        {
            case ACK -> onAck(buffer, offset, length);
            case REPLY -> onReply(buffer, offset, length, nowNs);
            case MEMBER_CHANGE -> onMemberChange(buffer, offset, length);
            case VIEW_CHANGE -> onViewChange(buffer, offset, length);
            default -> counters.unexpectedPackets++;
        }
    }

    /**
     * Re-multicasts every request and cancel whose retransmission deadline has passed. A Cancel
     * still unACKed after {@code replyGiveUpNs} is dropped (counted {@code cancelsAbandoned}), so
     * that cancels cannot pile up while a dead member is still in the view.
     */
    public void onTimer(final long nowNs)
    {
        if (replyAckArmed && replyAckDeadlineNs - nowNs <= 0)
        {
            ackReplies();
        }
        resendDue(outstanding, nowNs);
        cancels.values().removeIf(o ->
        {
            final boolean old = nowNs - o.firstSentNs >= config.replyGiveUpNs;
            counters.cancelsAbandoned += old ? 1 : 0;
            return old;
        });
        resendDue(cancels, nowNs);
    }

    /** @return the earliest retransmission deadline, or Long.MAX_VALUE when nothing is outstanding. */
    public long nextDeadlineNs()
    {
        return earliest(cancels, earliest(outstanding, replyAckArmed ? replyAckDeadlineNs : Long.MAX_VALUE));
    }

    /**
     * The caller decided this two-way call (its consolidation is done): replies to it still to
     * come are not wanted, and it no longer holds back the cumulative "calls done" ACK.
     *
     * @param packetId as returned by {@link #multicast}.
     */
    public void callDone(final int packetId)
    {
        final ReplyRecord record = replyRecords.get(packetId);
        if (record != null)
        {
            record.done = true;
            discardPieces(record);
        }
    }

    /** Forgets the pieces of replies to this call that are still under way. */
    private void discardPieces(final ReplyRecord record)
    {
        if (replyPieces.partials() > 0)
        {
            for (final int memberId : config.memberIds)
            {
                replyPieces.discard(memberId, record.packetId);
            }
            for (final int memberId : members)
            {
                replyPieces.discard(memberId, record.packetId);
            }
        }
    }

    /**
     * @return the newest of this client's packet ids up to which every two-way request is done;
     *     replies to requests up to it are no longer wanted.
     */
    int callsDoneThrough()
    {
        for (ReplyRecord head = undecided.peekFirst(); head != null; head = undecided.peekFirst())
        {
            if (!head.doneFor(members))
            {
                return head.packetId - 1;
            }
            undecided.pollFirst();
        }
        return lastRequestPacketId;
    }

    /**
     * Sends the ACKs the replies received since the last time are owed: one cumulative "calls
     * done" ACK to the group when any of them is covered by it, one ACK each for the others.
     */
    private void ackReplies()
    {
        replyAckArmed = false;
        final int doneThrough = callsDoneThrough();
        boolean cumulative = false;
        for (int i = 0; i < unackedReplyCount; i++)
        {
            final int memberId = unackedReplies[3 * i];
            final int replyPacketId = unackedReplies[3 * i + 1];
            final int requestPacketId = unackedReplies[3 * i + 2];
            if (requestPacketId - doneThrough <= 0)
            {
                cumulative = true;
            }
            else
            {
                counters.replyAcksSent++;
                sendAck(memberId, PacketType.REPLY, memberId, replyPacketId);
            }
        }
        unackedReplyCount = 0;
        if (cumulative)
        {
            counters.callsDoneAcksSent++;
            ack.wrap(out, 0);
            ack.set(WIRE_ORDER, config.selfId, ++lamport, PacketType.REPLY, config.selfId, doneThrough & 0xFFFF_FFFFL)
                .ackFlags(AckFlyweight.FLAG_CALLS_DONE);
            sender.send(GroupSender.GROUP, out, AckFlyweight.LENGTH);
        }
    }

    /** A new reply's ACK waits for the cumulative one (see the class comment). */
    private void ackLater(final int memberId, final int replyPacketId, final int requestPacketId, final long nowNs)
    {
        if (3 * unackedReplyCount + 3 > unackedReplies.length)
        {
            unackedReplies = Arrays.copyOf(unackedReplies, unackedReplies.length * 2);
        }
        unackedReplies[3 * unackedReplyCount] = memberId;
        unackedReplies[3 * unackedReplyCount + 1] = replyPacketId;
        unackedReplies[3 * unackedReplyCount + 2] = requestPacketId;
        unackedReplyCount++;
        if (!replyAckArmed)
        {
            replyAckArmed = true;
            replyAckDeadlineNs = nowNs + config.replyAckDelayNs;
        }
    }

    private void onAck(final ByteBuffer buffer, final int offset, final int length)
    {
        if (!Packets.wrapValid(ack, buffer, offset, length, counters))
        {
            return;
        }
        observe(ack.packetId());
        heard(ack.senderId());
        final PacketType acked = ack.ackedType();
        if ((acked != PacketType.REQUEST && acked != PacketType.CANCEL) || ack.ackedSenderId() != config.selfId ||
            !isMember(ack.senderId()))
        {
            counters.unexpectedPackets++;
            return;
        }
        acknowledged(acked == PacketType.REQUEST, (int)ack.ackedId(), ack.senderId());
    }

    /** Member {@code memberId} has a request (or a Cancel): done once every member of the view has it. */
    private boolean acknowledged(final boolean isRequest, final int packetId, final int memberId)
    {
        final Map<Integer, Outstanding> map = isRequest ? outstanding : cancels;
        final Outstanding o = map.get(packetId);
        if (o == null)
        {
            return false;
        }
        o.ackedBy(memberId);
        if (o.ackedByAll(members))
        {
            map.remove(packetId);
            if (isRequest)
            {
                counters.requestsCompleted++;
            }
            else
            {
                counters.cancelsCompleted++;
            }
        }
        return true;
    }

    private void onReply(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (!Packets.wrapValid(reply, buffer, offset, length, counters))
        {
            return;
        }
        observe(reply.packetId());
        if (reply.requestSenderId() != config.selfId)
        {
            counters.unexpectedPackets++;
            return;
        }
        final int memberId = reply.senderId();
        heard(memberId);
        if (!isMember(memberId))
        {
            // Not ACKed: if the member joined and our view lags, its retransmission is taken once the view catches up.
            counters.repliesFromNonMembers++;
            return;
        }
        counters.repliesReceived++;
        final int replyPacketId = reply.packetId();
        final int requestPacketId = reply.requestPacketId();
        boolean fresh = false;
        try
        {
            fresh = takeReply(memberId, buffer);
        }
        finally
        {
            // After the reply is handed on (the caller waits for it; the member only for this ACK).
            if (fresh && config.replyAckDelayNs > 0)
            {
                ackLater(memberId, replyPacketId, requestPacketId, nowNs);
            }
            else
            {
                counters.replyAcksSent++;
                sendAck(memberId, PacketType.REPLY, memberId, replyPacketId);
            }
        }
    }

    /**
     * A member's Reply to this client, already counted; ACKed by the caller whatever happens here.
     *
     * @return true for a member's first reply to a call still tracked and not cancelled (handed on).
     */
    private boolean takeReply(final int memberId, final ByteBuffer buffer)
    {
        final int packetId = reply.requestPacketId();
        // Implicit acknowledgement: a member that replies has the request (it may not ACK it otherwise).
        if (acknowledged(true, packetId, memberId))
        {
            counters.requestsAckedByReply++;
        }
        final ReplyRecord record = replyRecords.get(packetId);
        if (record == null)
        {
            if (packetId != 0 && Integer.compareUnsigned(packetId, evictedReplyWatermark) <= 0)
            {
                counters.staleReplies++;
            }
            else
            {
                counters.unexpectedPackets++;
            }
            return false;
        }
        if (record.repliedBy(memberId))
        {
            counters.duplicateReplies++;
            return false;
        }
        ByteBuffer whole = buffer;
        int at = reply.payloadOffset();
        int length = reply.payloadLength();
        if (reply.header().piece())
        {
            if (record.done)
            {
                counters.lateReplyFragments++;
                return false;
            }
            counters.replyFragmentsReceived++;
            final FragmentAssembler.Message m = replyPieces.offerNamed(memberId, packetId, buffer, at, length);
            if (m == null)
            {
                return true;
            }
            whole = ByteBuffer.wrap(m.bytes());
            at = 0;
            length = m.bytes().length;
        }
        record.replied(memberId);
        if (record.cancelled)
        {
            counters.repliesAfterCancel++;
            return false;
        }
        counters.repliesDelivered++;
        replyHandler.onReply(memberId, packetId, reply.requestId(), whole, at, length);
        return true;
    }

    private void onMemberChange(final ByteBuffer buffer, final int offset, final int length)
    {
        if (!Packets.wrapValid(memberChange, buffer, offset, length, counters))
        {
            return;
        }
        observe(memberChange.packetId());
        heard(memberChange.senderId());
        if (memberChange.status() != MemberChangeFlyweight.STATUS_LIST)
        {
            counters.unexpectedPackets++;
            return;
        }
        // ACKed even when not taken: a stale list's sender retransmits only because it lacks this ACK.
        sendAck(memberChange.senderId(), PacketType.MEMBER_CHANGE, memberChange.senderId(), memberChange.packetId());
        // (The configuration's members outside the view, after it, and which members of the view
        // are learners, are the members' concern: a learner's reply counts as any member's.)
        final int[] list = new int[memberChange.listViewSize()];
        for (int i = 0; i < list.length; i++)
        {
            list[i] = memberChange.listMember(i);
        }
        final int epoch = memberChange.listEpoch();
        if (!acceptList(memberChange.senderId(), memberChange.packetId(), list, epoch))
        {
            counters.staleMemberLists++;
            return;
        }
        listEpoch = epoch;
        lastListPacketId = memberChange.packetId();
        final int newLeader = list[0];
        Arrays.sort(list);
        if (newLeader == leaderId && Arrays.equals(list, members))
        {
            return;
        }
        leaderId = newLeader;
        // A list is taken only from the leader it names.
        leaderHeard = true;
        members = list;
        counters.viewChanges++;
        completeAckedByAll(outstanding, true);
        completeAckedByAll(cancels, false);
        if (membershipListener != null)
        {
            membershipListener.onMembers(members.clone(), leaderId);
        }
    }

    /** A leader's UNAVAILABLE notice: taken from a member of this client's view only. */
    private void onViewChange(final ByteBuffer buffer, final int offset, final int length)
    {
        if (!Packets.wrapValid(viewChange, buffer, offset, length, counters))
        {
            return;
        }
        observe(viewChange.packetId());
        final int from = viewChange.senderId();
        if (viewChange.kind() != ViewChangeFlyweight.KIND_UNAVAILABLE || !isMember(from))
        {
            counters.unavailableDropped++;
            return;
        }
        final int n = viewChange.memberCount();
        final int[] ids = new int[n];
        final long[] incarnations = new long[n];
        int present = 0;
        for (int i = 0; i < n; i++)
        {
            ids[i] = viewChange.memberId(i);
            incarnations[i] = viewChange.memberIncarnation(i);
            present += (viewChange.memberFlags(i) & ViewChangeFlyweight.MEMBER_PRESENT) != 0 ? 1 : 0;
        }
        final Configuration c;
        try
        {
            c = Configuration.of(ids, incarnations);
        }
        catch (final IllegalArgumentException e)
        {
            // A member listed twice: not a configuration.
            counters.unavailableDropped++;
            return;
        }
        final int[] presentIds = new int[present];
        int at = 0;
        for (int i = 0; i < n; i++)
        {
            if ((viewChange.memberFlags(i) & ViewChangeFlyweight.MEMBER_PRESENT) != 0)
            {
                presentIds[at++] = ids[i];
            }
        }
        Arrays.sort(presentIds);
        counters.unavailableReceived++;
        if (unavailableHandler != null)
        {
            unavailableHandler.onUnavailable(new Unavailability(from, viewChange.epoch(), c.ids(), presentIds, c.quorum()));
        }
    }

    /**
     * A list is taken when its sender leads it (first entry) and either leads a newer epoch than
     * the last list taken and is a configured member or one of our view (a failover: each new
     * leader leads a newer epoch, so a client whose view went stale during a partition takes the
     * majority's leader however its view differs), or is our current leader in the same epoch and
     * the list is newer than the last one it sent (its Lamport packet ids grow). A list of an
     * older epoch is a deposed leader's and is never taken.
     */
    private boolean acceptList(final int senderId, final int packetId, final int[] list, final int epoch)
    {
        if (list[0] != senderId)
        {
            return false;
        }
        if (epoch != listEpoch)
        {
            return epoch > listEpoch && (isMember(senderId) || Arrays.stream(config.memberIds).anyMatch(id -> id == senderId));
        }
        return senderId == leaderId && Integer.compareUnsigned(packetId, lastListPacketId) > 0;
    }

    private void completeAckedByAll(final Map<Integer, Outstanding> map, final boolean requests)
    {
        for (final Iterator<Outstanding> it = map.values().iterator(); it.hasNext(); )
        {
            if (it.next().ackedByAll(members))
            {
                it.remove();
                if (requests)
                {
                    counters.requestsCompleted++;
                }
                else
                {
                    counters.cancelsCompleted++;
                }
            }
        }
    }

    private void trackReplies(final int packetId, final int requestId)
    {
        if (replyRecords.size() >= config.maxTrackedReplies)
        {
            final Iterator<ReplyRecord> eldest = replyRecords.values().iterator();
            final ReplyRecord evicted = eldest.next();
            evictedReplyWatermark = evicted.packetId;
            eldest.remove();
            discardPieces(evicted);
            if (undecided.peekFirst() == evicted)
            {
                // No longer tracked, so no longer holding back the cumulative ACK (as before).
                undecided.pollFirst();
            }
        }
        final ReplyRecord record = new ReplyRecord(packetId, requestId);
        replyRecords.put(packetId, record);
        undecided.addLast(record);
    }

    private void resendDue(final Map<Integer, Outstanding> map, final long nowNs)
    {
        for (final Outstanding o : map.values())
        {
            if (o.deadlineNs - nowNs <= 0)
            {
                counters.requestRetransmits++;
                sender.send(GroupSender.GROUP, ByteBuffer.wrap(o.packet), o.packet.length);
                o.resends = Math.min(o.resends + 1, GroupConfig.MAX_BACKOFF);
                o.deadlineNs = nowNs + (config.retransmitTimeoutNs << o.resends);
            }
        }
    }

    private static long earliest(final Map<Integer, Outstanding> map, final long start)
    {
        long deadline = start;
        for (final Outstanding o : map.values())
        {
            if (deadline == Long.MAX_VALUE || o.deadlineNs - deadline < 0)
            {
                deadline = o.deadlineNs;
            }
        }
        return deadline;
    }

    private void heard(final int senderId)
    {
        leaderHeard |= senderId == leaderId;
    }

    private boolean isMember(final int id)
    {
        return Arrays.binarySearch(members, id) >= 0;
    }

    private void sendAck(final int destinationId, final PacketType ackedType, final int ackedSenderId, final long ackedId)
    {
        ack.wrap(out, 0);
        ack.set(WIRE_ORDER, config.selfId, ++lamport, ackedType, ackedSenderId, ackedId & 0xFFFF_FFFFL);
        sender.send(destinationId, out, AckFlyweight.LENGTH);
    }

    /** Lamport rule (paper, section 4). */
    private void observe(final int packetId)
    {
        if (Integer.compareUnsigned(packetId, lamport) > 0)
        {
            lamport = packetId;
        }
    }

    private final class Outstanding
    {
        final byte[] packet;
        final int requestId;
        /** How many requests were multicast before this one. */
        long sendSeq;
        final long firstSentNs;
        long deadlineNs;
        /** Resends so far, at most {@link GroupConfig#MAX_BACKOFF}. */
        int resends;
        /** Members that ACKed, ascending, the first ackedCount entries. */
        int[] acked = new int[4];
        int ackedCount;

        Outstanding(final byte[] packet, final int requestId, final long nowNs)
        {
            this.packet = packet;
            this.requestId = requestId;
            this.firstSentNs = nowNs;
            this.deadlineNs = nowNs + config.retransmitTimeoutNs;
        }

        void ackedBy(final int memberId)
        {
            final int at = Arrays.binarySearch(acked, 0, ackedCount, memberId);
            if (at >= 0)
            {
                return;
            }
            final int insert = -at - 1;
            if (ackedCount == acked.length)
            {
                acked = Arrays.copyOf(acked, ackedCount * 2);
            }
            System.arraycopy(acked, insert, acked, insert + 1, ackedCount - insert);
            acked[insert] = memberId;
            ackedCount++;
        }

        boolean ackedByAll(final int[] view)
        {
            for (final int id : view)
            {
                if (Arrays.binarySearch(acked, 0, ackedCount, id) < 0)
                {
                    return false;
                }
            }
            return true;
        }
    }

    private static final class ReplyRecord
    {
        final int packetId;
        final int requestId;
        boolean cancelled;
        /** Decided by the caller, or cancelled: no reply to it is wanted any more. */
        boolean done;
        int[] repliedBy = new int[0];

        /** @return true when no reply to this call is still wanted: done, or every one of {@code view} replied. */
        boolean doneFor(final int[] view)
        {
            if (done)
            {
                return true;
            }
            for (final int id : view)
            {
                if (!repliedBy(id))
                {
                    return false;
                }
            }
            return true;
        }

        ReplyRecord(final int packetId, final int requestId)
        {
            this.packetId = packetId;
            this.requestId = requestId;
        }

        boolean repliedBy(final int memberId)
        {
            for (final int id : repliedBy)
            {
                if (id == memberId)
                {
                    return true;
                }
            }
            return false;
        }

        /** Member {@code memberId} replied (not before: see {@link #repliedBy}). */
        void replied(final int memberId)
        {
            repliedBy = Arrays.copyOf(repliedBy, repliedBy.length + 1);
            repliedBy[repliedBy.length - 1] = memberId;
        }
    }
}
