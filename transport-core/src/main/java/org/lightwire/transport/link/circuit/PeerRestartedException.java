package org.lightwire.transport.link.circuit;

import java.io.IOException;

/**
 * A client connected on the circuit (a CONNECT with a nonce other than the current connection's):
 * the first, or another incarnation, and the server's state of any earlier one (its engine, a
 * held reply) must go. The link has already accepted the new connection; the server makes a
 * fresh engine for it and goes on receiving.
 */
public final class PeerRestartedException extends IOException
{
    private static final long serialVersionUID = 1L;

    private final long connectionId;

    PeerRestartedException(final String circuit, final long connectionId)
    {
        super("a client connected on " + circuit + " (connection id " +
            org.lightwire.transport.link.udp.UdpPrefixFlyweight.formatId(connectionId) + "): the old connection is gone");
        this.connectionId = connectionId;
    }

    /** @return the new connection's id. */
    public long connectionId()
    {
        return connectionId;
    }
}
