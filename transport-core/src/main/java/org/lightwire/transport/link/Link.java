package org.lightwire.transport.link;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;

/**
 * The transport's view of the network for one connection: a point-to-point path for datagrams.
 *
 * <p>A link carries omniTransport packets (the 8-byte header and its payload). Whatever the
 * medium needs around them (the UDP connection-id prefix, nothing on an ATM virtual circuit) is
 * the link's business: {@link #send} is given the header and the payload, {@link #receive}
 * returns the header and the payload.
 *
 * <p>A link is used by one thread at a time for sending and one at a time for receiving; the
 * driver that owns it serialises access.
 */
public interface Link extends Closeable
{
    /** Returned by {@link #receive} when the timeout passed with nothing received. */
    int TIMEOUT = -1;

    /** A timeout for {@link #receive}: wait until a packet arrives or the link is closed. */
    long FOREVER = Long.MAX_VALUE;

    /**
     * Sends one packet as one datagram, gathering {@code header} and {@code payload} without
     * copying the payload. Both buffers are read from their position to their limit; their
     * positions are left unspecified.
     *
     * @param header the omniTransport header, {@code HeaderFlyweight.HEADER_LENGTH} bytes.
     * @param payload the packet's payload, or null for a control packet.
     * @throws IOException a hard network error (the paper's "BAD"): the connection is lost.
     */
    void send(ByteBuffer header, ByteBuffer payload) throws IOException;

    /**
     * Receives one packet into {@code dst} from its position on and advances the position past
     * it. Datagrams the link drops itself (wrong connection id, wrong sender, malformed prefix)
     * are counted by the link and never returned.
     *
     * @param timeoutNs how long to wait: 0 polls without blocking.
     * @return the packet's length in bytes (header included), or {@link #TIMEOUT}.
     * @throws IOException a hard network error, or the link was closed.
     */
    int receive(ByteBuffer dst, long timeoutNs) throws IOException;

    /** @return the largest packet, header included, that one datagram carries on this link. */
    int maxPacketBytes();

    /**
     * @return how long the peer keeps this connection while nothing is in progress on it before
     *     it closes it, as the peer announced; 0 when it never does (or did not say). A client
     *     stops using a connection well before then, so that no call meets a closed one.
     */
    default long peerIdleTimeoutNs()
    {
        return 0;
    }

    /** @return true when the medium delivers packets in the order they were sent (ATM VCs). */
    boolean preservesOrder();

    /**
     * @return true when {@link #receive} honours any timeout; false when it takes only 0 (poll)
     * and {@link #FOREVER}, so that a wait costs one blocking system call and nothing else. The
     * driver of such a link enforces its deadlines from another thread, and ends a wait that must
     * not go on by closing the link.
     */
    default boolean timedReceive()
    {
        return true;
    }

    /**
     * A non-blocking channel that becomes readable when {@link #receive} has a packet to return,
     * so that one thread can wait on the links of many connections with one
     * {@link java.nio.channels.Selector} (a caller registers it for {@code OP_READ} with its own
     * selector; the link keeps using the channel as before). Readiness is a hint: a datagram
     * the link drops makes the channel readable too.
     *
     * @return the channel, or null when the link has none (the default): its receiver must
     *     then block in {@link #receive}.
     */
    default SelectableChannel selectableChannel()
    {
        return null;
    }
}
