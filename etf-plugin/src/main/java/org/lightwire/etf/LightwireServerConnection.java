package org.lightwire.etf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;

import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.SystemExceptionReply;
import org.jacorb.orb.dsi.ServerRequest;
import org.lightwire.transport.channel.ServerCall;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.NO_IMPLEMENT;
import org.omg.ETF.Profile;

/**
 * The server side of one transport connection, which carries one client call at a time: each
 * request it receives is queued for JacORB's reader, and the GIOP reply JacORB flushes becomes
 * the transport reply of the call in progress. Messages that get no GIOP answer (oneways,
 * CancelRequest, MessageError) are answered at once with an empty transport reply when they came
 * exactly-once. A CloseConnection from the server cannot be sent in an asymmetric protocol where
 * only the client starts an exchange: it is dropped and counted.
 */
final class LightwireServerConnection extends MessageConnection
{
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final LightwireListener listener;
    private final String transportName;
    private final long generation;
    private final AtomicReference<Pending> callInProgress = new AtomicReference<>();

    LightwireServerConnection(final LightwireListener listener, final String transportName, final LightwireProfile peer)
    {
        this.listener = listener;
        this.transportName = transportName;
        this.profile = peer;
        this.generation = inbound.open();
    }

    /** Marks the connection ready for JacORB's reader, as an accepted socket is. */
    void markConnected()
    {
        synchronized (this)
        {
            connected = true;
        }
    }

    String transportName()
    {
        return transportName;
    }

    /** A whole request from the transport; runs on the transport's receiving thread. */
    void onRequest(final ServerCall call)
    {
        final ByteBuffer r = call.request();
        final byte[] message = new byte[r.remaining()];
        r.get(message);
        if (call.exactlyOnce())
        {
            if (GiopMessage.expectsGiopReply(message, message.length))
            {
                if (!callInProgress.compareAndSet(null, new Pending(call, message)))
                {
                    // The transport carries one call at a time per connection; a second one
                    // means a confused peer. Answer it empty rather than leave it hanging.
                    listener.protocolErrors.incrementAndGet();
                    call.reply(EMPTY);
                    return;
                }
            }
            else
            {
                call.reply(EMPTY);
            }
        }
        if (!inbound.offer(generation, message))
        {
            failOrphan("the server ORB closed the connection");
        }
    }

    /** The transport connection closed: the reader fails with COMM_FAILURE. */
    void onTransportClosed(final String reason)
    {
        inbound.close(() -> new COMM_FAILURE("Lightwire: transport connection " + transportName + " closed: " + reason,
            CorbaExceptions.MINOR_CLOSED, org.omg.CORBA.CompletionStatus.COMPLETED_MAYBE));
    }

    @Override
    protected void onMessage(final byte[] message)
    {
        if (GiopMessage.isGiop(message, message.length) && GiopMessage.type(message) == GiopMessage.CLOSE_CONNECTION)
        {
            listener.closeConnectionsDropped.incrementAndGet();
            return;
        }
        final Pending pending = callInProgress.getAndSet(null);
        if (pending == null)
        {
            listener.messagesWithoutCall.incrementAndGet();
            return;
        }
        pending.call.reply(ByteBuffer.wrap(message));
    }

    @Override
    public void connect(final Profile serverProfile, final long timeOut)
    {
        throw new NO_IMPLEMENT("a Lightwire server connection is made by its listener, never connected");
    }

    @Override
    public void close()
    {
        synchronized (this)
        {
            connected = false;
        }
        inbound.close(() -> CorbaExceptions.closed(transportName));
        listener.forget(this);
        failOrphan("the server ORB closed the connection before it replied");
    }

    /**
     * Answers a call that JacORB will never answer, so that the client's transport call ends:
     * a Request with a COMM_FAILURE reply of its own, anything else empty.
     */
    private void failOrphan(final String why)
    {
        final Pending orphan = callInProgress.getAndSet(null);
        if (orphan == null)
        {
            return;
        }
        listener.orphanedCalls.incrementAndGet();
        final byte[] m = orphan.request;
        final long requestId = GiopMessage.requestId(m, m.length);
        if (GiopMessage.type(m) == GiopMessage.REQUEST && requestId != GiopMessage.UNKNOWN)
        {
            final String text = "Lightwire: " + why + " (" + transportName + ")";
            orphan.call.reply(ByteBuffer.wrap(SystemExceptionReply.build(GiopMessage.minor(m), requestId,
                "IDL:omg.org/CORBA/COMM_FAILURE:1.0", CorbaExceptions.MINOR_CLOSED, org.omg.CORBA.CompletionStatus._COMPLETED_MAYBE,
                ServerRequest.createExceptionDetailMessage(text).context_data)));
        }
        else
        {
            orphan.call.reply(EMPTY);
        }
    }

    private static final class Pending
    {
        final ServerCall call;
        final byte[] request;

        Pending(final ServerCall call, final byte[] request)
        {
            this.call = call;
            this.request = request;
        }
    }

    @Override
    protected COMM_FAILURE handleCommFailure(final IOException exception)
    {
        return CorbaExceptions.sendFailed(transportName, exception);
    }

    @Override
    public String toString()
    {
        return "LightwireServerConnection{" + transportName + '}';
    }
}
