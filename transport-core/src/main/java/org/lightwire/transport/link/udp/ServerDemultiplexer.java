package org.lightwire.transport.link.udp;

import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.HeaderFlyweight;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The protocol logic of the Lightwire UDP server (see {@code docs/udp-link.md}), with no socket
 * and no thread of its own: the connection table keyed by id and by CONNECT nonce, the answers
 * to the set-up exchange (RETRY with a {@link SetupCookies cookie} until the client has proved its
 * address, then ACCEPT or REFUSE; REJECT under the {@link RejectLimiter}, with the cause of the
 * close it remembers), the limits on connections in all and per client address, the refusal of a
 * CONNECT replayed after its connection closed,
 * the id and address checks of data datagrams, the counters and every call of the
 * {@link ServerPacketHandler}.
 *
 * <p>A {@link FrontEnd} drives it: it feeds each received datagram to {@link #onDatagram} on its
 * one receive thread, and carries out the sends. Connection state is touched by that thread
 * only: a close from another thread is handed to it ({@link FrontEnd#runOnReceiveThread}), and
 * {@link #closeAllConnections} runs there or after that thread ended. Counters may be read
 * from any thread.
 *
 * <p>A connection with a socket of its own ({@link UdpServerConnection#openOwnSocket()}) is read
 * by an application thread, which hands its datagrams to {@link #onOwnSocketDatagram}: a packet
 * of the connection goes to the handler on that thread; anything else is copied to the receive
 * thread and classified there like a datagram of the shared socket.
 */
final class ServerDemultiplexer
{
    private static final int REJECT_LIMITER_SLOTS = 1024;
    /** How long the cause of a closed connection is remembered for its REJECTs. */
    static final long CLOSE_CAUSE_RETENTION_NS = java.util.concurrent.TimeUnit.MINUTES.toNanos(2);
    private static final SecureRandom ID_SOURCE = new SecureRandom();

    /** The socket side of a server endpoint, as the demultiplexer sees it. */
    interface FrontEnd
    {
        /**
         * Sends one datagram: the 8-byte prefix naming {@code connectionId}, then {@code header},
         * then {@code payload}, each from its position to its limit. Positions are left as they
         * were, and the buffers may be reused as soon as this returns. Called from any thread.
         *
         * @param payload null for none.
         * @return true when the datagram was handed to the socket; false when the socket is
         *     closed or failed (an I/O error is reported to {@link #onIoError}).
         */
        boolean send(long connectionId, ByteBuffer header, ByteBuffer payload, InetSocketAddress to);

        /**
         * Like {@link #send(long, ByteBuffer, ByteBuffer, InetSocketAddress)}, on a connection's
         * own socket when {@code connected} is not null (no address to look up per datagram).
         */
        default boolean send(long connectionId, ByteBuffer header, ByteBuffer payload, InetSocketAddress to, DatagramChannel connected)
        {
            return send(connectionId, header, payload, to);
        }

        /**
         * Runs {@code task} on the receive thread: at once when called there, soon otherwise.
         * A task handed over while the front-end closes runs on the closing thread after the
         * receive thread ended, or not at all.
         */
        void runOnReceiveThread(Runnable task);

        /**
         * Opens a socket bound to the endpoint's own address (beside its socket, SO_REUSEPORT)
         * and connected to {@code remote}, in blocking mode.
         *
         * @throws IOException the socket could not be opened, bound or connected.
         * @throws UnsupportedOperationException this front-end cannot share its port.
         */
        default DatagramChannel openConnectedSocket(final InetSocketAddress remote) throws IOException
        {
            throw new UnsupportedOperationException("this server front-end gives connections no socket of their own; " +
                "use UdpLinkConfig.serverIo BLOCKING with reusePort");
        }
    }

    private final UdpLinkConfig config;
    private final ServerPacketHandler handler;
    private final FrontEnd frontEnd;
    private volatile boolean closing;

    // Receive-thread state.
    private final LongObjectTable<UdpServerConnection> connectionsById;
    private final LongObjectTable<UdpServerConnection> connectionsByNonce;
    private final UdpPrefixFlyweight prefix = new UdpPrefixFlyweight();
    private final SetupFlyweight setup = new SetupFlyweight();
    private final ByteBuffer replyBody = ByteBuffer.allocate(SetupFlyweight.LONG_LENGTH);
    private final SetupFlyweight replySetup = new SetupFlyweight().wrap(replyBody, 0);
    private final byte[] echoedCookie = new byte[SetupFlyweight.COOKIE_LENGTH];
    private final RejectLimiter rejectLimiter;
    private final SetupCookies cookies;
    /**
     * Why the server closed each connection of the last {@link #CLOSE_CAUSE_RETENTION_NS}: the
     * cause its REJECTs name. Idle closes are kept apart: they are what lets a client send a call
     * again, and no client can make the server close connections as idle faster than it holds
     * them open for the idle timeout, so churn of other closes (a client replacing its own
     * connection over and over) cannot push them out.
     */
    private final ExpiringLongMap<CloseCause> idleCloses;
    private final ExpiringLongMap<CloseCause> otherCloses;
    /** The nonces of the connections opened while their cookies live: a replayed CONNECT opens nothing. */
    private final ExpiringLongMap<Boolean> servedNonces;
    /** Open connections per client IP address, for {@code maxConnectionsPerAddress}. */
    private final Map<InetAddress, Integer> perAddress = new HashMap<>();
    /** Connections with a socket of their own, by client address: one address, one live connection. */
    private final Map<InetSocketAddress, UdpServerConnection> ownSocketsByAddress = new HashMap<>();

    /** The clock that times closes made from other threads (the same as the datagrams' {@code nowNs}). */
    private final java.util.function.LongSupplier clock;

    private final AtomicLong openConnections = new AtomicLong();
    private final AtomicLong datagramsReceived = new AtomicLong();
    private final AtomicLong datagramsSent = new AtomicLong();
    private final AtomicLong packetsDelivered = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong unknownId = new AtomicLong();
    private final AtomicLong wrongAddress = new AtomicLong();
    private final AtomicLong connectionsAccepted = new AtomicLong();
    private final AtomicLong connectionsRefused = new AtomicLong();
    private final AtomicLong connectionsClosed = new AtomicLong();
    private final AtomicLong duplicateConnects = new AtomicLong();
    private final AtomicLong rejectsSent = new AtomicLong();
    private final AtomicLong rejectsSuppressed = new AtomicLong();
    private final AtomicLong handlerErrors = new AtomicLong();
    private final AtomicLong ioErrors = new AtomicLong();
    private final AtomicLong strayDatagrams = new AtomicLong();
    private final AtomicLong ownSocketsOpened = new AtomicLong();
    private final AtomicLong connectionsReplaced = new AtomicLong();
    private final AtomicLong retriesSent = new AtomicLong();
    private final AtomicLong badCookies = new AtomicLong();
    private final AtomicLong refusedFull = new AtomicLong();
    private final AtomicLong refusedAddressLimit = new AtomicLong();
    private final AtomicLong replayedConnects = new AtomicLong();
    private volatile Throwable lastIoError;

    /**
     * @param config {@code maxPacketBytes} and {@code maxConnections} apply.
     * @param handler the application, called on the receive thread.
     * @param frontEnd where datagrams go.
     * @param clock the clock of the datagrams' nowNs ({@link System#nanoTime} but in tests); the REJECT limiter starts full.
     */
    ServerDemultiplexer(
        final UdpLinkConfig config, final ServerPacketHandler handler, final FrontEnd frontEnd,
        final java.util.function.LongSupplier clock)
    {
        this.config = config;
        this.handler = handler;
        this.frontEnd = frontEnd;
        this.clock = clock;
        final long nowNs = clock.getAsLong();
        connectionsById = new LongObjectTable<>(config.maxConnections());
        connectionsByNonce = new LongObjectTable<>(config.maxConnections());
        rejectLimiter = new RejectLimiter(REJECT_LIMITER_SLOTS, UdpServerEndpoint.REJECT_INTERVAL_NS,
            UdpServerEndpoint.REJECT_BURST, UdpServerEndpoint.REJECT_REFILL_NS, nowNs);
        cookies = new SetupCookies(nowNs);
        idleCloses = new ExpiringLongMap<>(config.maxConnections(), CLOSE_CAUSE_RETENTION_NS);
        otherCloses = new ExpiringLongMap<>(config.maxConnections(), CLOSE_CAUSE_RETENTION_NS);
        servedNonces = new ExpiringLongMap<>(2 * config.maxConnections(), SetupCookies.LIFETIME_NS);
    }

    /** @return bytes a receive buffer needs: the largest acceptable datagram and one byte more. */
    static int datagramBufferBytes(final UdpLinkConfig config)
    {
        // One spare byte: a datagram that fills the buffer was too long (the kernel truncates
        // silently) and is dropped as malformed rather than delivered cut short.
        return UdpPrefixFlyweight.HEADER_LENGTH + config.maxPacketBytes() + 1;
    }

    /**
     * Handles one received datagram, on the receive thread. Never throws for what the datagram
     * holds: whatever is not a packet of an open connection is dropped and counted.
     *
     * @param datagram the datagram, prefix included, from its position to its limit; valid
     *     during this call only (the handler sees it without a copy).
     * @param sender the address it came from.
     * @param nowNs when it was taken from the socket.
     */
    void onDatagram(final ByteBuffer datagram, final InetSocketAddress sender, final long nowNs)
    {
        try
        {
            classify(datagram, sender, nowNs);
        }
        finally
        {
            // Counted last: whoever sees this count sees every other counter this datagram moved.
            // Atomic: readers of connections' own sockets count here too.
            datagramsReceived.incrementAndGet();
        }
    }

    private void classify(final ByteBuffer datagram, final InetSocketAddress sender, final long nowNs)
    {
        final int length = datagram.remaining();
        if (length < UdpPrefixFlyweight.HEADER_LENGTH || length > UdpPrefixFlyweight.HEADER_LENGTH + config.maxPacketBytes())
        {
            increment(malformed);
            return;
        }
        final int base = datagram.position();
        final long id = prefix.wrap(datagram, base).connectionId();
        if (id == UdpPrefixFlyweight.SETUP_CONNECTION_ID)
        {
            onSetup(datagram, base + UdpPrefixFlyweight.HEADER_LENGTH, length - UdpPrefixFlyweight.HEADER_LENGTH, sender, nowNs);
            return;
        }
        if (length - UdpPrefixFlyweight.HEADER_LENGTH < HeaderFlyweight.HEADER_LENGTH)
        {
            increment(malformed);
            return;
        }
        final UdpServerConnection connection = connectionsById.get(id);
        if (connection == null)
        {
            increment(unknownId);
            maybeReject(id, sender, nowNs);
            return;
        }
        if (!connection.remoteAddress().equals(sender))
        {
            increment(wrongAddress);
            return;
        }
        if (connection.hasOwnSocket())
        {
            // Its reader would never learn of a request delivered here. None should come: the
            // socket was connected before the ACCEPT went out. The client retransmits.
            increment(strayDatagrams);
            return;
        }
        deliver(connection, datagram, base, nowNs);
    }

    private void deliver(final UdpServerConnection connection, final ByteBuffer datagram, final int base, final long nowNs)
    {
        datagram.position(base + UdpPrefixFlyweight.HEADER_LENGTH);
        packetsDelivered.incrementAndGet();
        try
        {
            handler.onPacket(connection, datagram, nowNs);
        }
        catch (final RuntimeException ex)
        {
            handlerErrors.incrementAndGet();
        }
    }

    /**
     * A datagram read from {@code connection}'s own socket, on the thread that reads it: a packet
     * of the connection goes to the handler at once; anything else (set-up, other ids, garbage)
     * is copied to the receive thread and handled there as if the shared socket had read it.
     */
    void onOwnSocketDatagram(final UdpServerConnection connection, final ByteBuffer datagram, final long nowNs)
    {
        final int length = datagram.remaining();
        final int base = datagram.position();
        if (length >= UdpPrefixFlyweight.HEADER_LENGTH + HeaderFlyweight.HEADER_LENGTH &&
            length <= UdpPrefixFlyweight.HEADER_LENGTH + connection.maxPacketBytes() &&
            BigEndian.getCard64(datagram, base + UdpPrefixFlyweight.CONNECTION_ID_OFFSET) == connection.connectionId())
        {
            try
            {
                deliver(connection, datagram, base, nowNs);
            }
            finally
            {
                datagramsReceived.incrementAndGet();
            }
            return;
        }
        final ByteBuffer copy = ByteBuffer.allocate(length).put(datagram).flip();
        final InetSocketAddress sender = connection.remoteAddress();
        frontEnd.runOnReceiveThread(() -> onDatagram(copy, sender, nowNs));
    }

    /** Opens {@code connection}'s own socket; on the receive thread (from the handler's onConnect). */
    ConnectionSocket openOwnSocket(final UdpServerConnection connection)
    {
        final DatagramChannel channel;
        try
        {
            channel = frontEnd.openConnectedSocket(connection.remoteAddress());
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            onIoError(ex);
            return null;
        }
        ownSocketsByAddress.put(connection.remoteAddress(), connection);
        ownSocketsOpened.incrementAndGet();
        return new ConnectionSocket(channel);
    }

    /** {@code connection}'s own socket was closed; from any thread. */
    void onOwnSocketClosed(final UdpServerConnection connection)
    {
        frontEnd.runOnReceiveThread(() -> ownSocketsByAddress.remove(connection.remoteAddress(), connection));
    }

    private void onSetup(final ByteBuffer datagram, final int offset, final int bodyLength, final InetSocketAddress sender,
        final long nowNs)
    {
        setup.wrap(datagram, offset);
        if (setup.validate(bodyLength) != null || setup.kind() != SetupFlyweight.Kind.CONNECT)
        {
            increment(malformed);
            return;
        }
        final long nonce = setup.nonce();
        final int clientMaxPacketBytes = setup.maxPacketBytes();
        if (setup.cookieIsZero())
        {
            retry(nonce, sender, nowNs);
            return;
        }
        setup.cookie(echoedCookie, 0);
        if (!cookies.verify(echoedCookie, sender, nonce, nowNs))
        {
            // Forged, for another address, or expired: a fresh cookie costs nothing, and a
            // client that really is at this address just proves it again.
            increment(badCookies);
            retry(nonce, sender, nowNs);
            return;
        }
        // The client receives datagrams at the address it sends from: it may now cost us state.
        final UdpServerConnection existing = connectionsByNonce.get(nonce);
        if (existing != null)
        {
            if (existing.remoteAddress().equals(sender))
            {
                // Our ACCEPT was lost or is late: answer the retransmitted CONNECT identically.
                increment(duplicateConnects);
                sendLong(SetupFlyweight.Kind.ACCEPT, null, existing.connectionId(), nonce, null, sender);
            }
            else
            {
                // Another client drew the same 64-bit nonce: refuse; its retries draw no new one,
                // so it times out and reconnects with a fresh nonce.
                increment(connectionsRefused);
            }
            return;
        }
        if (servedNonces.get(nonce, nowNs) != null)
        {
            // The CONNECT of a connection that has since closed, again (a late duplicate, or a
            // replay within its cookie's life): a client draws a new nonce for each attempt, so
            // this opens nothing and answers nothing.
            increment(replayedConnects);
            return;
        }
        // A new CONNECT from the address of a connection with its own socket means that client
        // socket was closed and its port reused: the kernel would go on giving the new
        // connection's datagrams to the old connection's socket, so the old one goes first.
        final UdpServerConnection previous = ownSocketsByAddress.get(sender);
        final int replacing = previous == null ? 0 : 1;
        final CloseCause refusal = closing ? CloseCause.SERVER_CLOSED :
            connectionsById.size() - replacing >= config.maxConnections() ? CloseCause.SERVER_FULL :
            perAddress.getOrDefault(addressKey(sender), 0) - replacing >= config.maxConnectionsPerAddress() ? CloseCause.ADDRESS_LIMIT : null;
        if (refusal != null)
        {
            increment(connectionsRefused);
            if (refusal == CloseCause.SERVER_FULL)
            {
                increment(refusedFull);
            }
            else if (refusal == CloseCause.ADDRESS_LIMIT)
            {
                increment(refusedAddressLimit);
            }
            sendLong(SetupFlyweight.Kind.REFUSE, refusal, 0L, nonce, null, sender);
            return;
        }
        if (previous != null)
        {
            increment(connectionsReplaced);
            if (previous.markClosed())
            {
                removeConnection(previous, CloseCause.REPLACED, "its client address opened a new connection", nowNs);
            }
        }

        final long id = newConnectionId();
        final UdpServerConnection connection = new UdpServerConnection(
            this, id, nonce, sender, Math.min(config.maxPacketBytes(), clientMaxPacketBytes));
        connectionsById.put(id, connection);
        connectionsByNonce.put(nonce, connection);
        servedNonces.put(nonce, Boolean.TRUE, nowNs);
        perAddress.merge(addressKey(sender), 1, Integer::sum);
        openConnections.set(connectionsById.size());
        increment(connectionsAccepted);
        try
        {
            handler.onConnect(connection);
        }
        catch (final RuntimeException ex)
        {
            handlerErrors.incrementAndGet();
        }
        if (connection.isOpen())
        {
            sendLong(SetupFlyweight.Kind.ACCEPT, null, id, nonce, null, sender);
        }
    }

    private void retry(final long nonce, final InetSocketAddress sender, final long nowNs)
    {
        increment(retriesSent);
        sendLong(SetupFlyweight.Kind.RETRY, null, 0L, nonce, cookies.issue(sender, nonce, nowNs), sender);
    }

    /**
     * @return what {@code maxConnectionsPerAddress} counts per: an IPv4 address, or the /64 an IPv6
     *     address is in (a host is commonly given a whole /64, and could otherwise draw addresses
     *     from it without end).
     */
    static InetAddress addressKey(final InetSocketAddress address)
    {
        final InetAddress ip = address.getAddress();
        if (!(ip instanceof java.net.Inet6Address))
        {
            return ip;
        }
        final byte[] prefix = java.util.Arrays.copyOf(ip.getAddress(), 16);
        java.util.Arrays.fill(prefix, 8, 16, (byte)0);
        try
        {
            return InetAddress.getByAddress(prefix);
        }
        catch (final java.net.UnknownHostException e)
        {
            throw new IllegalStateException("16 bytes are an IPv6 address", e);
        }
    }

    private long newConnectionId()
    {
        long id;
        do
        {
            id = ID_SOURCE.nextLong();
        }
        while (id == UdpPrefixFlyweight.SETUP_CONNECTION_ID || connectionsById.get(id) != null);
        return id;
    }

    private void maybeReject(final long id, final InetSocketAddress sender, final long nowNs)
    {
        CloseCause cause = idleCloses.get(id, nowNs);
        if (cause == null)
        {
            cause = otherCloses.get(id, nowNs);
        }
        // An id the server closed is answered under its own per-id interval only: an off-path
        // flood of made-up ids, which uses up the shared bucket, cannot silence the REJECT that
        // tells a client its call was not executed.
        if (cause == null ? !rejectLimiter.tryAcquire(id, nowNs) : !rejectLimiter.tryAcquireKnown(id, nowNs))
        {
            increment(rejectsSuppressed);
            return;
        }
        increment(rejectsSent);
        // Cleared first: absolute writes stop at the limit, which the last REJECT may have lowered.
        replyBody.clear();
        replySetup.setReject(config.maxPacketBytes(), cause == null ? CloseCause.UNKNOWN : cause, id);
        replyBody.limit(SetupFlyweight.SHORT_LENGTH);
        send(UdpPrefixFlyweight.SETUP_CONNECTION_ID, replyBody, null, sender);
    }

    private void sendLong(final SetupFlyweight.Kind kind, final CloseCause reason, final long id, final long nonce,
        final byte[] cookie, final InetSocketAddress recipient)
    {
        final int idleSeconds = kind == SetupFlyweight.Kind.ACCEPT ?
            (int)Math.min(0xFFFF, java.util.concurrent.TimeUnit.NANOSECONDS.toSeconds(handler.idleTimeoutNs())) : 0;
        replyBody.clear();
        replySetup.set(kind, config.maxPacketBytes(), reason, idleSeconds, id, nonce, cookie);
        send(UdpPrefixFlyweight.SETUP_CONNECTION_ID, replyBody, null, recipient);
    }

    /** Sends one datagram of a connection, or a set-up datagram (id 0); from any thread. */
    void send(final long connectionId, final ByteBuffer header, final ByteBuffer payload, final InetSocketAddress to)
    {
        send(connectionId, header, payload, to, null);
    }

    /** Sends one datagram of a connection, on its own socket when {@code connected} is not null; from any thread. */
    void send(final long connectionId, final ByteBuffer header, final ByteBuffer payload, final InetSocketAddress to,
        final DatagramChannel connected)
    {
        if (frontEnd.send(connectionId, header, payload, to, connected))
        {
            // Written from any thread that sends, so a real atomic increment.
            datagramsSent.incrementAndGet();
        }
    }

    /** Called once per connection by {@link UdpServerConnection#close}, from any thread. */
    void onConnectionClosed(final UdpServerConnection connection, final CloseCause cause, final String reason)
    {
        frontEnd.runOnReceiveThread(() -> removeConnection(connection, cause, reason, clock.getAsLong()));
    }

    private void removeConnection(final UdpServerConnection connection, final CloseCause cause, final String reason,
        final long nowNs)
    {
        ownSocketsByAddress.remove(connection.remoteAddress(), connection);
        final long id = connection.connectionId();
        if (connectionsById.get(id) != connection)
        {
            return;
        }
        connectionsById.remove(id);
        if (connectionsByNonce.get(connection.nonce()) == connection)
        {
            connectionsByNonce.remove(connection.nonce());
        }
        perAddress.computeIfPresent(addressKey(connection.remoteAddress()), (a, n) -> n == 1 ? null : n - 1);
        (cause == CloseCause.IDLE ? idleCloses : otherCloses).put(id, cause, nowNs);
        openConnections.set(connectionsById.size());
        increment(connectionsClosed);
        notifyClose(connection, reason);
    }

    private void notifyClose(final UdpServerConnection connection, final String reason)
    {
        try
        {
            handler.onClose(connection, reason);
        }
        catch (final RuntimeException ex)
        {
            handlerErrors.incrementAndGet();
        }
    }

    /** From any thread: CONNECTs are refused from now on, as the endpoint is closing. */
    void startClosing()
    {
        closing = true;
    }

    /**
     * Closes every open connection, on the receive thread or after it ended.
     *
     * @param tellClients send each connection's client a REJECT (SERVER_CLOSED) first.
     */
    void closeAllConnections(final boolean tellClients)
    {
        final List<UdpServerConnection> open = new ArrayList<>(connectionsById.size());
        connectionsById.forEach(open::add);
        connectionsById.clear();
        connectionsByNonce.clear();
        ownSocketsByAddress.clear();
        perAddress.clear();
        openConnections.set(0);
        for (final UdpServerConnection connection : open)
        {
            if (connection.markClosed())
            {
                if (tellClients)
                {
                    tellClosed(connection);
                }
                increment(connectionsClosed);
                notifyClose(connection, "the server endpoint was closed");
            }
        }
    }

    /**
     * Tells a connection's client, unasked, that the server closed it (REJECT, SERVER_CLOSED): its
     * pool then drops the connection while it is idle, and its next call opens a new one, which
     * finds out whether a server still listens, instead of going to a port nobody reads.
     * Best effort: a lost REJECT leaves the client to learn it from its next call.
     */
    private void tellClosed(final UdpServerConnection connection)
    {
        increment(rejectsSent);
        replyBody.clear();
        replySetup.setReject(config.maxPacketBytes(), CloseCause.SERVER_CLOSED, connection.connectionId());
        replyBody.limit(SetupFlyweight.SHORT_LENGTH);
        send(UdpPrefixFlyweight.SETUP_CONNECTION_ID, replyBody, null, connection.remoteAddress());
    }

    /** An I/O error on the socket (or an error thrown out of the handler); from any thread. */
    void onIoError(final Throwable cause)
    {
        lastIoError = cause;
        ioErrors.incrementAndGet();
    }

    private static void increment(final AtomicLong counter)
    {
        // Single writer (the receive thread): no atomic read-modify-write needed.
        counter.lazySet(counter.get() + 1);
    }

    long openConnections()
    {
        return openConnections.get();
    }

    long datagramsReceived()
    {
        return datagramsReceived.get();
    }

    long datagramsSent()
    {
        return datagramsSent.get();
    }

    long packetsDelivered()
    {
        return packetsDelivered.get();
    }

    long malformed()
    {
        return malformed.get();
    }

    long unknownId()
    {
        return unknownId.get();
    }

    long wrongAddress()
    {
        return wrongAddress.get();
    }

    long connectionsAccepted()
    {
        return connectionsAccepted.get();
    }

    long connectionsRefused()
    {
        return connectionsRefused.get();
    }

    long connectionsClosed()
    {
        return connectionsClosed.get();
    }

    long duplicateConnects()
    {
        return duplicateConnects.get();
    }

    long rejectsSent()
    {
        return rejectsSent.get();
    }

    long rejectsSuppressed()
    {
        return rejectsSuppressed.get();
    }

    long handlerErrors()
    {
        return handlerErrors.get();
    }

    long ioErrors()
    {
        return ioErrors.get();
    }

    Throwable lastIoError()
    {
        return lastIoError;
    }

    long strayDatagrams()
    {
        return strayDatagrams.get();
    }

    long ownSocketsOpened()
    {
        return ownSocketsOpened.get();
    }

    long connectionsReplaced()
    {
        return connectionsReplaced.get();
    }

    long retriesSent()
    {
        return retriesSent.get();
    }

    long badCookies()
    {
        return badCookies.get();
    }

    long refusedFull()
    {
        return refusedFull.get();
    }

    long refusedAddressLimit()
    {
        return refusedAddressLimit.get();
    }

    long replayedConnects()
    {
        return replayedConnects.get();
    }

    @Override
    public String toString()
    {
        return "ServerDemultiplexer{closing=" + closing +
            ", openConnections=" + openConnections.get() +
            ", datagramsReceived=" + datagramsReceived.get() +
            ", datagramsSent=" + datagramsSent.get() +
            ", packetsDelivered=" + packetsDelivered.get() +
            ", malformed=" + malformed.get() +
            ", unknownId=" + unknownId.get() +
            ", wrongAddress=" + wrongAddress.get() +
            ", connectionsAccepted=" + connectionsAccepted.get() +
            ", connectionsRefused=" + connectionsRefused.get() +
            ", connectionsClosed=" + connectionsClosed.get() +
            ", duplicateConnects=" + duplicateConnects.get() +
            ", rejectsSent=" + rejectsSent.get() +
            ", rejectsSuppressed=" + rejectsSuppressed.get() +
            ", handlerErrors=" + handlerErrors.get() +
            ", ioErrors=" + ioErrors.get() +
            ", strayDatagrams=" + strayDatagrams.get() +
            ", ownSocketsOpened=" + ownSocketsOpened.get() +
            ", connectionsReplaced=" + connectionsReplaced.get() +
            ", retriesSent=" + retriesSent.get() +
            ", badCookies=" + badCookies.get() +
            ", refusedFull=" + refusedFull.get() +
            ", refusedAddressLimit=" + refusedAddressLimit.get() +
            ", replayedConnects=" + replayedConnects.get() + '}';
    }
}
