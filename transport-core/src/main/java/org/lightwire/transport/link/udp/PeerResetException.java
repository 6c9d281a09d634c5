package org.lightwire.transport.link.udp;

import java.net.InetSocketAddress;

import org.lightwire.transport.link.PeerClosedException;
import org.lightwire.transport.protocol.CloseCause;

/**
 * The server answered REJECT naming this client's connection id: it no longer knows the
 * connection, because it closed it (the REJECT says why: {@link #closeCause()}) or because it
 * restarted (a new incarnation, {@link CloseCause#UNKNOWN}). The link is dead; open a new
 * connection. The call in progress was certainly not executed when
 * {@code closeCause().notExecuted()}; otherwise it may have been.
 */
public final class PeerResetException extends PeerClosedException
{
    private static final long serialVersionUID = 1L;

    private final InetSocketAddress serverAddress;
    private final long connectionId;

    public PeerResetException(final InetSocketAddress serverAddress, final long connectionId, final CloseCause closeCause)
    {
        super("server at " + serverAddress + " no longer knows connection id " + UdpPrefixFlyweight.formatId(connectionId) +
            ": " + closeCause.description() + "; open a new connection", closeCause);
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
