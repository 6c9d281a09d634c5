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
    /** {@code jacorb.lightwire.romiop.max_pending_replies}: replies a member keeps until ACKed. */
    public static final int DEFAULT_MAX_PENDING_REPLIES = 1024;
    /** {@code jacorb.lightwire.romiop.reply_give_up_ms}: a reply unACKed this long means the client is gone. */
    public static final long DEFAULT_REPLY_GIVE_UP_NS = 5_000_000_000L;
    /** {@code jacorb.lightwire.romiop.max_tracked_replies}: two-way calls a client remembers replies for. */
    public static final int DEFAULT_MAX_TRACKED_REPLIES = 4096;

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
    int maxPendingReplies = DEFAULT_MAX_PENDING_REPLIES;
    long replyGiveUpNs = DEFAULT_REPLY_GIVE_UP_NS;
    int maxTrackedReplies = DEFAULT_MAX_TRACKED_REPLIES;

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
     * Member side: at most this many sent replies are kept for retransmission until their client
     * ACKs them; when full the oldest is abandoned (counted {@code repliesAbandoned}).
     */
    public GroupConfig maxPendingReplies(final int replies)
    {
        this.maxPendingReplies = positive(replies, "maxPendingReplies (jacorb.lightwire.romiop.max_pending_replies)");
        return this;
    }

    /** Member side: a reply still unACKed this long after it was first sent is abandoned: the client is taken to be gone. */
    public GroupConfig replyGiveUpNs(final long ns)
    {
        this.replyGiveUpNs = ns;
        return this;
    }

    /**
     * Client side: replies are de-duplicated for the last this many two-way requests; a reply to an
     * older one is dropped as stale (counted {@code staleReplies}).
     */
    public GroupConfig maxTrackedReplies(final int requests)
    {
        this.maxTrackedReplies = positive(requests, "maxTrackedReplies (jacorb.lightwire.romiop.max_tracked_replies)");
        return this;
    }

    private static int positive(final int value, final String name)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(name + " must be at least 1, got " + value);
        }
        return value;
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
