package org.lightwire.atm;

/** EPIPE, ENOTCONN or ECONNRESET: the virtual circuit was released; open a new one. */
public final class CircuitReleasedException extends AtmException
{
    private static final long serialVersionUID = 1L;

    CircuitReleasedException(final AtmErrors.Operation operation, final int errno, final String message)
    {
        super(operation, errno, message);
    }
}
