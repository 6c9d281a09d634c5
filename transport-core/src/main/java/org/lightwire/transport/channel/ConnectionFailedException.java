package org.lightwire.transport.channel;

import java.io.IOException;

import org.lightwire.transport.protocol.CloseCause;

/**
 * A call could not complete because its connection failed: the peer restarted, closed the
 * connection or stopped answering, or the network reported a hard error. The connection is a
 * zombie and has been discarded; a new call opens a new one. {@link #closeCause()} says why,
 * when it is known, and {@link #notExecuted()} whether the server provably did not execute the
 * call, so that it may be sent again on a new connection without breaking exactly-once.
 */
public class ConnectionFailedException extends IOException
{
    private static final long serialVersionUID = 1L;

    private final CloseCause closeCause;

    public ConnectionFailedException(final String message)
    {
        this(message, null, null);
    }

    public ConnectionFailedException(final String message, final Throwable cause)
    {
        this(message, cause, null);
    }

    /** @param closeCause why the connection ended, or null when not known. */
    public ConnectionFailedException(final String message, final Throwable cause, final CloseCause closeCause)
    {
        super(message, cause);
        this.closeCause = closeCause;
    }

    /** @return why the connection ended, or null when not known. */
    public CloseCause closeCause()
    {
        return closeCause;
    }

    /** @return true when the server certainly did not execute the failed call. */
    public boolean notExecuted()
    {
        return closeCause != null && closeCause.notExecuted();
    }
}
