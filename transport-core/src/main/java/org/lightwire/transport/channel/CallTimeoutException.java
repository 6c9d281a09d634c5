package org.lightwire.transport.channel;

/**
 * A call's reply did not arrive within the caller's timeout, although the server is alive (it
 * answers, or has not been silent for the peer timeout). Whether the server executed the call
 * is unknown. The connection carried the call and is discarded.
 */
public final class CallTimeoutException extends ConnectionFailedException
{
    private static final long serialVersionUID = 1L;

    public CallTimeoutException(final String message)
    {
        super(message);
    }
}
