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
    long orderEntriesSent;
    long duplicateOrderEntries;
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
    long repliesAbandoned;
    long repliesReceived;
    long duplicateReplies;
    long cancelsSent;
    long cancelsReceived;
    long requestsCancelled;
    long cancelsTooLate;
    long cancelledRequestsDropped;
    long membersRemoved;
    long ordersAtOnceInBatching;

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

    public long orderEntriesSent()
    {
        return orderEntriesSent;
    }

    public long duplicateOrderEntries()
    {
        return duplicateOrderEntries;
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

    /** Member: replies sent (first transmissions). */
    public long repliesSent()
    {
        return repliesSent;
    }

    /** Member: replies sent again because the client had not ACKed them. */
    public long replyRetransmits()
    {
        return replyRetransmits;
    }

    /** Member: replies the client ACKed. */
    public long repliesAcked()
    {
        return repliesAcked;
    }

    /** Member: replies given up on (the client never ACKed, or the store was full). */
    public long repliesAbandoned()
    {
        return repliesAbandoned;
    }

    /** Client: replies delivered to its handler, one per member and request. */
    public long repliesReceived()
    {
        return repliesReceived;
    }

    /** Client: Cancels sent. */
    public long cancelsSent()
    {
        return cancelsSent;
    }

    /** Member: Cancels received. */
    public long cancelsReceived()
    {
        return cancelsReceived;
    }

    /** Member: requests withdrawn before they were ordered. */
    public long requestsCancelled()
    {
        return requestsCancelled;
    }

    /** Member: Cancels that came after the request was ordered or delivered (it runs). */
    public long cancelsTooLate()
    {
        return cancelsTooLate;
    }

    /** Member: late copies of cancelled requests dropped. */
    public long cancelledRequestsDropped()
    {
        return cancelledRequestsDropped;
    }

    /** Members this engine saw removed from the group (leader: removed; others: told). */
    public long membersRemoved()
    {
        return membersRemoved;
    }

    /** Leader: orders sent before the interval's end because nothing was in flight. */
    public long ordersAtOnceInBatching()
    {
        return ordersAtOnceInBatching;
    }

    /** Client: replies received again (ACKed again, not delivered). */
    public long duplicateReplies()
    {
        return duplicateReplies;
    }

    @Override
    public String toString()
    {
        return "GroupCounters{invalid=" + invalid + ", unexpected=" + unexpectedPackets + ", requestsReceived=" + requestsReceived +
            ", duplicateRequests=" + duplicateRequests + ", delivered=" + delivered + ", ordersSent=" + ordersSent +
            ", orderEntriesSent=" + orderEntriesSent + ", duplicateOrderEntries=" + duplicateOrderEntries +
            ", orderRetransmits=" + orderRetransmits + ", orderNaksSent=" + orderNaksSent + ", requestNaksSent=" + requestNaksSent +
            ", naksServed=" + naksServed + ", requestsSent=" + requestsSent + ", requestRetransmits=" + requestRetransmits +
            ", requestsCompleted=" + requestsCompleted + '}';
    }
}
