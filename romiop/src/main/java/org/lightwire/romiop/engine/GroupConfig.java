package org.lightwire.romiop.engine;

import java.util.Arrays;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

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
    /**
     * A reply (member) or a request or Cancel (client) still unACKed is resent after
     * {@code retransmitTimeoutNs}, then after twice as long each time, up to
     * {@code retransmitTimeoutNs << MAX_BACKOFF}.
     */
    public static final int MAX_BACKOFF = 5;
    /** {@code jacorb.lightwire.romiop.nak_delay_ms}: waits out reordering before NAKing a gap. */
    public static final long DEFAULT_NAK_DELAY_NS = 2_000_000L;
    /** How long a member holds back the ACK of a two-way request, for its Reply to acknowledge it instead. */
    public static final long DEFAULT_REQUEST_ACK_DELAY_NS = 2_000_000L;
    /** {@code jacorb.lightwire.romiop.order_ack_delay_ms}: how long a member holds back its cumulative MsgOrder ACK. */
    public static final long DEFAULT_ORDER_ACK_DELAY_NS = 5_000_000L;
    /** {@code jacorb.lightwire.romiop.reply_ack_delay_ms}: how long a client holds back its ACK of replies, to make it cumulative. */
    public static final long DEFAULT_REPLY_ACK_DELAY_NS = 5_000_000L;
    /** {@code jacorb.lightwire.romiop.order_window}: orders the sequencer sends at once while fewer are unACKed. */
    public static final int DEFAULT_ORDER_WINDOW = 64;
    /** How long the sequencer holds a client's request for an earlier one of the same client. */
    public static final long DEFAULT_FIFO_WAIT_NS = 50_000_000L;
    public static final int DEFAULT_MAX_ORDER_ENTRIES = 128;
    public static final int DEFAULT_MAX_PACKET_BYTES = 8192;
    public static final int DEFAULT_MAX_OUTSTANDING_REQUESTS = 64;
    /** {@code jacorb.lightwire.romiop.max_pending_replies}: replies a member keeps until ACKed. */
    public static final int DEFAULT_MAX_PENDING_REPLIES = 1024;
    /** {@code jacorb.lightwire.romiop.max_reply_bytes}: the longest reply a member sends (in pieces) or a client puts together. */
    public static final int DEFAULT_MAX_REPLY_BYTES = 16 << 20;
    /** {@code jacorb.lightwire.romiop.reply_window_bytes}: reply pieces a member has in flight to one client, in bytes. */
    public static final int DEFAULT_REPLY_WINDOW_BYTES = 1 << 20;
    /** {@code jacorb.lightwire.romiop.reply_give_up_ms}: a reply unACKed this long means the client is gone. */
    public static final long DEFAULT_REPLY_GIVE_UP_NS = 5_000_000_000L;
    /** {@code jacorb.lightwire.romiop.max_tracked_replies}: two-way calls a client remembers replies for. */
    public static final int DEFAULT_MAX_TRACKED_REPLIES = 4096;
    /** {@code jacorb.lightwire.romiop.keepalive_ms}: the leader's probe period (0 turns membership probing off). */
    public static final long DEFAULT_KEEP_ALIVE_PERIOD_NS = 100_000_000L;
    /** {@code jacorb.lightwire.romiop.keepalive_timeout_ms}: silence after which a member, or the leader, counts as failed. */
    public static final long DEFAULT_KEEP_ALIVE_TIMEOUT_NS = 500_000_000L;
    /** {@code jacorb.lightwire.romiop.join_timeout_ms}: a joiner that hears no member this long leads a group of its own. */
    public static final long DEFAULT_JOIN_TIMEOUT_NS = 300_000_000L;
    /** {@link #foundingWaitNs(long)} by default, in KeepAlive timeouts. */
    public static final int FOUNDING_WAIT_TIMEOUTS = 10;
    /** {@code jacorb.lightwire.romiop.cancel_hold_ms}: how long a member keeps a cancelled request in case the leader ordered it. */
    public static final long DEFAULT_CANCEL_HOLD_NS = 1_000_000_000L;
    /** {@code jacorb.lightwire.romiop.duplicate_window}: finished request ids kept per client above its watermark. */
    public static final int DEFAULT_DUPLICATE_WINDOW = 1024;
    /** {@code jacorb.lightwire.romiop.max_clients}: clients a member remembers (duplicate filter, view updates). */
    public static final int DEFAULT_MAX_CLIENTS = 1024;
    /**
     * {@code jacorb.lightwire.romiop.max_members}: members the leader admits to its view; an
     * ADDED beyond is refused and counted. Every member counts toward the commit quorum, so a
     * group is small; the bound also keeps a view's LIST within one packet.
     */
    public static final int DEFAULT_MAX_MEMBERS = 64;
    /**
     * {@code jacorb.lightwire.romiop.max_held_bytes}: requests a member holds unordered, by payload
     * and {@link HeldRequest#OVERHEAD_BYTES} each; a new request beyond is not ACKed, its client
     * resends it. 64 MiB: the transport's default budget for partly received requests.
     */
    public static final long DEFAULT_MAX_HELD_BYTES = 64L << 20;
    /** {@code jacorb.lightwire.romiop.max_retained_orders}: delivered requests a member keeps for a new leader's recovery. */
    public static final int DEFAULT_MAX_RETAINED_ORDERS = 1024;
    /** 256 MiB: the largest state a member gives or takes (state transfer). */
    public static final int DEFAULT_MAX_STATE_BYTES = 256 << 20;

    /**
     * {@code jacorb.lightwire.romiop.requests_to_sequencer}: a client sends each request that fits
     * to the sequencer alone, which carries it in its MsgOrder (false: Figure 4, every request
     * multicast by its client).
     */
    public static final boolean DEFAULT_REQUESTS_TO_SEQUENCER = false;

    final int selfId;
    final int leaderId;
    final int[] memberIds;
    /** A joiner's configured group (maybe without itself): it founds a group only when this names no one else. */
    final int[] configuredIds;
    long orderIntervalNs = DEFAULT_ORDER_INTERVAL_NS;
    boolean orderAtOnceWhenIdle = true;
    boolean requestsToSequencer = DEFAULT_REQUESTS_TO_SEQUENCER;
    long retransmitTimeoutNs = DEFAULT_RETRANSMIT_TIMEOUT_NS;
    long nakDelayNs = DEFAULT_NAK_DELAY_NS;
    long requestAckDelayNs = DEFAULT_REQUEST_ACK_DELAY_NS;
    long orderAckDelayNs = DEFAULT_ORDER_ACK_DELAY_NS;
    long replyAckDelayNs = DEFAULT_REPLY_ACK_DELAY_NS;
    int orderWindow = DEFAULT_ORDER_WINDOW;
    long fifoWaitNs = DEFAULT_FIFO_WAIT_NS;
    int maxOrderEntries = DEFAULT_MAX_ORDER_ENTRIES;
    int maxPacketBytes = DEFAULT_MAX_PACKET_BYTES;
    int maxOutstandingRequests = DEFAULT_MAX_OUTSTANDING_REQUESTS;
    int maxPendingReplies = DEFAULT_MAX_PENDING_REPLIES;
    int maxReplyBytes = DEFAULT_MAX_REPLY_BYTES;
    int replyWindowBytes = DEFAULT_REPLY_WINDOW_BYTES;
    long replyGiveUpNs = DEFAULT_REPLY_GIVE_UP_NS;
    int maxTrackedReplies = DEFAULT_MAX_TRACKED_REPLIES;
    long keepAlivePeriodNs = DEFAULT_KEEP_ALIVE_PERIOD_NS;
    long keepAliveTimeoutNs = DEFAULT_KEEP_ALIVE_TIMEOUT_NS;
    long joinTimeoutNs = DEFAULT_JOIN_TIMEOUT_NS;
    /** 0: {@link #FOUNDING_WAIT_TIMEOUTS} KeepAlive timeouts. */
    long foundingWaitNs;
    long cancelHoldNs = DEFAULT_CANCEL_HOLD_NS;
    int duplicateWindow = DEFAULT_DUPLICATE_WINDOW;
    int maxClients = DEFAULT_MAX_CLIENTS;
    int maxMembers = DEFAULT_MAX_MEMBERS;
    long maxHeldBytes = DEFAULT_MAX_HELD_BYTES;
    int maxRetainedOrders = DEFAULT_MAX_RETAINED_ORDERS;
    int maxStateBytes = DEFAULT_MAX_STATE_BYTES;
    long startCount;
    long incarnation;

    /**
     * @param selfId    this engine's id (a member, or a client that is not a member).
     * @param leaderId  the fixed sequencer, one of memberIds.
     * @param memberIds every member, leader included: the ACKs a request needs.
     */
    public GroupConfig(final int selfId, final int leaderId, final int... memberIds)
    {
        if (Arrays.stream(memberIds).noneMatch(id -> id == leaderId))
        {
            throw new IllegalArgumentException("leader " + leaderId + " must be one of the members " + Arrays.toString(memberIds));
        }
        this.selfId = selfId;
        this.leaderId = leaderId;
        this.memberIds = memberIds.clone();
        this.configuredIds = this.memberIds;
    }

    /**
     * A member that joins a running group, or founds one (paper, section 4.1: it asks the group,
     * and leads a group of its own when no member answers within {@code joinTimeoutNs}). Knowing
     * no configured group, it may found a second group beside a running one that it cannot hear
     * (a partition): {@link #joining(int, int...)} never does. Admitted to a running group, it is
     * a learner (its leader's configuration does not name it), unless its leader's configuration
     * names its id: then it joins as a restarted member of that configuration does.
     */
    public static GroupConfig joining(final int selfId)
    {
        return new GroupConfig(selfId, new int[0]);
    }

    /**
     * A member that joins the running group of {@code configuredIds} (a replica restarted, or one
     * added): it asks until the group's leader adds it, and founds a group only when
     * {@code configuredIds} names no member but itself. So a restarted process that hears no member
     * (its side of a partition has none, or every member it can hear is joining too) waits instead
     * of ordering beside the group.
     */
    public static GroupConfig joining(final int selfId, final int... configuredIds)
    {
        return new GroupConfig(selfId, configuredIds.clone());
    }

    private GroupConfig(final int selfId, final int[] configuredIds)
    {
        this.selfId = selfId;
        this.leaderId = -1;
        this.memberIds = new int[0];
        this.configuredIds = configuredIds;
    }

    /** @return true when this joiner may found a group: it knows no configured member but itself. */
    boolean mayFound()
    {
        return Arrays.stream(configuredIds).allMatch(id -> id == selfId);
    }

    /**
     * Membership probing (paper, section 3.3): the leader multicasts a KeepAlive every
     * {@code periodNs}; a member silent for {@code timeoutNs} is removed, and a leader silent for
     * {@code timeoutNs} is replaced (failover). A period of 0 turns probing off (a fixed group).
     */
    public GroupConfig keepAlive(final long periodNs, final long timeoutNs)
    {
        if (periodNs < 0 || (periodNs > 0 && timeoutNs <= periodNs))
        {
            throw new IllegalArgumentException("keepalive_timeout_ms (" + timeoutNs + " ns) must exceed keepalive_ms (" + periodNs +
                " ns), or keepalive_ms must be 0 to turn probing off");
        }
        this.keepAlivePeriodNs = periodNs;
        this.keepAliveTimeoutNs = timeoutNs;
        return this;
    }

    /**
     * Member: how long it waits for a leader it never heard (its founding leader, at a first
     * start) before it suspects it: longer than the KeepAlive timeout, since replicas start one by
     * one and a founding leader that starts late is not failed. A takeover from a founding leader
     * that then starts can finish only with start counts ({@link #startCount}) in groups of three
     * and four (docs/romiop.md, "Leader failover"). Default: {@value #FOUNDING_WAIT_TIMEOUTS}
     * KeepAlive timeouts.
     */
    public GroupConfig foundingWaitNs(final long ns)
    {
        if (ns <= 0)
        {
            throw new IllegalArgumentException("founding_wait_ms must be positive, got " + ns + " ns");
        }
        this.foundingWaitNs = ns;
        return this;
    }

    /** @return {@link #foundingWaitNs(long)}, or its default. */
    long foundingWaitNs()
    {
        return foundingWaitNs > 0 ? foundingWaitNs : FOUNDING_WAIT_TIMEOUTS * keepAliveTimeoutNs;
    }

    public GroupConfig joinTimeoutNs(final long ns)
    {
        this.joinTimeoutNs = ns;
        return this;
    }

    public GroupConfig cancelHoldNs(final long ns)
    {
        this.cancelHoldNs = ns;
        return this;
    }

    /** Must be at least every client's {@code maxOutstandingRequests}; see {@code DuplicateFilter}. */
    public GroupConfig duplicateWindow(final int ids)
    {
        this.duplicateWindow = positive(ids, "duplicateWindow (jacorb.lightwire.romiop.duplicate_window)");
        return this;
    }

    public GroupConfig maxClients(final int clients)
    {
        this.maxClients = positive(clients, "maxClients (jacorb.lightwire.romiop.max_clients)");
        return this;
    }

    public GroupConfig maxMembers(final int members)
    {
        this.maxMembers = positive(members, "maxMembers (jacorb.lightwire.romiop.max_members)");
        return this;
    }

    public GroupConfig maxHeldBytes(final long bytes)
    {
        if (bytes < 1)
        {
            throw new IllegalArgumentException("maxHeldBytes (jacorb.lightwire.romiop.max_held_bytes) must be positive: " + bytes);
        }
        this.maxHeldBytes = bytes;
        return this;
    }

    /** @return the members a view may hold: {@code maxMembers}, and no more than a LIST of {@code maxPacketBytes} names. */
    int viewLimit()
    {
        return Math.min(maxMembers, (maxPacketBytes - MemberChangeFlyweight.listLength(0)) / 4);
    }

    public GroupConfig maxRetainedOrders(final int orders)
    {
        this.maxRetainedOrders = positive(orders, "maxRetainedOrders (jacorb.lightwire.romiop.max_retained_orders)");
        return this;
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

    /**
     * How a client first sends a request. True: a request that fits in one MsgOrder with its entry
     * goes to the sequencer alone (once the client has heard from it), which multicasts request
     * and order in one datagram; every resend still goes to the whole group, so a lost or failed
     * sequencer costs a retransmission timeout, not the request. False (default): the client
     * multicasts it, as Figure 4 does. Members take either at any time, whatever their own setting.
     */
    public GroupConfig requestsToSequencer(final boolean on)
    {
        this.requestsToSequencer = on;
        return this;
    }

    public GroupConfig retransmitTimeoutNs(final long ns)
    {
        this.retransmitTimeoutNs = ns;
        return this;
    }

    /**
     * A member whose delivery advanced sends its cumulative MsgOrder ACK this long afterwards, one
     * ACK for every order delivered meanwhile (a repeated order is still ACKed at once: the leader
     * resends only for want of it). 0 ACKs each delivering order at once. Keep it well below
     * {@link #retransmitTimeoutNs}, and the {@link #orderWindow} large enough for the orders one
     * client's calls send within it, or the sequencer batches where it need not.
     */
    public GroupConfig orderAckDelayNs(final long ns)
    {
        if (ns < 0)
        {
            throw new IllegalArgumentException("orderAckDelayNs (jacorb.lightwire.romiop.order_ack_delay_ms) must not be negative: " + ns);
        }
        this.orderAckDelayNs = ns;
        return this;
    }

    /**
     * A client ACKs the replies it received this long afterwards: one cumulative "calls done"
     * ACK to the group for every call decided by then (the omniTransport idea of the next call
     * acknowledging the last, made explicit), and one ACK per member only for replies to calls
     * still open. 0 ACKs each reply at once, unicast to its member. Keep it well below the
     * members' {@link #retransmitTimeoutNs}.
     */
    public GroupConfig replyAckDelayNs(final long ns)
    {
        if (ns < 0)
        {
            throw new IllegalArgumentException("replyAckDelayNs (jacorb.lightwire.romiop.reply_ack_delay_ms) must not be negative: " + ns);
        }
        this.replyAckDelayNs = ns;
        return this;
    }

    /**
     * With {@code atOnceWhenIdle}, the sequencer sends each order at once while fewer than this
     * many orders are not yet ACKed by every member, and batches the rest until ACKs make room (or
     * the interval ends): batching happens only under load. 1 is the strict ACK clock (an order
     * only when every earlier one is delivered everywhere).
     */
    public GroupConfig orderWindow(final int orders)
    {
        if (orders < 1)
        {
            throw new IllegalArgumentException("orderWindow (jacorb.lightwire.romiop.order_window) must be at least 1: " + orders);
        }
        this.orderWindow = orders;
        return this;
    }

    /**
     * Implicit acknowledgement (as omniTransport's reply acknowledges its call): a member ACKs a
     * new two-way request only if it has not sent the request's Reply within this time, since a
     * client takes a member's Reply as that member's ACK. 0 ACKs every request at once. Keep it
     * well below the clients' {@link #retransmitTimeoutNs}.
     */
    public GroupConfig requestAckDelayNs(final long ns)
    {
        if (ns < 0)
        {
            throw new IllegalArgumentException("requestAckDelayNs (jacorb.lightwire.romiop.request_ack_delay_ms) must not be negative: " + ns);
        }
        this.requestAckDelayNs = ns;
        return this;
    }

    /**
     * Per-client FIFO (beyond the paper): the sequencer orders each client's requests in the order
     * the client numbered them, holding one that overtook an earlier one for at most this long
     * (the earlier one is lost and being retransmitted, or was cancelled). 0 orders requests as
     * they arrive, as the paper's sequencer does.
     */
    public GroupConfig fifoWaitNs(final long ns)
    {
        if (ns < 0)
        {
            throw new IllegalArgumentException("fifoWaitNs (jacorb.lightwire.romiop.fifo_wait_ms) must not be negative: " + ns);
        }
        this.fifoWaitNs = ns;
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

    /**
     * The largest state a member takes from another (state transfer) or gives: a donor refuses a
     * larger one of its own, and a joiner refuses to assemble a larger one; either way the joiner
     * leaves the group, told why.
     */
    public GroupConfig maxStateBytes(final int bytes)
    {
        if (bytes < 64)
        {
            throw new IllegalArgumentException("maxStateBytes " + bytes + " is below 64");
        }
        this.maxStateBytes = bytes;
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

    /**
     * Both sides: a member sends a reply longer than one packet in pieces (each a Reply of its own,
     * kept until ACKed and counted against {@code maxPendingReplies}), up to this many bytes, and
     * refuses a longer one; a client puts replies together up to this many bytes, and holds at most
     * four times as many in replies under way.
     */
    public GroupConfig maxReplyBytes(final int bytes)
    {
        this.maxReplyBytes = positive(bytes, "maxReplyBytes (jacorb.lightwire.romiop.max_reply_bytes)");
        return this;
    }

    /**
     * Member side: of a reply in pieces, at most this many bytes' worth of pieces (and at least one
     * piece) to one client are sent and unACKed at a time; the rest wait for ACKs (see
     * {@code ReplyStore}). Whole replies are never held back.
     */
    public GroupConfig replyWindowBytes(final int bytes)
    {
        this.replyWindowBytes = positive(bytes, "replyWindowBytes (jacorb.lightwire.romiop.reply_window_bytes)");
        return this;
    }

    /** @return the reply window in packets of {@code maxPacketBytes}: at least one. */
    int replyWindowPieces()
    {
        return Math.max(1, replyWindowBytes / maxPacketBytes);
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

    /**
     * Member: which start of this process this is, counted on disk
     * ({@code jacorb.lightwire.romiop.start_count_dir}): 1 its first start, so it forgot nothing,
     * and its "nothing accepted" counts for a takeover; 2 or more a restart, which learns the
     * members' epochs before it promises a founding leader's check (the ask may be a delayed copy
     * of one its earlier incarnation answered, the group long past it). 0 (the default) unknown:
     * it may be either (docs/romiop.md, "Restarted processes").
     */
    public GroupConfig startCount(final long n)
    {
        if (n < 0)
        {
            throw new IllegalArgumentException("startCount must be 0 (unknown) or at least 1, got " + n);
        }
        this.startCount = n;
        return this;
    }

    /**
     * Member: this process's incarnation when it does not count its starts: a number each start
     * of the process must raise (the plug-in gives the time of the start in milliseconds). 0 (the
     * default) none. See {@link #incarnationNumber()}.
     */
    public GroupConfig incarnation(final long n)
    {
        if (n < 0)
        {
            throw new IllegalArgumentException("incarnation must be 0 (none) or positive, got " + n);
        }
        this.incarnation = n;
        return this;
    }

    /** Incarnations of a process that counts its starts: above any time-based one, so turning counts on keeps them growing. */
    static final long COUNTED_INCARNATIONS = 1L << 62;

    /**
     * @return this process's incarnation number (docs/romiop.md, "Incarnations"): with a start
     *     count, {@link #COUNTED_INCARNATIONS} plus the count; else {@link #incarnation(long)}'s.
     */
    long incarnationNumber()
    {
        return startCount > 0 ? COUNTED_INCARNATIONS + startCount : incarnation;
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
