package org.lightwire.romiop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jacorb.config.Configuration;
import org.jacorb.config.ConfigurationException;
import org.jacorb.orb.etf.ListenerBase;
import org.lightwire.etf.LightwireConfig;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.SystemExceptionReply;
import org.lightwire.romiop.driver.DrivenEngine;
import org.lightwire.romiop.driver.EngineDriver;
import org.lightwire.romiop.engine.FragmentAssembler;
import org.lightwire.romiop.engine.GroupConfig;
import org.lightwire.romiop.engine.MemberEngine;
import org.lightwire.romiop.engine.StateHandler;
import org.lightwire.romiop.link.UdpGroupLink;
import org.lightwire.romiop.protocol.FragmentHeader;
import org.omg.CORBA.INITIALIZE;
import org.omg.ETF.Profile;
import org.omg.GIOP.Version;
import org.omg.IOP.TAG_CODE_SETS;

/**
 * A replica's end of its group: joins the group named by {@code jacorb.lightwire.romiop.group}
 * as member {@code member_id} (a {@link MemberEngine} driven by an {@link EngineDriver}), and
 * hands the requests the group delivers, in the agreed total order, to the ORB through one ETF
 * server connection ({@link RomiopServerConnection}).
 *
 * <p>Ordered execution. One connection means one JacORB reader thread, which reads the requests
 * in delivery order and queues them for the POA in that order; the POA then executes them in that
 * order only if it has one request thread and never rejects a request when its queue is full.
 * So the listener refuses to start unless {@code jacorb.poa.thread_pool_max=1} and
 * {@code jacorb.poa.queue_wait=on} (or {@code allow_concurrent_dispatch=true}, for servants that
 * order themselves).
 *
 * <p>Request ids. Requests of many clients share the one connection, and two clients may use the
 * same GIOP request id; each delivered request is given a connection-local id, and the reply's id
 * is put back before the reply goes to the group ({@code MemberEngine.sendReply}) for the client.
 *
 * <p>State transfer. The listener is the engine's {@link StateHandler}: it asks the servant of the
 * object the application passed to {@link RomiopFactories#groupReference} for its state, and gives
 * a joiner's servant the group's, through {@code LightwireFT::Checkpointable} requests queued
 * among the deliveries at the engine's cut ({@link StateTransfer}).
 */
public final class RomiopListener extends ListenerBase implements StateHandler
{
    /**
     * How long a joiner given the group's state waits for its application to name the group
     * object ({@link RomiopFactories#groupReference}) before it leaves: the engine joins as the ORB
     * starts listening, and the state may come before the application has activated its servant.
     */
    static final long STATE_OBJECT_WAIT_MS = 10_000;

    /** Told of each request the group delivers to this replica, on the driver thread, in order. */
    @FunctionalInterface
    public interface DeliveryObserver
    {
        void onDeliver(long orderSeq, int senderId, int packetId, int requestId);
    }

    private final RomiopFactories factories;
    private RomiopConfig config;
    private RomiopAddress address;
    private UdpGroupLink link;
    private MemberEngine engine;
    /** The start count kept on disk, locked while the replica runs (null without start_count_dir). */
    private StartCount startCount;
    /** Driver thread only. */
    private FoundingWait foundingWait;
    /** Driver thread only. */
    private RestartWait restartWait;
    private ConfigurationMismatch configurationMismatch;
    /** Requests larger than a packet, put together from their pieces; driver thread. */
    private FragmentAssembler assembler;
    private EngineDriver driver;
    private volatile RomiopServerConnection connection;
    private volatile boolean destroyed;
    private volatile DeliveryObserver observer;
    /** Made at {@link #configure}; its object key may be named any time after. */
    private volatile StateTransfer stateTransfer;
    /** Driver thread only. */
    private long nextLocalRequestId = 1;
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();

    final AtomicLong delivered = new AtomicLong();
    final AtomicLong notGiop = new AtomicLong();
    final AtomicLong repliesSent = new AtomicLong();
    final AtomicLong repliesWithoutRequest = new AtomicLong();
    /** Replies not sent because this replica's set_state failed (it serves nothing from then on). */
    final AtomicLong repliesWithheld = new AtomicLong();
    private final AtomicLong repliesTooLarge = new AtomicLong();
    final AtomicLong messagesDropped = new AtomicLong();
    /** Deliveries that waited because {@code delivery_queue} requests were waiting for the ORB already. */
    final AtomicLong deliveryStalls = new AtomicLong();

    /** What a two-way request delivered to the ORB needs for its reply. */
    static final class Pending
    {
        final int clientId;
        final int packetId;
        final int requestId;

        Pending(final int clientId, final int packetId, final int requestId)
        {
            this.clientId = clientId;
            this.packetId = packetId;
            this.requestId = requestId;
        }
    }

    RomiopListener(final RomiopFactories factories)
    {
        this.factories = factories;
    }

    @Override
    public void configure(final Configuration configuration) throws ConfigurationException
    {
        super.configure(configuration);
        config = factories.config();
        if (!config.allowConcurrentDispatch && (config.poaThreadPoolMax != 1 || config.poaThreadPoolMin != 1 || !config.poaQueueWait))
        {
            throw new ConfigurationException("ROMIOP replicas must execute requests one at a time in the group's order: set " +
                "jacorb.poa.thread_pool_max=1 (now " + config.poaThreadPoolMax + "), jacorb.poa.thread_pool_min=1 (now " +
                config.poaThreadPoolMin + ") and jacorb.poa.queue_wait=on (now " + (config.poaQueueWait ? "on" : "off") + "), or set " +
                RomiopConfig.ALLOW_CONCURRENT_DISPATCH + "=true if the servant orders requests itself");
        }
        stateTransfer = new StateTransfer(config.memberId, new StateTransfer.Replica()
        {
            @Override
            public long nextRequestId()
            {
                return nextLocalRequestId++ & 0xFFFF_FFFFL;
            }

            @Override
            public boolean queue(final byte[] request)
            {
                return queueRequest(request);
            }

            @Override
            public void stateCaptured(final long cut, final byte[] state)
            {
                onDriver(now -> engine.stateCaptured(cut, state, now));
            }

            @Override
            public void stateUnavailable(final long cut, final String reason)
            {
                onDriver(now -> engine.stateUnavailable(cut, reason, now));
            }

            @Override
            public void leave()
            {
                onDriver(engine::leave);
            }
        }, logger, STATE_OBJECT_WAIT_MS);
    }

    /** Runs {@code task} on the driver thread, unless the replica is shutting down (then the group carries on without it). */
    private void onDriver(final java.util.function.LongConsumer task)
    {
        final EngineDriver d = driver;
        if (d == null)
        {
            messagesDropped.incrementAndGet();
            return;
        }
        try
        {
            d.submit(task);
        }
        catch (final IllegalStateException e)
        {
            messagesDropped.incrementAndGet();
        }
    }

    /** @return the driver of this replica's engine (null before listen). */
    EngineDriver driver()
    {
        return driver;
    }

    /** Sets the observer of deliveries (null: none). */
    public void setDeliveryObserver(final DeliveryObserver o)
    {
        observer = o;
    }

    /** Releases the start count's lock (the replica no longer runs, or never ran). */
    private void releaseStartCount()
    {
        final StartCount held = startCount;
        startCount = null;
        if (held != null)
        {
            try
            {
                held.close();
            }
            catch (final IOException e)
            {
                logger.warn("ROMIOP group " + config.group + ", member " + config.memberId + ": releasing the start count's lock: " + e);
            }
        }
    }

    @Override
    public void listen()
    {
        boolean listening = false;
        try
        {
            start();
            listening = true;
        }
        finally
        {
            if (!listening)
            {
                // Whatever failed, the replica does not run: its socket and its start count's
                // lock go, so a later attempt in this JVM (or another process) may start it.
                if (driver != null)
                {
                    driver.close();
                }
                if (link != null)
                {
                    link.close();
                }
                releaseStartCount();
            }
        }
    }

    private void start()
    {
        final GroupConfig memberConfig;
        try
        {
            address = groupAddress();
            memberConfig = config.member(config.memberId, address.leaderId(), address.memberIds());
            link = openLink();
            // Each start a later incarnation (docs/romiop.md, "Incarnations"); a start count ranks above it.
            memberConfig.incarnation(System.currentTimeMillis());
            // Counted once the socket is open (a replica whose port is taken did not start) and
            // before the engine sends anything.
            if (!config.startCountDir.isEmpty())
            {
                startCount = StartCount.next(Path.of(config.startCountDir), config.group, config.memberId);
                memberConfig.startCount(startCount.number());
            }
        }
        catch (final ConfigurationException | IOException e)
        {
            throw (INITIALIZE)new INITIALIZE("ROMIOP: cannot join the group: " + e.getMessage()).initCause(e);
        }
        if (startCount == null)
        {
            logger.warn(StartCount.unknownWarning(config.group, config.memberId));
        }
        else
        {
            logger.info("ROMIOP group " + config.group + ", member " + config.memberId + ": start " + startCount.number() + " (" +
                RomiopConfig.START_COUNT_DIR + " = " + config.startCountDir + ")");
        }
        engine = new MemberEngine(memberConfig, link, this::onDeliver, this);
        foundingWait = new FoundingWait(config.group, config.memberId, config.keepAliveTimeoutNs);
        restartWait = new RestartWait(config.group, config.memberId, config.startCountDir, config.keepAliveTimeoutNs);
        configurationMismatch = new ConfigurationMismatch(config.group, config.memberId);
        assembler = new FragmentAssembler(config.maxRequestBytes, 4L * config.maxRequestBytes);
        driver = config.driver("romiop-member-" + config.memberId, link,
            DrivenEngine.of(engine::onPacket, this::onEngineTimer, engine::nextDeadlineNs, engine::wakesForRequests));
        final RomiopProfile p;
        try
        {
            // As IIOP's profile: the GIOP version clients speak to this group.
            p = new RomiopProfile(address, new byte[0], new Version((byte)1,
                (byte)LightwireConfig.range(configuration, LightwireConfig.GIOP_MINOR_VERSION, 2, 0, 2)));
            p.getComponents().addComponent(TAG_CODE_SETS.value, org.lightwire.etf.LightwireListener.codeSetComponent(orb));
            p.configure(configuration);
        }
        catch (final ConfigurationException e)
        {
            throw new INITIALIZE("ROMIOP: " + e.getMessage());
        }
        profile = p;
        openConnection();
        // The engine starts its membership clocks (KeepAlive probes, failover) at the first packet
        // it receives, not here: replicas start one after another, seconds apart, and a leader
        // that probed from its own start would remove the members that are still starting.
        // (A joining member, which must ask the group, starts at once.)
        driver.start();
        if (config.join)
        {
            driver.submit(engine::start);
        }
        super.listen();
    }

    /** The engine's timer, on the driver thread; and warnings while a first start waits for members, or member lists differ. */
    private void onEngineTimer(final long nowNs)
    {
        engine.onTimer(nowNs);
        for (final String waiting : new String[] {foundingWait.check(engine, nowNs), restartWait.check(engine, nowNs)})
        {
            if (waiting != null)
            {
                logger.warn(waiting);
            }
        }
        final String mismatch = configurationMismatch.check(engine, nowNs);
        if (mismatch != null)
        {
            logger.warn(mismatch);
        }
    }

    private RomiopAddress groupAddress() throws ConfigurationException
    {
        if (config.group.isEmpty())
        {
            throw new ConfigurationException(RomiopConfig.GROUP + " is not set: a replica names its group (or leave tag " +
                RomiopProfile.TAG + " out of jacorb.transport.server.listeners on ORBs that are no replica)");
        }
        if (config.memberId == 0)
        {
            throw new ConfigurationException(RomiopConfig.MEMBER_ID + " is not set: give each replica an id from 1 to 65535");
        }
        if (config.members.isEmpty())
        {
            throw new ConfigurationException(RomiopConfig.MEMBERS + " is not set: list every member id, leader first (e.g. 1,2,3)");
        }
        if (config.link == UdpGroupLink.Mode.MULTICAST && config.groupAddress.isEmpty())
        {
            throw new ConfigurationException(RomiopConfig.GROUP_ADDRESS + " is not set: the group's multicast address and port, e.g. " +
                "239.255.0.1:5000 (or set " + RomiopConfig.LINK + "=fanout)");
        }
        final RomiopAddress a = new RomiopAddress();
        final String text = config.group + "@" + (config.groupAddress.isEmpty() ? "0.0.0.0:0" : config.groupAddress) + "+" +
            config.members.replace(',', '+').replace(" ", "");
        final String error = a.parseError(text);
        if (error != null)
        {
            throw new ConfigurationException(RomiopConfig.GROUP_ADDRESS + "/" + RomiopConfig.MEMBERS + ": " + error);
        }
        if (a.members().stream().noneMatch(m -> m.id == config.memberId))
        {
            throw new ConfigurationException(RomiopConfig.MEMBER_ID + " = " + config.memberId + " is not one of " + RomiopConfig.MEMBERS +
                " = " + config.members);
        }
        if (config.link == UdpGroupLink.Mode.FANOUT && a.members().stream().anyMatch(m -> m.host.isEmpty()))
        {
            throw new ConfigurationException(RomiopConfig.LINK + "=fanout needs every member's address: list them as id@host:port in " +
                RomiopConfig.MEMBERS);
        }
        return a;
    }

    private UdpGroupLink openLink() throws ConfigurationException, IOException
    {
        final RomiopAddress.Member self = address.members().stream().filter(m -> m.id == config.memberId).findFirst().orElseThrow();
        final InetSocketAddress bind = self.host.isEmpty() ? new InetSocketAddress(java.net.InetAddress.getByName(config.host), 0) :
            self.resolve();
        final UdpGroupLink l = UdpGroupLink.open(new UdpGroupLink.Settings().mode(config.link).group(address.multicast())
            .selfId(config.memberId).joinGroup(true).networkInterface(config.networkInterface()).ttl(config.ttl)
            .unicastBind(bind).maxPacketBytes(config.maxPacketBytes).polled(config.pollingDriver));
        boolean added = false;
        try
        {
            for (final RomiopAddress.Member m : address.members())
            {
                final InetSocketAddress a = m.resolve();
                if (a != null)
                {
                    l.addMember(m.id, a);
                }
            }
            added = true;
            return l;
        }
        finally
        {
            if (!added)
            {
                l.close();
            }
        }
    }

    private void openConnection()
    {
        final RomiopServerConnection c = new RomiopServerConnection(this, (RomiopProfile)profile.copy());
        try
        {
            c.configure(configuration);
        }
        catch (final ConfigurationException e)
        {
            throw new INITIALIZE("ROMIOP: " + e.getMessage());
        }
        c.markConnected();
        connection = c;
        deliverConnection(c);
    }

    /** The group delivered a request, in order; driver thread. */
    private void onDeliver(final long orderSeq, final int senderId, final int piecePacketId, final int requestId, final ByteBuffer payload,
        final int offset, final int length)
    {
        final byte[] m;
        final int packetId;
        if (FragmentHeader.isFragment(payload, offset, length))
        {
            // A piece of a request larger than a packet: the request is whole at its last piece's
            // place in the order (the same on every member), named by its first piece's packet id.
            final FragmentAssembler.Message whole = assembler.offer(senderId, piecePacketId, payload, offset, length);
            if (whole == null)
            {
                return;
            }
            m = whole.bytes();
            packetId = whole.messageId();
        }
        else
        {
            m = new byte[length];
            payload.get(offset, m);
            packetId = piecePacketId;
        }
        delivered.incrementAndGet();
        final DeliveryObserver o = observer;
        if (o != null)
        {
            o.onDeliver(orderSeq, senderId, packetId, requestId);
        }
        if (!GiopMessage.isGiop(m, m.length) || GiopMessage.type(m) != GiopMessage.REQUEST || GiopMessage.requestIdOffset(m, m.length) < 0)
        {
            notGiop.incrementAndGet();
            return;
        }
        final long localId = nextLocalRequestId++ & 0xFFFF_FFFFL;
        if (GiopMessage.responseExpected(m, m.length) != 0)
        {
            pending.put(localId, new Pending(senderId, packetId, requestId));
        }
        GiopMessage.setRequestId(m, m.length, localId);
        if (!queueRequest(m))
        {
            pending.remove(localId);
            messagesDropped.incrementAndGet();
        }
    }

    /**
     * Queues a request for the ORB after every request queued before it (the ORB executes them in
     * this order); driver thread.
     *
     * @return false when the connection is closed.
     */
    private boolean queueRequest(final byte[] m)
    {
        final RomiopServerConnection c = connection;
        if (c == null)
        {
            return false;
        }
        if (c.queued() >= config.deliveryQueue)
        {
            deliveryStalls.incrementAndGet();
        }
        try
        {
            return c.offer(m, config.deliveryQueue);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The engine asks for this replica's state after order {@code cut}: queued as {@code get_state}, after the request of {@code cut}. */
    @Override
    public void captureState(final long cut)
    {
        stateTransfer.capture(cut);
    }

    /**
     * The engine gives this replica the group's state after order {@code cut}: queued as
     * {@code set_state}, before the request of {@code cut + 1}.
     */
    @Override
    public void installState(final long cut, final byte[] state)
    {
        stateTransfer.install(cut, state);
    }

    @Override
    public void stateRefused(final String reason)
    {
        stateTransfer.refused(reason);
    }

    /**
     * Names the object whose servant holds this replica's state ({@link RomiopFactories#groupReference}
     * does, for the first object it is given).
     *
     * @return false when another object holds it already.
     */
    boolean stateObject(final byte[] objectKey)
    {
        if (stateTransfer.stateObject(objectKey))
        {
            return true;
        }
        logger.info("ROMIOP member " + config.memberId + ": object key " + StateErrors.keyText(objectKey) + " has a group reference, " +
            "but its state is not carried to joiners: object key " + StateErrors.keyText(stateTransfer.stateObject()) +
            " holds this replica's state");
        return false;
    }

    /** @return the key of the object whose servant holds this replica's state, or null before the application named one. */
    public byte[] stateObjectKey()
    {
        final byte[] k = stateTransfer.stateObject();
        return k == null ? null : k.clone();
    }

    /** @return states this replica's servant gave for joiners ({@code get_state} answered). */
    public long statesServed()
    {
        return stateTransfer.statesServed.get();
    }

    /** @return states asked of this replica that it could not give ({@code get_state} failed, or no object was named). */
    public long statesNotServed()
    {
        return stateTransfer.statesNotServed.get();
    }

    /** @return group states this replica's servant took ({@code set_state} completed). */
    public long statesApplied()
    {
        return stateTransfer.statesApplied.get();
    }

    /** @return group states this replica could not take (it left its group each time). */
    public long statesNotApplied()
    {
        return stateTransfer.statesNotApplied.get();
    }

    /** @return joins of this replica refused because no member could give a state (it left its group each time). */
    public long joinsRefused()
    {
        return stateTransfer.joinsRefused.get();
    }

    /** @return the last reason a state was not given or taken, or null when none failed. */
    public String lastStateError()
    {
        return stateTransfer.lastError();
    }

    /** The ORB flushed a GIOP Reply on the group connection; any POA thread. */
    void onReply(final byte[] reply)
    {
        final long localId = GiopMessage.requestId(reply, reply.length);
        if (localId != GiopMessage.UNKNOWN && stateTransfer.onReply(localId, reply))
        {
            return;
        }
        final Pending p = localId == GiopMessage.UNKNOWN ? null : pending.remove(localId);
        if (p == null)
        {
            repliesWithoutRequest.incrementAndGet();
            return;
        }
        if (stateTransfer.stateLost())
        {
            // Executed on a state that is not the group's (its set_state failed; it is leaving):
            // the client has the other members' replies.
            repliesWithheld.incrementAndGet();
            return;
        }
        final String refusal = engine.replyRefusal(reply.length);
        final byte[] sent = refusal == null ? reply : tooLargeReply(reply, p.requestId, refusal);
        GiopMessage.setRequestId(sent, sent.length, p.requestId & 0xFFFF_FFFFL);
        repliesSent.incrementAndGet();
        // The engine keeps the reply until the client ACKs it, resending it meanwhile.
        try
        {
            driver.submit(now -> engine.sendReply(p.clientId, p.packetId, p.requestId, ByteBuffer.wrap(sent), 0, sent.length, now));
        }
        catch (final IllegalStateException e)
        {
            // The replica is shutting down: the client gets its reply from the other members.
            messagesDropped.incrementAndGet();
        }
    }

    /**
     * A GIOP Reply of the same GIOP version and request carrying {@link RomiopExceptions#replyTooLarge}
     * in place of {@code reply}, which the engine cannot send ({@code refusal}). Every replica that
     * executed the call answers alike, so the client's consolidation hands the caller the exception
     * instead of waiting for replies that never come.
     */
    private byte[] tooLargeReply(final byte[] reply, final int requestId, final String refusal)
    {
        final org.omg.CORBA.IMP_LIMIT e = RomiopExceptions.replyTooLarge(refusal);
        repliesTooLarge.incrementAndGet();
        // The same bytes from every replica (no member id in it), or consolidation would find the replies inconsistent.
        final String text = "ROMIOP group " + config.group + ": " + e.getMessage();
        logger.warn("member " + config.memberId + ": " + text);
        return SystemExceptionReply.build(GiopMessage.minor(reply), requestId & 0xFFFF_FFFFL, org.omg.CORBA.IMP_LIMITHelper.id(), e.minor,
            org.omg.CORBA.CompletionStatus._COMPLETED_YES, org.jacorb.orb.dsi.ServerRequest.createExceptionDetailMessage(text).context_data);
    }

    /** @return replies replaced by {@link RomiopExceptions#replyTooLarge} because the engine could not send them. */
    public long repliesTooLarge()
    {
        return repliesTooLarge.get();
    }

    /** The ORB closed the group connection: a replica keeps serving, on a new one. */
    void onConnectionClosed(final RomiopServerConnection c)
    {
        if (!destroyed && connection == c)
        {
            stateTransfer.connectionClosed("the ORB closed it");
            openConnection();
        }
    }

    @Override
    public Profile endpoint()
    {
        return profile == null ? null : profile.copy();
    }

    /** @return requests the group delivered to this replica. */
    public long delivered()
    {
        return delivered.get();
    }

    /** @return a one-line summary of this replica's counters, for logs and test failures. */
    public String counters()
    {
        return "ROMIOP member " + config.memberId + ": delivered=" + delivered + ", repliesSent=" + repliesSent + ", repliesTooLarge=" +
            repliesTooLarge + ", notGiop=" + notGiop +
            ", repliesWithoutRequest=" + repliesWithoutRequest + ", repliesWithheld=" + repliesWithheld + ", messagesDropped=" + messagesDropped +
            ", deliveryStalls=" + deliveryStalls + ", " + stateTransfer.counters() + ", driverFailures=" +
            (driver == null ? 0 : driver.failures()) + (driver != null && driver.lastFailure() != null ? " (" + driver.lastFailure() + ")" : "") +
            (driver instanceof org.lightwire.romiop.driver.PollingDriver ? ", " + driver : "") +
            ", link " + (link == null ? "-" : link.counters()) + (assembler == null ? "" : ", " + assembler.counters("Requests")) +
            (engine == null ? "" : ", engine " + engineSummary()) +
            (stateTransfer.lastError() == null ? "" : ", lastStateError \"" + stateTransfer.lastError() + '"');
    }

    /** The engine's state, read without its lock: for diagnostics only (values may be a moment old). */
    private String engineSummary()
    {
        return engine.state() + ", leader " + engine.leaderId() + ", view " + java.util.Arrays.toString(engine.currentMembers()) +
            ", deliveredSeq " + engine.deliveredSeq() + ", " + deliverySummary() + ", " + engine.counters();
    }

    /** The engine's delivery summary, or why it could not be read while the engine changed it. */
    private String deliverySummary()
    {
        try
        {
            return engine.deliverySummary();
        }
        catch (final RuntimeException e)
        {
            return "delivery not readable now (" + e + ")";
        }
    }

    /**
     * Multicasts MemberChange REMOVED for this member, so the others remove it at once (a leader
     * hands over without waiting for the KeepAlive timeout); waits up to half a second for the
     * driver to send it. The KeepAlive probes remove a member whose announcement is lost.
     */
    private void announceLeaving()
    {
        final CountDownLatch sent = new CountDownLatch(1);
        try
        {
            driver.submit(now ->
            {
                engine.leave(now);
                sent.countDown();
            });
            sent.await(500, TimeUnit.MILLISECONDS);
        }
        catch (final IllegalStateException e)
        {
            // The driver is closed already: nothing can be sent.
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void destroy()
    {
        destroyed = true;
        if (driver != null)
        {
            announceLeaving();
            driver.close();
        }
        if (link != null)
        {
            link.close();
        }
        releaseStartCount();
        final RomiopServerConnection c = connection;
        if (c != null)
        {
            c.onTransportClosed("the replica is shutting down");
        }
        super.destroy();
    }
}
