package org.lightwire.romiop.engine;

import java.util.Arrays;

/**
 * Settings of one group engine. Times are nanoseconds; the JacORB property that will set each one
 * is named beside it (the plug-in reads them; the engine does not).
 */
public final class GroupConfig
{
    /** {@code jacorb.lightwire.romiop.order_interval_ms}: the paper used 10 ms. */
    public static final long DEFAULT_ORDER_INTERVAL_NS = 10_000_000L;
    /** {@code jacorb.lightwire.romiop.retransmit_ms}: the paper used 2000 ms (Figure 4 line 9). */
    public static final long DEFAULT_RETRANSMIT_TIMEOUT_NS = 20_000_000L;
    /** {@code jacorb.lightwire.romiop.nak_delay_ms}: waits out reordering before NAKing a gap. */
    public static final long DEFAULT_NAK_DELAY_NS = 2_000_000L;
    public static final int DEFAULT_MAX_ORDER_ENTRIES = 128;
    public static final int DEFAULT_MAX_PACKET_BYTES = 8192;
    public static final int DEFAULT_MAX_OUTSTANDING_REQUESTS = 64;
    /** Replies a member keeps until their clients ACK them; beyond, the oldest is given up. */
    public static final int DEFAULT_MAX_UNACKED_REPLIES = 1024;
    /** Times a member sends a reply again before it gives up on the client: 10 s at the default 20 ms, a client's default consolidation timeout. */
    public static final int DEFAULT_MAX_REPLY_RETRANSMITS = 500;
    /** (member, request) pairs a client remembers to drop duplicate replies. */
    public static final int DEFAULT_REPLY_HISTORY = 4096;
    /** Request ids remembered per client for the duplicate filter (RequestWindows). */
    public static final int DEFAULT_REQUEST_WINDOW = 256;
    /** Clients a member remembers requests of; beyond, the least recently active is forgotten. */
    public static final int DEFAULT_MAX_CLIENTS = 4096;

    final int selfId;
    final int leaderId;
    final int[] memberIds;
    long orderIntervalNs = DEFAULT_ORDER_INTERVAL_NS;
    boolean orderAtOnceWhenIdle = true;
    long retransmitTimeoutNs = DEFAULT_RETRANSMIT_TIMEOUT_NS;
    long nakDelayNs = DEFAULT_NAK_DELAY_NS;
    int maxOrderEntries = DEFAULT_MAX_ORDER_ENTRIES;
    int maxPacketBytes = DEFAULT_MAX_PACKET_BYTES;
    int maxOutstandingRequests = DEFAULT_MAX_OUTSTANDING_REQUESTS;
    int maxUnackedReplies = DEFAULT_MAX_UNACKED_REPLIES;
    int maxReplyRetransmits = DEFAULT_MAX_REPLY_RETRANSMITS;
    int replyHistory = DEFAULT_REPLY_HISTORY;
    int requestWindow = DEFAULT_REQUEST_WINDOW;
    long keepAlivePeriodNs;
    long memberTimeoutNs;
    int maxClients = DEFAULT_MAX_CLIENTS;

    /**
     * @param selfId    this engine's id (a member, or a client that is not a member).
     * @param leaderId  the fixed sequencer, one of memberIds.
     * @param memberIds every member, leader included: the ACKs a request needs.
     */
    public GroupConfig(final int selfId, final int leaderId, final int... memberIds)
    {
        if (memberIds.length == 0 || Arrays.stream(memberIds).noneMatch(id -> id == leaderId))
        {
            throw new IllegalArgumentException("leader " + leaderId + " must be one of the members " + Arrays.toString(memberIds));
        }
        if (memberIds.length > 64)
        {
            throw new IllegalArgumentException("at most 64 members (ACKs are tracked in a 64-bit mask), got " + memberIds.length);
        }
        this.selfId = selfId;
        this.leaderId = leaderId;
        this.memberIds = memberIds.clone();
    }

    /**
     * How long the sequencer gathers requests into one MsgOrder.
     *
     * @param atOnceWhenIdle true (default): a request that reaches an idle sequencer (no order sent
     *                       within the interval) is ordered at once and only later ones are batched;
     *                       false: every request waits for the interval, as in the paper.
     */
    public GroupConfig orderInterval(final long intervalNs, final boolean atOnceWhenIdle)
    {
        this.orderIntervalNs = intervalNs;
        this.orderAtOnceWhenIdle = atOnceWhenIdle;
        return this;
    }

    public GroupConfig retransmitTimeoutNs(final long ns)
    {
        this.retransmitTimeoutNs = ns;
        return this;
    }

    public GroupConfig nakDelayNs(final long ns)
    {
        this.nakDelayNs = ns;
        return this;
    }

    public GroupConfig maxOrderEntries(final int entries)
    {
        this.maxOrderEntries = entries;
        return this;
    }

    public GroupConfig maxPacketBytes(final int bytes)
    {
        this.maxPacketBytes = bytes;
        return this;
    }

    public GroupConfig maxOutstandingRequests(final int requests)
    {
        this.maxOutstandingRequests = requests;
        return this;
    }

    /**
     * Reply reliability: a member keeps up to {@code maxUnacked} replies until their clients ACK
     * them, sending each again every retransmit timeout, at most {@code maxRetransmits} times; a
     * client remembers {@code history} (member, request) pairs to drop duplicate replies.
     */
    public GroupConfig replies(final int maxUnacked, final int maxRetransmits, final int history)
    {
        if (maxUnacked < 1 || maxRetransmits < 0 || history < 1)
        {
            throw new IllegalArgumentException("replies(" + maxUnacked + ", " + maxRetransmits + ", " + history +
                "): at least 1 unacked reply, 0 or more retransmits, at least 1 remembered reply");
        }
        this.maxUnackedReplies = maxUnacked;
        this.maxReplyRetransmits = maxRetransmits;
        this.replyHistory = history;
        return this;
    }

    /**
     * The duplicate filter's bounds: request ids remembered per client (more than the clients'
     * {@code maxOutstandingRequests}; 256 by default) and clients remembered (4,096).
     */
    public GroupConfig duplicateFilter(final int perClient, final int clients)
    {
        if (perClient <= maxOutstandingRequests || clients < 1)
        {
            throw new IllegalArgumentException("duplicateFilter(" + perClient + ", " + clients + "): the window per client must exceed " +
                "maxOutstandingRequests (" + maxOutstandingRequests + ") and at least 1 client must be remembered");
        }
        this.requestWindow = perClient;
        this.maxClients = clients;
        return this;
    }

    /**
     * Failure detection by the leader (paper, section 4.2): every {@code periodNs} it multicasts a
     * KeepAlive, which members answer; a member silent for {@code timeoutNs} is removed from the
     * group (MemberChange removed) and no longer awaited by anyone. Off (0) by default here; the
     * JacORB plug-in turns it on.
     */
    public GroupConfig keepAlive(final long periodNs, final long timeoutNs)
    {
        if (periodNs < 0 || periodNs > 0 && timeoutNs < 2 * periodNs)
        {
            throw new IllegalArgumentException("keepAlive(" + periodNs + ", " + timeoutNs + "): the period must be 0 (off) or positive, " +
                "and the member timeout at least two periods so that one lost probe removes nobody");
        }
        this.keepAlivePeriodNs = periodNs;
        this.memberTimeoutNs = timeoutNs;
        return this;
    }

    int memberIndex(final int id)
    {
        for (int i = 0; i < memberIds.length; i++)
        {
            if (memberIds[i] == id)
            {
                return i;
            }
        }
        return -1;
    }
}
