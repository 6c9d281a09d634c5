package org.lightwire.etf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;

import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.SystemExceptionReply;
import org.jacorb.orb.dsi.ServerRequest;
import org.lightwire.transport.channel.ConnectionReader;
import org.lightwire.transport.channel.ServerCall;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.NO_IMPLEMENT;
import org.omg.ETF.BufferHolder;
import org.omg.ETF.Profile;

/**
 * The server side of one transport connection, which carries one client call at a time: each
 * request it receives is queued for JacORB's reader, and the GIOP reply JacORB flushes becomes
 * the transport reply of the call in progress. Messages that get no GIOP answer (oneways,
 * CancelRequest, MessageError) are answered at once with an empty transport reply when they came
 * exactly-once. A CloseConnection from the server cannot be sent in an asymmetric protocol where
 * only the client starts an exchange: it is dropped and counted.
 *
 * <p>With a {@link ConnectionReader} (the connection has a socket of its own), JacORB's reader
 * thread, waiting in {@link #read}, reads the socket and runs the engine itself: a request is
 * complete on that thread and handed to JacORB without a wake-up.
 */
final class LightwireServerConnection extends MessageConnection
{
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final LightwireListener listener;
    private final String transportName;
    private final long generation;
    private final AtomicReference<Pending> callInProgress = new AtomicReference<>();
    private final ConnectionReader reader;
    /** The start of a request read in place, where its GIOP headers are parsed. Only the reader thread uses it. */
    private final byte[] requestPrefix = new byte[GiopMessage.REQUEST_1_2_FIXED_LENGTH];

    /** @param reader the connection's own socket, read in {@link #read}; null when the listener's thread reads it. */
    LightwireServerConnection(final LightwireListener listener, final String transportName, final LightwireProfile peer,
        final ConnectionReader reader)
    {
        this.listener = listener;
        this.reader = reader;
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
        final int length = r.remaining();
        // Where the GIOP headers are read from, and how many bytes of them there are.
        final byte[] headers;
        final int headersLength;
        final ByteBuffer message;
        if (reader != null && readableInPlace(r, length))
        {
            // Read by this connection's own reader thread: the request stays where the transport
            // received it (the socket's buffer, or the assembly buffer of a longer request),
            // which the next packet overwrites only after JacORB has read the whole message (its
            // header announces exactly this length), so it need not be copied.
            message = r;
            headers = requestPrefix;
            headersLength = Math.min(length, requestPrefix.length);
        }
        else
        {
            headers = new byte[length];
            r.get(headers);
            message = ByteBuffer.wrap(headers);
            headersLength = length;
        }
        if (call.exactlyOnce())
        {
            if (GiopMessage.expectsGiopReply(headers, headersLength))
            {
                if (!callInProgress.compareAndSet(null, new Pending(call, headers, headersLength)))
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

    /**
     * Copies the start of {@code r} into {@link #requestPrefix}.
     *
     * @return true when the copy holds every header field the connection reads (a GIOP 1.2
     *     message has them at fixed offsets; an older one must be short enough to be all there)
     *     and the GIOP header announces exactly {@code length} bytes, so that JacORB's reader
     *     takes the whole request before it asks for the next packet.
     */
    private boolean readableInPlace(final ByteBuffer r, final int length)
    {
        if (length < GiopMessage.HEADER_LENGTH)
        {
            return false;
        }
        final int n = Math.min(length, requestPrefix.length);
        r.get(r.position(), requestPrefix, 0, n);
        return GiopMessage.isGiop(requestPrefix, n) && (GiopMessage.minor(requestPrefix) == 2 || length == n) &&
            (GiopMessage.bodySize(requestPrefix) & 0xFFFF_FFFFL) == length - GiopMessage.HEADER_LENGTH;
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
    public int read(final BufferHolder data, final int offset, final int minLength, final int maxLength, final long timeOut)
    {
        if (reader != null)
        {
            int n;
            while ((n = inbound.tryRead(data.value, offset, minLength, maxLength)) < 0)
            {
                if (!reader.readOnce())
                {
                    // Closed: the close reaches the inbound stream from the transport, and read fails.
                    break;
                }
            }
            if (n >= 0)
            {
                return n;
            }
        }
        return inbound.read(data.value, offset, minLength, maxLength);
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
        if (reader != null)
        {
            // Nobody reads its socket any more: the client's next call gets REJECT, not silence.
            reader.close();
        }
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
        final long requestId = orphan.requestId;
        if (orphan.type == GiopMessage.REQUEST && requestId != GiopMessage.UNKNOWN)
        {
            final String text = "Lightwire: " + why + " (" + transportName + ")";
            orphan.call.reply(ByteBuffer.wrap(SystemExceptionReply.build(orphan.minor, requestId,
                "IDL:omg.org/CORBA/COMM_FAILURE:1.0", CorbaExceptions.MINOR_CLOSED, org.omg.CORBA.CompletionStatus._COMPLETED_MAYBE,
                ServerRequest.createExceptionDetailMessage(text).context_data)));
        }
        else
        {
            orphan.call.reply(EMPTY);
        }
    }

    /** A call JacORB owes a reply, and what an error reply for it needs (its request may be overwritten). */
    private static final class Pending
    {
        final ServerCall call;
        final int type;
        final int minor;
        final long requestId;

        Pending(final ServerCall call, final byte[] request, final int length)
        {
            this.call = call;
            this.type = GiopMessage.type(request);
            this.minor = GiopMessage.minor(request);
            this.requestId = GiopMessage.requestId(request, length);
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
