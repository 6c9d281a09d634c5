package org.lightwire.atm;

/**
 * EINVAL on a QoS: the kernel or the interface refused the traffic parameters.
 * {@link #parameter()} names the one at fault where it can be told, as the message does.
 */
public final class QosRejectedException extends AtmException
{
    private static final long serialVersionUID = 1L;

    private final String parameter;

    QosRejectedException(final AtmErrors.Operation operation, final int errno, final String parameter, final String message)
    {
        super(operation, errno, message);
        this.parameter = parameter;
    }

    /** @return the parameter at fault ({@code "tx.pcr"}, {@code "rx.max_sdu"}, ...), or {@code "unknown"}. */
    public String parameter()
    {
        return parameter;
    }
}
