package org.lightwire.atm;

/** The Linux errno values the shim returns negated (the generic numbering of x86-64 and arm64). */
final class Errno
{
    static final int EPERM = 1;
    static final int EINTR = 4;
    static final int ENXIO = 6;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EACCES = 13;
    static final int EFAULT = 14;
    static final int ENODEV = 19;
    static final int EINVAL = 22;
    static final int EPIPE = 32;
    static final int ENAMETOOLONG = 36;
    static final int EUNATCH = 49;
    static final int EBADFD = 77;
    static final int EDESTADDRREQ = 89;
    static final int EMSGSIZE = 90;
    static final int EPROTONOSUPPORT = 93;
    static final int EOPNOTSUPP = 95;
    static final int EAFNOSUPPORT = 97;
    static final int EADDRINUSE = 98;
    static final int EADDRNOTAVAIL = 99;
    static final int ENETUNREACH = 101;
    static final int ECONNRESET = 104;
    static final int ENOBUFS = 105;
    static final int EISCONN = 106;
    static final int ENOTCONN = 107;
    static final int ETIMEDOUT = 110;
    static final int ECONNREFUSED = 111;
    static final int EHOSTUNREACH = 113;
    static final int EALREADY = 114;
    static final int ECANCELED = 125;

    private Errno()
    {
    }

    /** @return the symbolic name of {@code errno}, or {@code "errno <n>"}. */
    static String name(final int errno)
    {
        return switch (errno)
        {
            case EPERM -> "EPERM";
            case EINTR -> "EINTR";
            case ENXIO -> "ENXIO";
            case EBADF -> "EBADF";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case EPIPE -> "EPIPE";
            case ENAMETOOLONG -> "ENAMETOOLONG";
            case EUNATCH -> "EUNATCH";
            case EBADFD -> "EBADFD";
            case EDESTADDRREQ -> "EDESTADDRREQ";
            case EMSGSIZE -> "EMSGSIZE";
            case EPROTONOSUPPORT -> "EPROTONOSUPPORT";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case EAFNOSUPPORT -> "EAFNOSUPPORT";
            case EADDRINUSE -> "EADDRINUSE";
            case EADDRNOTAVAIL -> "EADDRNOTAVAIL";
            case ENETUNREACH -> "ENETUNREACH";
            case ECONNRESET -> "ECONNRESET";
            case ENOBUFS -> "ENOBUFS";
            case EISCONN -> "EISCONN";
            case ENOTCONN -> "ENOTCONN";
            case ETIMEDOUT -> "ETIMEDOUT";
            case ECONNREFUSED -> "ECONNREFUSED";
            case EHOSTUNREACH -> "EHOSTUNREACH";
            case EALREADY -> "EALREADY";
            case ECANCELED -> "ECANCELED";
            default -> "errno " + errno;
        };
    }
}
