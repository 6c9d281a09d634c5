package org.lightwire.etf.giop;

/**
 * Builds a GIOP Reply with status SYSTEM_EXCEPTION, big-endian, for a call that the transport
 * could not complete. Handing it to the ORB in place of the reply that never came fails exactly
 * that call, with the exception, minor code and completion status the transport chose, while the
 * other calls on the same ORB connection go on (a failed read would fail them all).
 *
 * <pre>
 * GIOP 1.2:      header | request_id | reply_status = 2 | service contexts | pad to 8 | exception
 * GIOP 1.0, 1.1: header | service contexts | request_id | reply_status = 2 | exception
 * exception:     string repository id | ulong minor | ulong completion status
 * </pre>
 *
 * The one service context, when given, is {@code ExceptionDetailMessage} (id 14), whose data the
 * caller encodes (JacORB reads it into the exception's message).
 */
public final class SystemExceptionReply
{
    /** {@code IOP::ExceptionDetailMessage}. */
    public static final int EXCEPTION_DETAIL_MESSAGE = 14;
    private static final int SYSTEM_EXCEPTION = 2;

    private SystemExceptionReply()
    {
    }

    /**
     * @param giopMinor the request's GIOP minor version, 0 to 2.
     * @param requestId the request's id.
     * @param repositoryId e.g. {@code IDL:omg.org/CORBA/COMM_FAILURE:1.0}.
     * @param minorCode the exception's minor code.
     * @param completionStatus 0 YES, 1 NO, 2 MAYBE.
     * @param detailContextData the ExceptionDetailMessage context's data, or null for none.
     * @return the whole message.
     */
    public static byte[] build(
        final int giopMinor,
        final long requestId,
        final String repositoryId,
        final int minorCode,
        final int completionStatus,
        final byte[] detailContextData)
    {
        final CdrWriter w = new CdrWriter(256).header(giopMinor, GiopMessage.REPLY);
        if (giopMinor == 2)
        {
            w.uLong((int)requestId);
            w.uLong(SYSTEM_EXCEPTION);
            writeServiceContexts(w, detailContextData);
            w.align(8);
        }
        else
        {
            writeServiceContexts(w, detailContextData);
            w.uLong((int)requestId);
            w.uLong(SYSTEM_EXCEPTION);
        }
        return w.string(repositoryId).uLong(minorCode).uLong(completionStatus).toMessage();
    }

    private static void writeServiceContexts(final CdrWriter w, final byte[] detail)
    {
        if (detail == null)
        {
            w.uLong(0);
            return;
        }
        w.uLong(1).uLong(EXCEPTION_DETAIL_MESSAGE).uLong(detail.length).bytes(detail);
    }
}
