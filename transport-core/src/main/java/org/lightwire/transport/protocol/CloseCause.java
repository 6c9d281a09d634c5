package org.lightwire.transport.protocol;

/**
 * Why a connection ended: the engine's reason for becoming a zombie, a server's reason for
 * closing a connection, and the reason code a server puts in the REJECT it answers a closed
 * connection's datagrams with (see {@code docs/protocol.md}, "Connection identity over UDP"), so
 * that the client's error names the cause and the setting to change.
 *
 * <p>Each cause also says whether the call a client had in progress when it learned of the close
 * may have been executed. Only a cause that proves it was not ({@link #notExecuted()}) lets a
 * client send the call again on a new connection: that keeps exactly-once.
 */
public enum CloseCause
{
    /** The server does not know the connection: it restarted, or forgot the connection long ago. */
    UNKNOWN(0, false, "the server does not know the connection: it restarted, or closed the connection long ago"),
    /** Closed by the server while nothing was in progress on it. */
    IDLE(1, true, "the server closed the connection after it had been idle for the server's idle timeout; nothing sent on it " +
        "since was executed"),
    /** No packet from the peer for the peer timeout while one was awaited. */
    PEER_SILENT(2, false, "the server heard nothing from this client for its peer timeout (peerTimeoutNs) while it awaited a " +
        "packet, and closed the connection"),
    /** The request in progress was not received whole within the server's request timeout. */
    REQUEST_TIMEOUT(3, true, "the server did not receive the request whole within its request timeout (requestTimeoutNs) and " +
        "closed the connection; the request was not executed"),
    /** The request was larger than the server's largest request. */
    REQUEST_TOO_LARGE(4, true, "the request was larger than the server's largest request (maxMessageBytes); it was not executed"),
    /** The server's memory budget for requests being received was exhausted. */
    MEMORY_BUDGET(5, true, "the server's memory budget for requests being received (requestMemoryBytes) was exhausted; the " +
        "request was not executed"),
    /** The server application failed while handling the request. */
    HANDLER_FAILED(6, false, "the server application failed while it handled the request"),
    /** The server is shutting down, or its application closed the connection. */
    SERVER_CLOSED(7, false, "the server application closed the connection, or the server is shutting down"),
    /** The link reported a hard error (the paper's BAD). */
    HARD_ERROR(8, false, "the server's socket for the connection failed"),
    /** The client's address opened a new connection, proving the old one's socket gone. */
    REPLACED(9, false, "this client's address opened a new connection, so the server closed the old one"),
    /** The server refused a new connection: it has as many as it takes. */
    SERVER_FULL(10, true, "the server holds as many connections as it takes (maxConnections)"),
    /** The server refused a new connection: the client's address has as many as it may. */
    ADDRESS_LIMIT(11, true, "this client's IP address holds as many connections as the server allows one address " +
        "(maxConnectionsPerAddress)");

    private static final CloseCause[] BY_CODE = new CloseCause[12];

    static
    {
        for (final CloseCause cause : values())
        {
            BY_CODE[cause.code] = cause;
        }
    }

    private final int code;
    private final boolean notExecuted;
    private final String description;

    CloseCause(final int code, final boolean notExecuted, final String description)
    {
        this.code = code;
        this.notExecuted = notExecuted;
        this.description = description;
    }

    /** @return what happened, naming the server's setting that decided it, for error messages. */
    public String description()
    {
        return description;
    }

    /** @return the CARD8 reason code of a REJECT. */
    public int code()
    {
        return code;
    }

    /**
     * @return true when a call in progress on the connection when it ended was certainly not
     *     executed by the server, so that it may be sent again on another connection.
     */
    public boolean notExecuted()
    {
        return notExecuted;
    }

    /** @return the cause of a reason code; {@link #UNKNOWN} for a code this side does not know. */
    public static CloseCause fromCode(final int code)
    {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }
}
