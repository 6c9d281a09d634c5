package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.CancelFlyweight;
import org.lightwire.romiop.protocol.FragmentHeader;
import org.lightwire.romiop.protocol.Invalid;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.NakFlyweight;
import org.lightwire.romiop.protocol.OrderAckFlyweight;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.RequestFlyweight;
import org.lightwire.romiop.protocol.ViewChangeFlyweight;
import org.lightwire.romiop.engine.view.CommitTracker;
import org.lightwire.romiop.engine.view.Configuration;

/**
 * One group member, and while it leads also the fixed sequencer (paper, section 4.2 and Figure 4),
 * with the paper's membership (sections 3.3 and 4.1) and, beyond the paper, leader failover. A pure
 * state machine: packets in through {@link #onPacket}, time through {@link #start} and
 * {@link #onTimer}, packets out through {@link GroupSender}, requests out through
 * {@link DeliveryHandler} in the total order. docs/romiop.md describes the protocol as built.
 *
 * <p>Member: holds every Request (line 17) and ACKs it to its client, again for a duplicate
 * (section 4.1); delivers strictly in MsgOrder order, never past a missing request or order (lines
 * 33-39); NAKs a gap after {@code nakDelayNs} and every {@code retransmitTimeoutNs}; sends the
 * leader a cumulative ACK of delivery; keeps the last {@code maxRetainedOrders} delivered requests
 * so that a new leader can recover from it.
 *
 * <p>Leader: orders each request once, in arrival order: at once when idle, then batched for one
 * order interval ({@code atOnceWhenIdle=false} is the paper's 10 ms mode); keeps what some member
 * has not ACKed, serves NAKs, re-multicasts lagging orders; multicasts a KeepAlive every
 * {@code keepAlivePeriodNs} and removes a member silent for {@code keepAliveTimeoutNs}; announces
 * every view as a MemberChange LIST (leader first) to the members and to the clients it has seen.
 *
 * <p>Cancel: the leader never orders a request cancelled before it was ordered; other members keep
 * a cancelled request {@code cancelHoldNs} (the leader may have ordered it first) and then drop it.
 *
 * <p>Join (Figure 4 lines 22-31): a {@link State#JOINING} member multicasts MemberChange ADDED; the
 * leader adds it, announces the new view, and tells it where to start with a KeepAlive (it delivers
 * from the next order on: no state transfer of earlier requests); it then multicasts ONLINE and
 * members answer with their lists. A joiner that hears no member for {@code joinTimeoutNs} leads a
 * group of its own. A member removed from the view rejoins the same way; {@link #leave} announces
 * MemberChange REMOVED.
 *
 * <p>Failover: a member that hears nothing from the leader for {@code keepAliveTimeoutNs} (one it
 * never heard: {@code foundingWaitNs}) suspects it; the lowest id left leads. The new leader ({@link State#LEADER_RECOVERING}) multicasts
 * MemberChange REMOVED(old leader) until every survivor reports (its known undelivered orders, its
 * held requests, and last its delivered sequence in a KeepAlive); it catches up to the highest
 * delivered sequence of any survivor, re-orders the old leader's orders past that as far as some
 * survivor holds them without a gap, then orders every other held request.
 *
 * <p>This class keeps the {@link State}, the leader, failure detection and restarts, and composes
 * the rest, each part with its own deadline: {@link Outbox}, {@link OrderedDelivery},
 * {@link GapDetector}, {@link AckScheduler}, {@link CancelTracker}, {@link ClientFifo},
 * {@link Sequencer}, {@link ReplyStore} and {@link DuplicateFilter}; the view
 * ({@link GroupView}), the configuration ({@link MemberConfiguration}), the epoch and its promise
 * ({@link EpochPromise}) and the answers to epoch asks ({@link EpochAskAnswers}); and, driven by
 * its KeepAlive tick, the new leader's side of the view change ({@link Takeover}).
 *
 * <p>Not yet: an allocation-free steady state.
 */
public final class MemberEngine
{
    /** The epoch a member started from the founding configuration is in. */
    static final int FOUNDING_EPOCH = 1;

    /** The member's role and, for the leader, the sequencer's state. */
    public enum State
    {
        /** Asking to join (MemberChange ADDED); not delivering. */
        JOINING,
        /** An ordinary member: holds requests, delivers in the leader's order. */
        MEMBER,
        /** The sequencer with no order sent within the last order interval. */
        LEADER_IDLE,
        /** The sequencer inside an order interval: new requests wait for its end. */
        LEADER_BATCHING,
        /** A new sequencer gathering the survivors' state after the leader failed. */
        LEADER_RECOVERING,
        /** Left the group ({@link #leave}); ignores everything. */
        LEFT
    }

    private final GroupConfig config;
    private final DeliveryHandler handler;
    private final StateHandler stateHandler;
    private final GroupCounters counters = new GroupCounters();
    private final Outbox outbox;
    /** The send buffer, lent by the outbox. */
    private final ByteBuffer out;

    private final PacketHeader_1_0 header = new PacketHeader_1_0();
    private final RequestFlyweight request = new RequestFlyweight();
    private final MsgOrderFlyweight msgOrder = new MsgOrderFlyweight();
    private final AckFlyweight ack = new AckFlyweight();
    private final NakFlyweight nak = new NakFlyweight();
    private final KeepAliveFlyweight keepAlive = new KeepAliveFlyweight();
    private final CancelFlyweight cancel = new CancelFlyweight();
    private final MemberChangeFlyweight memberChange = new MemberChangeFlyweight();
    private final OrderAckFlyweight orderAck = new OrderAckFlyweight();
    private final ViewChangeFlyweight viewChange = new ViewChangeFlyweight();
    private final StateDonor donor;
    private final StateReceiver stateReceiver;
    private final StateTransfer stateTransfer;
    private final ReplyStore replies;
    private final ReplyWriter replyWriter;
    private final DuplicateFilter finished;
    /**
     * The requests this member executed (delivered to the application), bounded like
     * {@link #finished}, which also holds requests dropped on a Cancel: a request executed here is
     * never executed again, whatever order number a later leader gives it.
     */
    private final DuplicateFilter executed;
    private final ClientLeases clientLeases;

    private State state;
    private boolean started;

    // Membership: the view and its leader.
    private final GroupView views;
    private int leaderId;
    /**
     * Member: when its leader last showed that it leads (a MsgOrder, KeepAlive or LIST of its). Any
     * other packet from that id proves nothing: a restarted process with the leader's id sends
     * MemberChange ADDED, and must not keep its followers from suspecting it.
     */
    private long leaderHeardNs;
    /**
     * Member: it heard a leader of its (or its founding leader's ask) since it started. Until then
     * it suspects its leader only after {@link GroupConfig#foundingWaitNs()}: a founding leader
     * that starts after its members is late, not failed. A takeover from it may not finish (its
     * members may all be restarted processes, and none counts itself), and its check, hearing of
     * that takeover, would take itself for a restart.
     */
    private boolean leaderEverHeard;
    /**
     * A member of the founding configuration that knows it was restarted (start count 2 or more)
     * learns the members' epochs ({@link #recovery}) before it promises a founding check: an ask
     * it then receives may be a delayed copy of one its earlier incarnation promised, and the
     * epochs told show whether the group has gone past it (it then promises nothing, and rejoins
     * on the leader's first packet).
     */
    private boolean learningEpochs;
    /** The last LIST taken from our leader (a LIST of its with an older packet id is stale). */
    private int lastListPacketId;
    /** Leader: the joiners it admitted that have not started yet, and the start each is owed. */
    private final JoinerStarts starts;
    /** Joiner: a start KeepAlive that came before the LIST naming it. */
    private final EarlyStart earlyStart = new EarlyStart();
    /** Joiner: the LIST that listed it (a start sent before it is an earlier admission's). */
    private int listedByPacketId;
    private long tickDeadlineNs;
    /** After joining: members that answered ONLINE; it is repeated each tick until all did, or for one KeepAlive timeout. */
    private final Set<Integer> onlineAnsweredBy = new HashSet<>();
    private long onlineUntilNs;
    private long joinDeadlineNs;
    /** A joiner's watch for a leader: it takes over itself when it hears none (see {@link LeaderSigns}). */
    private final LeaderSigns leaderSigns;
    private boolean groupHeard;

    // Commit before delivery: the epoch ordered or followed in, the members that commit, the commit.
    /** The epoch it orders or follows in, that epoch's leader, and the newest epoch it promised. */
    private final EpochPromise epochs;
    /** The group's configuration as this member knows it, and whether it votes in it. */
    private final MemberConfiguration configs;
    /** Its answers to EPOCH_ASK: a founding leader's check, a restarted process learning the epochs. */
    private final EpochAskAnswers epochAnswers;
    /** Leader: how far its order is held by a commit quorum of the configuration. */
    private final CommitTracker commits;
    /** The highest commit known in this epoch: the leader's own, or the one its leader announced. */
    private long commitSeq;

    // Delivery.
    /** Held requests, known orders, delivery in order, retained requests. */
    private final OrderedDelivery delivery;
    /** Reads the size of each Request a MsgOrder carries. */
    private final PacketHeader_1_0 carriedHeader = new PacketHeader_1_0();
    /** Cancelled requests: dropped by the leader, held for a while by the others. */
    private final CancelTracker cancels;
    /** When request ACKs and cumulative order ACKs go. */
    private final AckScheduler acks;
    /** What is missing, when to NAK it, and NAK answers. */
    private final GapDetector gaps;

    // Sequencer only.
    /** Leader: per-client FIFO admission of requests to the order. */
    private final ClientFifo fifo;
    /** Leader: the order queue, MsgOrders, members' ACKs and order retransmission. */
    private final Sequencer sequencer;
    private long batchDeadlineNs;
    /** Leader: the view, announced to members and clients until they ACK it. */
    private final ViewAnnouncer announcer;

    // Failover, follower side: who takes over, and what was reported to the new leader.
    private final Succession succession;
    private final AcceptedOrders reportedOrders = new AcceptedOrders();
    /** The view change, new leader's side: the reports, the decision and the catch-up. */
    private final Takeover takeover;
    /** Our report to a takeover we promised our epoch to. */
    private final TakeoverReport report;

    /** The leader that announced its leaving (REMOVED for itself), or -1. */
    private int leaderThatLeft = -1;
    /**
     * Started from the founding configuration and never in a newer epoch than the founding one: it
     * cannot tell a first start from a restart, since the group keeps nothing on disk.
     */
    private boolean founding;
    /**
     * May be a restarted process that forgot what an earlier process with its id accepted and
     * promised: a joiner of a configured group from its start, and a {@link #founding} member once
     * it rejoins (it heard the group past its founding epoch, or was removed). It reports to no
     * takeover until a leader has admitted it and set where it starts: a report of "nothing
     * accepted" from it could let a takeover miss an order its earlier incarnation helped commit.
     */
    private boolean amnesiac;
    /** A leader started from the founding configuration orders only once this check passed. */
    private final FoundingCheck foundingCheck = new FoundingCheck(FOUNDING_EPOCH);
    /** An {@link #amnesiac} process learns the members' epochs before it asks to join. */
    private final EpochRecovery recovery = new EpochRecovery();
    /** The newest incarnation known of each member of the configuration: raised before answering an EPOCH_ASK, carried in reports. */
    private final KnownIncarnations incarnations = new KnownIncarnations();
    /** How far the orders reached when this process was last admitted while it may have been a restarted one. */
    private final AdmissionReach admission = new AdmissionReach();
    /**
     * Leader: each member's last OrderAck that moved its delivery on, or the ADDED it joined with,
     * by packet id (a later packet is a later send).
     */
    private final Map<Integer, Integer> lastAdvancingAck = new HashMap<>();

    /** Leader: whether a majority of the configuration is present; without it nothing is ordered. */
    private final Lease lease;

    /**
     * @param config a group whose member list holds this member (it starts as a member, or as the
     *               leader), or {@link GroupConfig#joining} / a list without it (it starts
     *               {@link State#JOINING}; call {@link #start}).
     */
    public MemberEngine(final GroupConfig config, final GroupSender sender, final DeliveryHandler handler)
    {
        this(config, sender, handler, null);
    }

    /**
     * An engine whose application gives and takes its state ({@link StateHandler}): a member that
     * joins past orders it did not execute takes a state at a cut of the order and delivers from
     * there. Without one ({@code stateHandler} null) such a member skips those orders, and it
     * refuses its own state to members that ask.
     */
    public MemberEngine(final GroupConfig config, final GroupSender sender, final DeliveryHandler handler, final StateHandler stateHandler)
    {
        this.config = config;
        this.handler = handler;
        this.stateHandler = stateHandler;
        this.outbox = new Outbox(config, sender);
        this.out = outbox.buffer();
        this.replies = new ReplyStore(config, counters, sender);
        this.replyWriter = new ReplyWriter(config, counters, outbox, replies);
        this.finished = new DuplicateFilter(config.duplicateWindow, config.maxClients, counters);
        // Its evictions are counted apart (they mirror the finished filter's): not in this member's counters.
        this.executed = new DuplicateFilter(config.duplicateWindow, config.maxClients, new GroupCounters());
        this.donor = new StateDonor(config, counters, outbox, executed, stateHandler);
        this.stateReceiver = new StateReceiver(config, counters, outbox);
        this.clientLeases = new ClientLeases(config.replyGiveUpNs, config.maxClients);
        this.delivery = new OrderedDelivery(outbox, this::delivered);
        this.cancels = new CancelTracker(config, counters, delivery, finished, new CancelTracker.Orders()
        {
            @Override
            public boolean ordering()
            {
                return isOrdering();
            }

            @Override
            public boolean isOrderedUndelivered(final long key)
            {
                return MemberEngine.this.isOrderedUndelivered(key);
            }

            @Override
            public void unqueue(final long key)
            {
                sequencer.unqueue(key);
            }
        });
        this.gaps = new GapDetector(config, counters, outbox, delivery, config.leaderId);
        this.acks = new AckScheduler(config, counters, outbox, new AckScheduler.Position()
        {
            @Override
            public boolean acksOrders()
            {
                return state == State.MEMBER;
            }

            @Override
            public long deliveredSeq()
            {
                return delivery.deliveredSeq();
            }

            @Override
            public long acceptedSeq()
            {
                return delivery.acceptedSeq();
            }

            @Override
            public boolean acceptsAtOnce()
            {
                return MemberEngine.this.acceptsAtOnce();
            }

            @Override
            public int leaderId()
            {
                return leaderId;
            }
        });
        this.fifo = new ClientFifo(config, counters, new ClientFifo.Orderer()
        {
            @Override
            public void orderSoon(final long key, final long nowNs)
            {
                MemberEngine.this.orderSoon(key, nowNs);
            }

            @Override
            public boolean isHeld(final long key)
            {
                return delivery.isHeld(key);
            }
        });
        this.sequencer = new Sequencer(config, counters, outbox, delivery, new Sequencer.Group()
        {
            @Override
            public int[] view()
            {
                return views.ids();
            }

            @Override
            public void accepted(final long lastOrderSeq)
            {
                if (commits.ownAccepted(lastOrderSeq))
                {
                    stampCommit(commits.commit());
                }
            }

            @Override
            public void deliverOrdered(final long nowNs)
            {
                deliverInOrder(nowNs);
            }
        });
        this.succession = new Succession(config.selfId, config.keepAliveTimeoutNs, new Succession.Group()
        {
            @Override
            public int[] view()
            {
                return views.ids();
            }

            @Override
            public Configuration configuration()
            {
                return configs.current();
            }

            @Override
            public boolean voter()
            {
                return configs.voter();
            }
        });
        this.starts = new JoinerStarts(config.retransmitTimeoutNs, config.keepAliveTimeoutNs > 0 ? config.keepAliveTimeoutNs : 8 * config.retransmitTimeoutNs,
            counters, (joinerId, startSeq) -> outbox.start(joinerId, sequencer.lastOrderSeq(), startSeq));
        this.announcer = new ViewAnnouncer(config, counters, outbox, new ViewAnnouncer.View()
        {
            @Override
            public int[] ids()
            {
                return views.ids();
            }

            @Override
            public int leaderId()
            {
                return leaderId;
            }

            @Override
            public int epoch()
            {
                return epochs.current();
            }

            @Override
            public Configuration configuration()
            {
                return configs.current();
            }
        });
        this.takeover = new Takeover(config, counters, outbox, delivery, sequencer, gaps, cancels, fifo, stateReceiver, stateHandler != null,
            reportedOrders, new TakeoverMember());
        this.report = new TakeoverReport(config.selfId, counters, outbox, delivery, reportedOrders, config.incarnationNumber(), incarnations,
            admission);
        this.stateTransfer = new StateTransfer(config.selfId, counters, outbox, delivery, donor, stateReceiver, stateHandler, executed, finished,
            new StateTransfer.Member()
            {
                @Override
                public boolean inGroup(final int id)
                {
                    return isMember(id) || configuration().contains(id);
                }

                @Override
                public void heard(final int id, final long nowNs)
                {
                    MemberEngine.this.heard(id, nowNs);
                }

                @Override
                public boolean givesState(final int askerId)
                {
                    // A joiner gives to the takeover it reported to: its application holds exactly
                    // what it delivered (a takeover whose holder rejoined takes its state from it).
                    // Giving to any member that asks broke the order (mixed 5927: states without
                    // an order the group executed), so it gives to nobody else.
                    return !stateReceiver.awaiting() && (state == State.MEMBER || isOrdering() || state == State.JOINING && servesTakeover(askerId));
                }

                @Override
                public int[] view()
                {
                    return views.ids();
                }

                @Override
                public void deliverInOrder(final long nowNs)
                {
                    MemberEngine.this.deliverInOrder(nowNs);
                }

                @Override
                public void stop(final long nowNs)
                {
                    transitionTo(State.LEFT, nowNs);
                }
            });
        this.views = new GroupView(config.selfId, config.memberIds, config.keepAliveTimeoutNs);
        this.leaderId = config.leaderId;
        this.configs = new MemberConfiguration(config.selfId, config.configuredIds, counters, this::configurationChanged);
        this.epochs = new EpochPromise(FOUNDING_EPOCH, config.memberIndex(config.selfId) < 0 ? -1 : config.leaderId);
        this.commits = new CommitTracker(config.selfId, configuration());
        this.epochAnswers = new EpochAskAnswers(config.incarnationNumber(), counters, outbox, epochs, configs, incarnations,
            new EpochAskAnswers.Standing()
            {
                @Override
                public boolean knowsOfOrders()
                {
                    return delivery.knowsAnyOrder() || !reportedOrders.isEmpty() || isOrdering() || state == State.LEADER_RECOVERING;
                }

                @Override
                public int leadingEpoch()
                {
                    return isOrdering() ? epochs.current() : 0;
                }

                @Override
                public long lastOrderSeq()
                {
                    return isOrdering() ? Math.max(sequencer.lastOrderSeq(), delivery.highestKnownSeq()) : delivery.highestKnownSeq();
                }

                @Override
                public boolean awaitsEpochs()
                {
                    return MemberEngine.this.awaitsEpochs();
                }

                @Override
                public boolean forgotItsEpochs()
                {
                    return MemberEngine.this.forgotItsEpochs();
                }
            });
        this.lease = new Lease(config);
        this.leaderSigns = new LeaderSigns(config.selfId, config.keepAliveTimeoutNs);
        commits.startEpoch(epochs.current(), configuration(), 0, 0);
        this.founding = config.memberIndex(config.selfId) >= 0;
        this.amnesiac = !founding && !config.mayFound();
        if (config.memberIndex(config.selfId) < 0)
        {
            this.state = State.JOINING;
        }
        else
        {
            this.state = config.selfId == config.leaderId ? State.LEADER_IDLE : State.MEMBER;
        }
    }

    public State state()
    {
        return state;
    }

    public GroupCounters counters()
    {
        return counters;
    }

    /**
     * @return how far the leader's orders reached when this process was last admitted while it
     *     may have been a restarted one (0: never): until it delivered through there, it may lack
     *     orders its earlier incarnation helped commit (docs/romiop.md, "Incarnations").
     */
    public long admissionReach()
    {
        return admission.reach();
    }

    /** @return which start of this process this is ({@link GroupConfig#startCount}; 0 unknown). */
    public long startCount()
    {
        return config.startCount;
    }

    /**
     * @return true while this process, which knows it restarted, waits to learn the members'
     *     epochs (from members that did not restart) before it takes part in a founding check.
     */
    public boolean awaitsEpochs()
    {
        return learningEpochs && !recovery.learned();
    }

    /** @return the epoch this member orders or follows in. */
    public int epoch()
    {
        return epochs.current();
    }

    /** @return the members whose acceptances commit and whose majority takes over, ascending (this member's view of them). */
    public int[] configurationIds()
    {
        return configuration().ids();
    }

    /**
     * @return the configuration the leader's last LIST named when it differed from this member's
     *     (see {@link GroupCounters#configurationMismatches()}), ascending, or null if none did.
     */
    public int[] mismatchedConfiguration()
    {
        return configs.mismatched();
    }

    /** @return true when this member counts for no commit or majority: a learner. */
    public boolean learner()
    {
        return !configs.voter();
    }

    /** @return the nonce of the founding leader's check ({@link FoundingCheck}); for tests that answer it. */
    int foundingNonce()
    {
        return foundingCheck.nonce();
    }

    /** @return true while a founding leader waits for its check before it orders. */
    public boolean foundingCheckPending()
    {
        return foundingCheck.pending();
    }

    /**
     * @return the members a founding leader still waits for before it orders, ascending (none when
     *     it does not wait), and since when in {@link #foundingCheckStartedNs}.
     */
    public int[] foundingCheckAwaiting()
    {
        return foundingCheck.pending() ? foundingCheck.unanswered(configs.configuredGroup(), config.selfId) : new int[0];
    }

    /** @return the members that answered the founding leader's check with another configuration than its own, ascending. */
    public int[] foundingCheckMismatched()
    {
        return foundingCheck.mismatched();
    }

    /** @return when the founding leader's check started (meaningful while {@link #foundingCheckPending}). */
    public long foundingCheckStartedNs()
    {
        return foundingCheck.startedNs();
    }

    /** @return the order sequence number of the last delivered request (0 before the first). */
    public long deliveredSeq()
    {
        return delivery.deliveredSeq();
    }

    /**
     * @return where delivery stands, for diagnostics: "epoch 3, commit 120, accepted 121, held 4,
     *     orders 5, first gap at 122 (request 7/1044 missing)", and during a takeover how far it
     *     is ("taking over: 2 reports, proposing epoch 4", or "catching up to 130 from 3"). Not thread-safe: a
     *     reader without the engine's lock may see values a moment old.
     */
    public String deliverySummary()
    {
        final long accepted = delivery.acceptedSeq();
        final Long next = delivery.orders().get(accepted + 1);
        final String missing = next == null ? "order " + (accepted + 1) + " missing"
            : "request " + HeldRequest.clientId(next) + "/" + HeldRequest.packetId(next) + " missing";
        return "epoch " + Integer.toUnsignedString(epochs.current()) + ", commit " + commitSeq + ", accepted " + accepted +
            ", held " + delivery.heldByKey().size() + ", orders " + delivery.orders().size() +
            (delivery.misses() ? ", first gap at " + (accepted + 1) + " (" + missing + ")" : ", no gap") +
            (state != State.LEADER_RECOVERING ? "" : ", taking over: " + takeover.summary());
    }

    /** @return this member's view of the group, ascending (a copy); a link fanning out by unicast sends to these. */
    public int[] currentMembers()
    {
        return views.ids().clone();
    }

    /** @return the leader in this member's view (-1 while joining a group whose leader is not known). */
    public int leaderId()
    {
        return leaderId;
    }

    /** @return requests the sequencer holds back for an earlier request of their client (0 unless leading). */
    public int heldForFifo()
    {
        return fifo.held();
    }

    /** @return Reply packets kept until their client ACKs them: sent, or pieces held for the reply window. */
    public int pendingReplies()
    {
        return replies.size();
    }

    /** @return reply pieces held, not yet sent, for want of room in their client's reply window. */
    public int heldReplyPieces()
    {
        return replies.held();
    }

    /** @return delivered requests kept for retransmission or recovery (the leader's until every member ACKs them). */
    public int retainedOrders()
    {
        return delivery.retainedCount();
    }

    public int duplicateFilterSize()
    {
        return finished.size();
    }

    /**
     * Starts the clocks: membership timers count from {@code nowNs}, and a joining member sends its
     * first MemberChange ADDED. The first {@link #onPacket} or {@link #onTimer} starts an engine
     * not started yet.
     */
    public void start(final long nowNs)
    {
        if (started)
        {
            return;
        }
        started = true;
        views.start(nowNs);
        joinDeadlineNs = nowNs + config.joinTimeoutNs;
        tickDeadlineNs = nowNs + tickPeriodNs();
        leaderHeardNs = nowNs;
        lease.start(configuration(), nowNs);
        if (amnesiac)
        {
            recovery.restart(nowNs, config.selfId);
        }
        else if (founding && config.startCount >= 2 && config.selfId != config.leaderId)
        {
            learningEpochs = true;
            recovery.restart(nowNs, config.selfId);
            outbox.epochAsk(recovery.nonce(), config.incarnationNumber());
        }
        if (founding && isOrdering())
        {
            foundingCheck.start(nowNs, config.selfId, configs.configuredGroup().length);
            if (foundingCheck.pending())
            {
                askFounding(nowNs);
            }
        }
        if (state == State.JOINING)
        {
            askToJoin();
        }
    }

    /**
     * The application's answer to {@link StateHandler#captureState}: its state after order
     * {@code cut}, which this member now sends to the members that asked for it. On the engine's
     * thread; the bytes are kept (not copied) until those members have them.
     */
    public void stateCaptured(final long cut, final byte[] state, final long nowNs)
    {
        donor.captured(cut, state, nowNs);
    }

    /**
     * The application cannot give its state after order {@code cut} ({@code reason} says why, and
     * reaches the members that asked): they are refused and leave the group. On the engine's thread.
     */
    public void stateUnavailable(final long cut, final String reason, final long nowNs)
    {
        donor.unavailable(cut, reason);
    }

    /**
     * Leaves the group: multicasts MemberChange REMOVED for itself (once; the leader's KeepAlive
     * probes remove it anyway if that is lost) and stops. A leaving leader hands over at once: the
     * members start failover without waiting for the KeepAlive timeout.
     */
    public void leave(final long nowNs)
    {
        start(nowNs);
        if (state == State.LEFT)
        {
            return;
        }
        outbox.memberChange(GroupSender.GROUP, config.selfId, MemberChangeFlyweight.STATUS_REMOVED);
        stateReceiver.cancel();
        transitionTo(State.LEFT, nowNs);
    }

    /**
     * Sends the servant's GIOP reply to a delivered request as a ROMIOP Reply, unicast to the
     * client that made it (the paper multicasts replies to the group, Figure 4 line 6; only the
     * requesting client consolidates them, so unicast saves every other host the copy). The reply
     * is kept and re-sent (after {@code retransmitTimeoutNs}, then doubling) until the client ACKs
     * it, cancels the request, or {@code replyGiveUpNs} passes (the client is gone); see {@link ReplyStore}.
     *
     * <p>A reply too large for one packet goes in pieces: each a Reply of its own (own packet id,
     * kept and ACKed alone) with flags bit 3 set and a {@link FragmentHeader} naming the request.
     * At most {@code replyWindowBytes} of one client's pieces are in flight; the others are sent
     * as ACKs make room.
     *
     * @param clientId  the request's sender, as delivered.
     * @param packetId  the request's packet id, as delivered.
     * @param requestId the GIOP request id, as delivered.
     * @param payload   the GIOP Reply message, bytes {@code [offset, offset + length)}, copied.
     * @throws IllegalArgumentException when {@link #replyRefusal} refuses the reply.
     */
    public void sendReply(final int clientId, final int packetId, final int requestId, final ByteBuffer payload,
        final int offset, final int length, final long nowNs)
    {
        final String refusal = replyWriter.refusal(length);
        if (refusal != null)
        {
            throw new IllegalArgumentException(refusal);
        }
        acks.onReply(key(clientId, packetId));
        replyWriter.write(clientId, packetId, requestId, payload, offset, length, nowNs);
    }

    /**
     * @return why a reply of {@code length} bytes cannot be sent (longer than {@code maxReplyBytes},
     *     or in more pieces than {@code maxPendingReplies} can keep), or null when it can. Reads
     *     settings only: any thread.
     */
    public String replyRefusal(final int length)
    {
        return replyWriter.refusal(length);
    }

    /** Handles one received datagram. Never throws for any content: bad packets are counted. */
    public void onPacket(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        start(nowNs);
        header.wrap(buffer, offset);
        final Invalid invalid = header.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return;
        }
        if (state == State.LEFT)
        {
            return;
        }
        if (state == State.JOINING && length >= PacketHeader_1_0.HEADER_LENGTH + 4)
        {
            // Only a joiner asks who is heard (leaderlessTakeoverDue): no map write per packet otherwise.
            final int raw = buffer.getInt(offset + PacketHeader_1_0.HEADER_LENGTH);
            final int sender = buffer.order() == header.byteOrder() ? raw : Integer.reverseBytes(raw);
            if (sender != config.selfId && configuration().contains(sender))
            {
                leaderSigns.heard(sender, nowNs);
            }
        }
        // Before the packet: a Request must meet the lease as it stands now, even if the timer is late.
        checkLease(nowNs);
        switch (header.type())
        {
            case REQUEST -> onRequest(buffer, offset, length, nowNs);
            case MSG_ORDER -> onMsgOrder(buffer, offset, length, nowNs);
            case ACK -> onAck(buffer, offset, length, nowNs);
            case NAK -> onNak(buffer, offset, length, nowNs);
            case KEEP_ALIVE -> onKeepAlive(buffer, offset, length, nowNs);
            case CANCEL -> onCancel(buffer, offset, length, nowNs);
            case MEMBER_CHANGE -> onMemberChange(buffer, offset, length, nowNs);
            case ORDER_ACK -> onOrderAck(buffer, offset, length, nowNs);
            case STATE -> stateTransfer.onPacket(buffer, offset, length, nowNs);
            default -> counters.unexpectedPackets++;
        }
        // After it: a member heard again may bring the majority back.
        checkLease(nowNs);
    }

    /** Fires whatever deadline has passed. */
    public void onTimer(final long nowNs)
    {
        start(nowNs);
        if (state == State.LEFT)
        {
            return;
        }
        checkLease(nowNs);
        gaps.onTimer(state == State.MEMBER || state == State.LEADER_RECOVERING, nowNs);
        if (state == State.LEADER_BATCHING && batchDeadlineNs - nowNs <= 0)
        {
            if (!sequencer.hasQueued() || !mayOrder())
            {
                // Without the lease, what is queued waits for the majority (checkLease orders it then).
                transitionTo(State.LEADER_IDLE, nowNs);
            }
            else
            {
                sequencer.emit(nowNs);
                batchDeadlineNs = nowNs + config.orderIntervalNs;
            }
        }
        sequencer.onTimer(nowNs);
        announcer.onTimer(nowNs);
        replies.onTimer(nowNs);
        acks.onTimer(nowNs);
        if (isOrdering())
        {
            fifo.onTimer(nowNs);
            starts.onTimer(nowNs);
        }
        cancels.onTimer(nowNs);
        if (foundingCheck.pending() && foundingCheck.nextAskNs() - nowNs <= 0)
        {
            askFounding(nowNs);
        }
        stateReceiver.onTimer(state == State.MEMBER || state == State.LEADER_RECOVERING || isOrdering(), views.ids(), nowNs);
        expireRequestsOfGoneClients(nowNs);
        if (tickPeriodNs() > 0 && tickDeadlineNs - nowNs <= 0)
        {
            tickDeadlineNs = nowNs + tickPeriodNs();
            membershipTick(nowNs);
        }
    }

    /**
     * @return false for an ordinary member with nothing missing: it acts on a client's request only
     *         when the leader's order for it comes, so the arrival of the request need not wake
     *         its driver (which reads it with the order). The leader, a joining or recovering
     *         member, and a member with a gap to fill (a request or order it NAKs) want every
     *         request at once.
     */
    public boolean wakesForRequests()
    {
        return state != State.MEMBER || gaps.isArmed();
    }

    /** @return the absolute time {@link #onTimer} next needs to run, or Long.MAX_VALUE for never. */
    public long nextDeadlineNs()
    {
        if (state == State.LEFT)
        {
            return Long.MAX_VALUE;
        }
        long deadline = Deadlines.earlier(Deadlines.NONE, gaps.nextDeadlineNs());
        deadline = Deadlines.earlier(deadline, state == State.LEADER_BATCHING, batchDeadlineNs);
        deadline = Deadlines.earlier(deadline, sequencer.nextDeadlineNs());
        deadline = Deadlines.earlier(deadline, announcer.nextDeadlineNs());
        deadline = Deadlines.earlier(deadline, replies.nextDeadlineNs());
        deadline = Deadlines.earlier(deadline, cancels.nextDeadlineNs());
        // Armed while more requests are held than orders wait: one at least is named by none.
        deadline = Deadlines.earlier(deadline, (state == State.MEMBER || isOrdering()) &&
            delivery.heldByKey().size() > delivery.orders().size(), clientLeases.nextDeadlineNs());
        deadline = Deadlines.earlier(deadline, started && tickPeriodNs() > 0, tickDeadlineNs);
        deadline = Deadlines.earlier(deadline, acks.nextDeadlineNs());
        deadline = Deadlines.earlier(deadline, stateReceiver.nextDeadlineNs());
        deadline = Deadlines.earlier(deadline, foundingCheck.pending(), foundingCheck.nextAskNs());
        if (isOrdering())
        {
            deadline = Deadlines.earlier(deadline, fifo.nextDeadlineNs());
            deadline = Deadlines.earlier(deadline, starts.nextDeadlineNs());
            deadline = Deadlines.earlier(deadline, started, lease.nextDeadlineNs(configuration()));
        }
        return deadline;
    }

    private long tickPeriodNs()
    {
        if (config.keepAlivePeriodNs > 0)
        {
            return config.keepAlivePeriodNs;
        }
        return state == State.JOINING ? config.retransmitTimeoutNs : 0;
    }

    // ---------------------------------------------------------------------------------------------
    // Requests, orders, delivery.

    private void onRequest(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (!Packets.wrapValid(request, buffer, offset, length, counters))
        {
            return;
        }
        counters.requestsReceived++;
        outbox.observe(request.packetId());
        final boolean toSequencer = request.header().toSequencer();
        final int clientId = request.senderId();
        final long key = key(clientId, request.packetId());
        if (overHeldBudget(key, request.payloadLength()))
        {
            // Not ACKed: its client resends it, and it is taken once ordering frees room.
            counters.requestsRefusedFull++;
            return;
        }
        // A new two-way request: its Reply will acknowledge it, unless the reply takes longer. Not
        // the first piece of a request in pieces (the only piece that asks for a reply): the whole
        // request is executed only at its last piece, far later than the delay. Anything else is
        // ACKed before the duplicate check: the client resends only because it lacks this ACK.
        final boolean newTwoWay = acks.defersRequestAcks() && request.responseFlags() != 0 && state != State.JOINING &&
            !isMember(clientId) && !delivery.isHeld(key) && !finished.isFinished(clientId, request.packetId()) &&
            !FragmentHeader.isFragment(buffer, request.payloadOffset(), request.payloadLength());
        acks.onRequest(key, newTwoWay, nowNs);
        if (state == State.JOINING)
        {
            return;
        }
        if (isMember(clientId))
        {
            // A member forwarding a client's request (NAK answer, recovery report) keeps the client's id.
            counters.unexpectedPackets++;
            return;
        }
        clientLeases.heard(clientId, nowNs);
        if (isOrdering() && lease.isLost() && !hasUncommittedOrder(clientId) && lease.answer(clientId, nowNs))
        {
            sendUnavailable(clientId, nowNs);
        }
        final boolean duplicate = delivery.isHeld(key) || (finished.isFinished(clientId, request.packetId()) && !isOrderedUndelivered(key));
        // A new client, or one retransmitting: its view may name members that are gone (it waits for their ACKs).
        announcer.clientSeen(clientId, isOrdering(), duplicate, nowNs);
        if (duplicate)
        {
            counters.duplicateRequests++;
            if (isOrdering() && !delivery.isHeld(key) && !delivery.isDelivered(key) && fifo.knows(clientId))
            {
                // Cancelled before it got here: its number must not hold up the client's later requests.
                fifo.passOver(clientId, request.clientSeq(), key, nowNs);
            }
            return;
        }
        final byte[] payload = new byte[request.payloadLength()];
        buffer.get(request.payloadOffset(), payload);
        final HeldRequest held = new HeldRequest(key, request.requestId(), request.responseFlags(), request.clientSeq(), payload);
        delivery.hold(held);
        if (toSequencer)
        {
            if (isOrdering())
            {
                held.toCarry = true;
            }
            else
            {
                // The client's view names this member as leader and the view has moved on, or this
                // is a new leader still recovering: the group gets the request when the client,
                // lacking the other members' ACKs, multicasts it again; or by their request NAKs.
                counters.requestsToSequencerNotCarried++;
            }
        }
        if (isOrdering())
        {
            fifo.admit(key, request.clientSeq(), nowNs);
        }
        deliverInOrder(nowNs);
    }

    /**
     * @return true when a new request of {@code payloadBytes} would take the held requests past
     *     {@code max_held_bytes}. Never for a request this member must take whatever it costs: a
     *     duplicate, one an order names, a report to a takeover.
     */
    private boolean overHeldBudget(final long key, final int payloadBytes)
    {
        return delivery.heldBytes() + payloadBytes + HeldRequest.OVERHEAD_BYTES > config.maxHeldBytes &&
            state != State.JOINING && state != State.LEADER_RECOVERING && !delivery.isHeld(key) &&
            !finished.isFinished(HeldRequest.clientId(key), HeldRequest.packetId(key)) && !isOrderedUndelivered(key);
    }

    /** Leader: queues one request for the next MsgOrder, sent at once when nothing is in flight. */
    private void orderSoon(final long key, final long nowNs)
    {
        sequencer.queue(key);
        if (!mayOrder())
        {
            // Held until a majority is present again, or the founding check passed.
            return;
        }
        if (state == State.LEADER_IDLE)
        {
            if (config.orderAtOnceWhenIdle)
            {
                sequencer.emit(nowNs);
            }
            transitionTo(State.LEADER_BATCHING, nowNs);
        }
        else if (config.orderAtOnceWhenIdle && sequencer.roomInWindow())
        {
            // Batching, but few orders are in flight: waiting for the interval's end would only
            // add latency (a client calling one call after another would wait out the interval
            // every time).
            counters.ordersAtOnceInBatching++;
            sequencer.emit(nowNs);
            transitionTo(State.LEADER_BATCHING, nowNs);
        }
    }

    private void onMsgOrder(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (!Packets.wrapValid(msgOrder, buffer, offset, length, counters))
        {
            return;
        }
        outbox.observe(msgOrder.packetId());
        final int from = msgOrder.senderId();
        heard(from, nowNs);
        groupHeard = true;
        if (!msgOrder.header().report())
        {
            leaderSigns.sign(nowNs);
        }
        if (newerLeader(from, msgOrder.epoch(), nowNs))
        {
            return;
        }
        final boolean fromLeader = state == State.MEMBER && from == leaderId;
        // A report's orders (flagged REPORT): from a survivor of our view, or a member of the
        // configuration outside it (one we removed that follows our takeover; its KeepAlive, last,
        // adds it to the view), the failed leader included once it reports (it stepped down). A leader's orders are no report, whoever sends them; the holder's
        // NAK answers, while we catch up from it, are its delivered orders.
        final boolean fromHolder = state == State.LEADER_RECOVERING && takeover.catchingUpFrom(from);
        final boolean report = state == State.LEADER_RECOVERING && msgOrder.header().report() && from != config.selfId &&
            (isMember(from) || configuration().contains(from));
        if (state == State.LEADER_RECOVERING && !report && !fromHolder && from != config.selfId &&
            Integer.compareUnsigned(msgOrder.epoch(), epochs.current()) > 0)
        {
            // A leader of a newer epoch orders: our takeover is too late (what we were reported
            // may have been overtaken by it). Join its group.
            counters.staleLeadersLeft++;
            leaderId = from;
            rejoin(nowNs);
            return;
        }
        if (!fromLeader && !report && !fromHolder)
        {
            if (followsStaleLeader(from, msgOrder.epoch(), nowNs))
            {
                return;
            }
            if (state != State.JOINING)
            {
                counters.unexpectedPackets++;
            }
            return;
        }
        if (fromLeader && !leaderStamp(from, msgOrder.epoch(), msgOrder.commit(), nowNs))
        {
            return;
        }
        if (fromLeader)
        {
            leaderHeard(nowNs);
        }
        final long first = msgOrder.firstOrderSeq();
        final int count = msgOrder.entryCount();
        boolean fresh = false;
        for (int i = 0; i < count; i++)
        {
            final long seq = first + i;
            final long key = key(msgOrder.entrySenderId(i), msgOrder.entryPacketId(i));
            if (seq < delivery.nextDeliverSeq() || delivery.hasOrder(seq))
            {
                counters.duplicateOrderEntries++;
            }
            else if (fromLeader || takeover.servesFixed(from, seq))
            {
                delivery.order(seq, key);
                fresh = true;
            }
            else if (!report)
            {
                takeover.reportedEntry(from, msgOrder.epoch(), seq, key);
                fresh = true;
            }
            if (report)
            {
                // Each entry counts for the report's whole, those we delivered ourselves included.
                takeover.reportedEntry(from, msgOrder.epoch(), seq, key);
                fresh = true;
            }
        }
        if (fromLeader)
        {
            delivery.knowUpTo(first + count - 1);
            onCarriedRequests(buffer, msgOrder.firstCarried(), msgOrder.carriedCount(), nowNs);
        }
        deliverInOrder(nowNs);
        if (!fresh)
        {
            // Nothing new: the leader resends only because it lacks our ACK, so it goes at once.
            // (New orders are ACKed by deliverInOrder when delivery advances.)
            acks.sendOrderAck();
        }
        takeover.finishWhenCaughtUp(nowNs);
    }

    /**
     * Takes the Requests a leader's MsgOrder carries (validated with it) as if they had come by
     * themselves: ACKed, held, then delivered in the order just recorded.
     */
    private void onCarriedRequests(final ByteBuffer buffer, final int first, final int count, final long nowNs)
    {
        int at = first;
        for (int i = 0; i < count; i++)
        {
            // Read before onRequest, which may re-wrap every flyweight of this engine but this one.
            final int size = (int)carriedHeader.wrap(buffer, at).packetSize();
            counters.carriedRequestsReceived++;
            onRequest(buffer, at, size, nowNs);
            at += size;
        }
    }

    private void onKeepAlive(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (!Packets.wrapValid(keepAlive, buffer, offset, length, counters))
        {
            return;
        }
        outbox.observe(keepAlive.packetId());
        final int from = keepAlive.senderId();
        heard(from, nowNs);
        groupHeard = true;
        if (!keepAlive.header().report())
        {
            leaderSigns.sign(nowNs);
        }
        if (newerLeader(from, keepAlive.epoch(), nowNs))
        {
            return;
        }
        if (from != config.selfId && Integer.compareUnsigned(keepAlive.epoch(), epochs.current()) < 0 && (state == State.JOINING || state == State.MEMBER))
        {
            // A leader of an older epoch than ours, replaced while it was cut off or paused: our
            // KeepAlive, stamped with our epoch, makes it step down before it orders with members
            // that do not know of the newer epoch (a restarted joiner's acceptance would commit).
            counters.staleLeadersTold++;
            outbox.told(from, delivery.deliveredSeq());
        }
        if (keepAlive.header().told() && (state == State.JOINING || state == State.MEMBER))
        {
            // A member's word of its epoch, sent to us as if we led an older one (a delayed copy
            // of a KeepAlive we once sent as a leader), or as the end of the orders it holds: no
            // leader's. A member whose leader tells it a newer epoch follows a leader that now
            // follows another, and one told by another member of an epoch newer than any it
            // promised follows a stale leader: it rejoins.
            final boolean newerThanPromised = Integer.compareUnsigned(keepAlive.epoch(), epochs.promised()) > 0;
            if (state != State.MEMBER ||
                !(newerThanPromised && followsStaleLeader(from, keepAlive.epoch(), nowNs)) && !leaderMovedOn(from, keepAlive.epoch(), nowNs))
            {
                counters.unexpectedPackets++;
            }
            return;
        }
        final boolean startFlag = keepAlive.header().start();
        if (startFlag && state != State.JOINING)
        {
            // Sent again while its ONLINE was on its way, or a delayed copy of an earlier admission's.
            counters.staleStartsIgnored++;
            return;
        }
        switch (state)
        {
            case JOINING ->
            {
                if (startFlag && !(from == leaderId && isMember(config.selfId)))
                {
                    // Its start overtook the LIST that admits it: kept for that LIST.
                    counters.earlyStartsKept++;
                    earlyStart.keep(keepAlive, buffer, offset, length);
                }
                else if (startFlag && Integer.compareUnsigned(keepAlive.packetId(), listedByPacketId) <= 0)
                {
                    // Sent before the LIST that listed it: an earlier admission's start, whose
                    // orders the leader no longer keeps for it.
                    counters.staleStartsIgnored++;
                }
                else if (!startFlag && from == leaderId && isMember(config.selfId))
                {
                    // Its leader's periodic KeepAlive names a later commit than the start the leader
                    // counts it from (clients count its replies from the LIST on): it waits for its
                    // start (lost, or still on its way), sent again until it is ONLINE and in answer
                    // to each ADDED (a leader that took the view over answers with a start of its own).
                    counters.startsAwaited++;
                }
                else if (from == leaderId && isMember(config.selfId) && (Integer.compareUnsigned(keepAlive.epoch(), epochs.current()) < 0 ||
                    Integer.compareUnsigned(keepAlive.epoch(), epochs.promised()) < 0))
                {
                    // A leader of an older epoch than one this member took part in: not to be followed.
                    counters.staleEpochPackets++;
                }
                else if (from == leaderId && isMember(config.selfId) && amnesiac && recovery.learned() &&
                    !recovery.answeredLeading(from, keepAlive.epoch() & 0xFFFF_FFFFL))
                {
                    // It may be a restarted process: only a leader that answered its ask while
                    // ordering in this KeepAlive's epoch says how far its earlier incarnation may
                    // have helped commit (this KeepAlive may be a delayed copy, or a takeover's
                    // catch-up one that names only what it delivered). It asks again.
                    counters.admissionsDeferred++;
                    outbox.epochAsk(recovery.nonce(), config.incarnationNumber());
                }
                else if (from == leaderId && isMember(config.selfId) && (!amnesiac || recovery.learned()))
                {
                    // The leader's word on where this member starts: after what is committed (no
                    // state transfer of earlier requests); the orders up to the KeepAlive's end it
                    // fetches, since its acceptance may be needed to commit them. What it
                    // delivered before was committed: it never delivers those numbers again.
                    if (keepAlive.epoch() != epochs.current())
                    {
                        enterEpoch(keepAlive.epoch());
                    }
                    epochs.ledBy(from);
                    leaderHeard(nowNs);
                    final long start = Math.max(keepAlive.commit(), delivery.deliveredSeq());
                    // Past orders it did not execute, it takes a state at a cut from the start on.
                    final boolean needsState = stateHandler != null && (start > delivery.deliveredSeq() || stateReceiver.awaiting());
                    delivery.startAfter(start);
                    delivery.knowUpTo(keepAlive.lastOrderSeq());
                    acks.startAt(start);
                    stampCommit(start);
                    gaps.target(leaderId);
                    transitionTo(State.MEMBER, nowNs);
                    // Admitted, from the leader's commit on: what it reports from now on is what it holds.
                    if (amnesiac)
                    {
                        // Its earlier incarnation may have helped commit any order up to the leader's
                        // last: at least what the leader told this incarnation's ask while ordering
                        // in this epoch (this KeepAlive may be a delayed copy, or a catch-up one).
                        admission.admitted(keepAlive.epoch(), Math.max(keepAlive.lastOrderSeq(), recovery.lastOrderSeqTold(from, keepAlive.epoch())));
                    }
                    amnesiac = false;
                    acks.sendOrderAck();
                    onlineAnsweredBy.clear();
                    onlineUntilNs = nowNs + config.keepAliveTimeoutNs;
                    outbox.memberChange(GroupSender.GROUP, config.selfId, MemberChangeFlyweight.STATUS_ONLINE);
                    if (needsState)
                    {
                        stateReceiver.await(start, from, nowNs);
                    }
                }
            }
            case MEMBER ->
            {
                if (from == leaderId)
                {
                    if (epochs.promisedToCheckOf(from) && Integer.compareUnsigned(keepAlive.epoch(), epochs.promised()) < 0 &&
                        keepAlive.epoch() == epochs.current())
                    {
                        // Our founding leader, still checking: alive, though we take no order of the founding epoch now.
                        leaderHeard(nowNs);
                        return;
                    }
                    if (!leaderStamp(from, keepAlive.epoch(), keepAlive.commit(), nowNs))
                    {
                        return;
                    }
                    leaderHeard(nowNs);
                    delivery.knowUpTo(keepAlive.lastOrderSeq());
                    deliverInOrder(nowNs);
                    acks.sendOrderAck();
                }
                else if (!followsStaleLeader(from, keepAlive.epoch(), nowNs))
                {
                    counters.unexpectedPackets++;
                }
            }
            case LEADER_RECOVERING -> takeover.onKeepAlive(keepAlive, nowNs);
            default -> counters.unexpectedPackets++;
        }
    }

    private void deliverInOrder(final long nowNs)
    {
        if (state == State.JOINING)
        {
            return;
        }
        if (!stateReceiver.awaiting())
        {
            // A member awaiting a state accepts orders (commits need it) but executes none before it.
            delivery.deliverReady(deliverLimit());
        }
        // Acceptance goes to the leader (it commits by it), with the delivery it allowed.
        acks.onAccepted(nowNs);
        if (!isOrdering())
        {
            // The leader forgets by its members' ACKs; everyone else keeps a bounded tail for recovery.
            delivery.retainAtMost(config.maxRetainedOrders);
        }
        else
        {
            // Its own delivery may be what every member waited for: alone in its group, no ACK
            // would ever come to make the leader forget.
            sequencer.forgetFullyDelivered();
        }
        gaps.check(state == State.MEMBER || state == State.LEADER_RECOVERING, nowNs);
        acks.onDelivered(nowNs);
        // A new leader's catch-up ends with whichever packet completes it: an order or a request.
        takeover.finishWhenCaughtUp(nowNs);
    }

    /**
     * One request delivered, in order: it is finished, and goes to the application; unless this
     * member executed it before. (A leader that joined after the request's first place does not
     * know it was ordered there, and may order it again when the client resends it: this member
     * keeps that order number but does not execute the request twice.)
     */
    private void delivered(final long orderSeq, final HeldRequest held)
    {
        final int clientId = HeldRequest.clientId(held.key);
        final int packetId = HeldRequest.packetId(held.key);
        if (executed.isFinished(clientId, packetId))
        {
            counters.reorderedRequestsSkipped++;
            cancels.onDelivered(held.key);
            return;
        }
        executed.finish(clientId, packetId);
        finished.finish(clientId, packetId);
        cancels.onDelivered(held.key);
        counters.delivered++;
        handler.onDeliver(orderSeq, clientId, packetId, held.requestId, ByteBuffer.wrap(held.payload), 0, held.payload.length);
    }

    /** @return true when {@code packetId} of {@code memberId} is newer than its last OrderAck that moved its delivery on. */
    private boolean sentAfterLastAck(final int memberId, final int packetId)
    {
        final Integer acked = lastAdvancingAck.get(memberId);
        return acked != null && Integer.compareUnsigned(packetId, acked) > 0;
    }

    private boolean isOrderedUndelivered(final long key)
    {
        // (An order kept for a report counts: a takeover must get its request with it.)
        return delivery.isOrderedUndelivered(key) || takeover.names(key, delivery.deliveredSeq()) ||
            reportedOrders.names(key, delivery.deliveredSeq());
    }

    private void onNak(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (!Packets.wrapValid(nak, buffer, offset, length, counters))
        {
            return;
        }
        outbox.observe(nak.packetId());
        final int requester = nak.senderId();
        heard(requester, nowNs);
        // Only members NAK: a group runs, and a joiner must not found another.
        groupHeard = true;
        if (state == State.JOINING && servesTakeover(requester))
        {
            // The takeover we reported to may catch up from us after we rejoined (we stepped down,
            // or heard we were removed): what we delivered is committed, and served in any state,
            // with the requests it names.
            // (Unanswered, a takeover whose only holder rejoined waits for good, and its
            // KeepAlives keep every joiner from starting a takeover of its own.) Nobody else is
            // answered: our answers would look like a leader's to members that still follow us.
            counters.naksServedWhileJoining++;
            if (nak.nakType() == PacketType.MSG_ORDER && nak.fromOrderSeq() < delivery.firstOfRetainedRun())
            {
                counters.servedFromTold++;
                outbox.servesFrom(requester, epochs.promised(), delivery.deliveredSeq(), delivery.firstOfRetainedRun());
            }
            gaps.answer(nak, requester, false, delivery.deliveredSeq());
            return;
        }
        if (state == State.JOINING || !isMember(requester) && requester != leaderId)
        {
            // (Our leader is answered even outside our view: a takeover we reported to catches
            // up from us before it announces its view.)
            counters.unexpectedPackets++;
            tellRemoved(requester);
            return;
        }
        if (isOrdering() && nak.nakType() == PacketType.MSG_ORDER && nak.fromOrderSeq() < delivery.firstRetainedSeq() &&
            sentAfterLastAck(requester, nak.packetId()))
        {
            removeLaggard(requester, nowNs);
            return;
        }
        if (!isOrdering() && requester == leaderId && nak.nakType() == PacketType.MSG_ORDER &&
            nak.fromOrderSeq() < delivery.firstOfRetainedRun())
        {
            // The takeover we reported to catches up from us, but we joined past those orders (no
            // state transfer) or forgot them: we say where we can start, so that it need not ask for good.
            counters.servedFromTold++;
            outbox.servesFrom(requester, epochs.promised(), delivery.deliveredSeq(), delivery.firstOfRetainedRun());
        }
        final int unknown = gaps.answer(nak, requester, isOrdering(), isOrdering() ? sequencer.lastOrderSeq() : delivery.deliveredSeq());
        if (unknown > 0 && isOrdering() && sentAfterLastAck(requester, nak.packetId()))
        {
            // The same for a request it ordered and forgot: the asker can never deliver its place.
            removeLaggard(requester, nowNs);
        }
    }

    /**
     * The leader forgets an order and its request only once every member ACKed them: a member that
     * asks for one it forgot, in a packet sent after the ACK that let the leader forget (a member's
     * packet ids only grow; a NAK that was merely delayed is older than that ACK), is a later
     * incarnation under the same id (a process restarted from the founding configuration) or lost
     * its place otherwise, and can never catch up. Removed, it rejoins after the commit.
     */
    private void removeLaggard(final int requester, final long nowNs)
    {
        counters.laggardsRemoved++;
        removeMember(requester);
        announcer.announce(nowNs);
        tellRemoved(requester);
    }

    // ---------------------------------------------------------------------------------------------
    // Sequencer.

    private boolean isOrdering()
    {
        return state == State.LEADER_IDLE || state == State.LEADER_BATCHING;
    }

    private void onMemberDelivered(final int memberId, final long ackedSeq, final int packetId, final long nowNs)
    {
        final boolean movedOn = sequencer.onOrderAck(memberId, ackedSeq);
        if (movedOn)
        {
            lastAdvancingAck.put(memberId, packetId);
        }
        if (movedOn && state == State.LEADER_BATCHING && config.orderAtOnceWhenIdle &&
            sequencer.hasQueued() && sequencer.roomInWindow() && mayOrder())
        {
            // An ACK made room in the window: what waits goes out now, as one batch.
            counters.ordersAtOnceInBatching++;
            sequencer.emit(nowNs);
            transitionTo(State.LEADER_BATCHING, nowNs);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The leader's lease.

    /**
     * Leader: counts the members present when the lease may have changed. Lost, it orders nothing
     * (requests queue in the sequencer; KeepAlives go on); regained, it orders what queued.
     */
    private void checkLease(final long nowNs)
    {
        if (!isOrdering() || !lease.due(nowNs))
        {
            return;
        }
        final int change = lease.update(configuration(), nowNs);
        if (change < 0)
        {
            counters.leaseLost++;
        }
        else if (change > 0)
        {
            counters.leaseRegained++;
            orderQueued(nowNs);
        }
    }

    /** @return true when the leader may order now: it holds its lease, and passed the founding check. */
    private boolean mayOrder()
    {
        return !lease.isLost() && !foundingCheck.pending();
    }

    /** Leader: orders what queued while it might not. */
    private void orderQueued(final long nowNs)
    {
        if (mayOrder() && sequencer.hasQueued())
        {
            sequencer.emit(nowNs);
            transitionTo(State.LEADER_BATCHING, nowNs);
        }
    }

    /**
     * @return true when a request of {@code clientId} was ordered and is not yet committed: it
     *     runs if the majority returns, so the client is not told that its calls were not
     *     ordered (the notice fails them all, completed NO); they wait for their replies instead.
     */
    private boolean hasUncommittedOrder(final int clientId)
    {
        for (final long key : delivery.orderedKeys())
        {
            if (HeldRequest.clientId(key) == clientId)
            {
                return true;
            }
        }
        return false;
    }

    /** Leader without the lease: tells a client its view, who is present, and that nothing is ordered. */
    private void sendUnavailable(final int clientId, final long nowNs)
    {
        final int n = configuration().size();
        viewChange.wrap(out, 0);
        viewChange.set(Outbox.WIRE_ORDER, config.selfId, outbox.nextPacketId(), ViewChangeFlyweight.KIND_UNAVAILABLE, epochs.current(), epochs.current(),
            configuration().contains(config.selfId) ? configuration().incarnation(config.selfId) : 0, sequencer.lastOrderSeq(), commitSeq, n);
        for (int i = 0; i < n; i++)
        {
            final int id = configuration().id(i);
            viewChange.member(i, id, lease.isPresent(id, nowNs) ? ViewChangeFlyweight.MEMBER_PRESENT : 0, configuration().incarnationAt(i));
        }
        counters.unavailableSent++;
        outbox.send(clientId, viewChange.packetSize());
    }

    // ---------------------------------------------------------------------------------------------
    // Cancel.

    private void onCancel(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (!Packets.wrapValid(cancel, buffer, offset, length, counters))
        {
            return;
        }
        outbox.observe(cancel.packetId());
        final int clientId = cancel.senderId();
        final int packetId = cancel.requestPacketId();
        outbox.ack(clientId, PacketType.CANCEL, clientId, cancel.packetId());
        replies.cancel(clientId, packetId, nowNs);
        if (state == State.JOINING || isMember(clientId))
        {
            return;
        }
        clientLeases.heard(clientId, nowNs);
        cancels.onCancel(clientId, packetId, nowNs);
    }

    /**
     * Drops the held requests of clients silent for {@code reply_give_up_ms} that no order names
     * ({@link ClientLeases}); orders reported in a takeover count as naming theirs. Only a member
     * that follows a leader, or the leader: a recovering leader keeps what it was reported.
     */
    private void expireRequestsOfGoneClients(final long nowNs)
    {
        if (state != State.MEMBER && !isOrdering() || delivery.heldByKey().isEmpty() || !clientLeases.due(nowNs))
        {
            return;
        }
        final Set<Long> named = new HashSet<>(delivery.orders().values());
        takeover.addReportedKeysTo(named);
        reportedOrders.addKeysTo(named);
        counters.requestsOfGoneClientsExpired += clientLeases.expire(delivery.heldByKey().keySet(), named::contains, key ->
        {
            delivery.drop(key);
            if (isOrdering())
            {
                sequencer.unqueue(key);
            }
            cancels.keep(key);
            finished.finish(HeldRequest.clientId(key), HeldRequest.packetId(key));
        }, nowNs);
    }

    // ---------------------------------------------------------------------------------------------
    // Membership.

    private void onMemberChange(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (!Packets.wrapValid(memberChange, buffer, offset, length, counters))
        {
            return;
        }
        outbox.observe(memberChange.packetId());
        final int from = memberChange.senderId();
        final int subject = memberChange.memberId();
        if ((memberChange.status() == MemberChangeFlyweight.STATUS_ADDED || memberChange.status() == MemberChangeFlyweight.STATUS_EPOCH_ASK) &&
            from == subject)
        {
            // A member asking to be added is alive but in no group of ours: it keeps its place in
            // the view until the timeout, but does not count as present for the leader's lease (a
            // stale leader must not order with members that have moved on to a newer epoch).
            views.heard(from, nowNs);
        }
        else
        {
            heard(from, nowNs);
        }
        groupHeard = true;
        switch (memberChange.status())
        {
            case MemberChangeFlyweight.STATUS_ADDED ->
            {
                if (state == State.JOINING && from == subject && configuration().contains(from))
                {
                    leaderSigns.askedToJoin(from, nowNs);
                }
                final int joinerPromise = memberChange.memberCount() == 1 ? memberChange.member(0) : 0;
                if (isOrdering() && from == subject && from != config.selfId && configuration().contains(from) &&
                    Integer.compareUnsigned(joinerPromise, Math.max(epochs.current(), epochs.promised())) > 0 && mayBeRestarted())
                {
                    // A takeover was tried past our founding epoch, and we accepted nothing: we may be
                    // a restarted process. We do not lead a takeover on a memory we may have lost.
                    rejoin(nowNs);
                }
                else if (isOrdering() && from == subject && from != config.selfId && configuration().contains(from) &&
                    Integer.compareUnsigned(joinerPromise, Math.max(epochs.current(), epochs.promised())) > 0)
                {
                    // A member of the configuration reported for an epoch newer than ours (to a
                    // takeover that never finished): it takes no order of ours. We move the group
                    // past that epoch: a takeover of our own, reported to by every member.
                    counters.selfTakeovers++;
                    epochs.promise(joinerPromise, -1);
                    leaderId = -1;
                    startTakeover(false, false, nowNs);
                }
                else if (isOrdering() && from == subject && from != config.selfId && !isMember(subject) &&
                    (views.size() >= config.viewLimit() || !configuration().contains(subject) && listedMembers() >= config.viewLimit()))
                {
                    // A full view (max_members), or no room left in a LIST for a learner beside the
                    // configuration: a flood of ADDED from ids of no member's must not grow the
                    // view, nor the LIST past a packet, nor push a member of the configuration out of it.
                    counters.joinsRefused++;
                }
                else if (isOrdering() && from == subject && from != config.selfId)
                {
                    // Its NAKs sent after this ADDED are its own: see removeLaggard. (Read first:
                    // the LIST that admits it is written through the same flyweight.)
                    lastAdvancingAck.putIfAbsent(subject, memberChange.packetId());
                    addMember(subject, memberChange.packetId(), nowNs);
                }
                else if (from == subject && from != config.selfId && state == State.MEMBER && leaderId != config.selfId)
                {
                    // A joiner asks while no leader answers (it failed, and a failover runs): our
                    // view tells it a group exists, so that it waits for the leader instead of
                    // founding a second group. Its first entry is our leader, not us: nobody
                    // follows us for it. (A member taking over multicasts REMOVED, heard as well.)
                    counters.joinersAnswered++;
                    announcer.send(from, subject);
                }
            }
            case MemberChangeFlyweight.STATUS_ONLINE ->
            {
                if (from == subject)
                {
                    starts.started(from, memberChange.packetId());
                }
                if (from == subject && from != config.selfId && state != State.JOINING && state != State.LEADER_RECOVERING)
                {
                    announcer.send(from, subject);
                }
            }
            case MemberChangeFlyweight.STATUS_LIST -> onList(from, buffer, nowNs);
            case MemberChangeFlyweight.STATUS_EPOCH_ASK ->
            {
                if (from != subject)
                {
                    // An ask names its sender.
                    counters.unexpectedPackets++;
                }
                else if (from != config.selfId)
                {
                    // Known before it is answered: a takeover this member reports to later learns
                    // that the asker's earlier incarnation may have promised more than it told.
                    incarnations.raise(from, memberChange.askIncarnation(), configs::configured);
                    if (!amnesiac)
                    {
                        if (from == leaderId && memberChange.askProposal() != 0 && !leaderEverHeard)
                        {
                            // Our founding leader's check: it is up; its silence counts from now.
                            leaderHeard(nowNs);
                        }
                        epochAnswers.answer(from, memberChange.askNonce(), memberChange.askProposal(), EpochAskAnswers.listed(memberChange));
                    }
                }
            }
            case MemberChangeFlyweight.STATUS_EPOCH_TOLD -> onEpochTold(from, subject, nowNs);
            default -> onRemoved(from, subject, nowNs);
        }
    }

    private void onList(final int from, final ByteBuffer buffer, final long nowNs)
    {
        final int count = memberChange.listViewSize();
        outbox.ack(from, PacketType.MEMBER_CHANGE, from, memberChange.packetId());
        if (memberChange.member(0) != from)
        {
            // A member's answer to our ONLINE: its view, leader first (paper, Figure 4 lines 29-30).
            // A sign of a leader (one we may not hear), unless the one it names asks to join too.
            leaderSigns.answerNaming(memberChange.member(0), nowNs);
            counters.memberListsReceived++;
            onlineAnsweredBy.add(from);
            return;
        }
        leaderSigns.sign(nowNs);
        final int[] list = new int[count];
        for (int i = 0; i < count; i++)
        {
            list[i] = memberChange.listMember(i);
        }
        Arrays.sort(list);
        final boolean listsSelf = Arrays.binarySearch(list, config.selfId) >= 0;
        // A joiner listed by a leader it then never heard from again (it failed before telling the
        // joiner where to start) takes the next leader's view instead of waiting for it for good.
        final boolean joinedNow = state == State.JOINING && listsSelf &&
            (from == leaderId || !isMember(config.selfId) || nowNs - leaderHeardNs > config.keepAliveTimeoutNs);
        final boolean fromOurLeader = state == State.MEMBER && from == leaderId;
        final int[] listed = MemberConfiguration.listed(memberChange);
        if (joinedNow && configs.learns() && Arrays.binarySearch(listed, config.selfId) >= 0)
        {
            // Configured with no members, it finds its id in the group's configuration: a member
            // restarted without its configuration, which may have forgotten what it accepted. It
            // joins as any restarted member does: it learns the members' epochs first.
            configs.adopt(listed);
            becomeAmnesiac(nowNs);
            askToJoin();
            return;
        }
        if (state == State.JOINING && !listsSelf && from == leaderId && isMember(config.selfId) &&
            Integer.compareUnsigned(memberChange.packetId(), lastListPacketId) > 0)
        {
            // Our leader removed us before we started (our packets, or its start, lost for a
            // KeepAlive timeout): the next LIST that names us is a new admission, with a start of its own.
            lastListPacketId = memberChange.packetId();
            views.leave();
            counters.memberListsReceived++;
            return;
        }
        if (!joinedNow && !fromOurLeader)
        {
            // A member's answer to our ONLINE, or a list from a leader we do not follow.
            counters.memberListsReceived++;
            return;
        }
        if (from == leaderId && Integer.compareUnsigned(memberChange.packetId(), lastListPacketId) <= 0)
        {
            counters.staleMemberLists++;
            return;
        }
        if (state == State.JOINING && !(from == leaderId && isMember(config.selfId)))
        {
            listedByPacketId = memberChange.packetId();
        }
        leaderId = from;
        leaderHeard(nowNs);
        gaps.target(from);
        lastListPacketId = memberChange.packetId();
        views.set(list, nowNs);
        configs.take(listed, memberChange, isMember(config.selfId));
        counters.viewChanges++;
        if (state == State.MEMBER && !listsSelf)
        {
            // Removed (its ACKs did not reach the leader in time): it rejoins as a new member.
            rejoin(nowNs);
        }
        else if (state == State.JOINING)
        {
            final ByteBuffer early = earlyStart.takeAfter(from, listedByPacketId);
            if (early != null)
            {
                counters.earlyStartsTaken++;
                onKeepAlive(early, 0, early.limit(), nowNs);
            }
        }
    }

    private void onRemoved(final int from, final int subject, final long nowNs)
    {
        if (from == subject)
        {
            // A member leaving (paper: MemberChange removed) leaves the view; a member of the
            // configuration stays in it, absent, as a failed one (its acceptances may be what a
            // commit quorum holds).
            if (isOrdering() && isMember(subject))
            {
                removeMember(subject);
                announcer.announce(nowNs);
            }
            else if (state == State.MEMBER && subject == leaderId)
            {
                // It left rather than failed: it does not count against the majority a successor needs.
                leaderThatLeft = subject;
                views.heardAt(subject, nowNs - config.keepAliveTimeoutNs - 1);
                leaderHeardNs = nowNs - config.keepAliveTimeoutNs - 1;
                leaderEverHeard = true;
                suspectLeader(nowNs);
            }
            return;
        }
        if (subject == config.selfId && isOrdering())
        {
            // A member that thinks we failed: if a majority followed it, our probes go unanswered and we step down then.
            // (Not ordering, we treat it as any takeover: it competes with ours, or our leader runs it.)
            counters.unexpectedPackets++;
            return;
        }
        leaderSigns.sign(nowNs);
        // (Taken over from while we rejoin, after stepping down: what we ordered is in our report.)
        // A takeover: "subject failed, I (from) lead now, in epoch proposed". Repeated until we report.
        final int proposed = memberChange.memberCount() >= 1 ? memberChange.member(0) : 0;
        final boolean proposerHasHistory = memberChange.memberCount() >= 3 &&
            (Integer.compareUnsigned(memberChange.member(1), epochs.current()) > 0 || memberChange.member(2) != 0);
        if ((state == State.MEMBER || state == State.LEADER_RECOVERING) && mayBeRestarted() && proposerHasHistory &&
            (isMember(from) || configuration().contains(from)))
        {
            // The group ordered, or went past its founding epoch, and we accepted nothing: we may
            // be a restarted process that forgot what it accepted. No report ("nothing accepted"
            // could hide a committed order); we rejoin and report again only once admitted.
            rejoin(nowNs);
            return;
        }
        final int byPromise = Integer.compareUnsigned(proposed, epochs.promised());
        final boolean newPromise = byPromise > 0;
        final boolean samePromise = byPromise == 0 && from == epochs.promisedTo();
        final boolean configured = isMember(from) || configuration().contains(from);
        final boolean fresh = subject == leaderId && isMember(from) && from == succession.successor(subject);
        // Our leader taking over (from a member it thinks failed, whoever that is, us included): it is not leading.
        final boolean repeat = from == leaderId;
        // A member that itself has not heard its leader for the KeepAlive timeout has evidence of
        // its own: it reports to a takeover by any member of its configuration (it may not see
        // the successor it would pick: views differ after partitions, or it awaits a state).
        final boolean suspecting = state == State.MEMBER && nowNs - leaderHeardNs > config.keepAliveTimeoutNs;
        final boolean yield = state == State.LEADER_RECOVERING && configured &&
            (newPromise || byPromise == 0 && from < config.selfId);
        // A joiner that was a member of this configuration reports too: while the other survivors
        // are joining, a takeover needs their reports to reach a majority.
        final boolean joinerReports = state == State.JOINING && configured && configs.voter() && !amnesiac;
        if (state == State.MEMBER && (fresh || repeat || suspecting && configured) && (newPromise || samePromise) || yield ||
            joinerReports && (newPromise || samePromise))
        {
            if (state == State.JOINING)
            {
                views.add(config.selfId);
            }
            epochs.promise(proposed, from);
            followNewLeader(from, subject, nowNs);
        }
        else if (configured && proposed != 0 && !newPromise && !samePromise)
        {
            counters.staleTakeoversIgnored++;
        }
        else if (state == State.JOINING && configured && amnesiac)
        {
            counters.unadmittedReportsWithheld++;
        }
    }

    private void addMember(final int memberId, final int addedPacketId, final long nowNs)
    {
        if (!isMember(memberId))
        {
            views.add(memberId);
            // It starts after the commit, and fetches the orders since: the leader keeps them for it.
            sequencer.memberAdded(memberId, commitSeq);
            views.heardAt(memberId, nowNs);
            lease.heard(memberId, nowNs);
            counters.membersAdded++;
            announcer.announce(nowNs);
            if (delivery.deliveredSeq() == commitSeq && !stateReceiver.awaiting())
            {
                // Its start is our commit, and clients count its replies from the LIST just
                // announced on: the state it will ask for is the one at its start, taken now,
                // not one at wherever our delivery is when its ASK arrives (it would execute
                // none of the calls ordered meanwhile, nor answer them).
                donor.prepare(memberId, commitSeq, nowNs);
            }
        }
        // The view goes to the joiner by unicast too, just before its start: on the same socket
        // it mostly arrives first (a start that overtakes it is kept until it comes). The start
        // is owed until the joiner shows it started (JoinerStarts): a lost one is sent again.
        announcer.sendToJoiner(memberId);
        starts.admit(memberId, commitSeq, addedPacketId, nowNs);
    }

    /** A member we removed still acts as one (it missed the LIST): the current list tells it to rejoin. */
    private void tellRemoved(final int formerMemberId)
    {
        if (isOrdering() && !announcer.knowsClient(formerMemberId))
        {
            counters.removedMembersTold++;
            announcer.send(formerMemberId, leaderId);
        }
    }

    private void removeMember(final int memberId)
    {
        views.remove(memberId);
        starts.forget(memberId);
        sequencer.memberRemoved(memberId);
        lastAdvancingAck.remove(memberId);
        counters.membersRemoved++;
        if (isOrdering())
        {
            sequencer.forgetFullyDelivered();
        }
    }

    private void membershipTick(final long nowNs)
    {
        donor.expire(nowNs);
        switch (state)
        {
            case JOINING ->
            {
                if (!groupHeard && nowNs - joinDeadlineNs >= 0 && config.mayFound())
                {
                    foundGroup(nowNs);
                }
                else if (leaderlessTakeoverDue(nowNs))
                {
                    counters.leaderlessTakeovers++;
                    views.alone();
                    if (leaderId == config.selfId || !configuration().contains(leaderId))
                    {
                        // The takeover names a failed leader; a member of the configuration stands in.
                        leaderId = configuration().ids()[configuration().ids()[0] == config.selfId && configuration().size() > 1 ? 1 : 0];
                    }
                    startTakeover(leaderThatLeft == leaderId, true, nowNs);
                }
                else
                {
                    askToJoin();
                }
            }
            case LEADER_IDLE, LEADER_BATCHING ->
            {
                counters.keepAlivesSent++;
                outbox.keepAlive(GroupSender.GROUP, sequencer.lastOrderSeq());
                final int silent = views.silentCount(nowNs);
                // (Counted among the view's members of the configuration: silent learners are only removed.)
                final int voters = configuration().count(this::isMember);
                final int silentVoters = configuration().count(id -> isMember(id) && views.silent(id, nowNs));
                if (foundingCheck.pending())
                {
                    // A founding leader still checking orders nothing: members silent so far may
                    // not have started yet. It neither steps down (it would rejoin as a possibly
                    // restarted process, and a group whose members start more than a KeepAlive
                    // timeout apart would never order) nor drops them from its view (they would
                    // be told they were removed, and rejoin unproven).
                    counters.foundingLeaderWaits += silentVoters > 0 ? 1 : 0;
                }
                else if (silentVoters > 0 && (voters - silentVoters) * 2 <= voters)
                {
                    // Most of the group is silent: we are the ones cut off. A minority does not order on.
                    counters.leaderStepDowns++;
                    rejoin(nowNs);
                }
                else if (silent > 0)
                {
                    for (final int id : views.ids().clone())
                    {
                        if (views.silent(id, nowNs))
                        {
                            removeMember(id);
                        }
                    }
                    announcer.announce(nowNs);
                }
            }
            case MEMBER ->
            {
                if (awaitsEpochs())
                {
                    outbox.epochAsk(recovery.nonce(), config.incarnationNumber());
                }
                if (leaderId != config.selfId && nowNs - leaderHeardNs > (leaderEverHeard ? config.keepAliveTimeoutNs : config.foundingWaitNs()))
                {
                    suspectLeader(nowNs);
                }
                else
                {
                    succession.clear();
                }
                if (onlineUntilNs - nowNs > 0 && Arrays.stream(views.ids()).anyMatch(id -> id != config.selfId && id != leaderId && !onlineAnsweredBy.contains(id)))
                {
                    outbox.memberChange(GroupSender.GROUP, config.selfId, MemberChangeFlyweight.STATUS_ONLINE);
                }
            }
            case LEADER_RECOVERING -> takeover.onTick(nowNs);
            default ->
            {
            }
        }
    }

    /**
     * A joiner that was a member of its configuration (not a possibly-restarted process), and has
     * heard no sign of a leader for twice the KeepAlive timeout while a majority of the
     * configuration, itself included, is heard, starts a takeover: otherwise a group whose members
     * all rejoin after a partition (each stepped down or gave up its takeover) waits for good.
     * Members of lower id it hears go first: each waits one more KeepAlive timeout per such member,
     * and hears the first one's takeover before its own turn comes.
     */
    private boolean leaderlessTakeoverDue(final long nowNs)
    {
        if (amnesiac || mayBeRestarted() || stateReceiver.awaiting() || !configs.voter() || config.keepAliveTimeoutNs <= 0)
        {
            return false;
        }
        return leaderSigns.takeoverDue(configuration(), nowNs);
    }

    /** @return true when this joiner reported to {@code takeoverId}'s takeover and remembers what it delivered. */
    private boolean servesTakeover(final int takeoverId)
    {
        return !amnesiac && takeoverId == epochs.promisedTo() && takeoverId != config.selfId;
    }

    private void foundGroup(final long nowNs)
    {
        views.alone();
        leaderId = config.selfId;
        epochs.ledBy(config.selfId);
        configs.found(views.ids());
        commits.startEpoch(epochs.current(), configuration(), delivery.deliveredSeq(), delivery.deliveredSeq());
        sequencer.startAt(delivery.nextDeliverSeq(), delivery.deliveredSeq());
        counters.leaderChanges++;
        lease.start(configuration(), nowNs);
        transitionTo(State.LEADER_IDLE, nowNs);
    }

    private void rejoin(final long nowNs)
    {
        foundingCheck.abandon();
        if (mayBeRestarted())
        {
            becomeAmnesiac(nowNs);
            counters.foundingRejoins++;
        }
        founding = false;
        // What it accepted and has not delivered is kept for a takeover it may report to: a
        // member that forgets its acceptances could let a takeover miss a committed order.
        reportedOrders.accept(delivery.orders(), epochs.current());
        delivery.forgetOrders();
        // Held requests stay (a report names them); those their clients cancelled are dropped,
        // unless an order it keeps for a report names them.
        cancels.dropAllUnordered();
        sequencer.reset();
        fifo.reset();
        takeover.abandon();
        succession.clear();
        announcer.stop();
        starts.clear();
        gaps.disarm();
        lastListPacketId = 0;
        listedByPacketId = 0;
        earlyStart.clear();
        groupHeard = true;
        views.leave();
        if (leaderId == config.selfId)
        {
            leaderId = -1;
        }
        transitionTo(State.JOINING, nowNs);
        askToJoin();
    }

    // ---------------------------------------------------------------------------------------------
    // Failover.

    private void suspectLeader(final long nowNs)
    {
        final int candidate = succession.suspect(leaderId, stateReceiver.awaiting(), nowNs);
        if (candidate == config.selfId && !stateReceiver.awaiting())
        {
            startTakeover(leaderThatLeft == leaderId, false, nowNs);
        }
    }

    /**
     * Takes over from the leader in the view ({@link Takeover}).
     *
     * @param fromLeave  that leader announced its leaving.
     * @param leaderless a joiner that heard no leader starts it.
     */
    private void startTakeover(final boolean fromLeave, final boolean leaderless, final long nowNs)
    {
        final int failedId = leaderId;
        leaderThatLeft = -1;
        succession.clear();
        // A leader taking over from itself announces its view once it orders again, not the old one meanwhile.
        announcer.stop();
        starts.clear();
        leaderId = config.selfId;
        takeover.start(failedId, fromLeave, leaderless, nowNs);
    }

    /** The takeover caught up and queued what it re-orders: it leads its epoch from its delivered sequence on. */
    private void orderAfterTakeover(final long nowNs)
    {
        // What it delivered is committed; the old leader's orders it re-orders past that are
        // committed again in this epoch, by this epoch's acceptances: a commit it heard in the old
        // one must not vouch for them (a report's request may have been lost, and a gap moves them).
        commitSeq = delivery.deliveredSeq();
        outbox.viewStamp(epochs.current(), commitSeq);
        commits.startEpoch(epochs.current(), configuration(), delivery.deliveredSeq(), commitSeq);
        lease.start(configuration(), nowNs);
        transitionTo(State.LEADER_IDLE, nowNs);
        announcer.announce(nowNs);
        if (sequencer.hasQueued())
        {
            sequencer.emit(nowNs);
            transitionTo(State.LEADER_BATCHING, nowNs);
        }
        sequencer.resendNow(nowNs);
    }

    /** What the takeover reads and changes of this member. */
    private final class TakeoverMember implements Takeover.Member
    {
        @Override
        public State state()
        {
            return state;
        }

        @Override
        public int[] view()
        {
            return views.ids();
        }

        @Override
        public boolean isMember(final int id)
        {
            return MemberEngine.this.isMember(id);
        }

        @Override
        public void addToView(final int id)
        {
            views.add(id);
        }

        @Override
        public void removeMember(final int id)
        {
            MemberEngine.this.removeMember(id);
        }

        @Override
        public void heardNow(final int id, final long nowNs)
        {
            views.heardAt(id, nowNs);
        }

        @Override
        public Configuration configuration()
        {
            return configs.current();
        }

        @Override
        public int epoch()
        {
            return epochs.current();
        }

        @Override
        public int epochLeader()
        {
            return epochs.leader();
        }

        @Override
        public int promisedEpoch()
        {
            return epochs.promised();
        }

        @Override
        public boolean foundingPromised()
        {
            return epochs.foundingPromised();
        }

        @Override
        public int promisedTo()
        {
            return epochs.promisedTo();
        }

        @Override
        public void promise(final int proposed, final int to)
        {
            epochs.promise(proposed, to);
        }

        @Override
        public void leadEpoch(final int newEpoch)
        {
            enterEpoch(newEpoch);
            epochs.ledBy(config.selfId);
        }

        @Override
        public boolean mayBeRestarted()
        {
            return MemberEngine.this.mayBeRestarted();
        }

        @Override
        public void rejoin(final long nowNs)
        {
            MemberEngine.this.rejoin(nowNs);
        }

        @Override
        public long incarnation()
        {
            return config.incarnationNumber();
        }

        @Override
        public KnownIncarnations incarnations()
        {
            return incarnations;
        }

        @Override
        public void knowIncarnations(final KeepAliveFlyweight report)
        {
            incarnations.raiseFrom(report, configs::configured);
        }

        @Override
        public AdmissionReach admission()
        {
            return admission;
        }

        @Override
        public void joinLeader(final int newLeaderId, final long nowNs)
        {
            leaderId = newLeaderId;
            MemberEngine.this.rejoin(nowNs);
        }

        @Override
        public void deliverInOrder(final long nowNs)
        {
            MemberEngine.this.deliverInOrder(nowNs);
        }

        @Override
        public void transitionTo(final State next, final long nowNs)
        {
            MemberEngine.this.transitionTo(next, nowNs);
        }

        @Override
        public void reportedAt(final int memberId, final int packetId)
        {
            lastAdvancingAck.put(memberId, packetId);
        }

        @Override
        public void orderFrom(final long nowNs)
        {
            orderAfterTakeover(nowNs);
        }
    }

    /** Member: its leader showed that it leads. */
    private void leaderHeard(final long nowNs)
    {
        leaderHeardNs = nowNs;
        leaderEverHeard = true;
    }

    private void followNewLeader(final int newLeaderId, final int failedId, final long nowNs)
    {
        leaderHeard(nowNs);
        if (leaderId != newLeaderId)
        {
            counters.leaderChanges++;
            // Added to what it reported before, to a takeover that never finished: still this
            // epoch's. (What others reported to a takeover of ours is theirs to report again: sent
            // on as ours, it would wear our epoch.)
            reportedOrders.accept(delivery.orders(), epochs.current());
            takeover.abandon();
            delivery.forgetOrders();
            gaps.disarm();
            if (isMember(failedId) && failedId != config.selfId)
            {
                removeMember(failedId);
            }
            succession.forEachPassedOver(id ->
            {
                if (id != newLeaderId && id != config.selfId && isMember(id))
                {
                    removeMember(id);
                }
            });
            succession.clear();
            // A former leader following another announces no view of its own any more.
            announcer.stop();
            starts.clear();
            leaderId = newLeaderId;
            gaps.target(newLeaderId);
            lastListPacketId = 0;
            views.heardAt(newLeaderId, nowNs);
            transitionTo(State.MEMBER, nowNs);
        }
        else
        {
            // Our own leader moving to a newer epoch (a takeover of its own): what we accepted goes in the report.
            reportedOrders.accept(delivery.orders(), epochs.current());
        }
        report.send(newLeaderId, epochs.promised(), takeover.fixedSeq(), commitSeq, mayBeRestarted(), epochs.foundingPromised(), knownRestart());
    }

    // ---------------------------------------------------------------------------------------------
    // Shared.

    private void onAck(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (!Packets.wrapValid(ack, buffer, offset, length, counters))
        {
            return;
        }
        outbox.observe(ack.packetId());
        final int from = ack.senderId();
        heard(from, nowNs);
        final PacketType acked = ack.ackedType();
        if (acked == PacketType.REPLY && !isMember(from))
        {
            clientLeases.heard(from, nowNs);
        }
        if (acked == PacketType.REPLY && ack.callsDone())
        {
            if (ack.ackedSenderId() == from)
            {
                replies.ackCallsDone(from, (int)ack.ackedId(), nowNs);
            }
            else
            {
                counters.unexpectedPackets++;
            }
            return;
        }
        if (acked == PacketType.REPLY && ack.ackedSenderId() == config.selfId)
        {
            // False for a repeated ACK (the client ACKs every duplicate reply): nothing left to do.
            replies.ack(from, (int)ack.ackedId(), nowNs);
            return;
        }
        if (acked == PacketType.MEMBER_CHANGE && ack.ackedSenderId() == config.selfId)
        {
            announcer.onAck(from, (int)ack.ackedId());
            return;
        }
        counters.unexpectedPackets++;
    }

    /**
     * Leader: a member holds the order of {@code epoch} up to {@code accepted} and delivered up to
     * {@code delivered}. Acceptance of this epoch commits; delivery lets the leader forget.
     */
    private void onOrderAck(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (!Packets.wrapValid(orderAck, buffer, offset, length, counters))
        {
            return;
        }
        outbox.observe(orderAck.packetId());
        final int from = orderAck.senderId();
        heard(from, nowNs);
        // Only members send OrderAcks: a group runs (to a restarted process with its old leader's
        // id they still go), and a joiner must not found another.
        groupHeard = true;
        if (!isOrdering())
        {
            if (state != State.LEADER_RECOVERING)
            {
                counters.unexpectedPackets++;
            }
            return;
        }
        if (!isMember(from))
        {
            tellRemoved(from);
            return;
        }
        if (orderAck.epoch() != epochs.current())
        {
            counters.staleEpochPackets++;
            return;
        }
        if (orderAck.accepted() > sequencer.lastOrderSeq())
        {
            // A member holds more of this epoch's order than this leader ever gave: it follows an
            // earlier incarnation of this id, and this process, restarted, knows nothing of it.
            counters.leaderStepDowns++;
            becomeAmnesiac(nowNs);
            rejoin(nowNs);
            return;
        }
        // Sent after the ADDED it was admitted with: it started (its ONLINE may be lost).
        starts.started(from, orderAck.packetId());
        // Capped: an OrderAck from a confused member cannot commit or forget orders not yet sent.
        if (commits.onAccepted(from, epochs.current(), Math.min(orderAck.accepted(), sequencer.lastOrderSeq())))
        {
            commitAdvanced(nowNs);
        }
        onMemberDelivered(from, orderAck.delivered(), orderAck.packetId(), nowNs);
    }

    /**
     * Leader: the commit advanced. It delivers; where a member's own acceptance and the leader's
     * do not commit by themselves (groups of five or more), a KeepAlive tells the members at once.
     */
    private void commitAdvanced(final long nowNs)
    {
        stampCommit(commits.commit());
        deliverInOrder(nowNs);
        if (!pairCommits())
        {
            counters.commitKeepAlives++;
            outbox.keepAlive(GroupSender.GROUP, sequencer.lastOrderSeq());
        }
    }

    private void stampCommit(final long commit)
    {
        commitSeq = Math.max(commitSeq, commit);
        outbox.viewStamp(epochs.current(), commitSeq);
    }

    /**
     * A MsgOrder or KeepAlive of this member's leader: an older epoch is stale (dropped, counted);
     * a newer one is entered; the commit it announces is taken.
     *
     * @return false when the packet is stale.
     */
    private boolean leaderStamp(final int from, final int leaderEpoch, final long leaderCommit, final long nowNs)
    {
        final int byEpoch = Integer.compareUnsigned(leaderEpoch, epochs.current());
        if (byEpoch < 0 || (byEpoch == 0 && epochs.leader() >= 0 && epochs.leader() != from) ||
            Integer.compareUnsigned(leaderEpoch, epochs.promised()) < 0)
        {
            // An older epoch, or a second leader of this one: this member took another's orders.
            // (An epoch older than the one it promised is older than its own too: entering an
            // epoch raises the promise to it, so the first test is the last one's special case.)
            counters.staleEpochPackets++;
            return false;
        }
        if (byEpoch > 0 && mayBeRestarted() && !(from == epochs.promisedTo() && leaderEpoch == epochs.promised()))
        {
            // (Unless it promised that epoch to this leader, in this incarnation: its founding check.)
            // Its leader leads an epoch past the founding one: the group has a history this
            // process, which accepted nothing, lacks; it may be a restarted one, and it must not
            // report "nothing accepted" to a takeover in that epoch's name. It rejoins, unproven.
            rejoin(nowNs);
            return false;
        }
        if (byEpoch > 0)
        {
            // The orders this member knows and has not delivered are an older epoch's, perhaps
            // never committed: the new leader's orders replace them. Until they come, those
            // entries are still what it accepted, and a later takeover must hear of them.
            final boolean unproven = mayBeRestarted();
            reportedOrders.accept(delivery.orders(), epochs.current());
            delivery.forgetOrders();
            enterEpoch(leaderEpoch);
            // Entering the epoch it promised its founding leader proves no memory: the ask it
            // answered may have been a duplicate of one its earlier incarnation answered. Until it
            // accepts an order it stays a possibly restarted process.
            founding = unproven;
        }
        epochs.ledBy(from);
        stampCommit(leaderCommit);
        return true;
    }

    /**
     * An ordering leader that hears another member lead a newer epoch (its KeepAlive or MsgOrder)
     * was deposed while cut off: it steps down and joins that leader's group.
     *
     * @return true when it stepped down (the packet is done with).
     */
    private boolean newerLeader(final int from, final int packetEpoch, final long nowNs)
    {
        if (!isOrdering() || from == config.selfId || Integer.compareUnsigned(packetEpoch, epochs.current()) <= 0)
        {
            return false;
        }
        counters.leaderStepDowns++;
        leaderId = from;
        rejoin(nowNs);
        return true;
    }

    /**
     * A member that hears another member lead a newer epoch than its own follows a leader that was
     * replaced without it (it was cut off, or it is a restarted process that began from the
     * founding configuration): it rejoins that group as a new member, from the group's commit on,
     * instead of waiting for its old leader or taking over from it with members as stale as itself.
     *
     * @return true when it rejoined (the packet is done with).
     */
    private boolean followsStaleLeader(final int from, final int packetEpoch, final long nowNs)
    {
        if (state != State.MEMBER || from == leaderId || from == config.selfId || Integer.compareUnsigned(packetEpoch, epochs.current()) <= 0)
        {
            return false;
        }
        counters.staleLeadersLeft++;
        leaderId = from;
        rejoin(nowNs);
        return true;
    }

    /**
     * Our leader told us (flagged TOLD) of a newer epoch than ours: it follows another leader now,
     * and we rejoin that group.
     *
     * @return true when it rejoined.
     */
    private boolean leaderMovedOn(final int from, final int packetEpoch, final long nowNs)
    {
        if (from != leaderId || Integer.compareUnsigned(packetEpoch, epochs.current()) <= 0)
        {
            return false;
        }
        counters.staleLeadersLeft++;
        rejoin(nowNs);
        return true;
    }

    /** Forgets what it may have accepted or promised: it reports to no takeover, and asks the epochs before it asks to join. */
    private void becomeAmnesiac(final long nowNs)
    {
        amnesiac = true;
        recovery.restart(nowNs, config.selfId);
    }

    /**
     * A joiner's request: EPOCH_ASK while it may be restarted and has not heard enough epochs, else
     * ADDED; and the ask again beside it while it has no answer from the leader it knows of (a
     * leader admits such a joiner only once it answered this incarnation's ask, which bounds what
     * the admission reaches).
     */
    private void askToJoin()
    {
        if (amnesiac && !recovery.learned())
        {
            outbox.epochAsk(recovery.nonce(), config.incarnationNumber());
            return;
        }
        if (amnesiac && (leaderId < 0 || !recovery.answeredLeading(leaderId, -1)))
        {
            outbox.epochAsk(recovery.nonce(), config.incarnationNumber());
        }
        outbox.added(epochs.promiseAbove());
    }

    private void onEpochTold(final int from, final int subject, final long nowNs)
    {
        if (memberChange.memberCount() < 2)
        {
            // An answer carries the nonce, an epoch, and whether its sender knows of orders.
            counters.unexpectedPackets++;
            return;
        }
        if (subject == config.selfId && from != config.selfId)
        {
            incarnations.raiseFrom(memberChange, configs::configured);
        }
        if (subject == config.selfId && from != config.selfId && foundingCheck.pending())
        {
            onFoundingAnswer(from, nowNs);
            return;
        }
        if ((amnesiac || learningEpochs) && subject == config.selfId && from != config.selfId &&
            recovery.answer(from, memberChange.member(0), memberChange.member(1), memberChange.toldLastOrderSeq(), memberChange.toldIncarnation(),
                memberChange.toldLeadingEpoch(), incarnations, configs.configuredGroup()))
        {
            counters.epochsLearned++;
            if (Integer.compareUnsigned(recovery.newestTold(), epochs.promised()) > 0)
            {
                epochs.promise(recovery.newestTold(), -1);
            }
            if (state == State.JOINING)
            {
                outbox.added(epochs.promiseAbove());
            }
        }
    }

    /** The founding leader's ask ({@link FoundingCheck}), multicast every KeepAlive period (or retransmission timeout) until answered. */
    private void askFounding(final long nowNs)
    {
        counters.foundingChecksAsked++;
        outbox.foundingAsk(foundingCheck.nonce(), foundingCheck.proposal(), config.incarnationNumber(), configuration().ids());
        foundingCheck.askedAt(nowNs + (config.keepAlivePeriodNs > 0 ? config.keepAlivePeriodNs : config.retransmitTimeoutNs));
    }


    /**
     * The founding check passed: every other member promised this check the epoch it proposed
     * (past any its members told), and knows of no order; the leader orders in that epoch.
     */
    private void foundingConfirmed(final long nowNs)
    {
        epochs.foundingPassed();
        enterEpoch(foundingCheck.proposal());
        epochs.ledBy(config.selfId);
        commits.startEpoch(epochs.current(), configuration(), delivery.deliveredSeq(), commitSeq);
        orderQueued(nowNs);
    }

    private void onFoundingAnswer(final int from, final long nowNs)
    {
        if (memberChange.memberCount() >= 4 && memberChange.member(3) == 0 && Arrays.binarySearch(configs.configuredGroup(), from) >= 0 &&
            foundingCheck.mismatched(from, memberChange.member(0)))
        {
            // Configured with another member list: not counted; the group does not start until the lists agree.
            counters.configurationMismatches++;
            return;
        }
        final Boolean knowsOfOrders = memberChange.memberCount() >= 5 ? memberChange.member(2) != 0 : null;
        final boolean promisedToUs = memberChange.memberCount() >= 5 && memberChange.member(4) != 0;
        switch (foundingCheck.answer(from, memberChange.member(0), memberChange.member(1), knowsOfOrders, promisedToUs, configs.configuredGroup()))
        {
            case CONFIRMED -> foundingConfirmed(nowNs);
            case RAISED ->
            {
                // A member promised an epoch as new as ours to another check or takeover, and knows of
                // no order: nothing was committed; we propose past it, and ask everyone again.
                counters.foundingProposalsRaised++;
                askFounding(nowNs);
            }
            case HISTORY ->
            {
                // A restarted process: its earlier incarnation led this group, which kept what it
                // ordered. It rejoins as a new member, having ordered nothing.
                counters.foundingRestartsFound++;
                rejoin(nowNs);
            }
            case NONE ->
            {
            }
        }
    }

    /**
     * @return true for a member started from the founding configuration that never left the
     *     founding epoch and accepted nothing (the founding leader: had nothing committed): a first
     *     start and a restart look the same to it, unless its start count, kept on disk, says this
     *     is its first start. (Without a start count its promise to a founding leader's check
     *     proves nothing: the ask it answered may be a duplicate of one its earlier incarnation
     *     answered. A known restart promises only once it learned the members' epochs.)
     */
    private boolean mayBeRestarted()
    {
        // The founding leader's own orders prove nothing (a restarted one orders alone); a commit
        // of them does: some member of its epoch accepted them.
        final boolean history = config.selfId == config.leaderId ? delivery.deliveredSeq() > 0
            : delivery.acceptedSeq() > 0 || !reportedOrders.isEmpty();
        return founding && !history && config.startCount != 1;
    }

    /**
     * @return true when this process knows it restarted (start count 2 or more) and has accepted
     *     nothing since: its "nothing accepted" may hide an order its earlier incarnation helped
     *     commit, whatever it promised since (report flags bit 7; a takeover never counts it).
     */
    private boolean knownRestart()
    {
        return config.startCount >= 2 && mayBeRestarted();
    }

    /**
     * @return true when this process knows it restarted and has not yet learned the members'
     *     epochs: what it would tell of its own is forgotten, so its answers to an EPOCH_ASK tell
     *     epoch 0, which no process learns from (a restart learning from another would take a
     *     forgotten epoch for the group's).
     */
    private boolean forgotItsEpochs()
    {
        return knownRestart() && !recovery.learned();
    }

    /** Moves to a newer epoch: commits of the older one no longer count for what follows. */
    private void enterEpoch(final int newEpoch)
    {
        epochs.enter(newEpoch);
        // What it accepted in older epochs stays until delivered or replaced by a newer epoch's order.
        reportedOrders.dropThrough(delivery.deliveredSeq());
        founding = false;
        commitSeq = delivery.deliveredSeq();
        outbox.viewStamp(epochs.current(), commitSeq);
        acks.newEpoch();
    }

    /**
     * @return true when the leader and any one other member commit together (a configuration of
     *     at most four): a member then delivers what it accepted itself, without waiting for the
     *     leader's word.
     */
    private boolean pairCommits()
    {
        return configuration().commitQuorum() <= 2 && configs.voter() && configuration().contains(leaderId);
    }

    /**
     * @return true when this member is one of the first {@code commitQuorum - 1} members of the
     *     view after the leader, by id: the leader commits with these, so they tell it their
     *     acceptance at once (one OrderAck a call in a group of three, not two); the others'
     *     delayed OrderAcks cover a prompt one that is lost, slow or gone.
     */
    private boolean acceptsAtOnce()
    {
        if (!configs.voter())
        {
            return false;
        }
        int rank = 0;
        for (final int id : views.ids())
        {
            if (id != leaderId && id < config.selfId && configuration().contains(id))
            {
                rank++;
            }
        }
        return rank < configuration().commitQuorum() - 1;
    }

    /** @return how far this member may deliver: what it knows to be committed. */
    private long deliverLimit()
    {
        return switch (state)
        {
            case LEADER_IDLE, LEADER_BATCHING -> commitSeq;
            case MEMBER -> pairCommits() ? Math.max(commitSeq, delivery.acceptedSeq()) : commitSeq;
            // What some survivor of a majority delivered was committed.
            case LEADER_RECOVERING -> Math.max(commitSeq, takeover.targetSeq());
            default -> delivery.deliveredSeq();
        };
    }

    private void heard(final int fromId, final long nowNs)
    {
        views.heard(fromId, nowNs);
        if (configuration().contains(fromId))
        {
            lease.heard(fromId, nowNs);
        }
    }

    static int[] appended(final int[] ids, final int id)
    {
        final int[] with = Arrays.copyOf(ids, ids.length + 1);
        with[ids.length] = id;
        return with;
    }

    /** @return how many members a LIST of ours names: the view and the configuration outside it. */
    private int listedMembers()
    {
        return views.size() + configuration().count(id -> !isMember(id));
    }

    /** @return the members whose acceptances commit and whose majority elects, as this member knows them. */
    private Configuration configuration()
    {
        return configs.current();
    }

    /** Commit quorums and the lease count against the configuration. */
    private void configurationChanged(final Configuration c)
    {
        commits.configuration(c);
        lease.configurationChanged();
    }

    private boolean isMember(final int id)
    {
        return views.contains(id);
    }

    private void transitionTo(final State next, final long nowNs)
    {
        switch (next)
        {
            case LEADER_BATCHING -> batchDeadlineNs = nowNs + config.orderIntervalNs;
            case JOINING ->
            {
                joinDeadlineNs = nowNs + config.joinTimeoutNs;
                leaderSigns.sign(nowNs);
            }
            case LEADER_IDLE, MEMBER, LEADER_RECOVERING, LEFT ->
            {
            }
        }
        state = next;
    }

    static long key(final int senderId, final int packetId)
    {
        return HeldRequest.key(senderId, packetId);
    }
}
