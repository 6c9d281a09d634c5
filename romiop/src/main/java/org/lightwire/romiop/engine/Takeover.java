package org.lightwire.romiop.engine;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.lightwire.romiop.engine.view.Configuration;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;

/**
 * The new leader's side of the view change (docs/romiop.md, "Leader failover" and "Views and
 * epochs"; Viewstamped Replication Revisited's view change is the model): it proposes an epoch past
 * any it knows and multicasts MemberChange REMOVED(failed leader) until a majority of the
 * configuration has reported for that epoch (each report: the orders its sender accepted and did
 * not deliver, its held requests, and last its delivered sequence in a KeepAlive) and every member
 * of its view has reported or been removed; then it fixes the highest delivered sequence reported
 * (committed), catches up to it from the member that delivered it (another that did, when that
 * one sends nothing for two KeepAlive timeouts), re-orders the failed leader's orders past it as
 * far as some reporter holds them without a gap, then every other held request, and starts
 * ordering in its epoch. Without a majority it proposes the next epoch every two KeepAlive
 * timeouts. Driven by the member's KeepAlive tick and by the packets that bring reports.
 *
 * <p>The epoch, the promises and the view are the member's ({@link Member}); this class keeps
 * the reports, the decision and the catch-up.
 */
final class Takeover
{
    /** The member that takes over: its view, epochs and promises, and the state changes this drives. */
    interface Member
    {
        MemberEngine.State state();

        /** @return the view, ascending (not to be changed). */
        int[] view();

        boolean isMember(int id);

        /** Puts {@code id} back in the view: a member we removed reports to our takeover. */
        void addToView(int id);

        /** Removes {@code id} from the view, and from what the sequencer waits for. */
        void removeMember(int id);

        /** {@code id} counts as heard from now on (its silence is measured from here). */
        void heardNow(int id, long nowNs);

        Configuration configuration();

        int epoch();

        /** @return the leader whose orders this member took in its epoch (-1 for none). */
        int epochLeader();

        int promisedEpoch();

        /** @return whom the promised epoch was promised to ({@code selfId} when proposed by this member). */
        int promisedTo();

        void promise(int epoch, int to);

        /** Enters {@code epoch} as its leader. */
        void leadEpoch(int epoch);

        /** @return true when this member may be a restarted process that forgot what it accepted. */
        boolean mayBeRestarted();

        /** @return true when this incarnation promised a founding leader's check, or passed its own. */
        boolean foundingPromised();

        /** Gives the takeover up and asks to join the group again. */
        void rejoin(long nowNs);

        /** Gives the takeover up and asks to join {@code leaderId}'s group. */
        void joinLeader(int leaderId, long nowNs);

        void deliverInOrder(long nowNs);

        void transitionTo(MemberEngine.State next, long nowNs);

        /** A report's KeepAlive is the last packet of {@code memberId}'s that its order NAKs may be older than. */
        void reportedAt(int memberId, int packetId);

        /** Caught up, with the old orders and the held requests queued: orders in its epoch from its delivered sequence on. */
        void orderFrom(long nowNs);

        /** @return this process's incarnation number. */
        long incarnation();

        /** @return the newest incarnation this member knows of each member (raised by the reports it takes). */
        KnownIncarnations incarnations();

        /** Knows the incarnations a report's tail names (of members of the configuration only). */
        void knowIncarnations(KeepAliveFlyweight report);

        /** @return how far its last admission as a possibly restarted process reached. */
        AdmissionReach admission();
    }

    private final GroupConfig config;
    private final GroupCounters counters;
    private final Outbox outbox;
    private final OrderedDelivery delivery;
    private final Sequencer sequencer;
    private final GapDetector gaps;
    private final CancelTracker cancels;
    private final ClientFifo fifo;
    private final StateReceiver stateReceiver;
    private final boolean takesState;
    /** What this member accepted and did not deliver, in each epoch: its own report, as any survivor's. */
    private final AcceptedOrders accepted;
    private final Member member;

    private int failedLeaderId;
    /**
     * Started by a joiner that heard no leader: the member it names failed may be alive and joining
     * too, so its report counts and its KeepAlive proves no leader alive.
     */
    private boolean leaderless;
    /** The failed leader announced its leaving: its KeepAlives still in flight prove nothing. */
    private boolean fromLeave;
    private long startNs;
    /** Each reporter's delivered sequence, for the epoch proposed. */
    private final Map<Integer, Long> reports = new HashMap<>();
    /** Each reporter's fixed sequence: the highest order number it knows committed, at least what it delivered. */
    private final Map<Integer, Long> fixedReports = new HashMap<>();
    /** The reporters that may be restarted processes (flags bit 5 of their reports). */
    private final Set<Integer> unprovenReporters = new HashSet<>();
    /** The reporters that promised a founding check (flags bit 6 of their reports). */
    private final Set<Integer> foundingPromisers = new HashSet<>();
    /** The reporters whose reports prove nothing (flags bit 7: a known restart that accepted nothing since): never counted. */
    private final Set<Integer> uncountedReporters = new HashSet<>();
    /** The orders its reporters (and it) know past what they delivered, and whether each report arrived whole. */
    private final ReportedLog reported = new ReportedLog();
    /** Each reporter's incarnation and admission reach (this member's own too): which reports may count. */
    private final ReportFence fence = new ReportFence();
    /** The decided target: what the takeover delivers before it orders (-1 before the decision). */
    private long targetSeq = -1;
    /**
     * The highest order number this member knows committed from a takeover's decision (its own
     * target, or a reporter's fixed), though it may not hold those orders yet. Its reports name it
     * as fixed, so a takeover it reports to after giving its own up never fixes less than that: it
     * catches up from a member that holds those orders, or keeps the reported ones in their
     * places through it, or waits.
     */
    private long fixedSeq;
    /**
     * The reporter that delivered through {@link #targetSeq}: the orders up to there come from it
     * alone (they were committed), never from another report, whose orders at those numbers may be
     * an older epoch's that were never committed.
     */
    private int holderId = -1;
    /**
     * Past the target, the reported orders keep their places through here (-1: as far as they run
     * unbroken): no reporter held what one of them knew committed, so the takeover catches up to
     * what the reporters delivered and takes the rest from the reported orders.
     */
    private long keepThroughSeq = -1;
    /** The holders caught up from since the last progress: one tried twice ends the round. */
    private final Set<Integer> holdersTried = new HashSet<>();
    /** The catch-up's progress: what this member had delivered when it last went on, and when. */
    private long catchUpDelivered;
    private long catchUpChunks;
    private long catchUpSinceNs;

    Takeover(final GroupConfig config, final GroupCounters counters, final Outbox outbox, final OrderedDelivery delivery,
        final Sequencer sequencer, final GapDetector gaps, final CancelTracker cancels, final ClientFifo fifo,
        final StateReceiver stateReceiver, final boolean takesState, final AcceptedOrders accepted, final Member member)
    {
        this.config = config;
        this.counters = counters;
        this.outbox = outbox;
        this.delivery = delivery;
        this.sequencer = sequencer;
        this.gaps = gaps;
        this.cancels = cancels;
        this.fifo = fifo;
        this.stateReceiver = stateReceiver;
        this.takesState = takesState;
        this.accepted = accepted;
        this.member = member;
    }

    /**
     * Starts a takeover from {@code failedId} (this member already leads in the view): proposes
     * the epoch after any it is in or promised, reports to itself, and asks the others.
     *
     * @param fromLeave  the failed leader announced its leaving.
     * @param leaderless started by a joiner that heard no leader ({@link #leaderless}).
     */
    void start(final int failedId, final boolean fromLeave, final boolean leaderless, final long nowNs)
    {
        this.leaderless = leaderless;
        this.fromLeave = fromLeave;
        failedLeaderId = failedId;
        // Passed-over candidates stay in the view: they must report or be removed by a majority, like anyone.
        if (member.isMember(failedLeaderId))
        {
            member.removeMember(failedLeaderId);
        }
        member.promise(Math.max(member.epoch(), member.promisedEpoch()) + 1, config.selfId);
        // Its own knowledge stays in the accepted orders too: should it give the takeover up and
        // rejoin, a later takeover it reports to must still learn what it accepted.
        accepted.accept(delivery.orders(), member.epoch());
        knowOwnOrders();
        delivery.clearOrders();
        // A leader taking over from itself drops the batch it had queued: the old orders must
        // keep their places first; the requests stay held and are ordered after them.
        sequencer.reset();
        gaps.disarm();
        clearReports();
        targetSeq = -1;
        startNs = nowNs;
        counters.leaderChanges++;
        counters.recoveries++;
        member.transitionTo(MemberEngine.State.LEADER_RECOVERING, nowNs);
        outbox.takeover(failedLeaderId, member.promisedEpoch(), member.epoch(), delivery.deliveredSeq());
        decideWhenAllReported(nowNs);
    }

    /** Forgets the reports of a takeover given up (or of one this member reported to and no longer follows). */
    void abandon()
    {
        reported.clear();
        clearReports();
        targetSeq = -1;
        keepThroughSeq = -1;
    }

    /** @return the decided target (committed: a recovering leader delivers through it), or -1 before the decision. */
    long targetSeq()
    {
        return targetSeq;
    }

    /** @return the highest target this member ever decided (see {@link #fixedSeq}). */
    long fixedSeq()
    {
        return fixedSeq;
    }

    /** @return true while the decided takeover catches up from {@code from}: its order NAK answers are the fixed orders. */
    boolean catchingUpFrom(final int from)
    {
        return targetSeq >= 0 && from == holderId;
    }

    /** @return true when {@code from}'s order at {@code seq} is one of the fixed orders it serves. */
    boolean servesFixed(final int from, final long seq)
    {
        return catchingUpFrom(from) && seq <= targetSeq;
    }

    /** One entry of a report's (or of another member's) orders past what it delivered. */
    void reportedEntry(final int from, final int epoch, final long seq, final long key)
    {
        reported.entry(from, epoch, seq, key);
    }

    /** @return true when some report names {@code key} past {@code deliveredSeq}: its request is kept for the takeover. */
    boolean names(final long key, final long deliveredSeq)
    {
        return reported.names(key, deliveredSeq);
    }

    /** Adds the request keys every report names to {@code keys}. */
    void addReportedKeysTo(final Set<Long> keys)
    {
        keys.addAll(reported.orders().values());
    }

    /**
     * A KeepAlive while taking over: a report's end, the holder saying where it can serve from, or
     * a leader alive after all (or one of a newer epoch), whose group it then joins.
     */
    void onKeepAlive(final KeepAliveFlyweight keepAlive, final long nowNs)
    {
        final int from = keepAlive.senderId();
        final int epoch = member.epoch();
        if (from == failedLeaderId && fromLeave)
        {
            // Sent before it left, still in flight.
            counters.unexpectedPackets++;
        }
        else if (keepAlive.header().report() && from != config.selfId && (member.isMember(from) || member.configuration().contains(from)))
        {
            onReport(keepAlive, nowNs);
        }
        else if (targetSeq >= 0 && from == holderId && keepAlive.epoch() == epoch)
        {
            onHolderStart(keepAlive.commit() + 1, from, nowNs);
        }
        else if (keepAlive.header().told() ? Integer.compareUnsigned(keepAlive.epoch(), member.promisedEpoch()) > 0 :
            Integer.compareUnsigned(keepAlive.epoch(), epoch) > 0 ||
                !leaderless && (from == failedLeaderId || !member.isMember(from)) && keepAlive.epoch() == epoch ||
                leaderless && from == member.epochLeader() && keepAlive.epoch() == epoch)
        {
            // A leader is alive after all (we were cut off from it), or one of a newer epoch
            // leads: join its group afresh; its leader then moves the group past the epoch we
            // proposed, which our ADDED carries. (One of an older epoch, a restarted process with
            // the failed leader's id say, proves neither. A leaderless takeover names a stand-in
            // as failed, which may be joining too: only the leader of our own epoch proves one
            // alive, as only a leader multicasts KeepAlives of that epoch. A KeepAlive flagged
            // TOLD is a member's word, a late answer to a catch-up NAK say, stamped with the epoch
            // it promised: it proves no leader, and only an epoch newer than the one we proposed
            // says that ours is lost.)
            member.joinLeader(from, nowNs);
        }
        else
        {
            // Another member's KeepAlive that is no report (a takeover of its own catching up):
            // its delivered sequence says nothing of what it will accept next.
            counters.unexpectedPackets++;
        }
    }

    /**
     * A survivor's report, complete. A member of the configuration outside our view (one we
     * removed) that follows our takeover is one again. The failed leader's counts too: it stepped
     * down and promised our epoch (a live leader promises none); read as "the failed leader is
     * alive", it ended our takeover each time.
     */
    private void onReport(final KeepAliveFlyweight keepAlive, final long nowNs)
    {
        final int from = keepAlive.senderId();
        if (keepAlive.epoch() != member.promisedEpoch())
        {
            // For an earlier proposal of ours, and late: that promise may since have gone to
            // another takeover. Its report for this proposal will follow.
            counters.staleReportsIgnored++;
            return;
        }
        if (!member.isMember(from))
        {
            member.addToView(from);
        }
        // A report: what it delivered, how far it accepted, how many entries it sent. Counted only
        // whole; else its next copy (it reports again at each of our REMOVED) fills in what was lost.
        final long delivered = keepAlive.commit();
        if (!reported.complete(from, keepAlive.reportEntries(), Math.max(delivered, delivery.deliveredSeq()), keepAlive.lastOrderSeq(),
            delivery::isHeld))
        {
            counters.incompleteReports++;
            return;
        }
        reports.put(from, delivered);
        fixedReports.put(from, keepAlive.fixed());
        member.knowIncarnations(keepAlive);
        fence.put(from, keepAlive.incarnation(), keepAlive.reachEpoch(), keepAlive.reach(), Math.max(delivered, keepAlive.lastOrderSeq()));
        setIf(unprovenReporters, from, keepAlive.header().unproven());
        setIf(foundingPromisers, from, keepAlive.header().foundingPromise());
        setIf(uncountedReporters, from, keepAlive.header().provesNothing());
        // Its order NAKs sent after this report are its own: one that asks below what this leader
        // will keep can only rejoin and take a state.
        member.reportedAt(from, keepAlive.packetId());
        decideWhenAllReported(nowNs);
    }

    /**
     * The holder of what is fixed cannot send the orders below {@code servedFrom}: it joined past
     * them, and nobody reported more. We skip them as a joiner does (their requests are not
     * executed here) and take the rest from it; or, with a state handler, take its state past them.
     */
    private void onHolderStart(final long servedFrom, final int from, final long nowNs)
    {
        if (servedFrom > delivery.nextDeliverSeq() && takesState)
        {
            if (!stateReceiver.awaiting())
            {
                stateReceiver.await(servedFrom - 1, from, nowNs);
            }
        }
        else if (servedFrom > delivery.nextDeliverSeq())
        {
            counters.takeoverSkips++;
            delivery.startAfter(Math.min(servedFrom - 1, targetSeq));
            delivery.knowUpTo(targetSeq);
            member.deliverInOrder(nowNs);
        }
    }

    /** The KeepAlive tick while taking over: progress of the catch-up, a new proposal, or the asks repeated. */
    void onTick(final long nowNs)
    {
        if (targetSeq >= 0 && (delivery.deliveredSeq() > catchUpDelivered || counters.stateChunksReceived > catchUpChunks))
        {
            // Progress: an order delivered, or a piece of the state it takes instead.
            catchUpDelivered = delivery.deliveredSeq();
            catchUpChunks = counters.stateChunksReceived;
            catchUpSinceNs = nowNs;
            holdersTried.clear();
            holdersTried.add(holderId);
        }
        if (targetSeq >= 0 && nowNs - catchUpSinceNs > 2 * config.keepAliveTimeoutNs)
        {
            // The survivor it catches up from sends nothing more (it rejoined elsewhere, or
            // failed): another reporter that delivered the target serves instead. With none left,
            // it proposes the next epoch and gathers reports again, the target never below what
            // it fixed (committed, and known here only by that number): a holder that left its
            // view reports again, and serves.
            // (Every holder tried without progress: a reporter that fixed the target in a takeover
            // of its own reports it though it does not hold it, and the member that holds it may
            // be joining, reporting only to a newer proposal.)
            catchUpSinceNs = nowNs;
            final int next = nextHolder();
            if (next >= 0 && holdersTried.add(next))
            {
                counters.catchUpsRetried++;
                holderId = next;
                gaps.target(next);
            }
            else
            {
                gatherAgain(nowNs);
            }
        }
        else if (targetSeq >= 0)
        {
            // Catching up from a survivor: still alive, so that nobody passes us over meanwhile.
            outbox.keepAlive(GroupSender.GROUP, delivery.deliveredSeq());
        }
        else
        {
            if (nowNs - startNs > 2 * config.keepAliveTimeoutNs)
            {
                // No majority reported for this epoch: propose the next one; reports for it start afresh.
                counters.takeoversRetried++;
                proposeNext(nowNs);
            }
            outbox.takeover(failedLeaderId, member.promisedEpoch(), member.epoch(), delivery.deliveredSeq());
            // Only a majority of the view before the failure may go on: a minority side waits.
            if (nowNs - startNs > config.keepAliveTimeoutNs && reportedByMajority())
            {
                for (final int id : member.view().clone())
                {
                    if (id != config.selfId && !reports.containsKey(id))
                    {
                        member.removeMember(id);
                    }
                }
            }
            decideWhenAllReported(nowNs);
        }
    }

    private static void setIf(final Set<Integer> ids, final int id, final boolean in)
    {
        if (in)
        {
            ids.add(id);
        }
        else
        {
            ids.remove(id);
        }
    }

    private void clearReports()
    {
        reports.clear();
        fixedReports.clear();
        fence.clear();
        unprovenReporters.clear();
        foundingPromisers.clear();
        uncountedReporters.clear();
    }

    /** Adds what this member accepted past what it delivered to the reported orders, as a reporter's. */
    private void knowOwnOrders()
    {
        reported.entries(config.selfId, accepted.after(delivery.deliveredSeq()));
    }

    /** Drops the decision (the catch-up cannot finish) and proposes the next epoch, to gather reports again. */
    private void gatherAgain(final long nowNs)
    {
        counters.takeoversRetried++;
        gaps.disarm();
        targetSeq = -1;
        keepThroughSeq = -1;
        holderId = -1;
        proposeNext(nowNs);
    }

    private void proposeNext(final long nowNs)
    {
        member.promise(member.promisedEpoch() + 1, config.selfId);
        clearReports();
        reported.forgetReporters();
        // Its own knowledge again, as at the start: the others report theirs anew, and a decision
        // dropped the entries through its target, which the next decision may fix lower than
        // that (its holder gone) and then read from the reported orders.
        knowOwnOrders();
        startNs = nowNs;
    }

    /**
     * @return true when the reported orders from {@code from} through {@code through} run
     *     unbroken, each naming a request held here, none twice (true for an empty range): what
     *     {@link #finishWhenCaughtUp} keeps in its place.
     */
    private boolean reportedRunsThrough(final long from, final long through)
    {
        final Set<Long> seen = new HashSet<>();
        for (long seq = from; seq <= through; seq++)
        {
            final Long key = reported.keyAt(seq);
            if (key == null || !delivery.isHeld(key) || !seen.add(key))
            {
                return false;
            }
        }
        return true;
    }

    /** @return the reporter after the current holder (by id, cyclic) that delivered the target, or -1 when none other did. */
    private int nextHolder()
    {
        int first = -1;
        int after = -1;
        for (final Map.Entry<Integer, Long> e : new TreeMap<>(reports).entrySet())
        {
            final int id = e.getKey();
            if (id == holderId || id == config.selfId || e.getValue() < targetSeq)
            {
                continue;
            }
            if (first < 0)
            {
                first = id;
            }
            if (after < 0 && id > holderId)
            {
                after = id;
            }
        }
        return after >= 0 ? after : first;
    }

    private void decideWhenAllReported(final long nowNs)
    {
        if (member.state() != MemberEngine.State.LEADER_RECOVERING || targetSeq >= 0)
        {
            return;
        }
        long target = delivery.deliveredSeq();
        long committed = Math.max(target, fixedSeq);
        int holder = config.selfId;
        for (final int id : member.view())
        {
            if (id == config.selfId)
            {
                continue;
            }
            final Long delivered = reports.get(id);
            if (delivered == null)
            {
                return;
            }
            committed = Math.max(committed, fixedReports.getOrDefault(id, delivered));
            if (delivered > target)
            {
                target = delivered;
                holder = id;
            }
        }
        if (committed > 0 && member.mayBeRestarted())
        {
            // A report shows a history we lack (we accepted nothing, from the founding
            // configuration): we may be a restarted process, whose earlier incarnation's
            // acceptances this takeover would miss in our place. We give it up and rejoin.
            member.rejoin(nowNs);
            return;
        }
        if (!reportedByMajority())
        {
            // Not a majority of the configuration: the other side may be ordering. Wait.
            return;
        }
        if (member.promisedTo() != config.selfId)
        {
            // Its proposal was since promised to another (the reports it holds were for its own):
            // it may not lead that epoch on them.
            member.rejoin(nowNs);
            return;
        }
        // The epoch it proposed, newer than any reporter's (each promised it, above its own):
        // members that follow it take no older leader's orders, and such a leader steps down on
        // hearing it.
        // (Its own accepted entries stay kept: should it give this takeover up, it reports them;
        // what it orders in this epoch replaces them, a newer epoch's at the same numbers.)
        member.leadEpoch(member.promisedEpoch());
        keepThroughSeq = -1;
        if (committed > target && reportedRunsThrough(target + 1, committed))
        {
            // Known committed past what any reporter delivered (a takeover fixed it from a member
            // that failed since): at each number past what they delivered, the newest epoch's
            // reported order is the committed one (Paxos's rule: every report past its sender's
            // delivered names what it accepted, and a majority reported), so the takeover catches
            // up to what they delivered and keeps those orders in their places through it.
            counters.fixedTargetsFromReports++;
            keepThroughSeq = committed;
        }
        else if (committed > target)
        {
            // No reporter holds the orders known committed, nor do the reports name them all: it
            // waits (catching up from itself) and gathers reports again, never fixing less.
            target = committed;
            holder = config.selfId;
        }
        // What some survivor delivered is fixed; fetch it from that survivor and deliver it first.
        targetSeq = target;
        fixedSeq = Math.max(fixedSeq, committed);
        holderId = holder;
        holdersTried.clear();
        holdersTried.add(holder);
        catchUpDelivered = delivery.deliveredSeq();
        catchUpChunks = counters.stateChunksReceived;
        catchUpSinceNs = nowNs;
        gaps.target(holder);
        // The orders up to the target come from the holder's delivered log (its order NAK
        // answers): what others reported at those numbers may be an uncommitted older epoch's.
        reported.dropThrough(target);
        delivery.knowUpTo(target);
        member.deliverInOrder(nowNs);
        finishWhenCaughtUp(nowNs);
    }

    /**
     * @return true when this member (unless it may be a restarted process) and the members that
     *     reported (but those shown to be restarted, those of an incarnation older than one known,
     *     and those whose admission's reach no counted report holds: {@link ReportFence}) are a
     *     majority of the configuration: they hold every committed order between them.
     */
    private boolean reportedByMajority()
    {
        // A proposer that may be a restarted process does not count itself: its "nothing
        // accepted" could hide an order its earlier incarnation helped commit.
        final boolean selfCounts = !member.mayBeRestarted();
        // The founding check needs every member's promise, and nothing is ordered before it
        // passes. So when one of us promised it, a reporter that may be restarted and did not was
        // not up when it ran: it is a restarted process, whose "nothing accepted" may hide an
        // order (two restarted members of five, beside two that missed the first orders, decided
        // past a committed one: RestartedProposerTest). A group whose founding leader failed
        // before any order still takes over: all its members promised, or none did. A reporter
        // that knows it restarted (its start count) and accepted nothing since never counts,
        // whatever it promised: its promise may be to a restarted founding leader's new check
        // after the first passed, or the group may have ordered with no check at all (a takeover
        // from a founding leader nobody heard; KnownRestartTest). Its promise still shows a check ran.
        final boolean checkSeen = member.foundingPromised() || !foundingPromisers.isEmpty();
        final Set<Integer> candidates = new HashSet<>();
        if (selfCounts)
        {
            candidates.add(config.selfId);
        }
        for (final int id : reports.keySet())
        {
            if (!uncountedReporters.contains(id) && !(checkSeen && unprovenReporters.contains(id) && !foundingPromisers.contains(id)))
            {
                candidates.add(id);
            }
        }
        // And none of an incarnation older than one known, nor one whose admission's reach no counted report holds.
        final long selfDelivered = delivery.deliveredSeq();
        long selfHolds = selfDelivered;
        while (accepted.at(selfHolds + 1) != null)
        {
            selfHolds++;
        }
        fence.put(config.selfId, member.incarnation(), member.admission().epoch(), member.admission().reach(), selfHolds);
        final Set<Integer> counted = fence.counted(candidates, member.incarnations(), new ReportFence.Knowledge()
        {
            @Override
            public long delivered(final int reporter)
            {
                return reporter == config.selfId ? selfDelivered : reports.getOrDefault(reporter, 0L);
            }

            @Override
            public Integer epochAt(final int reporter, final long seq)
            {
                if (reporter != config.selfId)
                {
                    return reported.epochAt(reporter, seq);
                }
                final AcceptedOrders.Entry own = accepted.at(seq);
                return own == null ? null : own.epoch();
            }
        });
        return member.configuration().isQuorum(counted::contains);
    }

    /**
     * Caught up to the target (by whichever packet completed it: an order or a request): queues
     * the old orders that keep their places and every other held request, and starts ordering.
     */
    void finishWhenCaughtUp(final long nowNs)
    {
        if (member.state() != MemberEngine.State.LEADER_RECOVERING || targetSeq < 0 || delivery.deliveredSeq() < targetSeq)
        {
            return;
        }
        if (keepThroughSeq > delivery.deliveredSeq() && !reportedRunsThrough(delivery.deliveredSeq() + 1, keepThroughSeq))
        {
            // The orders known committed must keep their places, and one of their requests is no
            // longer held (it expired, say): it gathers reports again rather than give a committed
            // number to another request.
            gatherAgain(nowNs);
            return;
        }
        gaps.disarm();
        delivery.clearOrders();
        final long forgottenSeq = delivery.firstRetainedSeq() - 1;
        sequencer.startAt(delivery.nextDeliverSeq(), forgottenSeq);
        for (final int id : member.view().clone())
        {
            if (id == config.selfId)
            {
                continue;
            }
            final long delivered = reports.getOrDefault(id, 0L);
            if (delivered < forgottenSeq)
            {
                // It lags past what anyone kept: it cannot catch up, so it rejoins afresh.
                member.removeMember(id);
                continue;
            }
            sequencer.memberReported(id, delivered);
            member.heardNow(id, nowNs);
        }
        // The old leader's orders past the fixed prefix keep their places as far as they run unbroken.
        long seq = sequencer.lastOrderSeq() + 1;
        Long key;
        while ((key = reported.keyAt(seq)) != null && delivery.isHeld(key) && !sequencer.isQueued(key))
        {
            sequencer.queue(key);
            cancels.keep(key);
            seq++;
        }
        reported.clear();
        clearReports();
        for (final Map.Entry<Long, HeldRequest> e : delivery.heldByKey().entrySet())
        {
            final long k = e.getKey();
            if (!sequencer.isQueued(k) && !cancels.isCancelled(k))
            {
                sequencer.queue(k);
            }
        }
        cancels.dropAll();
        targetSeq = -1;
        keepThroughSeq = -1;
        fifo.reset();
        member.orderFrom(nowNs);
    }

    /** @return how far the takeover is, for diagnostics: "2 reports, proposing epoch 4", or "catching up to 130 from 3". */
    String summary()
    {
        return targetSeq < 0 ? reports.size() + " reports, proposing epoch " + Integer.toUnsignedString(member.promisedEpoch())
            : "catching up to " + targetSeq + " from " + holderId;
    }
}
