package org.lightwire.transport.link;

import java.io.IOException;

import org.lightwire.transport.protocol.CloseCause;

/**
 * The peer says it has closed the connection (over UDP: a REJECT naming it), and why. The link is
 * dead. The call in progress was certainly not executed when {@code closeCause().notExecuted()};
 * otherwise it may have been.
 */
public class PeerClosedException extends IOException
{
    private static final long serialVersionUID = 1L;

    private final CloseCause closeCause;

    public PeerClosedException(final String message, final CloseCause closeCause)
    {
        super(message);
        this.closeCause = closeCause;
    }

    /** @return why the peer closed the connection. */
    public CloseCause closeCause()
    {
        return closeCause;
    }
}
