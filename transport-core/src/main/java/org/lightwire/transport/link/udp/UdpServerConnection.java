package org.lightwire.transport.link.udp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.socket.DatagramPacket;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server end of one Lightwire connection on a {@link UdpServerEndpoint}: a client socket
 * address, the random connection id the set-up exchange gave it, and the nonce of the CONNECT
 * that opened it.
 *
 * <p>{@link #send} may be called from the event loop and from any other thread.
 */
public final class UdpServerConnection
{
    private final UdpServerEndpoint endpoint;
    private final long connectionId;
    private final long nonce;
    private final InetSocketAddress remoteAddress;
    private final int maxPacketBytes;
    private final AtomicBoolean closed = new AtomicBoolean();

    UdpServerConnection(
        final UdpServerEndpoint endpoint,
        final long connectionId,
        final long nonce,
        final InetSocketAddress remoteAddress,
        final int maxPacketBytes)
    {
        this.endpoint = endpoint;
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
     * <p>The prefix, header and payload are copied into one pooled direct buffer, and that
     * buffer goes to Netty. The copy is deliberate: Netty's write completes asynchronously (it
     * is queued when called off the event loop, or when the socket buffer is full), while the
     * caller reuses the header at once and owns the payload (it may be retransmitted or
     * recycled). Wrapping the caller's buffers in a composite would let epoll gather them with
     * sendmsg, but Netty could then read them after this method returned. Positions of
     * {@code header} and {@code payload} are restored.
     *
     * <p>Off the event loop (a reply computed by a worker thread), the datagram is sent on the
     * calling thread with one {@code sendto} when the endpoint runs on epoll, instead of being
     * queued for the event loop, which would have to be woken to send it: one thread hand-off less
     * on the reply path.
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

        final Channel channel = endpoint.channel();
        ByteBuf datagram = channel.alloc().directBuffer(UdpPrefixFlyweight.HEADER_LENGTH + headerBytes + payloadBytes);
        try
        {
            datagram.writeLong(connectionId); // CARD64 big-endian: ByteBuf.writeLong is big-endian
            final int headerPosition = header.position();
            datagram.writeBytes(header);
            header.position(headerPosition);
            if (payload != null)
            {
                final int payloadPosition = payload.position();
                datagram.writeBytes(payload);
                payload.position(payloadPosition);
            }
            if (!endpoint.sendDirect(datagram, remoteAddress))
            {
                channel.writeAndFlush(new DatagramPacket(datagram, remoteAddress), channel.voidPromise());
                datagram = null;
            }
        }
        finally
        {
            if (datagram != null)
            {
                datagram.release();
            }
        }
        endpoint.onDatagramSent();
        return true;
    }

    /**
     * Closes the connection: it leaves the endpoint's table (on the event loop; at once when
     * called there), {@link ServerPacketHandler#onClose} is called, and later datagrams with
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
            endpoint.onConnectionClosed(this, reason);
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
