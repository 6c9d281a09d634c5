package org.lightwire.transport.link.udp;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server end of one Lightwire connection on a {@link UdpServerEndpoint}: a client socket
 * address, the random connection id the set-up exchange gave it, and the nonce of the CONNECT
 * that opened it.
 *
 * <p>{@link #send} may be called from the endpoint's receive thread and from any other thread.
 */
public final class UdpServerConnection
{
    private final ServerDemultiplexer demultiplexer;
    private final long connectionId;
    private final long nonce;
    private final InetSocketAddress remoteAddress;
    private final int maxPacketBytes;
    private final AtomicBoolean closed = new AtomicBoolean();

    UdpServerConnection(
        final ServerDemultiplexer demultiplexer,
        final long connectionId,
        final long nonce,
        final InetSocketAddress remoteAddress,
        final int maxPacketBytes)
    {
        this.demultiplexer = demultiplexer;
        this.connectionId = connectionId;
        this.nonce = nonce;
        this.remoteAddress = remoteAddress;
        this.maxPacketBytes = maxPacketBytes;
    }

    /** @return the connection id that prefixes every datagram of this connection. */
    public long connectionId()
    {
        return connectionId;
    }

    /** @return the nonce of the CONNECT that opened the connection. */
    public long nonce()
    {
        return nonce;
    }

    /** @return the client socket's address; datagrams with this id from elsewhere are dropped. */
    public InetSocketAddress remoteAddress()
    {
        return remoteAddress;
    }

    /** @return min(server's, client's max packet bytes): the largest packet {@link #send} takes. */
    public int maxPacketBytes()
    {
        return maxPacketBytes;
    }

    /** @return true until {@link #close()} or the endpoint's close. */
    public boolean isOpen()
    {
        return !closed.get();
    }

    /**
     * Sends one packet to the client as one datagram: prefix, header, payload.
     *
     * <p>The prefix, header and payload are copied into one buffer of the endpoint's front-end
     * before this returns (the Netty front-end's write completes later, on its event loop): the
     * caller may reuse the header at once, and keeps owning the payload (it may be retransmitted
     * or recycled). Positions of {@code header} and {@code payload} are restored.
     *
     * @param header the omniTransport header, from position to limit.
     * @param payload the payload from position to limit, or null.
     * @return false when the connection is closed and nothing was sent.
     * @throws IllegalArgumentException the packet is larger than {@link #maxPacketBytes()}.
     */
    public boolean send(final ByteBuffer header, final ByteBuffer payload)
    {
        if (closed.get())
        {
            return false;
        }
        final int headerBytes = header.remaining();
        final int payloadBytes = payload == null ? 0 : payload.remaining();
        if (headerBytes + payloadBytes > maxPacketBytes)
        {
            throw new IllegalArgumentException("packet of " + (headerBytes + payloadBytes) + " bytes exceeds " +
                "maxPacketBytes() = " + maxPacketBytes + " of connection " + UdpPrefixFlyweight.formatId(connectionId) +
                "; fragment it");
        }

        demultiplexer.send(connectionId, header, payload, remoteAddress);
        return true;
    }

    /**
     * Closes the connection: it leaves the endpoint's table (on the receive thread; at once
     * when called there), {@link ServerPacketHandler#onClose} is called, and later datagrams with
     * its id are answered with REJECT. Idempotent.
     */
    public void close()
    {
        close("closed by the server application");
    }

    void close(final String reason)
    {
        if (closed.compareAndSet(false, true))
        {
            demultiplexer.onConnectionClosed(this, reason);
        }
    }

    /** Marks the connection closed without telling the endpoint (the endpoint is closing it). */
    boolean markClosed()
    {
        return closed.compareAndSet(false, true);
    }

    @Override
    public String toString()
    {
        return "UdpServerConnection{connectionId=" + UdpPrefixFlyweight.formatId(connectionId) +
            ", nonce=" + UdpPrefixFlyweight.formatId(nonce) +
            ", remoteAddress=" + remoteAddress +
            ", maxPacketBytes=" + maxPacketBytes +
            ", open=" + !closed.get() + '}';
    }
}
