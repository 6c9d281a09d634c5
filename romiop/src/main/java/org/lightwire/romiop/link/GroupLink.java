package org.lightwire.romiop.link;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import org.lightwire.romiop.engine.GroupSender;

/**
 * How one group engine (a member or a client) reaches the others: the only place ROMIOP touches
 * sockets. Sending is addressed by id, as the engines address it ({@link GroupSender}): a member
 * id, a client id, or {@link GroupSender#GROUP}; the link maps an id to a unicast address and
 * {@code GROUP} to the group (one multicast datagram, or one datagram to each member).
 *
 * <p>Addresses are learned, not configured, wherever they can be: every received ROMIOP packet
 * names its sender ({@code sender_id}, the first body field of every packet type), and the link
 * remembers the datagram's source address for that id. Members' unicast addresses may also be
 * given up front ({@link #addPeer}): the fan-out link needs them to reach the group at all.
 *
 * <p>Threading: {@link #send} and {@link #receive} are called by one driver thread only;
 * {@link #wakeup} and {@link #close} by any thread.
 */
public interface GroupLink extends GroupSender, AutoCloseable
{
    /**
     * Sends one packet; never throws. A send that fails (no address known for the id, a socket
     * error) is dropped and counted: the engines retransmit what matters.
     *
     * @param destinationId a member or client id, or {@link GroupSender#GROUP}.
     */
    @Override
    void send(int destinationId, ByteBuffer packet, int length);

    /**
     * Waits up to {@code timeoutNs} for one datagram and copies it to {@code into} from position 0.
     *
     * @return the datagram's length, or -1 when the time passed or {@link #wakeup} was called
     *         first.
     * @throws IOException when the link is closed.
     */
    int receive(ByteBuffer into, long timeoutNs) throws IOException;

    /** Makes a thread blocked in {@link #receive} (or the next call) return -1 at once. */
    void wakeup();

    /** Registers (or replaces) the unicast address of a member or client id. */
    void addPeer(int id, InetSocketAddress address);

    /** @return the unicast address known for an id, or null. */
    InetSocketAddress peer(int id);

    /** @return this end's unicast socket address: where the others send to this id. */
    InetSocketAddress localAddress();

    GroupLinkCounters counters();

    @Override
    void close();
}
