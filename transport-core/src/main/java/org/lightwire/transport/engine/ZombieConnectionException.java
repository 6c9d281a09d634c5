package org.lightwire.transport.engine;

/**
 * Thrown by every operation on a connection that has moved to the ZOMBIE state after a hard
 * error (paper, section 4.2.1 iii): the connection can carry no more calls and must be replaced.
 */
public final class ZombieConnectionException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public ZombieConnectionException(final String reason)
    {
        super("connection is a zombie and can carry no more calls: " + reason);
    }
}
