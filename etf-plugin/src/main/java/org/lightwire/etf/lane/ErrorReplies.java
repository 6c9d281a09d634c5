package org.lightwire.etf.lane;

import java.nio.ByteBuffer;

import org.jacorb.orb.dsi.ServerRequest;
import org.lightwire.etf.CorbaExceptions;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.SystemExceptionReply;
import org.lightwire.transport.channel.ServerCall;
import org.omg.CORBA.CompletionStatus;

/**
 * Answers a transport call that JacORB will not answer: a GIOP Reply with a system exception
 * (and an {@code ExceptionDetailMessage} that says why) when the request asked for a reply and
 * its id could be read, an empty transport reply for any other exactly-once call, nothing for a
 * one-way (at-most-once calls get no reply).
 */
final class ErrorReplies
{
    static final String MARSHAL = "IDL:omg.org/CORBA/MARSHAL:1.0";
    static final String NO_RESOURCES = "IDL:omg.org/CORBA/NO_RESOURCES:1.0";
    static final String NO_MEMORY = "IDL:omg.org/CORBA/NO_MEMORY:1.0";
    static final String COMM_FAILURE = "IDL:omg.org/CORBA/COMM_FAILURE:1.0";
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private ErrorReplies()
    {
    }

    /** Answers an exactly-once call with an empty reply (nothing for a one-way). */
    static void empty(final ServerCall call)
    {
        if (call.exactlyOnce() && !call.replied())
        {
            call.reply(EMPTY.duplicate());
        }
    }

    /**
     * @param giopMinor the request's GIOP minor version, 0 to 2, or -1 when unknown.
     * @param requestId the request's id as the client gave it, or {@link GiopMessage#UNKNOWN}.
     * @param replyExpected true when the request asked for a GIOP reply.
     * @param completion {@link CompletionStatus#_COMPLETED_NO} or {@link CompletionStatus#_COMPLETED_MAYBE}.
     */
    static void systemException(final ServerCall call, final int giopMinor, final long requestId, final boolean replyExpected,
        final String repositoryId, final int minorCode, final int completion, final String why)
    {
        if (!call.exactlyOnce() || call.replied())
        {
            return;
        }
        if (!replyExpected || requestId == GiopMessage.UNKNOWN || giopMinor < 0 || giopMinor > 2)
        {
            call.reply(EMPTY.duplicate());
            return;
        }
        call.reply(ByteBuffer.wrap(SystemExceptionReply.build(giopMinor, requestId, repositoryId, minorCode, completion,
            ServerRequest.createExceptionDetailMessage(why).context_data)));
    }

    /** A message refused by the lane's check: MARSHAL, COMPLETED_NO. */
    static void refused(final ServerCall call, final int giopMinor, final long requestId, final boolean replyExpected, final String why)
    {
        systemException(call, giopMinor, requestId, replyExpected, MARSHAL, CorbaExceptions.MINOR_REFUSED,
            CompletionStatus._COMPLETED_NO, why);
    }

    /**
     * No lane could take the request. COMM_FAILURE when JacORB's own server connection limit
     * refused the lane (as an IIOP client of that server gets COMM_FAILURE), NO_RESOURCES
     * otherwise; COMPLETED_NO either way.
     */
    static void noLane(final ServerCall call, final int giopMinor, final long requestId, final boolean replyExpected, final String why,
        final boolean refusedByOrb)
    {
        if (refusedByOrb)
        {
            systemException(call, giopMinor, requestId, replyExpected, COMM_FAILURE, CorbaExceptions.MINOR_SERVER_CONNECTIONS,
                CompletionStatus._COMPLETED_NO, why);
        }
        else
        {
            systemException(call, giopMinor, requestId, replyExpected, NO_RESOURCES, CorbaExceptions.MINOR_ALL_BUSY,
                CompletionStatus._COMPLETED_NO, why);
        }
    }

    /** No room in the budget of requests queued for the lanes: NO_MEMORY (as IIOP's server out of memory), COMPLETED_NO. */
    static void noMemory(final ServerCall call, final int giopMinor, final long requestId, final boolean replyExpected, final String why)
    {
        systemException(call, giopMinor, requestId, replyExpected, NO_MEMORY, CorbaExceptions.MINOR_REQUEST_MEMORY,
            CompletionStatus._COMPLETED_NO, why);
    }

    /** A call whose lane closed: COMM_FAILURE, COMPLETED_MAYBE when JacORB had it, COMPLETED_NO when it never did. */
    static void laneClosed(final ServerCall call, final int giopMinor, final long requestId, final boolean replyExpected,
        final boolean presented, final String why)
    {
        systemException(call, giopMinor, requestId, replyExpected, COMM_FAILURE, CorbaExceptions.MINOR_CLOSED,
            presented ? CompletionStatus._COMPLETED_MAYBE : CompletionStatus._COMPLETED_NO, why);
    }
}
