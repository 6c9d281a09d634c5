package org.lightwire.transport.channel;

import java.nio.ByteBuffer;

/** One request received whole by a server, and the means to answer it. */
public final class ServerCall
{
    private final ServerSession session;
    private final ByteBuffer request;
    private final boolean exactlyOnce;
    private volatile boolean replied;

    ServerCall(final ServerSession session, final ByteBuffer request, final boolean exactlyOnce)
    {
        this.session = session;
        this.request = request;
        this.exactlyOnce = exactlyOnce;
    }

    /**
     * @return the request bytes from position to limit. When the handler runs on the receiving
     * thread, the buffer is valid only until {@link RequestHandler#onRequest} returns, or, on a
     * connection read by a {@link ConnectionReader}, until that reader's next
     * {@link ConnectionReader#readOnce()}: a request that came in one packet is the very buffer
     * the link received it in (often a direct one), a longer one the session's assembly buffer.
     */
    public ByteBuffer request()
    {
        return request;
    }

    /** @return true for an exactly-once call (a reply is due), false for a one-way call. */
    public boolean exactlyOnce()
    {
        return exactlyOnce;
    }

    /** @return true once {@link #reply} was called. */
    public boolean replied()
    {
        return replied;
    }

    /** @return the connection's identity, for logs. */
    public String connection()
    {
        return session.name();
    }

    /**
     * Sends the reply. The buffer belongs to the transport from now on (it is held for
     * retransmission until the client acknowledges it); do not modify it.
     *
     * @throws IllegalStateException for a one-way call, or a second reply.
     */
    public void reply(final ByteBuffer reply)
    {
        if (!exactlyOnce)
        {
            throw new IllegalStateException("a one-way call gets no reply");
        }
        if (replied)
        {
            throw new IllegalStateException("this call was already answered");
        }
        replied = true;
        session.reply(reply);
    }
}
