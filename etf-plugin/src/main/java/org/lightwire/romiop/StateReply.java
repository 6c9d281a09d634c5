package org.lightwire.romiop;

import java.nio.charset.StandardCharsets;

import org.lightwire.etf.giop.GiopMessage;

/**
 * The ORB's GIOP 1.2 Reply to one of the {@link StateRequests}, read: its outcome, the state a
 * {@code get_state} returned, or the exception it raised. Reads either byte order (the reply's
 * flag says which) and never throws: a reply it cannot read is {@link Outcome#MALFORMED}, with
 * the reason.
 *
 * <pre>
 *  0        12           16             20
 * +--------+------------+--------------+----------------------------------+---------+------
 * | header | request_id | reply_status | service contexts (count, then    | pad to  | body
 * |        |            |              | id and octet sequence each)      | 8       |
 * +--------+------------+--------------+----------------------------------+---------+------
 * body, NO_EXCEPTION:     get_state: State (ulong length, octets); set_state: none
 * body, USER_EXCEPTION:   string repository id (members: none for LightwireFT's exceptions)
 * body, SYSTEM_EXCEPTION: string repository id, ulong minor, ulong completion status
 * </pre>
 *
 * The padding is counted from the start of the message, header included, and is there only when
 * a body follows.
 */
final class StateReply
{
    /** How the call ended. */
    enum Outcome
    {
        NO_EXCEPTION,
        USER_EXCEPTION,
        SYSTEM_EXCEPTION,
        /** LOCATION_FORWARD, NEEDS_ADDRESSING_MODE and the like: {@link #status} says which. */
        OTHER_STATUS,
        MALFORMED
    }

    static final int NO_EXCEPTION = 0;
    static final int USER_EXCEPTION = 1;
    static final int SYSTEM_EXCEPTION = 2;
    private static final String[] STATUS_NAMES = {"NO_EXCEPTION", "USER_EXCEPTION", "SYSTEM_EXCEPTION", "LOCATION_FORWARD",
        "LOCATION_FORWARD_PERM", "NEEDS_ADDRESSING_MODE"};
    private static final String[] COMPLETION_NAMES = {"COMPLETED_YES", "COMPLETED_NO", "COMPLETED_MAYBE"};

    final Outcome outcome;
    /** The reply_status, or -1 when the reply was too short to hold one. */
    final int status;
    /** The state a {@code get_state} returned; null otherwise. */
    final byte[] state;
    /** The exception's repository id; null unless {@link Outcome#USER_EXCEPTION} or {@link Outcome#SYSTEM_EXCEPTION}. */
    final String exceptionId;
    /** The system exception's minor code and completion status (0 otherwise). */
    final int minor;
    final int completion;
    /** Why the reply could not be read; null unless {@link Outcome#MALFORMED}. */
    final String malformed;

    private StateReply(final Outcome outcome, final int status, final byte[] state, final String exceptionId, final int minor,
        final int completion, final String malformed)
    {
        this.outcome = outcome;
        this.status = status;
        this.state = state;
        this.exceptionId = exceptionId;
        this.minor = minor;
        this.completion = completion;
        this.malformed = malformed;
    }

    /**
     * @param reply      a whole GIOP Reply.
     * @param holdsState true for the reply to {@code get_state} (a NO_EXCEPTION reply carries the
     *                   State), false for {@code set_state} (it carries nothing).
     */
    static StateReply read(final byte[] reply, final boolean holdsState)
    {
        if (!GiopMessage.isGiop(reply, reply.length) || GiopMessage.type(reply) != GiopMessage.REPLY)
        {
            return malformed(-1, "not a GIOP Reply (" + GiopMessage.describe(reply, reply.length) + ")");
        }
        if (GiopMessage.minor(reply) != 2)
        {
            return malformed(-1, "a GIOP 1." + GiopMessage.minor(reply) + " Reply to a GIOP 1.2 Request");
        }
        final long announced = GiopMessage.HEADER_LENGTH + (GiopMessage.bodySize(reply) & 0xFFFF_FFFFL);
        if (announced != reply.length)
        {
            return malformed(-1, "its header announces " + announced + " bytes, " + reply.length + " came");
        }
        final Cursor c = new Cursor(reply, GiopMessage.littleEndian(reply));
        c.position = GiopMessage.HEADER_LENGTH + 4;
        final long status = c.ulong();
        if (status < 0)
        {
            return malformed(-1, "it ends before its reply status");
        }
        final long contexts = c.ulong();
        for (long i = 0; i < contexts && c.position >= 0; i++)
        {
            c.ulong();
            c.skip(c.ulong());
        }
        if (c.position < 0)
        {
            return malformed((int)status, "its service contexts run past its end");
        }
        final int headerEnd = c.position;
        c.position = GiopMessage.align(headerEnd, 8);
        switch ((int)status)
        {
            case NO_EXCEPTION:
                if (!holdsState)
                {
                    // JacORB drops the padding of an empty body; another ORB may keep it.
                    if (reply.length == headerEnd || reply.length == c.position)
                    {
                        return new StateReply(Outcome.NO_EXCEPTION, NO_EXCEPTION, null, null, 0, 0, null);
                    }
                    return malformed(NO_EXCEPTION, (reply.length - headerEnd) + " bytes after the header of a reply to a call that returns nothing");
                }
                final long length = c.ulong();
                final int start = c.position;
                c.skip(length);
                if (c.position != reply.length)
                {
                    return malformed(NO_EXCEPTION, length < 0 ? "it ends before the state's length" : "the state's length, " + length +
                        ", does not match the " + (reply.length - Math.max(start, 0)) + " bytes that follow it");
                }
                return new StateReply(Outcome.NO_EXCEPTION, NO_EXCEPTION, java.util.Arrays.copyOfRange(reply, start, reply.length), null,
                    0, 0, null);
            case USER_EXCEPTION:
            {
                final String id = c.string();
                return id == null ? malformed(USER_EXCEPTION, "its exception's repository id cannot be read") :
                    new StateReply(Outcome.USER_EXCEPTION, USER_EXCEPTION, null, id, 0, 0, null);
            }
            case SYSTEM_EXCEPTION:
            {
                final String id = c.string();
                final long minor = c.ulong();
                final long completion = c.ulong();
                return id == null || completion < 0 ? malformed(SYSTEM_EXCEPTION, "its system exception cannot be read") :
                    new StateReply(Outcome.SYSTEM_EXCEPTION, SYSTEM_EXCEPTION, null, id, (int)minor, (int)completion, null);
            }
            default:
                return new StateReply(Outcome.OTHER_STATUS, (int)status, null, null, 0, 0, null);
        }
    }

    private static StateReply malformed(final int status, final String why)
    {
        return new StateReply(Outcome.MALFORMED, status, null, null, 0, 0, why);
    }

    /** @return e.g. "LOCATION_FORWARD" or "reply status 9". */
    static String statusName(final int status)
    {
        return status >= 0 && status < STATUS_NAMES.length ? STATUS_NAMES[status] : "reply status " + status;
    }

    /** @return the exception's name without its repository id's decoration, e.g. "BAD_OPERATION" for IDL:omg.org/CORBA/BAD_OPERATION:1.0. */
    String exceptionName()
    {
        if (exceptionId == null)
        {
            return null;
        }
        final int colon = exceptionId.lastIndexOf(':');
        final String path = colon > exceptionId.indexOf(':') ? exceptionId.substring(exceptionId.indexOf(':') + 1, colon) : exceptionId;
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** @return e.g. "COMPLETED_NO". */
    String completionName()
    {
        return completion >= 0 && completion < COMPLETION_NAMES.length ? COMPLETION_NAMES[completion] : "completion " + completion;
    }

    @Override
    public String toString()
    {
        return "StateReply{" + outcome + ", status " + statusName(status) + (state == null ? "" : ", state " + state.length + " bytes") +
            (exceptionId == null ? "" : ", " + exceptionId) + (outcome == Outcome.SYSTEM_EXCEPTION ? String.format(", minor 0x%08X, %s",
            minor, completionName()) : "") + (malformed == null ? "" : ", " + malformed) + '}';
    }

    /** CDR reads that never throw: past the end, the position becomes -1 and stays there. */
    private static final class Cursor
    {
        private final byte[] m;
        private final boolean little;
        int position;

        Cursor(final byte[] m, final boolean little)
        {
            this.m = m;
            this.little = little;
        }

        /** @return the unsigned long at the next 4-aligned place, or -1 past the end. */
        long ulong()
        {
            if (position < 0)
            {
                return -1;
            }
            final int at = GiopMessage.align(position, 4);
            if (at + 4 > m.length)
            {
                position = -1;
                return -1;
            }
            position = at + 4;
            return GiopMessage.readULong(m, at, little) & 0xFFFF_FFFFL;
        }

        void skip(final long bytes)
        {
            if (position < 0 || bytes < 0 || position + bytes > m.length)
            {
                position = -1;
                return;
            }
            position += (int)bytes;
        }

        /** @return the string (ISO-8859-1, as repository ids are), or null when it cannot be read. */
        String string()
        {
            final long length = ulong();
            final int start = position;
            skip(length);
            if (position < 0 || length < 1 || m[position - 1] != 0)
            {
                position = -1;
                return null;
            }
            return new String(m, start, (int)length - 1, StandardCharsets.ISO_8859_1);
        }
    }
}
