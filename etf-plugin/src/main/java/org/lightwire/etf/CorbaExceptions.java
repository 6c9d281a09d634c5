package org.lightwire.etf;

import java.io.IOException;

import org.lightwire.transport.channel.CallTimeoutException;
import org.lightwire.transport.channel.ConnectionFailedException;
import org.lightwire.transport.link.udp.SetupRefusedException;
import org.lightwire.transport.protocol.CloseCause;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.IMP_LIMIT;
import org.omg.CORBA.NO_MEMORY;
import org.omg.CORBA.NO_RESOURCES;
import org.omg.CORBA.SystemException;
import org.omg.CORBA.TIMEOUT;
import org.omg.CORBA.TRANSIENT;

/**
 * The one place where Lightwire turns a transport failure into a CORBA system exception, each
 * with a minor code of its own and a message that says what failed and what to do:
 *
 * <table>
 *   <caption>Minor codes (vendor minor code set 0x4C57 "LW", not OMG-assigned)</caption>
 *   <tr><th>minor</th><th>exception</th><th>cause</th></tr>
 *   <tr><td>0x4C570001</td><td>TRANSIENT</td><td>no Lightwire server answered the set-up
 *       exchange (connect): JacORB then tries the IOR's next profile</td></tr>
 *   <tr><td>0x4C570002</td><td>COMM_FAILURE</td><td>the connection went zombie: the server
 *       restarted (REJECT), vanished (ICMP), or was silent for the peer timeout</td></tr>
 *   <tr><td>0x4C570003</td><td>TIMEOUT</td><td>{@code jacorb.lightwire.client.call_timeout_ms}
 *       passed without a reply from a live server</td></tr>
 *   <tr><td>0x4C570004</td><td>COMM_FAILURE</td><td>sending failed (socket error)</td></tr>
 *   <tr><td>0x4C570005</td><td>COMM_FAILURE</td><td>the ETF connection was closed</td></tr>
 *   <tr><td>0x4C570006</td><td>NO_RESOURCES</td><td>every transport connection to the server
 *       stayed busy for the acquire timeout</td></tr>
 *   <tr><td>0x4C570007</td><td>BAD_PARAM</td><td>a profile or corbaloc address that cannot be
 *       used (unknown host, bad port)</td></tr>
 *   <tr><td>0x4C570008</td><td>NO_MEMORY</td><td>the server's request memory budget had no
 *       room for the request (COMPLETED_NO)</td></tr>
 *   <tr><td>0x4C570009</td><td>IMP_LIMIT</td><td>the request was larger than the server's
 *       largest message (COMPLETED_NO)</td></tr>
 *   <tr><td>0x4C57000A</td><td>TRANSIENT</td><td>the server did not receive the request whole
 *       within its request timeout (COMPLETED_NO)</td></tr>
 *   <tr><td>0x4C57000B</td><td>MARSHAL</td><td>the server refused a message that its ORB
 *       connection, shared with other clients, must not see (malformed GIOP, a fragment, a
 *       message type a client does not send); sent in a GIOP reply by the server</td></tr>
 *   <tr><td>0x4C57000C</td><td>COMM_FAILURE</td><td>the server's ORB took no more server
 *       connections ({@code jacorb.connection.max_server_connections}; COMPLETED_NO); sent in a
 *       GIOP reply by the server</td></tr>
 * </table>
 *
 * <p>Whenever the server said why it closed a connection (its REJECT's cause), the message says it
 * and names the server's property that decided it; a cause that proves the request was not
 * executed gives COMPLETED_NO.
 */
public final class CorbaExceptions
{
    /** Vendor minor code set of Lightwire ("LW" in the top 20 bits' upper part; unregistered). */
    public static final int VMCID = 0x4C57_0000;
    public static final int MINOR_CONNECT_FAILED = VMCID | 1;
    public static final int MINOR_CONNECTION_FAILED = VMCID | 2;
    public static final int MINOR_CALL_TIMEOUT = VMCID | 3;
    public static final int MINOR_SEND_FAILED = VMCID | 4;
    public static final int MINOR_CLOSED = VMCID | 5;
    public static final int MINOR_ALL_BUSY = VMCID | 6;
    public static final int MINOR_BAD_ADDRESS = VMCID | 7;
    public static final int MINOR_REQUEST_MEMORY = VMCID | 8;
    public static final int MINOR_REQUEST_TOO_LARGE = VMCID | 9;
    public static final int MINOR_REQUEST_TIMEOUT = VMCID | 10;
    public static final int MINOR_REFUSED = VMCID | 11;
    public static final int MINOR_SERVER_CONNECTIONS = VMCID | 12;

    private CorbaExceptions()
    {
    }

    /** No server answered the set-up exchange: the caller may try another profile. */
    public static TRANSIENT connectFailed(final String server, final IOException cause)
    {
        final String hint = cause instanceof SetupRefusedException ?
            serverProperty(((SetupRefusedException)cause).closeCause()) :
            " (is the server running with the Lightwire listener? see " + LightwireConfig.CONNECT_TIMEOUT_MS + ")";
        final TRANSIENT e = new TRANSIENT("Lightwire: cannot connect to " + server + ": " + cause.getMessage() + hint,
            MINOR_CONNECT_FAILED, CompletionStatus.COMPLETED_NO);
        e.initCause(cause);
        return e;
    }

    /** Every transport connection stayed busy. */
    public static NO_RESOURCES allBusy(final String server, final IOException cause)
    {
        final NO_RESOURCES e = new NO_RESOURCES("Lightwire: " + cause.getMessage() + " (raise " +
            LightwireConfig.CLIENT_MAX_CONNECTIONS + ")", MINOR_ALL_BUSY, CompletionStatus.COMPLETED_NO);
        e.initCause(cause);
        return e;
    }

    /**
     * A call failed after its request may have left.
     *
     * @return TIMEOUT for the transport's own call timeout, COMM_FAILURE otherwise; both
     *         COMPLETED_MAYBE, since the server may have executed the request.
     */
    public static SystemException callFailed(final String server, final IOException cause)
    {
        final CloseCause closeCause = cause instanceof ConnectionFailedException ? ((ConnectionFailedException)cause).closeCause() : null;
        final String message = "Lightwire: call to " + server + " failed: " + cause.getMessage() + serverProperty(closeCause);
        final SystemException e;
        if (cause instanceof CallTimeoutException)
        {
            e = new TIMEOUT("Lightwire: " + cause.getMessage() + " (" + LightwireConfig.CLIENT_CALL_TIMEOUT_MS + ")",
                MINOR_CALL_TIMEOUT, CompletionStatus.COMPLETED_MAYBE);
        }
        else if (closeCause == CloseCause.MEMORY_BUDGET)
        {
            // As IIOP, whose server answers NO_MEMORY to a request it has no memory for.
            e = new NO_MEMORY(message, MINOR_REQUEST_MEMORY, CompletionStatus.COMPLETED_NO);
        }
        else if (closeCause == CloseCause.REQUEST_TOO_LARGE)
        {
            e = new IMP_LIMIT(message, MINOR_REQUEST_TOO_LARGE, CompletionStatus.COMPLETED_NO);
        }
        else if (closeCause == CloseCause.REQUEST_TIMEOUT)
        {
            e = new TRANSIENT(message, MINOR_REQUEST_TIMEOUT, CompletionStatus.COMPLETED_NO);
        }
        else
        {
            e = new COMM_FAILURE(message, MINOR_CONNECTION_FAILED,
                closeCause != null && closeCause.notExecuted() ? CompletionStatus.COMPLETED_NO : CompletionStatus.COMPLETED_MAYBE);
        }
        e.initCause(cause);
        return e;
    }

    /** @return " (server property ...)" naming the server's setting that decided {@code cause}, or "". */
    private static String serverProperty(final CloseCause cause)
    {
        if (cause == null)
        {
            return "";
        }
        switch (cause)
        {
            case MEMORY_BUDGET:
                return " (the server's " + LightwireConfig.SERVER_REQUEST_MEMORY_BYTES + ")";
            case REQUEST_TOO_LARGE:
                return " (the server's " + LightwireConfig.MAX_MESSAGE_BYTES + ")";
            case REQUEST_TIMEOUT:
                return " (the server's " + LightwireConfig.SERVER_REQUEST_TIMEOUT_MS + ")";
            case PEER_SILENT:
                return " (the server's " + LightwireConfig.PEER_TIMEOUT_MS + ")";
            case IDLE:
                return " (the server's " + LightwireConfig.SERVER_IDLE_TIMEOUT_MS + ")";
            case SERVER_FULL:
                return " (the server's " + LightwireConfig.SERVER_MAX_CONNECTIONS + ")";
            case ADDRESS_LIMIT:
                return " (the server's " + LightwireConfig.SERVER_MAX_CONNECTIONS_PER_ADDRESS + ")";
            default:
                return "";
        }
    }

    /** Sending a request failed; nothing of it may have arrived, or some of it. */
    public static COMM_FAILURE sendFailed(final String server, final IOException cause)
    {
        final COMM_FAILURE e = new COMM_FAILURE("Lightwire: sending to " + server + " failed: " + cause.getMessage(),
            MINOR_SEND_FAILED, CompletionStatus.COMPLETED_MAYBE);
        e.initCause(cause);
        return e;
    }

    /** The ETF connection is closed. */
    public static COMM_FAILURE closed(final String connection)
    {
        return new COMM_FAILURE("Lightwire: connection " + connection + " is closed", MINOR_CLOSED, CompletionStatus.COMPLETED_MAYBE);
    }

    /** A profile or corbaloc address that names no usable server. */
    public static BAD_PARAM badAddress(final String address, final String why)
    {
        return new BAD_PARAM("Lightwire: bad address " + address + ": " + why, MINOR_BAD_ADDRESS, CompletionStatus.COMPLETED_NO);
    }

    /** @return the CORBA repository id of a system exception, e.g. IDL:omg.org/CORBA/COMM_FAILURE:1.0. */
    public static String repositoryId(final SystemException e)
    {
        return "IDL:omg.org/CORBA/" + e.getClass().getSimpleName() + ":1.0";
    }
}
