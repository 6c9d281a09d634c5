package org.lightwire.transport.channel;

import java.nio.ByteBuffer;

import org.lightwire.transport.link.udp.DatagramPlacement;
import org.lightwire.transport.link.udp.UdpServerConnection;

/**
 * The application's handle on a server connection that it reads itself, on a thread of its own
 * ({@link RequestHandler#readsConnections()}): each {@link #readOnce()} takes one datagram from
 * the connection's own socket and runs it through the connection's engine on the calling thread,
 * so a request that it completes reaches {@link RequestHandler#onRequest} with no thread hand-off.
 */
public final class ConnectionReader
{
    private final String name;
    private final UdpServerConnection connection;
    private final ServerSession session;
    private final DatagramPlacement placement;
    /** Where a datagram goes when no request is being put together; this reader's own unless given. */
    private ByteBuffer scratch;

    ConnectionReader(final String name, final UdpServerConnection connection, final ServerSession session)
    {
        this.name = name;
        this.connection = connection;
        this.session = session;
        this.placement = this::bufferFor;
    }

    /**
     * Reads datagrams that start no request in place into {@code buffer} instead of a buffer of
     * this reader's own: a thread that reads many connections shares one. The buffer must hold
     * the largest datagram and one byte more; a request read there stays valid until the next read.
     */
    public void shareReceiveBuffer(final ByteBuffer buffer)
    {
        this.scratch = buffer;
    }

    private ByteBuffer bufferFor(final int datagramBytes, final int payloadOffset)
    {
        final ByteBuffer window = session.receiveBuffer(datagramBytes, payloadOffset);
        if (window != null)
        {
            return window;
        }
        if (scratch == null || scratch.capacity() < datagramBytes)
        {
            scratch = ByteBuffer.allocateDirect(datagramBytes);
        }
        return scratch.clear();
    }

    /** @return the connection's name, as {@link ServerCall#connection()} gives it. */
    public String name()
    {
        return name;
    }

    /**
     * Blocks until one datagram of the connection arrived and was handled. One thread at a time.
     *
     * @return false once the connection is closed; {@link RequestHandler#onConnectionClosed}
     *     follows (or came already).
     */
    public boolean readOnce()
    {
        try
        {
            return connection.receiveOnOwnSocket(placement);
        }
        finally
        {
            session.afterReceive();
        }
    }

    /** What {@link #poll()} found. */
    public enum Poll
    {
        /** One datagram was read and handled. */
        HANDLED,
        /** No datagram was waiting. */
        NOTHING,
        /** The connection is closed; {@link RequestHandler#onConnectionClosed} follows (or came already). */
        CLOSED
    }

    /**
     * @return the connection's socket in non-blocking mode, for a thread that waits on the
     *     sockets of many connections with one {@link java.nio.channels.Selector} and then calls
     *     {@link #poll()}; null when the connection is closed. Once this is called, read the
     *     connection with {@link #poll()} only, until {@link #useBlockingReads()}.
     * @throws java.io.IOException the socket could not be switched to non-blocking mode.
     */
    public java.nio.channels.SelectableChannel selectableChannel() throws java.io.IOException
    {
        return connection.ownSocketChannel();
    }

    /**
     * Puts the connection's socket in blocking mode, so that {@link #readOnce()} waits in one
     * receive: for a thread that stops selecting the socket (or never did) and reads it alone.
     * A socket registered with a selector must have left it first (its key cancelled, and a
     * selection made since).
     *
     * @return false when the connection is closed.
     * @throws java.io.IOException the socket could not be switched (it was closed meanwhile).
     * @throws java.nio.channels.IllegalBlockingModeException the socket is still registered with a selector.
     */
    public boolean useBlockingReads() throws java.io.IOException
    {
        return connection.blockingOwnSocket();
    }

    /** Reads and handles the datagram waiting on the connection's socket, if any, without blocking. One thread at a time. */
    public Poll poll()
    {
        try
        {
            final int n = connection.pollOwnSocket(placement);
            return n > 0 ? Poll.HANDLED : n == 0 ? Poll.NOTHING : Poll.CLOSED;
        }
        finally
        {
            session.afterReceive();
        }
    }

    /** Closes the connection: a blocked {@link #readOnce()} returns false; the client's next packet gets REJECT. */
    public void close()
    {
        connection.close();
    }

    @Override
    public String toString()
    {
        return "ConnectionReader{" + name + '}';
    }
}
