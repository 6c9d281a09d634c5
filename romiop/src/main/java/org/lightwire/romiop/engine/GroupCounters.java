package org.lightwire.romiop.engine;

import java.util.EnumMap;
import java.util.Map;
import org.lightwire.romiop.protocol.Invalid;

/** Named counters of one group engine; read by tests and, later, by the plug-in's statistics. */
public final class GroupCounters
{
    final Map<Invalid, Long> invalid = new EnumMap<>(Invalid.class);
    long unexpectedPackets;
    long requestsReceived;
    long duplicateRequests;
    long delivered;
    long ordersSent;
    /** Leader alone in its view (a group of one): MsgOrders numbered and not sent, since nobody would take them. */
    long ordersUnsentAlone;
    long orderEntriesSent;
    long duplicateOrderEntries;
    /** MsgOrders, KeepAlives and OrderAcks of an older epoch than this member's, dropped. */
    long staleEpochPackets;
    /** Leader: KeepAlives sent at once to announce an advanced commit (groups of five or more). */
    long commitKeepAlives;
    long orderRetransmits;
    long orderNaksSent;
    long requestNaksSent;
    long naksServed;
    long requestsSent;
    long requestRetransmits;
    long requestsCompleted;
    long repliesSent;
    long replyRetransmits;
    long repliesAcked;
    /** Member: replies forgotten by a client's cumulative "calls done" ACK. */
    long repliesAckedByCallsDone;
    /** Client: ACKs of single replies, and cumulative "calls done" ACKs, sent. */
    long replyAcksSent;
    long callsDoneAcksSent;
    long repliesAbandoned;
    long repliesReceived;
    long repliesDelivered;
    long duplicateReplies;
    long staleReplies;
    long repliesFromNonMembers;
    long cancelsSent;
    long cancelsCompleted;
    long cancelsAbandoned;
    long repliesAfterCancel;
    /** Member: Reply packets that carried a piece of a reply too large for one packet. */
    long replyFragmentsSent;
    /** Member: reply pieces that waited for room in their client's window before they were sent. */
    long replyFragmentsHeld;
    /** Client: reply pieces received for calls still wanting them, and pieces for calls already decided (dropped). */
    long replyFragmentsReceived;
    long lateReplyFragments;
    long staleMemberLists;
    long viewChanges;
    long clientsForgotten;
    long requestsCancelled;
    long requestsOfGoneClientsExpired;
    long cancelsTooLate;
    long membersAdded;
    long joinsRefused;
    long configurationMismatches;
    long foundingProposalsRaised;
    long requestsRefusedFull;
    long membersRemoved;
    long ordersAtOnceInBatching;
    long orderAcksSent;
    long requestAcksByReply;
    long requestAcksDeferred;
    long requestsAckedByReply;
    long requestsHeldForFifo;
    long fifoGapsSkipped;
    long fifoLateRequests;
    long keepAlivesSent;
    long leaderChanges;
    long recoveries;
    long reportsSent;
    long memberListsReceived;
    long naksServedAsMember;
    long joinersAnswered;
    long staleLeadersLeft;
    long takeoversRetried;
    long selfTakeovers;
    long staleTakeoversIgnored;
    long foundingRejoins;
    /** Admissions a possibly restarted joiner deferred: its leader had not answered its ask while ordering in that KeepAlive's epoch. */
    long admissionsDeferred;
    /** Leader: start KeepAlives sent again to a joiner not yet ONLINE. */
    long startsResent;
    /** Joiner: start KeepAlives that came before the LIST naming it, kept; and those taken once it came. */
    long earlyStartsKept;
    long earlyStartsTaken;
    /** Start KeepAlives of an earlier admission, or for a joiner that already started, dropped. */
    long staleStartsIgnored;
    /** Joiner: its leader's periodic KeepAlives it let pass while waiting for its start KeepAlive. */
    long startsAwaited;
    long unadmittedReportsWithheld;
    long incompleteReports;
    long staleReportsIgnored;
    long servedFromTold;
    long takeoverSkips;
    /** Takeovers a joiner started because it heard no leader while a majority of the configuration was heard. */
    long leaderlessTakeovers;
    /** Catch-ups moved to another reporter that delivered the target: the survivor they caught up from sent nothing for twice the KeepAlive timeout. */
    long catchUpsRetried;
    /** Takeovers that knew an order number committed past what any reporter delivered: they caught up to what the reporters delivered and kept the reported orders through it in their places. */
    long fixedTargetsFromReports;
    /** Order NAKs of a configured member answered from what this member delivered while it was joining (a takeover catching up). */
    long naksServedWhileJoining;
    /** States this member awaited (it joined past orders it did not execute). */
    long stateTransfers;
    /** States this member took whole from a donor and installed. */
    long statesInstalled;
    /** State chunks taken in order. */
    long stateChunksReceived;
    /** State chunks and refusals dropped: from a member that is not the donor, of an older cut, or out of sequence. */
    long staleStateChunks;
    /** Donors given up for the next member of the view after a KeepAlive timeout without progress. */
    long stateDonorsChanged;
    /** Refusals of this member's state ASK: it left the group. */
    long stateRefusalsReceived;
    /** States this member took from its application for joiners. */
    long statesCaptured;
    /** States a joiner fetched from this member to the end. */
    long statesGiven;
    /** State chunks sent. */
    long stateChunksSent;
    /** State ASKs this member refused (its application cannot give its state, or no state transfer). */
    long statesRefused;
    /** State ASKs dropped: this member had no state to give yet, or served as many joiners as it may. */
    long stateAsksIgnored;
    /** State ASKs of a transfer this member finished serving (a delayed or duplicated copy), dropped. */
    long staleStateAsks;
    long stateRefusalsResent;
    long epochAsksAnswered;
    long epochsLearned;
    long foundingChecksAsked;
    long foundingRestartsFound;
    /** KeepAlive ticks at which a founding leader still checking kept silent members in its view instead of stepping down or removing them. */
    long foundingLeaderWaits;
    long staleLeadersTold;
    long laggardsRemoved;
    long nakedRequestsUnknown;
    long reorderedRequestsSkipped;
    long viewsSentToClients;
    long leaderStepDowns;
    long removedMembersTold;
    /** Client: requests sent to the sequencer alone (first sending only; resends go to the group). */
    long requestsToSequencer;
    /** Sequencer: requests it carried in a MsgOrder, and requests sent to it that it sent by themselves (too large to carry). */
    long requestsCarried;
    long requestsRelayedAlone;
    /** Member: requests that came inside the leader's MsgOrder. */
    long carriedRequestsReceived;
    /** Member: requests sent to it as the sequencer when it was not ordering (a client's stale view). */
    long requestsToSequencerNotCarried;
    /** Leader: times a majority of its configuration stopped being present (the lease lost), and came back. */
    long leaseLost;
    long leaseRegained;
    /** Leader without the lease: ViewChange UNAVAILABLE notices sent to clients (at most one a client a retransmit timeout). */
    long unavailableSent;
    /** Client: UNAVAILABLE notices taken from a member of its view, and ViewChange packets dropped (another kind, or a sender outside the view). */
    long unavailableReceived;
    long unavailableDropped;

    void countInvalid(final Invalid reason)
    {
        invalid.merge(reason, 1L, Long::sum);
    }

    public long invalid(final Invalid reason)
    {
        return invalid.getOrDefault(reason, 0L);
    }

    public long unexpectedPackets()
    {
        return unexpectedPackets;
    }

    public long requestsReceived()
    {
        return requestsReceived;
    }

    public long duplicateRequests()
    {
        return duplicateRequests;
    }

    public long delivered()
    {
        return delivered;
    }

    public long ordersSent()
    {
        return ordersSent;
    }

    public long ordersUnsentAlone()
    {
        return ordersUnsentAlone;
    }

    public long orderEntriesSent()
    {
        return orderEntriesSent;
    }

    public long duplicateOrderEntries()
    {
        return duplicateOrderEntries;
    }

    public long staleEpochPackets()
    {
        return staleEpochPackets;
    }

    public long commitKeepAlives()
    {
        return commitKeepAlives;
    }

    public long orderRetransmits()
    {
        return orderRetransmits;
    }

    public long orderNaksSent()
    {
        return orderNaksSent;
    }

    public long requestNaksSent()
    {
        return requestNaksSent;
    }

    public long naksServed()
    {
        return naksServed;
    }

    public long requestsSent()
    {
        return requestsSent;
    }

    public long requestRetransmits()
    {
        return requestRetransmits;
    }

    public long requestsCompleted()
    {
        return requestsCompleted;
    }

    public long repliesSent()
    {
        return repliesSent;
    }

    public long replyRetransmits()
    {
        return replyRetransmits;
    }

    public long repliesAcked()
    {
        return repliesAcked;
    }

    public long repliesAckedByCallsDone()
    {
        return repliesAckedByCallsDone;
    }

    public long replyAcksSent()
    {
        return replyAcksSent;
    }

    public long callsDoneAcksSent()
    {
        return callsDoneAcksSent;
    }

    public long repliesAbandoned()
    {
        return repliesAbandoned;
    }

    public long repliesReceived()
    {
        return repliesReceived;
    }

    public long repliesDelivered()
    {
        return repliesDelivered;
    }

    public long duplicateReplies()
    {
        return duplicateReplies;
    }

    public long staleReplies()
    {
        return staleReplies;
    }

    public long repliesFromNonMembers()
    {
        return repliesFromNonMembers;
    }

    public long cancelsSent()
    {
        return cancelsSent;
    }

    public long cancelsCompleted()
    {
        return cancelsCompleted;
    }

    public long repliesAfterCancel()
    {
        return repliesAfterCancel;
    }

    public long staleMemberLists()
    {
        return staleMemberLists;
    }

    public long viewChanges()
    {
        return viewChanges;
    }

    public long clientsForgotten()
    {
        return clientsForgotten;
    }

    /** New requests not taken (nor ACKed) because the held requests were at {@code max_held_bytes}. */
    public long requestsRefusedFull()
    {
        return requestsRefusedFull;
    }

    /** ADDED from a new id refused by a leader whose view is full ({@code max_members}). */
    public long joinsRefused()
    {
        return joinsRefused;
    }

    /**
     * LISTs from our leader whose configuration is not ours (member lists configured differently
     * on different members): this member keeps its own, and counts for nothing while named a learner.
     */
    public long configurationMismatches()
    {
        return configurationMismatches;
    }

    /**
     * Founding leader: its check heard a member that promised an epoch as new as the one it
     * proposed (to an earlier incarnation's check, or a takeover) and knows of no order, and
     * proposed the next epoch instead.
     */
    public long foundingProposalsRaised()
    {
        return foundingProposalsRaised;
    }

    public long requestsCancelled()
    {
        return requestsCancelled;
    }

    /** Held requests no order named, dropped because their client was silent for {@code reply_give_up_ms}. */
    public long requestsOfGoneClientsExpired()
    {
        return requestsOfGoneClientsExpired;
    }

    public long cancelsTooLate()
    {
        return cancelsTooLate;
    }

    public long membersAdded()
    {
        return membersAdded;
    }

    public long membersRemoved()
    {
        return membersRemoved;
    }

    /** Leader: orders sent before the interval's end because nothing was in flight (the ACK clock). */
    public long ordersAtOnceInBatching()
    {
        return ordersAtOnceInBatching;
    }

    /** Member: cumulative ACKs of delivery sent to the leader. */
    public long orderAcksSent()
    {
        return orderAcksSent;
    }

    /** Member: two-way requests whose Reply acknowledged them (no ACK sent). */
    public long requestAcksByReply()
    {
        return requestAcksByReply;
    }

    /** Member: two-way requests ACKed after the delay because their Reply had not gone yet. */
    public long requestAcksDeferred()
    {
        return requestAcksDeferred;
    }

    /** Client: members' acknowledgements of a request taken from their Reply. */
    public long requestsAckedByReply()
    {
        return requestsAckedByReply;
    }

    /** Leader: requests that waited for an earlier request of their client. */
    public long requestsHeldForFifo()
    {
        return requestsHeldForFifo;
    }

    /** Leader: gaps in a client's numbering given up on after fifoWaitNs (that client's order was not kept). */
    public long fifoGapsSkipped()
    {
        return fifoGapsSkipped;
    }

    /** Leader: requests that arrived after their gap was given up on, ordered on arrival. */
    public long fifoLateRequests()
    {
        return fifoLateRequests;
    }

    public long keepAlivesSent()
    {
        return keepAlivesSent;
    }

    public long leaderChanges()
    {
        return leaderChanges;
    }

    public long recoveries()
    {
        return recoveries;
    }

    public long reportsSent()
    {
        return reportsSent;
    }

    public long memberListsReceived()
    {
        return memberListsReceived;
    }

    public long naksServedAsMember()
    {
        return naksServedAsMember;
    }

    /** @return a joiner's ADDED answered with this member's view while no leader answered it (so it does not found a group). */
    public long joinersAnswered()
    {
        return joinersAnswered;
    }

    /** @return times this member left a leader it followed on hearing another lead a newer epoch, and rejoined. */
    public long staleLeadersLeft()
    {
        return staleLeadersLeft;
    }

    /** A takeover with no majority of reports for its epoch within twice the KeepAlive timeout proposed the next one. */
    public long takeoversRetried()
    {
        return takeoversRetried;
    }

    /** Leader: a member's ADDED named an epoch it reported for, newer than ours: we took over from ourselves to move past it. */
    public long selfTakeovers()
    {
        return selfTakeovers;
    }

    /** A takeover's REMOVED proposing an epoch not above the one this member last reported for (or proposed), to another. */
    public long staleTakeoversIgnored()
    {
        return staleTakeoversIgnored;
    }

    /**
     * A member started from the founding configuration that rejoined before it ever entered a newer
     * epoch (a restarted process, for all it knows): it reports to no takeover until admitted.
     */
    public long foundingRejoins()
    {
        return foundingRejoins;
    }

    /** Admissions a possibly restarted joiner deferred: its leader had not answered its ask while ordering in that KeepAlive's epoch. */
    public long admissionsDeferred()
    {
        return admissionsDeferred;
    }

    /** Leader: start KeepAlives sent again to a joiner not yet ONLINE. */
    public long startsResent()
    {
        return startsResent;
    }

    /** Joiner: start KeepAlives that came before the LIST naming it, kept. */
    public long earlyStartsKept()
    {
        return earlyStartsKept;
    }

    /** Joiner: kept start KeepAlives taken once the LIST naming it came. */
    public long earlyStartsTaken()
    {
        return earlyStartsTaken;
    }

    /** Start KeepAlives of an earlier admission, or for a joiner that already started, dropped. */
    public long staleStartsIgnored()
    {
        return staleStartsIgnored;
    }

    /** Joiner: its leader's periodic KeepAlives it let pass while waiting for its start KeepAlive. */
    public long startsAwaited()
    {
        return startsAwaited;
    }

    /** Takeovers this joiner did not report to: it may be a restarted process, not admitted since. */
    public long unadmittedReportsWithheld()
    {
        return unadmittedReportsWithheld;
    }

    /** Reports' KeepAlives that arrived before the whole report (an entry or an accepted request lost): not counted yet. */
    public long incompleteReports()
    {
        return incompleteReports;
    }

    /** Reports promising an earlier proposal of this takeover than its current one (late): not counted. */
    public long staleReportsIgnored()
    {
        return staleReportsIgnored;
    }

    /** Takeovers told that this member cannot send the orders they asked for (it joined past them): it names the first it can. */
    public long servedFromTold()
    {
        return servedFromTold;
    }

    /** Order NAKs of a configured member answered from what this member delivered while it was joining (a takeover catching up). */
    public long naksServedWhileJoining()
    {
        return naksServedWhileJoining;
    }

    /** States this member awaited (it joined past orders it did not execute). */
    public long stateTransfers()
    {
        return stateTransfers;
    }

    /** States this member took whole from a donor and installed. */
    public long statesInstalled()
    {
        return statesInstalled;
    }

    /** State chunks taken in order. */
    public long stateChunksReceived()
    {
        return stateChunksReceived;
    }

    /** State chunks and refusals dropped: from a member that is not the donor, of an older cut, or out of sequence. */
    public long staleStateChunks()
    {
        return staleStateChunks;
    }

    /** Donors given up for the next member of the view after a KeepAlive timeout without progress. */
    public long stateDonorsChanged()
    {
        return stateDonorsChanged;
    }

    /** Refusals of this member's state ASK: it left the group. */
    public long stateRefusalsReceived()
    {
        return stateRefusalsReceived;
    }

    /** States this member took from its application for joiners. */
    public long statesCaptured()
    {
        return statesCaptured;
    }

    /** States a joiner fetched from this member to the end. */
    public long statesGiven()
    {
        return statesGiven;
    }

    /** State chunks sent. */
    public long stateChunksSent()
    {
        return stateChunksSent;
    }

    /** State ASKs this member refused (its application cannot give its state, or no state transfer). */
    public long statesRefused()
    {
        return statesRefused;
    }

    /** State ASKs of a transfer this member finished serving (a delayed or duplicated copy), dropped. */
    public long staleStateAsks()
    {
        return staleStateAsks;
    }

    /** State ASKs dropped: this member had no state to give yet, or served as many joiners as it may. */
    public long stateAsksIgnored()
    {
        return stateAsksIgnored;
    }

    /** Takeovers a joiner started because it heard no leader while a majority of the configuration was heard. */
    public long leaderlessTakeovers()
    {
        return leaderlessTakeovers;
    }

    /** Catch-ups moved to another reporter that delivered the target: the survivor they caught up from sent nothing for twice the KeepAlive timeout. */
    public long catchUpsRetried()
    {
        return catchUpsRetried;
    }

    /** Takeovers that knew an order number committed past what any reporter delivered: they caught up to what the reporters delivered and kept the reported orders through it in their places. */
    public long fixedTargetsFromReports()
    {
        return fixedTargetsFromReports;
    }

    /** Takeovers that skipped orders nobody could send them (their holder joined past them), as a joiner does. */
    public long takeoverSkips()
    {
        return takeoverSkips;
    }

    /** REFUSED sent again to a joiner that asked again in a transfer this member refused (the first was lost). */
    public long stateRefusalsResent()
    {
        return stateRefusalsResent;
    }

    /** EPOCH_ASKs this founding leader sent before it orders (see {@code FoundingCheck}). */
    public long foundingChecksAsked()
    {
        return foundingChecksAsked;
    }

    /** Times this founding leader learned before ordering that the group has a history: a restart, rejoined as a new member. */
    public long foundingRestartsFound()
    {
        return foundingRestartsFound;
    }

    public long foundingLeaderWaits()
    {
        return foundingLeaderWaits;
    }

    /** EPOCH_ASKs this member answered (it may be asked by a restarted process). */
    public long epochAsksAnswered()
    {
        return epochAsksAnswered;
    }

    /** Times this possibly-restarted process heard the epochs of enough members to ask to join. */
    public long epochsLearned()
    {
        return epochsLearned;
    }

    /** @return KeepAlives sent to a leader of an older epoch than this member's, so that it steps down. */
    public long staleLeadersTold()
    {
        return staleLeadersTold;
    }

    /** @return members removed by the leader for asking for an order every member had ACKed (a restarted process under the same id). */
    public long laggardsRemoved()
    {
        return laggardsRemoved;
    }

    /** @return requests a NAK named that this member neither held nor retained (forgotten once every member had them). */
    public long nakedRequestsUnknown()
    {
        return nakedRequestsUnknown;
    }

    /** @return orders this member delivered without executing them: requests it had executed at an earlier order number. */
    public long reorderedRequestsSkipped()
    {
        return reorderedRequestsSkipped;
    }

    public long removedMembersTold()
    {
        return removedMembersTold;
    }

    public long leaderStepDowns()
    {
        return leaderStepDowns;
    }

    public long viewsSentToClients()
    {
        return viewsSentToClients;
    }

    public long cancelsAbandoned()
    {
        return cancelsAbandoned;
    }

    public long requestsToSequencer()
    {
        return requestsToSequencer;
    }

    public long requestsCarried()
    {
        return requestsCarried;
    }

    public long requestsRelayedAlone()
    {
        return requestsRelayedAlone;
    }

    public long carriedRequestsReceived()
    {
        return carriedRequestsReceived;
    }

    public long requestsToSequencerNotCarried()
    {
        return requestsToSequencerNotCarried;
    }

    public long replyFragmentsSent()
    {
        return replyFragmentsSent;
    }

    public long replyFragmentsHeld()
    {
        return replyFragmentsHeld;
    }

    public long replyFragmentsReceived()
    {
        return replyFragmentsReceived;
    }

    public long lateReplyFragments()
    {
        return lateReplyFragments;
    }

    public long leaseLost()
    {
        return leaseLost;
    }

    public long leaseRegained()
    {
        return leaseRegained;
    }

    public long unavailableSent()
    {
        return unavailableSent;
    }

    public long unavailableReceived()
    {
        return unavailableReceived;
    }

    public long unavailableDropped()
    {
        return unavailableDropped;
    }

    @Override
    public String toString()
    {
        return "GroupCounters{invalid=" + invalid +
            ", unexpected=" + unexpectedPackets + ", requestsReceived=" + requestsReceived +
            ", duplicateRequests=" + duplicateRequests + ", delivered=" + delivered + ", ordersSent=" + ordersSent + ", ordersUnsentAlone=" + ordersUnsentAlone +
            ", orderEntriesSent=" + orderEntriesSent + ", duplicateOrderEntries=" + duplicateOrderEntries +
            ", staleEpochPackets=" + staleEpochPackets + ", commitKeepAlives=" + commitKeepAlives +
            ", orderRetransmits=" + orderRetransmits + ", orderNaksSent=" + orderNaksSent + ", requestNaksSent=" + requestNaksSent +
            ", naksServed=" + naksServed + ", requestsSent=" + requestsSent + ", requestRetransmits=" + requestRetransmits +
            ", requestsCompleted=" + requestsCompleted + ", repliesSent=" + repliesSent + ", replyRetransmits=" + replyRetransmits +
            ", repliesAcked=" + repliesAcked + ", repliesAckedByCallsDone=" + repliesAckedByCallsDone +
            ", replyAcksSent=" + replyAcksSent + ", callsDoneAcksSent=" + callsDoneAcksSent + ", repliesAbandoned=" + repliesAbandoned + ", repliesReceived=" + repliesReceived +
            ", repliesDelivered=" + repliesDelivered + ", duplicateReplies=" + duplicateReplies + ", staleReplies=" + staleReplies +
            ", repliesFromNonMembers=" + repliesFromNonMembers + ", cancelsSent=" + cancelsSent +
            ", cancelsCompleted=" + cancelsCompleted + ", repliesAfterCancel=" + repliesAfterCancel +
            ", staleMemberLists=" + staleMemberLists + ", viewChanges=" + viewChanges + ", clientsForgotten=" + clientsForgotten +
            ", requestsCancelled=" + requestsCancelled + ", requestsOfGoneClientsExpired=" + requestsOfGoneClientsExpired + ", cancelsTooLate=" + cancelsTooLate + ", membersAdded=" + membersAdded +
            ", membersRemoved=" + membersRemoved + ", keepAlivesSent=" + keepAlivesSent + ", leaderChanges=" + leaderChanges +
            ", recoveries=" + recoveries + ", reportsSent=" + reportsSent + ", memberListsReceived=" + memberListsReceived +
            ", naksServedAsMember=" + naksServedAsMember + ", joinersAnswered=" + joinersAnswered + ", staleLeadersLeft=" + staleLeadersLeft + ", takeoversRetried=" + takeoversRetried + ", selfTakeovers=" + selfTakeovers + ", staleTakeoversIgnored=" + staleTakeoversIgnored + ", foundingRejoins=" + foundingRejoins + ", admissionsDeferred=" + admissionsDeferred + ", startsResent=" + startsResent + ", earlyStartsKept=" + earlyStartsKept + ", earlyStartsTaken=" + earlyStartsTaken + ", staleStartsIgnored=" + staleStartsIgnored + ", startsAwaited=" + startsAwaited + ", unadmittedReportsWithheld=" + unadmittedReportsWithheld + ", incompleteReports=" + incompleteReports + ", staleReportsIgnored=" + staleReportsIgnored + ", servedFromTold=" + servedFromTold + ", takeoverSkips=" + takeoverSkips + ", leaderlessTakeovers=" + leaderlessTakeovers + ", catchUpsRetried=" + catchUpsRetried + ", fixedTargetsFromReports=" + fixedTargetsFromReports + ", naksServedWhileJoining=" + naksServedWhileJoining + ", stateTransfers=" + stateTransfers + ", statesInstalled=" + statesInstalled + ", stateChunksReceived=" + stateChunksReceived + ", staleStateChunks=" + staleStateChunks + ", stateDonorsChanged=" + stateDonorsChanged + ", stateRefusalsReceived=" + stateRefusalsReceived + ", statesCaptured=" + statesCaptured + ", statesGiven=" + statesGiven + ", stateChunksSent=" + stateChunksSent + ", statesRefused=" + statesRefused + ", stateAsksIgnored=" + stateAsksIgnored + ", staleStateAsks=" + staleStateAsks + ", stateRefusalsResent=" + stateRefusalsResent + ", epochAsksAnswered=" + epochAsksAnswered + ", foundingChecksAsked=" + foundingChecksAsked + ", foundingRestartsFound=" + foundingRestartsFound + ", foundingLeaderWaits=" + foundingLeaderWaits + ", epochsLearned=" + epochsLearned + ", staleLeadersTold=" + staleLeadersTold + ", laggardsRemoved=" + laggardsRemoved + ", nakedRequestsUnknown=" + nakedRequestsUnknown + ", reorderedRequestsSkipped=" + reorderedRequestsSkipped + ", viewsSentToClients=" + viewsSentToClients +
            ", leaderStepDowns=" + leaderStepDowns + ", removedMembersTold=" + removedMembersTold +
            ", cancelsAbandoned=" + cancelsAbandoned +
            ", ordersAtOnceInBatching=" + ordersAtOnceInBatching + ", orderAcksSent=" + orderAcksSent +
            ", requestAcksByReply=" + requestAcksByReply + ", requestAcksDeferred=" + requestAcksDeferred +
            ", requestsAckedByReply=" + requestsAckedByReply + ", requestsHeldForFifo=" + requestsHeldForFifo +
            ", fifoGapsSkipped=" + fifoGapsSkipped + ", fifoLateRequests=" + fifoLateRequests +
            ", requestsToSequencer=" + requestsToSequencer + ", requestsCarried=" + requestsCarried +
            ", requestsRelayedAlone=" + requestsRelayedAlone + ", carriedRequestsReceived=" + carriedRequestsReceived +
            ", requestsToSequencerNotCarried=" + requestsToSequencerNotCarried + ", replyFragmentsSent=" + replyFragmentsSent + ", replyFragmentsHeld=" + replyFragmentsHeld +
            ", replyFragmentsReceived=" + replyFragmentsReceived + ", lateReplyFragments=" + lateReplyFragments +
            ", leaseLost=" + leaseLost + ", leaseRegained=" + leaseRegained + ", unavailableSent=" + unavailableSent +
            ", unavailableReceived=" + unavailableReceived + ", unavailableDropped=" + unavailableDropped + '}';
    }
}
