package org.lightwire.atm;

import java.io.IOException;

/**
 * A failed call into the Linux ATM socket API, with the operation and the {@code errno}; made
 * only by {@link AtmErrors}, whose message says what to do about it.
 */
public class AtmException extends IOException
{
    private static final long serialVersionUID = 1L;

    private final AtmErrors.Operation operation;
    private final int errno;

    AtmException(final AtmErrors.Operation operation, final int errno, final String message)
    {
        super(message);
        this.operation = operation;
        this.errno = errno;
    }

    /** @return what was being done: open a socket, set QoS, connect, send, receive... */
    public AtmErrors.Operation operation()
    {
        return operation;
    }

    /** @return the positive errno the kernel returned. */
    public int errno()
    {
        return errno;
    }
}
