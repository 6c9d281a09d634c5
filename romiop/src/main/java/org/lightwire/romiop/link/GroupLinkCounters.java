package org.lightwire.romiop.link;

import java.util.concurrent.atomic.AtomicLong;

/** What a {@link GroupLink} dropped or did, by cause; each counter only grows. */
public final class GroupLinkCounters
{
    /** Datagrams handed to the socket (a fan-out to three members counts three). */
    public final AtomicLong datagramsSent = new AtomicLong();
    public final AtomicLong datagramsReceived = new AtomicLong();
    /** Sends to an id whose address is not known yet: dropped (the engine retransmits). */
    public final AtomicLong unknownDestination = new AtomicLong();
    /** Sends the socket refused (buffer full, network down). */
    public final AtomicLong sendErrors = new AtomicLong();
    /** Received datagrams dropped because the driver's inbound queue was full. */
    public final AtomicLong inboundQueueFull = new AtomicLong();
    /** Received datagrams too short or without the ROMIOP magic: dropped before the engine. */
    public final AtomicLong notRomiop = new AtomicLong();
    /** Own multicast datagrams looped back to this socket: dropped. */
    public final AtomicLong ownEchoes = new AtomicLong();
    /** Packets from a known end's address carrying another sender_id (the leader relaying a Request): not learned from. */
    public final AtomicLong relaysNotLearned = new AtomicLong();
    /** Datagrams a polled member read from its request socket while not selecting it: requests it slept through ({@code UdpGroupLink.selectRequests}). */
    public final AtomicLong requestsReadUnselected = new AtomicLong();

    @Override
    public String toString()
    {
        return "GroupLinkCounters{sent=" + datagramsSent + ", received=" + datagramsReceived + ", unknownDestination=" +
            unknownDestination + ", sendErrors=" + sendErrors + ", inboundQueueFull=" + inboundQueueFull + ", notRomiop=" +
            notRomiop + ", ownEchoes=" + ownEchoes + ", relaysNotLearned=" + relaysNotLearned + ", requestsReadUnselected=" + requestsReadUnselected + '}';
    }
}
