package org.lightwire.atm;

/** EMSGSIZE: an SDU larger than the circuit's transmit maximum SDU (its QoS {@code max_sdu}). */
public final class SduTooLargeException extends AtmException
{
    private static final long serialVersionUID = 1L;

    SduTooLargeException(final AtmErrors.Operation operation, final int errno, final String message)
    {
        super(operation, errno, message);
    }
}
