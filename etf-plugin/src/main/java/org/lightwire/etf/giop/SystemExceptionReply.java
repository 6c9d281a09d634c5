package org.lightwire.etf.giop;

import java.nio.charset.StandardCharsets;

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

    private byte[] buffer = new byte[256];
    private int position;

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
        final SystemExceptionReply w = new SystemExceptionReply();
        w.writeHeader(giopMinor);
        if (giopMinor == 2)
        {
            w.writeULong((int)requestId);
            w.writeULong(SYSTEM_EXCEPTION);
            w.writeServiceContexts(detailContextData);
            w.alignTo(8);
        }
        else
        {
            w.writeServiceContexts(detailContextData);
            w.writeULong((int)requestId);
            w.writeULong(SYSTEM_EXCEPTION);
        }
        final byte[] id = repositoryId.getBytes(StandardCharsets.ISO_8859_1);
        w.writeULong(id.length + 1);
        w.writeBytes(id, id.length);
        w.writeBytes(new byte[1], 1);
        w.writeULong(minorCode);
        w.writeULong(completionStatus);
        final byte[] message = new byte[w.position];
        System.arraycopy(w.buffer, 0, message, 0, w.position);
        GiopMessage.setBodySize(message, w.position - GiopMessage.HEADER_LENGTH);
        return message;
    }

    private void writeHeader(final int giopMinor)
    {
        writeBytes(new byte[] {'G', 'I', 'O', 'P', 1, (byte)giopMinor, 0, GiopMessage.REPLY}, 8);
        writeULong(0);
    }

    private void writeServiceContexts(final byte[] detail)
    {
        if (detail == null)
        {
            writeULong(0);
            return;
        }
        writeULong(1);
        writeULong(EXCEPTION_DETAIL_MESSAGE);
        writeULong(detail.length);
        writeBytes(detail, detail.length);
    }

    private void alignTo(final int boundary)
    {
        final int aligned = GiopMessage.align(position, boundary);
        ensure(aligned - position);
        position = aligned;
    }

    private void writeULong(final int value)
    {
        alignTo(4);
        ensure(4);
        GiopMessage.writeULong(buffer, position, value, false);
        position += 4;
    }

    private void writeBytes(final byte[] bytes, final int length)
    {
        ensure(length);
        System.arraycopy(bytes, 0, buffer, position, length);
        position += length;
    }

    private void ensure(final int more)
    {
        if (position + more > buffer.length)
        {
            final byte[] bigger = new byte[Math.max(buffer.length * 2, position + more)];
            System.arraycopy(buffer, 0, bigger, 0, position);
            buffer = bigger;
        }
    }
}
