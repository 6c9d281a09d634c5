package org.lightwire.atm;

/**
 * The one place where a {@code -errno} from the shim becomes a Java exception, typed by what a
 * caller can do about it and with a message that says so:
 * <ul>
 * <li>EAFNOSUPPORT: {@link AtmUnsupportedException}, the kernel has no ATM;</li>
 * <li>EMSGSIZE: {@link SduTooLargeException}, the SDU exceeds the QoS maximum;</li>
 * <li>EPIPE, ENOTCONN, ECONNRESET: {@link CircuitReleasedException};</li>
 * <li>EINVAL while setting or applying a QoS: {@link QosRejectedException} naming the parameter;</li>
 * <li>anything else: {@link AtmException} with the operation, the circuit and the errno name.</li>
 * </ul>
 */
public final class AtmErrors
{
    /** What the shim was asked to do when it failed. */
    public enum Operation
    {
        SOCKET("open an ATM socket"),
        SET_QOS("set the QoS (SO_ATMQOS)"),
        SET_SAP("set the SAP (SO_ATMSAP)"),
        CONNECT("connect"),
        BIND("bind"),
        LISTEN("listen"),
        ACCEPT("accept"),
        LINK_RATE("read the link rate"),
        SEND("send an AAL5 SDU"),
        RECEIVE("receive an AAL5 SDU"),
        CLOSE("close");

        private final String description;

        Operation(final String description)
        {
            this.description = description;
        }

        /** @return what the operation does, for messages. */
        public String description()
        {
            return description;
        }
    }

    private AtmErrors()
    {
    }

    /**
     * @param operation what failed.
     * @param result the shim's negative result ({@code -errno}).
     * @param circuit the PVC or SVC address, for the message.
     * @param tx transmit QoS in force, or null.
     * @param rx receive QoS in force, or null.
     * @param sduBytes the SDU being sent, or -1.
     * @return the exception to throw.
     */
    public static AtmException exception(
        final Operation operation, final int result, final String circuit, final AtmQos tx, final AtmQos rx, final int sduBytes)
    {
        final int errno = -result;
        final String name = Errno.name(errno);
        final String what = "cannot " + operation.description() + " on ATM circuit " + circuit + " (" + name + "): ";
        switch (errno)
        {
            case Errno.EAFNOSUPPORT:
                return new AtmUnsupportedException(operation, errno, "this kernel has no ATM support: " +
                    (operation == Operation.SOCKET ? "socket(AF_ATMPVC/AF_ATMSVC) failed with EAFNOSUPPORT" : what) +
                    ". Load the ATM modules (modprobe atm and a driver such as atmtcp) or boot a kernel built with" +
                    " CONFIG_ATM (Debian's linux-image-*-amd64 has it as a module); atm-jni/src/test/qemu boots one");
            case Errno.EMSGSIZE:
                return new SduTooLargeException(operation, errno, what + "the SDU" +
                    (sduBytes >= 0 ? " of " + sduBytes + " bytes" : "") + " is larger than the QoS maximum SDU" +
                    (tx != null ? " of " + tx.maxSduBytes() + " bytes (tx " + tx + ")" : "") +
                    ": raise qos.max_sdu (AAL5 allows up to " + AtmQos.MAX_AAL5_SDU_BYTES + ") or lower maxPacketBytes");
            case Errno.EPIPE:
            case Errno.ENOTCONN:
            case Errno.ECONNRESET:
                return new CircuitReleasedException(operation, errno, what + "the circuit was released (the peer" +
                    " closed it, or its interface or the daemon driving it went away): open a new circuit");
            case Errno.EINVAL:
                if (operation == Operation.SET_QOS || operation == Operation.CONNECT)
                {
                    final String parameter = faultyParameter(tx, rx);
                    return new QosRejectedException(operation, errno, parameter, what +
                        (operation == Operation.CONNECT ? "the VPI/VCI is outside the interface's range or " : "") +
                        "the kernel refused the QoS tx " + tx + ", rx " + rx + "; parameter at fault: " + parameter +
                        (parameter.equals("unknown") ? " (the values pass the kernel's own checks, so the interface" +
                        " refused them: lower the PCR or the max SDU)" : ""));
                }
                return new AtmException(operation, errno, what + "invalid argument");
            case Errno.ENODEV:
            case Errno.ENXIO:
                return new AtmException(operation, errno, what + "no such ATM interface: list them in" +
                    " /proc/net/atm/devices and use its number as the first part of itf.vpi.vci");
            case Errno.EADDRINUSE:
                return new AtmException(operation, errno, what + "that VPI/VCI is already open on the interface:" +
                    " close the other socket or choose another VCI");
            case Errno.EPERM:
            case Errno.EACCES:
                return new AtmException(operation, errno, what + "permission denied: VCIs below 32 need" +
                    " CAP_NET_BIND_SERVICE, so use a VCI of 32 or more");
            case Errno.EUNATCH:
                return new AtmException(operation, errno, what + "the interface's driver is detached (for atmtcp: its" +
                    " daemon exited); restart it and open the circuit again");
            case Errno.EDESTADDRREQ:
                return new AtmException(operation, errno, what + "not an ATM address that text2atm accepts" +
                    " (an NSAP such as 47.0005.80ffe1000000f21a2c9b.0020481a2c9b.00 or an E.164 number)");
            case Errno.ENAMETOOLONG:
                return new AtmException(operation, errno, what + "the address or SAP text is longer than 255 bytes");
            default:
                return new AtmException(operation, errno, what + describe(errno));
        }
    }

    /** The same as {@link #exception(Operation, int, String, AtmQos, AtmQos, int)} without QoS or SDU. */
    public static AtmException exception(final Operation operation, final int result, final String circuit)
    {
        return exception(operation, result, circuit, null, null, -1);
    }

    /**
     * Tells which QoS parameter the kernel would refuse, by the rules of net/atm/common.c
     * ({@code check_qos}, {@code check_tp}, {@code adjust_tp}).
     */
    static String faultyParameter(final AtmQos tx, final AtmQos rx)
    {
        if (tx == null || rx == null)
        {
            return "unknown";
        }
        if (tx.trafficClass() != rx.trafficClass())
        {
            return "class";
        }
        if (tx.trafficClass() != TrafficClass.UBR && tx.pcrCellsPerSecond() == 0)
        {
            return "tx.pcr";
        }
        if (rx.trafficClass() != TrafficClass.UBR && rx.pcrCellsPerSecond() == 0)
        {
            return "rx.pcr";
        }
        if (tx.maxSduBytes() > AtmQos.MAX_AAL5_SDU_BYTES)
        {
            return "tx.max_sdu";
        }
        if (rx.maxSduBytes() > AtmQos.MAX_AAL5_SDU_BYTES)
        {
            return "rx.max_sdu";
        }
        return "unknown";
    }

    private static String describe(final int errno)
    {
        if (AtmLibrary.isAvailable())
        {
            try
            {
                return AtmNative.strerror(errno);
            }
            catch (final UnsatisfiedLinkError ignored)
            {
                // A shim older than this class: the errno name alone still says what happened.
            }
        }
        return "errno " + errno;
    }
}
