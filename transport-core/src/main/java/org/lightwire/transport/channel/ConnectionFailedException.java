package org.lightwire.transport.channel;

import java.io.IOException;

/**
 * A call could not complete because its connection failed: the peer restarted or stopped
 * answering, or the network reported a hard error. The connection is a zombie and has been
 * discarded; a new call opens a new one.
 */
public class ConnectionFailedException extends IOException
{
    private static final long serialVersionUID = 1L;

    public ConnectionFailedException(final String message)
    {
        super(message);
    }

    public ConnectionFailedException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
