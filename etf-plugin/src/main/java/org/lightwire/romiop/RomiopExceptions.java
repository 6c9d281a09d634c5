package org.lightwire.romiop;

import java.io.IOException;

import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.IMP_LIMIT;
import org.omg.CORBA.TRANSIENT;

import org.lightwire.romiop.engine.Unavailability;

/**
 * The one place where the ROMIOP plug-in turns a failure into a CORBA system exception, each with
 * a minor code of its own (vendor set 0x4C57, codes 0x4C570101 and up, next to Lightwire's
 * point-to-point 0x4C570001..07) and a message that says what failed and what to change.
 *
 * <table>
 *   <caption>Minor codes</caption>
 *   <tr><th>minor</th><th>exception</th><th>cause</th></tr>
 *   <tr><td>0x4C570101</td><td>TRANSIENT</td><td>the client could not open its group link (socket, interface, address)</td></tr>
 *   <tr><td>0x4C570102</td><td>COMM_FAILURE</td><td>a request could not be handed to the group (backlog full, too large)</td></tr>
 *   <tr><td>0x4C570103</td><td>COMM_FAILURE</td><td>the ETF connection was closed</td></tr>
 *   <tr><td>0x4C570104</td><td>BAD_PARAM</td><td>a group profile or corbaloc address that cannot be used</td></tr>
 *   <tr><td>0x4C570105</td><td>BAD_PARAM</td><td>a call's consolidation policy ({@link CallPolicy}) that cannot be read; the call is not sent</td></tr>
 *   <tr><td>0x4C570106</td><td>IMP_LIMIT</td><td>the replicas executed the call, but its reply is longer than
 *       {@code jacorb.lightwire.romiop.max_reply_bytes} (or would go in more pieces than {@code max_pending_replies} keeps):
 *       each replica answers with this exception instead, its message naming the reply's size and the setting</td></tr>
 *   <tr><td>0x4C570107</td><td>TRANSIENT</td><td>the group's leader hears fewer members than a majority of its view (its lease is
 *       lost) and orders nothing: it answered the call's request with an UNAVAILABLE notice; the call is cancelled,
 *       COMPLETED_MAYBE (the leader may have ordered it before the cancel reached it)</td></tr>
 * </table>
 */
public final class RomiopExceptions
{
    public static final int MINOR_JOIN_FAILED = org.lightwire.etf.CorbaExceptions.VMCID | 0x101;
    public static final int MINOR_SEND_FAILED = org.lightwire.etf.CorbaExceptions.VMCID | 0x102;
    public static final int MINOR_CLOSED = org.lightwire.etf.CorbaExceptions.VMCID | 0x103;
    public static final int MINOR_BAD_ADDRESS = org.lightwire.etf.CorbaExceptions.VMCID | 0x104;
    public static final int MINOR_BAD_CALL_POLICY = org.lightwire.etf.CorbaExceptions.VMCID | 0x105;
    public static final int MINOR_REPLY_TOO_LARGE = org.lightwire.etf.CorbaExceptions.VMCID | 0x106;
    public static final int MINOR_GROUP_UNAVAILABLE = org.lightwire.etf.CorbaExceptions.VMCID | 0x107;

    private RomiopExceptions()
    {
    }

    static TRANSIENT joinFailed(final String group, final IOException cause)
    {
        final TRANSIENT e = new TRANSIENT("ROMIOP: cannot reach the group " + group + ": " + cause.getMessage() + " (see " +
            RomiopConfig.LINK + ", " + RomiopConfig.INTERFACE + ")", MINOR_JOIN_FAILED, CompletionStatus.COMPLETED_NO);
        e.initCause(cause);
        return e;
    }

    static COMM_FAILURE sendFailed(final String group, final IOException cause)
    {
        final COMM_FAILURE e = new COMM_FAILURE("ROMIOP: request to " + group + " not sent: " + cause.getMessage(), MINOR_SEND_FAILED,
            CompletionStatus.COMPLETED_NO);
        e.initCause(cause);
        return e;
    }

    static COMM_FAILURE closed(final String connection)
    {
        return new COMM_FAILURE("ROMIOP: connection " + connection + " is closed", MINOR_CLOSED, CompletionStatus.COMPLETED_MAYBE);
    }

    static BAD_PARAM badAddress(final String address, final String why)
    {
        return new BAD_PARAM("ROMIOP: bad group address " + address + ": " + why, MINOR_BAD_ADDRESS, CompletionStatus.COMPLETED_NO);
    }

    /**
     * Sent in place of a reply the member engine cannot send; its message travels in the reply's
     * ExceptionDetailMessage context, which JacORB's client reads into the exception it throws.
     *
     * @param refusal why ({@code MemberEngine.replyRefusal}), naming the setting.
     */
    static IMP_LIMIT replyTooLarge(final String refusal)
    {
        return new IMP_LIMIT("ROMIOP: " + refusal + ": the call was executed and its result replaced by this exception",
            MINOR_REPLY_TOO_LARGE, CompletionStatus.COMPLETED_YES);
    }

    /**
     * A leader's UNAVAILABLE notice: it hears too few members to order. Completed NO: the leader
     * held the request unordered, and the client cancels it.
     */
    static TRANSIENT groupUnavailable(final String group, final Unavailability notice)
    {
        return new TRANSIENT("ROMIOP: group " + group + " is unavailable: its leader, member " + notice.leaderId() +
            ", hears too few members to order calls (" + notice.describe() + "); the call was cancelled, but may still run " +
            "if the leader ordered it before the cancel reached it, so it completed MAYBE. Check the network " +
            "between the replicas, and that " + RomiopConfig.KEEPALIVE_TIMEOUT_MS + " is well above the KeepAlive period and the " +
            "replicas' pauses", MINOR_GROUP_UNAVAILABLE, CompletionStatus.COMPLETED_MAYBE);
    }

    static BAD_PARAM badCallPolicy(final String connection, final IllegalArgumentException why)
    {
        return new BAD_PARAM("ROMIOP: request on " + connection + " not sent: its consolidation policy (service context 0x" +
            Integer.toHexString(CallPolicy.SERVICE_CONTEXT_ID) + ") is unusable: " + why.getMessage(), MINOR_BAD_CALL_POLICY,
            CompletionStatus.COMPLETED_NO);
    }
}
