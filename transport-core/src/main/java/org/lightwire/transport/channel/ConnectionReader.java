package org.lightwire.transport.channel;

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

    ConnectionReader(final String name, final UdpServerConnection connection, final ServerSession session)
    {
        this.name = name;
        this.connection = connection;
        this.session = session;
        this.placement = session::receiveBuffer;
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
