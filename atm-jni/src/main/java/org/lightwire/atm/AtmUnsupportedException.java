package org.lightwire.atm;

/** EAFNOSUPPORT from {@code socket(AF_ATMPVC/AF_ATMSVC)}: the running kernel has no ATM support. */
public final class AtmUnsupportedException extends AtmException
{
    private static final long serialVersionUID = 1L;

    AtmUnsupportedException(final AtmErrors.Operation operation, final int errno, final String message)
    {
        super(operation, errno, message);
    }
}
