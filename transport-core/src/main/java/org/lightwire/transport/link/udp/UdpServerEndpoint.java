package org.lightwire.transport.link.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.lightwire.transport.protocol.HeaderFlyweight;

import java.io.Closeable;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server side of Lightwire over UDP: one UDP socket on a Netty event loop (epoll when
 * {@link Epoll#isAvailable()} and {@code nativeTransport} is set, NIO otherwise) that answers
 * the set-up exchange and demultiplexes the datagrams of many connections by the connection id
 * in their {@link UdpPrefixFlyweight prefix} (see {@code docs/udp-link.md}).
 *
 * <ul>
 *   <li>CONNECT from address X with nonce N: if a connection already exists for (X, N) its
 *       ACCEPT is sent again (the first may have been lost); otherwise a connection gets a fresh
 *       random nonzero id, {@link ServerPacketHandler#onConnect} is called and ACCEPT sent.
 *       With {@code maxConnections} open, the CONNECT goes unanswered and is counted.</li>
 *   <li>A datagram with a known id from the address that opened the connection goes to
 *       {@link ServerPacketHandler#onPacket}, without a copy.</li>
 *   <li>Everything else is dropped and counted: never an exception on this path. An unknown id
 *       is also answered with REJECT naming it, at most once per id per
 *       {@link #REJECT_INTERVAL_NS} and at most {@value #REJECT_BURST} in a burst, so a client
 *       of a previous server incarnation learns at once that its connection is gone.</li>
 * </ul>
 *
 * <p>All connection state lives on the event-loop thread; counters may be read from any thread.
 * Per datagram Netty allocates a {@link DatagramPacket} and the sender's address; the endpoint
 * allocates nothing more.
 */
public final class UdpServerEndpoint implements Closeable
{
    /** Shortest interval between two REJECTs for the same unknown id. */
    public static final long REJECT_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Most REJECTs sent back to back; the bucket refills one every {@link #REJECT_REFILL_NS}. */
    public static final int REJECT_BURST = 64;
    /** Refill interval of the REJECT token bucket (1000 REJECTs per second sustained). */
    public static final long REJECT_REFILL_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final int REJECT_LIMITER_SLOTS = 1024;
    private static final long CLOSE_TIMEOUT_MS = 2000;
    private static final SecureRandom ID_SOURCE = new SecureRandom();

    private final UdpLinkConfig config;
    private final ServerPacketHandler handler;
    private final EventLoopGroup group;
    private final boolean nativeTransport;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Channel channel;

    // Event-loop state.
    private final LongObjectTable<UdpServerConnection> connectionsById;
    private final LongObjectTable<UdpServerConnection> connectionsByNonce;
    private final UdpPrefixFlyweight prefix = new UdpPrefixFlyweight();
    private final SetupFlyweight setup = new SetupFlyweight();
    private final UdpPrefixFlyweight replyPrefix = new UdpPrefixFlyweight();
    private final SetupFlyweight replySetup = new SetupFlyweight();
    private final ByteBuffer scratch;
    private final RejectLimiter rejectLimiter = new RejectLimiter(
        REJECT_LIMITER_SLOTS, REJECT_INTERVAL_NS, REJECT_BURST, REJECT_REFILL_NS, System.nanoTime());

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
    private final AtomicLong directSent = new AtomicLong();
    /** Off for a same-run comparison: {@code -Dlightwire.udp.server.directSends=false}. */
    private final boolean directSends = !"false".equals(System.getProperty("lightwire.udp.server.directSends"));
    private volatile Throwable lastIoError;

    private UdpServerEndpoint(
        final UdpLinkConfig config, final ServerPacketHandler handler, final EventLoopGroup group, final boolean nativeTransport)
    {
        this.config = config;
        this.handler = handler;
        this.group = group;
        this.nativeTransport = nativeTransport;
        connectionsById = new LongObjectTable<>(config.maxConnections());
        connectionsByNonce = new LongObjectTable<>(config.maxConnections());
        scratch = ByteBuffer.allocateDirect(datagramBufferBytes(config));
    }

    /**
     * Binds a server endpoint and starts its event loop (one thread, a daemon).
     *
     * @param address where to bind; port 0 picks a free port (see {@link #localAddress()}).
     * @param config {@code maxPacketBytes}, {@code maxConnections}, socket buffer sizes,
     *     {@code reusePort} and {@code nativeTransport} apply.
     * @param handler the application; called on the event-loop thread.
     * @throws BindException the address could not be bound; the message names it.
     */
    public static UdpServerEndpoint bind(
        final InetSocketAddress address, final UdpLinkConfig config, final ServerPacketHandler handler) throws IOException
    {
        if (handler == null)
        {
            throw new IllegalArgumentException("handler must not be null");
        }
        final boolean useEpoll = config.nativeTransport() && Epoll.isAvailable();
        final DefaultThreadFactory threads = new DefaultThreadFactory("lightwire-udp-server", true);
        final EventLoopGroup group = useEpoll ? new EpollEventLoopGroup(1, threads) : new NioEventLoopGroup(1, threads);
        final UdpServerEndpoint endpoint = new UdpServerEndpoint(config, handler, group, useEpoll);

        final Bootstrap bootstrap = new Bootstrap()
            .group(group)
            .channel(useEpoll ? EpollDatagramChannel.class : NioDatagramChannel.class)
            .option(ChannelOption.SO_RCVBUF, config.socketReceiveBufferBytes())
            .option(ChannelOption.SO_SNDBUF, config.socketSendBufferBytes())
            // Netty's datagram default is a fixed 2048-byte buffer, which would silently
            // truncate larger packets; one spare byte makes an oversize datagram detectable.
            .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(datagramBufferBytes(config)))
            .handler(endpoint.new InboundHandler());
        if (config.reusePort())
        {
            if (useEpoll)
            {
                bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
            }
            else
            {
                bootstrap.option(NioChannelOption.of(StandardSocketOptions.SO_REUSEPORT), true);
            }
        }

        final ChannelFuture bound = bootstrap.bind(address).awaitUninterruptibly();
        if (!bound.isSuccess())
        {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(CLOSE_TIMEOUT_MS);
            final BindException ex = new BindException("could not bind the Lightwire UDP server to " + address + ": " +
                bound.cause());
            ex.initCause(bound.cause());
            throw ex;
        }
        return endpoint;
    }

    private static int datagramBufferBytes(final UdpLinkConfig config)
    {
        return UdpPrefixFlyweight.HEADER_LENGTH + config.maxPacketBytes() + 1;
    }

    Channel channel()
    {
        return channel;
    }

    /** @return the bound address (with the port chosen when bound to port 0). */
    public InetSocketAddress localAddress()
    {
        return (InetSocketAddress)channel.localAddress();
    }

    /** @return true when the endpoint runs on Netty's native epoll transport. */
    public boolean usesNativeTransport()
    {
        return nativeTransport;
    }

    /** @return the configuration the endpoint was bound with. */
    public UdpLinkConfig config()
    {
        return config;
    }

    private void onDatagram(final ByteBuf content, final InetSocketAddress sender, final long nowNs)
    {
        final int length = content.readableBytes();
        if (length < UdpPrefixFlyweight.HEADER_LENGTH || length > UdpPrefixFlyweight.HEADER_LENGTH + config.maxPacketBytes())
        {
            increment(malformed);
            return;
        }
        final ByteBuffer datagram = nioView(content, length);
        final int base = datagram.position();
        final long id = prefix.wrap(datagram, base).connectionId();
        if (id == UdpPrefixFlyweight.SETUP_CONNECTION_ID)
        {
            onSetup(datagram, base + UdpPrefixFlyweight.HEADER_LENGTH, length - UdpPrefixFlyweight.HEADER_LENGTH, sender);
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
        datagram.position(base + UdpPrefixFlyweight.HEADER_LENGTH);
        increment(packetsDelivered);
        try
        {
            handler.onPacket(connection, datagram, nowNs);
        }
        catch (final RuntimeException ex)
        {
            increment(handlerErrors);
        }
    }

    /** @return the datagram as a ByteBuffer from position to limit, without a copy when possible. */
    private ByteBuffer nioView(final ByteBuf content, final int length)
    {
        if (content.nioBufferCount() == 1)
        {
            return content.internalNioBuffer(content.readerIndex(), length);
        }
        scratch.clear().limit(length);
        content.getBytes(content.readerIndex(), scratch);
        return scratch.flip();
    }

    private void onSetup(final ByteBuffer datagram, final int offset, final int bodyLength, final InetSocketAddress sender)
    {
        setup.wrap(datagram, offset);
        if (setup.validate(bodyLength) != null || setup.kind() != SetupFlyweight.Kind.CONNECT)
        {
            increment(malformed);
            return;
        }
        final long nonce = setup.nonce();
        final UdpServerConnection existing = connectionsByNonce.get(nonce);
        if (existing != null)
        {
            if (existing.remoteAddress().equals(sender))
            {
                // Our ACCEPT was lost or is late: answer the retransmitted CONNECT identically.
                increment(duplicateConnects);
                sendSetup(SetupFlyweight.Kind.ACCEPT, nonce, existing.connectionId(), sender);
            }
            else
            {
                // Another client drew the same 64-bit nonce: refuse; its retries draw no new one,
                // so it times out and reconnects with a fresh nonce.
                increment(connectionsRefused);
            }
            return;
        }
        if (connectionsById.size() >= config.maxConnections() || closed.get())
        {
            increment(connectionsRefused);
            return;
        }

        final long id = newConnectionId();
        final UdpServerConnection connection = new UdpServerConnection(
            this, id, nonce, sender, Math.min(config.maxPacketBytes(), setup.maxPacketBytes()));
        connectionsById.put(id, connection);
        connectionsByNonce.put(nonce, connection);
        openConnections.set(connectionsById.size());
        increment(connectionsAccepted);
        try
        {
            handler.onConnect(connection);
        }
        catch (final RuntimeException ex)
        {
            increment(handlerErrors);
        }
        if (connection.isOpen())
        {
            sendSetup(SetupFlyweight.Kind.ACCEPT, nonce, id, sender);
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
        if (!rejectLimiter.tryAcquire(id, nowNs))
        {
            increment(rejectsSuppressed);
            return;
        }
        increment(rejectsSent);
        sendSetup(SetupFlyweight.Kind.REJECT, 0L, id, sender);
    }

    private void sendSetup(final SetupFlyweight.Kind kind, final long nonce, final long id, final InetSocketAddress recipient)
    {
        final Channel ch = channel;
        final ByteBuf reply = ch.alloc().directBuffer(SetupFlyweight.DATAGRAM_LENGTH);
        final ByteBuffer nio = reply.internalNioBuffer(0, SetupFlyweight.DATAGRAM_LENGTH);
        final int base = nio.position();
        replyPrefix.wrap(nio, base).connectionId(UdpPrefixFlyweight.SETUP_CONNECTION_ID);
        replySetup.wrap(nio, base + UdpPrefixFlyweight.HEADER_LENGTH).set(kind, config.maxPacketBytes(), nonce, id);
        reply.writerIndex(SetupFlyweight.DATAGRAM_LENGTH);
        ch.writeAndFlush(new DatagramPacket(reply, recipient), ch.voidPromise());
        onDatagramSent();
    }

    /**
     * Sends a datagram on the calling thread, when that thread is not the event loop and the
     * socket is epoll's: {@code sendto} on one UDP socket from several threads is safe, and
     * Netty's own queue (and the wake-up of its event loop) is then skipped. The caller still
     * owns and releases {@code datagram}.
     *
     * @return false when the caller must hand the datagram to Netty instead: on the event loop,
     *     on NIO, or when the socket buffer is full (the event loop then waits for room).
     */
    boolean sendDirect(final ByteBuf datagram, final InetSocketAddress recipient)
    {
        final Channel ch = channel;
        if (!(ch instanceof EpollDatagramChannel) || ch.eventLoop().inEventLoop() || !ch.isActive() || !directSends)
        {
            return false;
        }
        final int length = datagram.readableBytes();
        final ByteBuffer nio = datagram.internalNioBuffer(datagram.readerIndex(), length);
        try
        {
            final int sent = ((io.netty.channel.unix.Socket)((EpollDatagramChannel)ch).fd())
                .sendTo(nio, nio.position(), nio.limit(), recipient.getAddress(), recipient.getPort());
            if (sent <= 0)
            {
                return false;
            }
        }
        catch (final IOException e)
        {
            // As Netty would: reported as an I/O error of the socket; the datagram is lost.
            lastIoError = e;
            ioErrors.incrementAndGet();
        }
        directSent.incrementAndGet();
        return true;
    }

    /** @return datagrams sent by {@link #sendDirect} on the replying thread rather than the event loop. */
    public long directSends()
    {
        return directSent.get();
    }

    void onDatagramSent()
    {
        // Written from any thread that sends, so a real atomic increment.
        datagramsSent.incrementAndGet();
    }

    /** Called once per connection by {@link UdpServerConnection#close(String)}, from any thread. */
    void onConnectionClosed(final UdpServerConnection connection, final String reason)
    {
        final EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop())
        {
            removeConnection(connection, reason);
            return;
        }
        try
        {
            loop.execute(() -> removeConnection(connection, reason));
        }
        catch (final RejectedExecutionException ex)
        {
            // The endpoint is shutting down; its close() has dropped every connection.
        }
    }

    private void removeConnection(final UdpServerConnection connection, final String reason)
    {
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
            increment(handlerErrors);
        }
    }

    private void closeAllConnections()
    {
        final List<UdpServerConnection> open = new ArrayList<>(connectionsById.size());
        connectionsById.forEach(open::add);
        connectionsById.clear();
        connectionsByNonce.clear();
        openConnections.set(0);
        for (final UdpServerConnection connection : open)
        {
            if (connection.markClosed())
            {
                increment(connectionsClosed);
                notifyClose(connection, "the server endpoint was closed");
            }
        }
    }

    /**
     * Closes every connection ({@link ServerPacketHandler#onClose} on the event loop), closes
     * the socket and shuts the event loop down. Returns when the socket is closed (so the port
     * can be bound again), waiting at most about two seconds per step. Idempotent.
     */
    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        final Channel ch = channel;
        final EventLoop loop = ch.eventLoop();
        if (loop.inEventLoop())
        {
            closeAllConnections();
            ch.close();
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            return;
        }
        try
        {
            loop.submit(this::closeAllConnections).awaitUninterruptibly(CLOSE_TIMEOUT_MS);
        }
        catch (final RejectedExecutionException ex)
        {
            // Already shut down.
        }
        ch.close().awaitUninterruptibly(CLOSE_TIMEOUT_MS);
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(CLOSE_TIMEOUT_MS);
    }

    /** @return true once {@link #close()} was called. */
    public boolean isClosed()
    {
        return closed.get();
    }

    private static void increment(final AtomicLong counter)
    {
        // Single writer (the event loop): no atomic read-modify-write needed.
        counter.lazySet(counter.get() + 1);
    }

    /** @return connections open now. */
    public long openConnections()
    {
        return openConnections.get();
    }

    /**
     * @return every datagram read from the socket, dropped ones included; counted after the
     *     datagram was handled, so its other counters are already up to date.
     */
    public long datagramsReceived()
    {
        return datagramsReceived.get();
    }

    /** @return datagrams handed to Netty: packets, ACCEPTs and REJECTs. */
    public long datagramsSent()
    {
        return datagramsSent.get();
    }

    /** @return packets given to {@link ServerPacketHandler#onPacket}. */
    public long packetsDelivered()
    {
        return packetsDelivered.get();
    }

    /** @return datagrams too short or too long, malformed set-up bodies, ACCEPT or REJECT sent to a server. */
    public long malformed()
    {
        return malformed.get();
    }

    /** @return data datagrams whose id names no open connection. */
    public long unknownId()
    {
        return unknownId.get();
    }

    /** @return data datagrams with a known id from an address other than the connection's. */
    public long wrongAddress()
    {
        return wrongAddress.get();
    }

    /** @return connections opened. */
    public long connectionsAccepted()
    {
        return connectionsAccepted.get();
    }

    /** @return CONNECTs left unanswered: table full, endpoint closing, or a nonce collision. */
    public long connectionsRefused()
    {
        return connectionsRefused.get();
    }

    /** @return connections closed, by the application or by the endpoint's close. */
    public long connectionsClosed()
    {
        return connectionsClosed.get();
    }

    /** @return retransmitted CONNECTs answered again with the same ACCEPT. */
    public long duplicateConnects()
    {
        return duplicateConnects.get();
    }

    /** @return REJECTs sent for unknown ids. */
    public long rejectsSent()
    {
        return rejectsSent.get();
    }

    /** @return REJECTs not sent because of the rate limits. */
    public long rejectsSuppressed()
    {
        return rejectsSuppressed.get();
    }

    /** @return exceptions thrown by the {@link ServerPacketHandler}, caught and dropped. */
    public long handlerErrors()
    {
        return handlerErrors.get();
    }

    /** @return I/O errors Netty reported on the socket (see {@link #lastIoError()}). */
    public long ioErrors()
    {
        return ioErrors.get();
    }

    /** @return the last I/O error Netty reported, or null. */
    public Throwable lastIoError()
    {
        return lastIoError;
    }

    @Override
    public String toString()
    {
        return "UdpServerEndpoint{localAddress=" + (channel != null ? channel.localAddress() : null) +
            ", nativeTransport=" + nativeTransport +
            ", closed=" + closed.get() +
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
            ", ioErrors=" + ioErrors.get() + '}';
    }

    /** Runs on the event loop. */
    private final class InboundHandler extends ChannelInboundHandlerAdapter
    {
        @Override
        public void handlerAdded(final ChannelHandlerContext ctx)
        {
            channel = ctx.channel();
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            if (!(msg instanceof DatagramPacket))
            {
                ReferenceCountUtil.release(msg);
                return;
            }
            final DatagramPacket packet = (DatagramPacket)msg;
            try
            {
                onDatagram(packet.content(), packet.sender(), System.nanoTime());
            }
            finally
            {
                packet.release();
                // Counted last: whoever sees this count sees every other counter this datagram moved.
                increment(datagramsReceived);
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            lastIoError = cause;
            ioErrors.incrementAndGet();
        }
    }
}
