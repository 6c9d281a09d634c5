package org.lightwire.transport.link.circuit;

import java.io.IOException;

/**
 * The client at the far end of a circuit connected anew (a CONNECT with a nonce other than the
 * current connection's): it is another incarnation, and the server's state of the old one (its
 * engine, a held reply) must go. The link has already accepted the new connection; the server
 * makes a fresh engine and goes on receiving.
 */
public final class PeerRestartedException extends IOException
{
    private static final long serialVersionUID = 1L;

    private final long connectionId;

    PeerRestartedException(final String circuit, final long connectionId)
    {
        super("the client on " + circuit + " connected anew (connection id " +
            org.lightwire.transport.link.udp.UdpPrefixFlyweight.formatId(connectionId) + "): the old connection is gone");
        this.connectionId = connectionId;
    }

    /** @return the new connection's id. */
    public long connectionId()
    {
        return connectionId;
    }
}
