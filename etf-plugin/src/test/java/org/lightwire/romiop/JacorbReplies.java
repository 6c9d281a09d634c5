package org.lightwire.romiop;

import java.util.Properties;
import java.util.function.Consumer;

import org.jacorb.orb.giop.ReplyOutputStream;
import org.jacorb.orb.giop.RequestInputStream;
import org.lightwire.romiop.ft.InvalidState;
import org.lightwire.romiop.ft.InvalidStateHelper;
import org.lightwire.romiop.ft.NoStateAvailable;
import org.lightwire.romiop.ft.NoStateAvailableHelper;
import org.lightwire.romiop.ft.StateHelper;
import org.omg.CORBA.ORB;
import org.omg.CORBA.SystemException;
import org.omg.GIOP.ReplyStatusType_1_2;

/**
 * GIOP 1.2 Replies to the state requests as JacORB's own output stream writes them (the bytes a
 * servant's reply reaches the listener with), and JacORB's reading of a Request.
 */
final class JacorbReplies implements AutoCloseable
{
    private final ORB orb;

    JacorbReplies()
    {
        final Properties p = new Properties();
        p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        orb = ORB.init(new String[0], p);
    }

    /** @return get_state's NO_EXCEPTION reply carrying {@code state}. */
    byte[] state(final int requestId, final byte[] state)
    {
        return reply(requestId, ReplyStatusType_1_2.NO_EXCEPTION, out -> StateHelper.write(out, state));
    }

    /** @return set_state's NO_EXCEPTION reply (no body). */
    byte[] done(final int requestId)
    {
        return reply(requestId, ReplyStatusType_1_2.NO_EXCEPTION, out -> { });
    }

    byte[] noStateAvailable(final int requestId)
    {
        return reply(requestId, ReplyStatusType_1_2.USER_EXCEPTION, out -> NoStateAvailableHelper.write(out, new NoStateAvailable()));
    }

    byte[] invalidState(final int requestId)
    {
        return reply(requestId, ReplyStatusType_1_2.USER_EXCEPTION, out -> InvalidStateHelper.write(out, new InvalidState()));
    }

    /** @return a SYSTEM_EXCEPTION reply, as the POA sends for BAD_OPERATION and OBJECT_NOT_EXIST. */
    byte[] systemException(final int requestId, final SystemException e)
    {
        return reply(requestId, ReplyStatusType_1_2.SYSTEM_EXCEPTION, out -> org.jacorb.orb.SystemExceptionHelper.write(out, e));
    }

    private byte[] reply(final int requestId, final ReplyStatusType_1_2 status, final Consumer<ReplyOutputStream> body)
    {
        final ReplyOutputStream out = new ReplyOutputStream(orb, requestId, status, 2, false, org.slf4j.helpers.NOPLogger.NOP_LOGGER);
        try
        {
            body.accept(out);
            out.insertMsgSize();
            return out.getBufferCopy();
        }
        finally
        {
            out.close();
        }
    }

    /** @return JacORB's server-side reading of a Request (the caller closes it). */
    RequestInputStream request(final byte[] m)
    {
        return new RequestInputStream(orb, null, m);
    }

    @Override
    public void close()
    {
        orb.shutdown(false);
    }
}
