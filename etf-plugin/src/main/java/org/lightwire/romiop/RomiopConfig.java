package org.lightwire.romiop;

import java.net.NetworkInterface;
import java.net.SocketException;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;

import org.jacorb.config.Configuration;
import org.jacorb.config.ConfigurationException;
import org.lightwire.etf.LightwireConfig;
import org.lightwire.romiop.engine.GroupConfig;
import org.lightwire.romiop.link.UdpGroupLink;

/**
 * Every {@code jacorb.lightwire.romiop.*} property of the plug-in (consolidation keys excepted:
 * see {@code docs/romiop.md}), declared once with its default and range, read through JacORB's
 * {@link Configuration} and checked: a bad value fails with a {@link ConfigurationException}
 * naming the property.
 */
public final class RomiopConfig
{
    static final String PREFIX = "jacorb.lightwire.romiop.";

    /** {@code multicast} (default) or {@code fanout}: how a packet reaches the whole group. */
    public static final String LINK = PREFIX + "link";
    /** Server: the group this ORB's replicas join (a name starting with a letter). Required to listen. */
    public static final String GROUP = PREFIX + "group";
    /** Server: the group's IP multicast address and port, {@code 239.255.0.1:5000}; required for {@code multicast}. */
    public static final String GROUP_ADDRESS = PREFIX + "group_address";
    /** Server: this replica's member id (1..65535). */
    public static final String MEMBER_ID = PREFIX + "member_id";
    /**
     * Server: every member, leader (the sequencer) first, comma-separated: {@code 1,2,3} (ids;
     * unicast ports then any free one, learned by the others from packets), or
     * {@code 1@host:port,2@host:port,...} (fixed unicast addresses; required for {@code fanout}).
     */
    public static final String MEMBERS = PREFIX + "members";
    /** Network interface name multicasts leave by and the group is joined on; default: the one that has {@code host}. */
    public static final String INTERFACE = PREFIX + "interface";
    /** Host name or address this replica publishes and binds its unicast socket to; default {@code OAIAddr}, else 127.0.0.1. */
    public static final String HOST = PREFIX + "host";
    public static final String TTL = PREFIX + "ttl";
    /** Client: this ORB's id in the group (65536..2^31-1); default random, so a restarted client is a new one. */
    public static final String CLIENT_ID = PREFIX + "client_id";
    public static final String ORDER_INTERVAL_MS = PREFIX + "order_interval_ms";
    public static final String ORDER_AT_ONCE_WHEN_IDLE = PREFIX + "order_at_once_when_idle";
    public static final String REQUESTS_TO_SEQUENCER = PREFIX + "requests_to_sequencer";
    public static final String RETRANSMIT_MS = PREFIX + "retransmit_ms";
    public static final String NAK_DELAY_MS = PREFIX + "nak_delay_ms";
    /**
     * Leader: how long a client's request that overtook an earlier one of the same client waits
     * for it (per-client FIFO); 0 orders requests as they arrive.
     */
    public static final String FIFO_WAIT_MS = PREFIX + "fifo_wait_ms";
    /** Member: how long the ACK of a two-way request waits for the request's Reply to acknowledge it; 0 ACKs at once. */
    public static final String REQUEST_ACK_DELAY_MS = PREFIX + "request_ack_delay_ms";
    /** Member: how long its cumulative MsgOrder ACK waits, to cover the orders delivered meanwhile; 0 ACKs at once. */
    public static final String ORDER_ACK_DELAY_MS = PREFIX + "order_ack_delay_ms";
    /** Client: how long its ACK of replies waits, to be one cumulative "calls done" ACK to the group; 0 ACKs each reply at once. */
    public static final String REPLY_ACK_DELAY_MS = PREFIX + "reply_ack_delay_ms";
    /** Leader: orders sent at once while fewer than this many are unACKed; the rest are batched. */
    public static final String ORDER_WINDOW = PREFIX + "order_window";
    public static final String MAX_PACKET_BYTES = PREFIX + "max_packet_bytes";
    /** Client: requests multicast and not yet ACKed by every member. */
    public static final String MAX_OUTSTANDING = PREFIX + "max_outstanding";
    /** Client: requests the ORB handed over that wait for the outstanding window (then flush blocks). */
    public static final String CLIENT_BACKLOG = PREFIX + "client.backlog";
    /** Largest GIOP request sent to a group (client) or put together from its pieces (replica). */
    public static final String MAX_REQUEST_BYTES = PREFIX + "max_request_bytes";
    /** Largest GIOP reply a replica sends (in pieces when longer than a packet) or a client puts together. */
    public static final String MAX_REPLY_BYTES = PREFIX + "max_reply_bytes";
    /**
     * Replica: the largest state it gives a joiner or takes (the application's {@code get_state}
     * bytes and the engine's record of executed requests); a larger one is refused.
     */
    public static final String MAX_STATE_BYTES = PREFIX + "max_state_bytes";
    /** Replica: bytes of a reply's pieces sent to one client and not yet ACKed; the rest wait for ACKs. */
    public static final String REPLY_WINDOW_BYTES = PREFIX + "reply_window_bytes";
    /** Leader's KeepAlive period; 0 turns failure detection off. */
    public static final String KEEPALIVE_MS = PREFIX + "keepalive_ms";
    /** Silence after which the leader removes a member, or the members replace the leader (at least two KeepAlive periods). */
    public static final String KEEPALIVE_TIMEOUT_MS = PREFIX + "keepalive_timeout_ms";
    /**
     * Member: true joins a running group (MemberChange ADDED, as the paper's section 4.1) instead of
     * starting as one of {@code members}; for a replica added or restarted while the group runs.
     */
    public static final String JOIN = PREFIX + "join";
    /** Member: a joiner that hears no member this long founds the group. */
    public static final String JOIN_TIMEOUT_MS = PREFIX + "join_timeout_ms";
    /**
     * Member: how long it waits for a leader it never heard (its founding leader, started later)
     * before it takes it for failed; default ten {@code keepalive_timeout_ms}. Start the replicas
     * of a group within it.
     */
    public static final String FOUNDING_WAIT_MS = PREFIX + "founding_wait_ms";
    /**
     * Member: a directory on local disk where the replica counts its starts (file
     * {@code GROUP-MEMBER_ID.starts}, locked while it runs). A replica that knows it starts for the
     * first time counts toward a takeover with nothing accepted, and one that knows it restarted
     * learns the members' epochs before it promises a founding leader's check: groups whose
     * founding leader fails before their first order take over, and delayed founding packets
     * cannot make a restart pass for a first start (docs/romiop.md, "Restarted processes").
     * Default: none (every start may be a restart). The directory must exist; keep it for the
     * replica's whole life, and remove its files only when the whole group starts afresh.
     */
    public static final String START_COUNT_DIR = PREFIX + "start_count_dir";
    /** Member: how long a cancelled request is kept in case the leader ordered it first. */
    public static final String CANCEL_HOLD_MS = PREFIX + "cancel_hold_ms";
    /** Member: replies kept until their client ACKs them (the oldest is abandoned beyond). */
    public static final String MAX_PENDING_REPLIES = PREFIX + "max_pending_replies";
    /** Member: a reply (or a LIST to a client, or a client's Cancel) unACKed this long is abandoned. */
    public static final String REPLY_GIVE_UP_MS = PREFIX + "reply_give_up_ms";
    /** Client: two-way requests whose replies are de-duplicated. */
    public static final String MAX_TRACKED_REPLIES = PREFIX + "max_tracked_replies";
    /** Member: finished request ids remembered per client above its watermark (at least every client's max_outstanding). */
    public static final String DUPLICATE_WINDOW = PREFIX + "duplicate_window";
    /** Member: clients remembered (duplicate filter, view updates). */
    public static final String MAX_CLIENTS = PREFIX + "max_clients";
    /** Member: members the leader admits to its view; an ADDED beyond is refused (counted joinsRefused). */
    public static final String MAX_MEMBERS = PREFIX + "max_members";
    /** Member: bytes of requests held unordered; a new request beyond is not ACKed (counted requestsRefusedFull). */
    public static final String MAX_HELD_BYTES = PREFIX + "max_held_bytes";
    /**
     * Member: delivered requests waiting for the ORB (JacORB's reader and POA queue) before
     * delivery waits: a slow servant holds up the member instead of queueing without bound.
     */
    public static final String DELIVERY_QUEUE = PREFIX + "delivery_queue";
    /**
     * {@code polling} (default): JacORB's reader thread, waiting for the next message, polls the
     * group's sockets and runs the engine itself (a driver thread stands in when no reader has
     * polled for 5 ms); {@code event_loop}: the engine runs on the link's Netty event loop, which
     * hands each message to JacORB's reader; {@code thread}: on a driver thread of its own, every
     * datagram and every send handed over to it (the first design). In all three the ORB's threads
     * send at once when the engine is free ({@code thread}: through its queue).
     */
    public static final String DRIVER = PREFIX + "driver";
    /** Member: delivered requests kept for a new leader's recovery. */
    public static final String MAX_RETAINED_ORDERS = PREFIX + "max_retained_orders";
    /**
     * Server: true lets the ORB dispatch group requests on several POA threads. The default, false,
     * makes the listener refuse to start unless {@code jacorb.poa.thread_pool_max=1} and
     * {@code jacorb.poa.queue_wait=on}, which keep execution in delivery order.
     */
    public static final String ALLOW_CONCURRENT_DISPATCH = PREFIX + "allow_concurrent_dispatch";

    /** Ids below this are members', at or above it clients'. */
    public static final int FIRST_CLIENT_ID = 65536;

    final UdpGroupLink.Mode link;
    final String group;
    final String groupAddress;
    final int memberId;
    final String members;
    final String interfaceName;
    final String host;
    final int ttl;
    /** The client id of this ORB's first end of each group: {@link #CLIENT_ID}, or random. */
    final int clientId;
    /** True when {@link #CLIENT_ID} is set: every end of a group this ORB opens has that id. */
    final boolean clientIdConfigured;
    final long orderIntervalNs;
    final boolean orderAtOnceWhenIdle;
    final boolean requestsToSequencer;
    final long retransmitNs;
    final long nakDelayNs;
    final long requestAckDelayNs;
    final long orderAckDelayNs;
    final long replyAckDelayNs;
    final int orderWindow;
    final long fifoWaitNs;
    final int maxPacketBytes;
    final int maxOutstanding;
    final int clientBacklog;
    final int maxRequestBytes;
    final int maxReplyBytes;
    final int maxStateBytes;
    final int replyWindowBytes;
    final boolean allowConcurrentDispatch;
    final int poaThreadPoolMax;
    final int poaThreadPoolMin;
    final boolean poaQueueWait;
    final long keepAliveNs;
    final long keepAliveTimeoutNs;
    final boolean join;
    /** {@link #START_COUNT_DIR}, or empty. */
    final String startCountDir;
    final long joinTimeoutNs;
    /** 0: the engine's default ({@link GroupConfig#FOUNDING_WAIT_TIMEOUTS} KeepAlive timeouts). */
    final long foundingWaitNs;
    final long cancelHoldNs;
    final int maxPendingReplies;
    final long replyGiveUpNs;
    final int maxTrackedReplies;
    final int duplicateWindow;
    final int maxClients;
    final int maxMembers;
    final long maxHeldBytes;
    final int maxRetainedOrders;
    final int deliveryQueue;
    final boolean eventLoopDriver;
    final boolean pollingDriver;
    /** Every jacorb.lightwire.romiop.* property, for the consolidation policies of each group. */
    private final java.util.Map<String, String> properties = new java.util.HashMap<>();

    private RomiopConfig(final Configuration c) throws ConfigurationException
    {
        final String l = c.getAttribute(LINK, "multicast").trim();
        if ("multicast".equalsIgnoreCase(l))
        {
            link = UdpGroupLink.Mode.MULTICAST;
        }
        else if ("fanout".equalsIgnoreCase(l))
        {
            link = UdpGroupLink.Mode.FANOUT;
        }
        else
        {
            throw new ConfigurationException(LINK + " = " + l + " is not a known link; the allowed values are multicast and fanout");
        }
        group = c.getAttribute(GROUP, "").trim();
        if (!group.isEmpty() && !RomiopAddress.validGroupName(group))
        {
            throw new ConfigurationException(GROUP + " = " + group + ": a group name starts with a letter and has only letters, digits, '-', '_' and '.'");
        }
        groupAddress = c.getAttribute(GROUP_ADDRESS, "").trim();
        memberId = (int)LightwireConfig.range(c, MEMBER_ID, 0, 0, FIRST_CLIENT_ID - 1);
        members = c.getAttribute(MEMBERS, "").trim();
        interfaceName = c.getAttribute(INTERFACE, "").trim();
        host = c.getAttribute(HOST, c.getAttribute("OAIAddr", "127.0.0.1")).trim();
        ttl = (int)LightwireConfig.range(c, TTL, 1, 0, 255);
        final long configuredClient = LightwireConfig.range(c, CLIENT_ID, 0, 0, Integer.MAX_VALUE);
        if (configuredClient != 0 && configuredClient < FIRST_CLIENT_ID)
        {
            throw new ConfigurationException(CLIENT_ID + " = " + configuredClient + " is a member id; client ids are " + FIRST_CLIENT_ID +
                ".." + Integer.MAX_VALUE);
        }
        clientIdConfigured = configuredClient != 0;
        clientId = clientIdConfigured ? (int)configuredClient : randomClientId();
        orderIntervalNs = TimeUnit.MILLISECONDS.toNanos(LightwireConfig.range(c, ORDER_INTERVAL_MS, GroupConfig.DEFAULT_ORDER_INTERVAL_NS / 1_000_000, 0, 60_000));
        orderAtOnceWhenIdle = LightwireConfig.bool(c, ORDER_AT_ONCE_WHEN_IDLE, true);
        requestsToSequencer = LightwireConfig.bool(c, REQUESTS_TO_SEQUENCER, GroupConfig.DEFAULT_REQUESTS_TO_SEQUENCER);
        retransmitNs = TimeUnit.MILLISECONDS.toNanos(LightwireConfig.range(c, RETRANSMIT_MS, GroupConfig.DEFAULT_RETRANSMIT_TIMEOUT_NS / 1_000_000, 1, 600_000));
        nakDelayNs = TimeUnit.MILLISECONDS.toNanos(LightwireConfig.range(c, NAK_DELAY_MS, GroupConfig.DEFAULT_NAK_DELAY_NS / 1_000_000, 0, 60_000));
        final long retransmitMs = TimeUnit.NANOSECONDS.toMillis(retransmitNs);
        requestAckDelayNs = ackDelayNs(c, REQUEST_ACK_DELAY_MS, GroupConfig.DEFAULT_REQUEST_ACK_DELAY_NS, retransmitMs,
            "clients resend every request they are waiting for the reply to");
        orderAckDelayNs = ackDelayNs(c, ORDER_ACK_DELAY_MS, GroupConfig.DEFAULT_ORDER_ACK_DELAY_NS, retransmitMs,
            "the leader resends every order it is waiting for the ACK of");
        orderWindow = (int)LightwireConfig.range(c, ORDER_WINDOW, GroupConfig.DEFAULT_ORDER_WINDOW, 1, 65_536);
        replyAckDelayNs = ackDelayNs(c, REPLY_ACK_DELAY_MS, GroupConfig.DEFAULT_REPLY_ACK_DELAY_NS, retransmitMs,
            "members resend every reply the client is about to ACK");
        fifoWaitNs = TimeUnit.MILLISECONDS.toNanos(LightwireConfig.range(c, FIFO_WAIT_MS, GroupConfig.DEFAULT_FIFO_WAIT_NS / 1_000_000, 0, 60_000));
        maxPacketBytes = (int)LightwireConfig.range(c, MAX_PACKET_BYTES, 65000, 512, 65507);
        maxOutstanding = (int)LightwireConfig.range(c, MAX_OUTSTANDING, GroupConfig.DEFAULT_MAX_OUTSTANDING_REQUESTS, 1, 65536);
        clientBacklog = (int)LightwireConfig.range(c, CLIENT_BACKLOG, 1024, 1, 1 << 20);
        maxRequestBytes = (int)LightwireConfig.range(c, MAX_REQUEST_BYTES, 16 << 20, 1024, 1 << 30);
        maxReplyBytes = (int)LightwireConfig.range(c, MAX_REPLY_BYTES, GroupConfig.DEFAULT_MAX_REPLY_BYTES, 1024, 1 << 30);
        maxStateBytes = (int)LightwireConfig.range(c, MAX_STATE_BYTES, GroupConfig.DEFAULT_MAX_STATE_BYTES, 1024, 1 << 30);
        replyWindowBytes = (int)LightwireConfig.range(c, REPLY_WINDOW_BYTES, GroupConfig.DEFAULT_REPLY_WINDOW_BYTES, 512, 1 << 30);
        allowConcurrentDispatch = LightwireConfig.bool(c, ALLOW_CONCURRENT_DISPATCH, false);
        poaThreadPoolMax = (int)LightwireConfig.range(c, "jacorb.poa.thread_pool_max", 20, 1, Integer.MAX_VALUE);
        poaThreadPoolMin = (int)LightwireConfig.range(c, "jacorb.poa.thread_pool_min", 5, 1, Integer.MAX_VALUE);
        poaQueueWait = LightwireConfig.bool(c, "jacorb.poa.queue_wait", false);
        keepAliveNs = TimeUnit.MILLISECONDS.toNanos(LightwireConfig.range(c, KEEPALIVE_MS, 200, 0, 60_000));
        keepAliveTimeoutNs = TimeUnit.MILLISECONDS.toNanos(LightwireConfig.range(c, KEEPALIVE_TIMEOUT_MS, 2_000,
            2 * TimeUnit.NANOSECONDS.toMillis(keepAliveNs), 3_600_000));
        join = LightwireConfig.bool(c, JOIN, false);
        startCountDir = c.getAttribute(START_COUNT_DIR, "").trim();
        joinTimeoutNs = TimeUnit.MILLISECONDS.toNanos(LightwireConfig.range(c, JOIN_TIMEOUT_MS, 1_000, 1, 3_600_000));
        final long keepAliveTimeoutMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(keepAliveTimeoutNs));
        foundingWaitNs = TimeUnit.MILLISECONDS.toNanos(LightwireConfig.range(c, FOUNDING_WAIT_MS, 0, keepAliveTimeoutMs, 3_600_000));
        cancelHoldNs = TimeUnit.MILLISECONDS.toNanos(LightwireConfig.range(c, CANCEL_HOLD_MS, GroupConfig.DEFAULT_CANCEL_HOLD_NS / 1_000_000, 0, 3_600_000));
        maxPendingReplies = (int)LightwireConfig.range(c, MAX_PENDING_REPLIES, GroupConfig.DEFAULT_MAX_PENDING_REPLIES, 1, 1 << 20);
        // A client's consolidation waits 10 s by default: a member resends its reply as long.
        replyGiveUpNs = TimeUnit.MILLISECONDS.toNanos(LightwireConfig.range(c, REPLY_GIVE_UP_MS, 10_000, 1, 3_600_000));
        maxTrackedReplies = (int)LightwireConfig.range(c, MAX_TRACKED_REPLIES, GroupConfig.DEFAULT_MAX_TRACKED_REPLIES, 1, 1 << 20);
        maxClients = (int)LightwireConfig.range(c, MAX_CLIENTS, GroupConfig.DEFAULT_MAX_CLIENTS, 1, 1 << 20);
        maxMembers = (int)LightwireConfig.range(c, MAX_MEMBERS, GroupConfig.DEFAULT_MAX_MEMBERS, 1, 1024);
        maxHeldBytes = LightwireConfig.range(c, MAX_HELD_BYTES, GroupConfig.DEFAULT_MAX_HELD_BYTES, 1 << 16, 1L << 40);
        final String d = c.getAttribute(DRIVER, "polling").trim();
        if (!"polling".equals(d) && !"event_loop".equals(d) && !"thread".equals(d))
        {
            throw new ConfigurationException(DRIVER + " = " + d + " is not a known driver; the allowed values are polling, event_loop and thread");
        }
        eventLoopDriver = "event_loop".equals(d);
        pollingDriver = "polling".equals(d);
        deliveryQueue = (int)LightwireConfig.range(c, DELIVERY_QUEUE, 1024, 1, 1 << 20);
        maxRetainedOrders = (int)LightwireConfig.range(c, MAX_RETAINED_ORDERS, GroupConfig.DEFAULT_MAX_RETAINED_ORDERS, 1, 1 << 20);
        duplicateWindow = (int)LightwireConfig.range(c, DUPLICATE_WINDOW, Math.max(GroupConfig.DEFAULT_DUPLICATE_WINDOW, maxOutstanding),
            maxOutstanding, 1 << 20);
        for (final String key : c.getAttributeNamesWithPrefix(PREFIX))
        {
            properties.put(key, c.getAttribute(key, ""));
        }
        try
        {
            consolidation(group.isEmpty() ? "default" : group);
        }
        catch (final IllegalArgumentException e)
        {
            throw new ConfigurationException(e.getMessage());
        }
    }

    /**
     * @return how a client consolidates the replies of {@code group}'s members:
     *     {@code jacorb.lightwire.romiop.consolidation.*}, overridden per group (docs/romiop.md).
     * @throws IllegalArgumentException naming a bad property.
     */
    org.lightwire.romiop.consolidation.ConsolidationPolicy consolidation(final String groupName)
    {
        return org.lightwire.romiop.consolidation.ConsolidationPolicy.fromProperties(
            key -> properties.get(key) == null || properties.get(key).isBlank() ? null : properties.get(key), groupName);
    }

    /** @return a client id drawn at random from {@value #FIRST_CLIENT_ID}..2^31-1. */
    static int randomClientId()
    {
        return FIRST_CLIENT_ID + new SecureRandom().nextInt(Integer.MAX_VALUE - FIRST_CLIENT_ID);
    }

    /** Reads and checks every property. */
    public static RomiopConfig from(final Configuration configuration) throws ConfigurationException
    {
        return new RomiopConfig(configuration);
    }

    /** @return the engine settings for member or client {@code selfId} of a group. */
    GroupConfig engine(final int selfId, final int leaderId, final int[] memberIds)
    {
        return tune(new GroupConfig(selfId, leaderId, memberIds));
    }

    /**
     * @return the engine settings for member {@code selfId}: with {@link #JOIN} it joins the running
     *     group (founding it only when {@code memberIds} names no other member), otherwise it starts
     *     as one of {@code memberIds}.
     */
    GroupConfig member(final int selfId, final int leaderId, final int[] memberIds)
    {
        return join ? tune(GroupConfig.joining(selfId, memberIds)) : engine(selfId, leaderId, memberIds);
    }

    /**
     * @return an ACK delay property in nanoseconds: 0..60000 ms, and below {@code retransmit_ms}
     *     unless 0 (a delay the peer's retransmission outruns would only cause resends).
     * @param otherwise what a delay too long would cause, for the message.
     */
    private static long ackDelayNs(final Configuration c, final String key, final long defaultNs, final long retransmitMs,
        final String otherwise) throws ConfigurationException
    {
        final long ms = LightwireConfig.range(c, key, Math.min(defaultNs / 1_000_000, retransmitMs / 2), 0, 60_000);
        if (ms > 0 && ms >= retransmitMs)
        {
            throw new ConfigurationException(key + " = " + ms + " must be below " + RETRANSMIT_MS + " = " + retransmitMs + ", or " +
                otherwise + " (0 ACKs at once)");
        }
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }

    private GroupConfig tune(final GroupConfig config)
    {
        if (foundingWaitNs > 0)
        {
            config.foundingWaitNs(foundingWaitNs);
        }
        return config
            .orderInterval(orderIntervalNs, orderAtOnceWhenIdle)
            .requestsToSequencer(requestsToSequencer)
            .retransmitTimeoutNs(retransmitNs)
            .nakDelayNs(nakDelayNs)
            .requestAckDelayNs(requestAckDelayNs)
            .orderAckDelayNs(orderAckDelayNs)
            .replyAckDelayNs(replyAckDelayNs)
            .orderWindow(orderWindow)
            .fifoWaitNs(fifoWaitNs)
            .maxPacketBytes(maxPacketBytes)
            .maxOutstandingRequests(maxOutstanding)
            .keepAlive(keepAliveNs, keepAliveNs == 0 ? 0 : keepAliveTimeoutNs)
            .joinTimeoutNs(joinTimeoutNs)
            .cancelHoldNs(cancelHoldNs)
            .maxPendingReplies(maxPendingReplies)
            .maxReplyBytes(maxReplyBytes)
            .maxStateBytes(maxStateBytes)
            .replyWindowBytes(replyWindowBytes)
            .replyGiveUpNs(replyGiveUpNs)
            .maxTrackedReplies(maxTrackedReplies)
            .duplicateWindow(duplicateWindow)
            .maxClients(maxClients)
            .maxMembers(maxMembers)
            .maxHeldBytes(maxHeldBytes)
            .maxRetainedOrders(maxRetainedOrders);
    }

    /** @return the interface to multicast on, or null to let the kernel choose. */
    NetworkInterface networkInterface() throws ConfigurationException
    {
        try
        {
            if (!interfaceName.isEmpty())
            {
                final NetworkInterface nif = NetworkInterface.getByName(interfaceName);
                if (nif == null)
                {
                    throw new ConfigurationException(INTERFACE + " = " + interfaceName + ": no such network interface");
                }
                return nif;
            }
            return NetworkInterface.getByInetAddress(java.net.InetAddress.getByName(host));
        }
        catch (final SocketException | java.net.UnknownHostException e)
        {
            throw new ConfigurationException(INTERFACE + ": cannot find the interface of " + host + ": " + e.getMessage());
        }
    }

    /** @return the driver of {@code engine} on {@code link}, as {@link #DRIVER} says (not started). */
    org.lightwire.romiop.driver.EngineDriver driver(final String name, final UdpGroupLink link,
        final org.lightwire.romiop.driver.DrivenEngine engine)
    {
        if (pollingDriver)
        {
            return new org.lightwire.romiop.driver.PollingDriver(name, link, engine);
        }
        return eventLoopDriver ? new org.lightwire.romiop.driver.EventLoopDriver(link, engine) :
            new org.lightwire.romiop.driver.GroupDriver(name, link, engine, maxPacketBytes);
    }
}
