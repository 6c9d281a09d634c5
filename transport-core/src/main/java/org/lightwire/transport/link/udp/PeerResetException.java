package org.lightwire.transport.link.udp;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The server answered REJECT naming this client's connection id: it no longer knows the
 * connection, because it restarted (a new incarnation) or dropped the connection. The link is
 * dead; open a new connection.
 */
public final class PeerResetException extends IOException
{
    private static final long serialVersionUID = 1L;

    private final InetSocketAddress serverAddress;
    private final long connectionId;

    public PeerResetException(final InetSocketAddress serverAddress, final long connectionId)
    {
        super("server at " + serverAddress + " no longer knows connection id " +
            UdpPrefixFlyweight.formatId(connectionId) +
            ": it restarted or dropped the connection (a new incarnation); open a new connection");
        this.serverAddress = serverAddress;
        this.connectionId = connectionId;
    }

    public InetSocketAddress serverAddress()
    {
        return serverAddress;
    }

    public long connectionId()
    {
        return connectionId;
    }
}
