package org.lightwire.transport.link.udp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.HeaderFlyweight;

/**
 * The server end of one Lightwire connection on a {@link UdpServerEndpoint}: a client socket
 * address, the random connection id the set-up exchange gave it, and the nonce of the CONNECT
 * that opened it.
 *
 * <p>{@link #send} may be called from the endpoint's receive thread and from any other thread.
 *
 * <p>A connection may have a socket of its own ({@link #openOwnSocket()}): the client's datagrams
 * then reach the application thread that calls {@link #receiveOnOwnSocket}, not the endpoint's
 * receive thread.
 */
public final class UdpServerConnection
{
    /** Where a packet's payload starts in a datagram: after the prefix and the engine's header. */
    private static final int PAYLOAD_OFFSET = UdpPrefixFlyweight.HEADER_LENGTH + HeaderFlyweight.HEADER_LENGTH;

    private final ServerDemultiplexer demultiplexer;
    private final long connectionId;
    private final long nonce;
    private final InetSocketAddress remoteAddress;
    private final int maxPacketBytes;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicReference<ConnectionSocket> ownSocket = new AtomicReference<>();

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

        final ConnectionSocket own = ownSocket.get();
        demultiplexer.send(connectionId, header, payload, remoteAddress, own == null ? null : own.channel);
        return true;
    }

    /**
     * Closes the connection for the server application ({@link CloseCause#SERVER_CLOSED}).
     *
     * @see #close(CloseCause, String)
     */
    public void close()
    {
        close(CloseCause.SERVER_CLOSED, "closed by the server application");
    }

    /**
     * Closes the connection: it leaves the endpoint's table (on the receive thread; at once
     * when called there), {@link ServerPacketHandler#onClose} is called, and later datagrams with
     * its id are answered with a REJECT that names {@code cause} while the endpoint remembers it.
     * Idempotent: the first cause is the one remembered.
     *
     * @param cause why, for the client: {@link CloseCause#IDLE} only when nothing was in progress.
     * @param reason why, for logs.
     */
    public void close(final CloseCause cause, final String reason)
    {
        if (closed.compareAndSet(false, true))
        {
            closeOwnSocket();
            demultiplexer.onConnectionClosed(this, cause, reason);
        }
    }

    /** Marks the connection closed without telling the endpoint (the endpoint is closing it). */
    boolean markClosed()
    {
        if (closed.compareAndSet(false, true))
        {
            closeOwnSocket();
            return true;
        }
        return false;
    }

    /**
     * Gives the connection a socket of its own, connected to the client. Call it from
     * {@link ServerPacketHandler#onConnect} only, before the ACCEPT goes out: every datagram the
     * client sends after the ACCEPT then arrives on that socket, and the application must read
     * it with {@link #receiveOnOwnSocket} on a thread of its own. Needs the endpoint's socket
     * bound with {@code reusePort} and the BLOCKING front-end.
     *
     * @return false when the socket could not be opened (the reason is counted as an I/O error
     *     of the endpoint); the connection then goes on through the endpoint's socket.
     */
    public boolean openOwnSocket()
    {
        if (ownSocket.get() == null && !closed.get())
        {
            ownSocket.set(demultiplexer.openOwnSocket(this));
        }
        return ownSocket.get() != null;
    }

    /** @return true while the connection has a socket of its own. */
    public boolean hasOwnSocket()
    {
        return ownSocket.get() != null;
    }

    /**
     * Closes the connection's own socket, if it has one. Called from
     * {@link ServerPacketHandler#onConnect}, this gives the connection back to the endpoint's
     * socket (the ACCEPT has not gone out yet); later, it is part of closing the connection.
     */
    public void closeOwnSocket()
    {
        final ConnectionSocket socket = ownSocket.getAndSet(null);
        if (socket != null)
        {
            socket.close();
            demultiplexer.onOwnSocketClosed(this);
        }
    }

    /**
     * Blocks until a datagram arrives on the connection's own socket and hands it on, on this
     * thread: a packet of this connection to {@link ServerPacketHandler#onPacket}, anything else
     * (a retransmitted CONNECT, say) to the endpoint's receive thread. One thread at a time.
     *
     * @param placement where the datagram is read; the handler sees it there, from the buffer's
     *                  position.
     * @return false once the socket is closed (the connection is closing).
     * @throws IllegalStateException the connection never had a socket of its own.
     */
    public boolean receiveOnOwnSocket(final DatagramPlacement placement)
    {
        final ConnectionSocket socket = ownSocket.get();
        if (socket == null)
        {
            if (closed.get())
            {
                return false;
            }
            throw new IllegalStateException("connection " + UdpPrefixFlyweight.formatId(connectionId) + " has no socket of its own");
        }
        final ByteBuffer buffer = placement.bufferFor(UdpPrefixFlyweight.HEADER_LENGTH + maxPacketBytes + 1, PAYLOAD_OFFSET);
        final int start = buffer.position();
        // An interrupt pending on the reading thread would close the channel (InterruptibleChannel):
        // it is put aside for the read and restored after it.
        final boolean interrupted = Thread.interrupted();
        try
        {
            socket.channel.read(buffer);
        }
        catch (final ClosedChannelException ex)
        {
            close(CloseCause.HARD_ERROR, "its socket was closed");
            return false;
        }
        catch (final IOException ex)
        {
            // A connected UDP socket reports an ICMP error (the client's port is closed) on the
            // next read: counted, and the connection goes on until its engine gives up.
            demultiplexer.onIoError(ex);
            return !closed.get();
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
        buffer.limit(buffer.position()).position(start);
        demultiplexer.onOwnSocketDatagram(this, buffer, System.nanoTime());
        return true;
    }

    /**
     * Handles the datagram waiting on the connection's own socket, if one waits, without
     * blocking: for a thread that waits on the sockets of many connections with one selector
     * ({@link #ownSocketChannel()}) and calls this for each one found readable.
     *
     * @param placement where the datagram is read, as for {@link #receiveOnOwnSocket}.
     * @return 1 when a datagram was handled, 0 when none was waiting, -1 once the socket is closed.
     */
    public int pollOwnSocket(final DatagramPlacement placement)
    {
        final ConnectionSocket socket = ownSocket.get();
        if (socket == null)
        {
            return -1;
        }
        final ByteBuffer buffer = placement.bufferFor(UdpPrefixFlyweight.HEADER_LENGTH + maxPacketBytes + 1, PAYLOAD_OFFSET);
        final int start = buffer.position();
        final boolean interrupted = Thread.interrupted();
        try
        {
            // receive(), not read(): it tells an empty datagram (malformed) from none at all.
            if (socket.channel.receive(buffer) == null)
            {
                return 0;
            }
        }
        catch (final ClosedChannelException ex)
        {
            close(CloseCause.HARD_ERROR, "its socket was closed");
            return -1;
        }
        catch (final IOException ex)
        {
            // An ICMP error reported on the connected socket: counted; the engine decides.
            demultiplexer.onIoError(ex);
            return closed.get() ? -1 : 1;
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
        buffer.limit(buffer.position()).position(start);
        demultiplexer.onOwnSocketDatagram(this, buffer, System.nanoTime());
        return 1;
    }

    /**
     * @return the connection's own socket, switched to non-blocking mode so that it can be
     *     registered with a selector (then read it with {@link #pollOwnSocket} only); null when
     *     it has none.
     * @throws IOException the mode could not be changed.
     */
    public java.nio.channels.DatagramChannel ownSocketChannel() throws IOException
    {
        final ConnectionSocket socket = ownSocket.get();
        if (socket == null)
        {
            return null;
        }
        socket.channel.configureBlocking(false);
        return socket.channel;
    }

    /**
     * Puts the connection's own socket (back) in blocking mode, for {@link #receiveOnOwnSocket}:
     * for a thread that read it through a selector and now waits on it alone. Its key must have
     * left every selector (cancelled, and a selection made since).
     *
     * @return false when it has no socket of its own.
     * @throws IOException the mode could not be changed (the socket is closed).
     * @throws java.nio.channels.IllegalBlockingModeException the socket is still registered with a selector.
     */
    public boolean blockingOwnSocket() throws IOException
    {
        final ConnectionSocket socket = ownSocket.get();
        if (socket == null)
        {
            return false;
        }
        socket.channel.configureBlocking(true);
        return true;
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
