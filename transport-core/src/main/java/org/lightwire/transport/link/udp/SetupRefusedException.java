package org.lightwire.transport.link.udp;

import java.net.ConnectException;
import java.net.InetSocketAddress;

import org.lightwire.transport.protocol.CloseCause;

/**
 * The server answered the client's CONNECT, its address proved, with REFUSE: it will not open the
 * connection now, for the reason {@link #closeCause()} names. Nothing was sent on it, so nothing
 * was executed; a later attempt may succeed once the server has room.
 */
public final class SetupRefusedException extends ConnectException
{
    private static final long serialVersionUID = 1L;

    private final CloseCause closeCause;

    public SetupRefusedException(final InetSocketAddress serverAddress, final CloseCause closeCause)
    {
        super("the Lightwire UDP server at " + serverAddress + " refused a new connection: " + closeCause.description());
        this.closeCause = closeCause;
    }

    /** @return why the server refused. */
    public CloseCause closeCause()
    {
        return closeCause;
    }
}
