package org.lightwire.transport.link.udp;

import org.lightwire.transport.link.Link;
import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.HeaderFlyweight;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every Lightwire UDP client link shares: the socket (a JDK {@link DatagramChannel}
 * connected to the server), the gather send, the set-up exchange and the classification of
 * received datagrams. Subclasses differ only in how the next raw datagram reaches the calling
 * thread ({@link #pollDatagram}): read by the caller itself, or handed over by an event loop.
 *
 * <p>Counters are written by the one thread that sends or the one that receives and may be read
 * from any thread.
 */
abstract class AbstractUdpClientLink implements Link
{
    private static final SecureRandom NONCE_SOURCE = new SecureRandom();

    /** The server's address. */
    protected final InetSocketAddress serverAddress;
    /** The configuration the link was opened with. */
    protected final UdpLinkConfig config;
    /** The client socket, connected to {@link #serverAddress}, non-blocking. */
    protected final DatagramChannel channel;

    private final ByteBuffer prefixBuffer = ByteBuffer.allocateDirect(UdpPrefixFlyweight.HEADER_LENGTH);
    private final ByteBuffer setupBuffer = ByteBuffer.allocateDirect(SetupFlyweight.DATAGRAM_LENGTH);
    private final ByteBuffer[] gatherWithPayload = new ByteBuffer[3];
    private final ByteBuffer[] gatherHeaderOnly = new ByteBuffer[2];
    private final UdpPrefixFlyweight prefix = new UdpPrefixFlyweight();
    private final SetupFlyweight setup = new SetupFlyweight();

    private final AtomicLong datagramsSent = new AtomicLong();
    private final AtomicLong datagramsReceived = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong unknownId = new AtomicLong();
    private final AtomicLong strayAccepts = new AtomicLong();
    private final AtomicLong setupRetries = new AtomicLong();
    private final AtomicLong sendBufferFull = new AtomicLong();

    private long connectionId;
    private int maxPacketBytes;
    private long serverIdleTimeoutNs;
    private long setupRttNs = -1;
    private CloseCause resetCause = CloseCause.UNKNOWN;
    private volatile boolean peerReset;
    private volatile boolean closed;

    AbstractUdpClientLink(final DatagramChannel channel, final InetSocketAddress serverAddress, final UdpLinkConfig config)
    {
        this.channel = channel;
        this.serverAddress = serverAddress;
        this.config = config;
        gatherWithPayload[0] = prefixBuffer;
        gatherHeaderOnly[0] = prefixBuffer;
    }

    /**
     * Opens the client socket: SO_RCVBUF and SO_SNDBUF requested, bound, connected to the
     * server (so the kernel filters out datagrams from anyone else and reports ICMP port
     * unreachable), non-blocking.
     */
    static DatagramChannel openChannel(final InetSocketAddress serverAddress, final UdpLinkConfig config) throws IOException
    {
        if (serverAddress == null || serverAddress.isUnresolved())
        {
            throw new IllegalArgumentException("server address " + serverAddress + " must be a resolved address");
        }
        final DatagramChannel channel = serverAddress.getAddress() instanceof Inet4Address ?
            DatagramChannel.open(StandardProtocolFamily.INET) : DatagramChannel.open(StandardProtocolFamily.INET6);
        try
        {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, config.socketReceiveBufferBytes());
            channel.setOption(StandardSocketOptions.SO_SNDBUF, config.socketSendBufferBytes());
            channel.bind(config.bindAddress());
            channel.connect(serverAddress);
            channel.configureBlocking(false);
            return channel;
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
    }

    /** @return the size of a buffer that holds the largest acceptable datagram and one byte more. */
    static int receiveBufferBytes(final UdpLinkConfig config)
    {
        // One spare byte: a datagram that fills the buffer was too long (the kernel truncates
        // silently) and is dropped as malformed rather than delivered cut short.
        return UdpPrefixFlyweight.HEADER_LENGTH + config.maxPacketBytes() + 1;
    }

    /**
     * Waits for the next datagram from the server.
     *
     * @param timeoutNs 0 polls; otherwise the longest wait.
     * @return a buffer holding the datagram, prefix included, from its position to its limit, or
     *     null when none arrived in time. It stays valid until {@link #releaseDatagram()}.
     * @throws PortUnreachableException the kernel reported ICMP port unreachable.
     * @throws IOException the socket failed or was closed.
     */
    protected abstract ByteBuffer pollDatagram(long timeoutNs) throws IOException;

    /** Gives back the buffer the last {@link #pollDatagram} returned. */
    protected abstract void releaseDatagram();

    /** Releases what the subclass holds; called once, by {@link #close()}. */
    protected abstract void closeResources() throws IOException;

    /**
     * Runs the set-up exchange on the calling thread: CONNECT, retransmitted with doubling
     * intervals until the ACCEPT that echoes the nonce arrives or connectTimeoutNs passes; a
     * RETRY's cookie is echoed in a CONNECT sent at once.
     *
     * @throws SetupRefusedException the server answered REFUSE.
     * @throws ConnectException nobody listens, or no ACCEPT arrived in time.
     */
    final void performSetup() throws IOException
    {
        long nonce;
        do
        {
            nonce = NONCE_SOURCE.nextLong();
        }
        while (nonce == 0);

        final ClientSetupHandshake handshake = new ClientSetupHandshake(
            nonce, config.maxPacketBytes(), config.connectTimeoutNs(), config.setupRetryNs());
        final int length = handshake.writeConnect(setupBuffer, 0);
        setupBuffer.limit(length);

        try
        {
            handshake.start(System.nanoTime());
            sendSetup();
            while (true)
            {
                final long nowNs = System.nanoTime();
                final ClientSetupHandshake.Action action = handshake.onTimer(nowNs);
                if (action == ClientSetupHandshake.Action.TIMED_OUT)
                {
                    throw new ConnectException("no ACCEPT from the Lightwire UDP server at " + serverAddress + " within " +
                        TimeUnit.NANOSECONDS.toMillis(nowNs - handshake.firstSendNs()) + " ms (" +
                        handshake.connectsSent() + " CONNECT datagrams sent): is the server running and reachable? " +
                        "If it is only slow, raise connectTimeoutNs (now " + config.connectTimeoutNs() + " ns)");
                }
                if (action == ClientSetupHandshake.Action.RETRANSMIT)
                {
                    increment(setupRetries);
                    sendSetup();
                }

                final ByteBuffer datagram = pollDatagram(Math.max(0, handshake.nextDeadlineNs() - nowNs));
                if (datagram == null)
                {
                    continue;
                }
                final ClientSetupHandshake.Outcome outcome;
                try
                {
                    outcome = onSetupReply(handshake, datagram, System.nanoTime());
                }
                finally
                {
                    releaseDatagram();
                }
                if (outcome == ClientSetupHandshake.Outcome.ACCEPTED)
                {
                    break;
                }
                if (outcome == ClientSetupHandshake.Outcome.REFUSED)
                {
                    throw new SetupRefusedException(serverAddress, handshake.refusal());
                }
                if (outcome == ClientSetupHandshake.Outcome.RETRY)
                {
                    setupBuffer.clear();
                    setupBuffer.limit(handshake.writeConnect(setupBuffer, 0));
                    sendSetup();
                }
            }
        }
        catch (final PortUnreachableException ex)
        {
            final ConnectException failure = new ConnectException("nobody listens at " + serverAddress +
                ": the host answered CONNECT with ICMP port unreachable (is the Lightwire UDP server running on that port?)");
            failure.initCause(ex);
            throw failure;
        }

        connectionId = handshake.connectionId();
        maxPacketBytes = handshake.negotiatedMaxPacketBytes();
        serverIdleTimeoutNs = TimeUnit.SECONDS.toNanos(handshake.idleSeconds());
        setupRttNs = handshake.setupRttNs();
        prefix.wrap(prefixBuffer, 0).connectionId(connectionId);
    }

    private void sendSetup() throws IOException
    {
        setupBuffer.position(0);
        if (channel.write(setupBuffer) > 0)
        {
            increment(datagramsSent);
        }
        else
        {
            // A full socket buffer loses the CONNECT like the network would; retransmission recovers.
            increment(sendBufferFull);
        }
    }

    /** @return what the datagram meant to the exchange; null when it was dropped. */
    private ClientSetupHandshake.Outcome onSetupReply(final ClientSetupHandshake handshake, final ByteBuffer datagram,
        final long nowNs)
    {
        increment(datagramsReceived);
        final int base = datagram.position();
        final int length = datagram.remaining();
        if (length < UdpPrefixFlyweight.HEADER_LENGTH)
        {
            increment(malformed);
            return null;
        }
        if (!prefix.wrap(datagram, base).isSetup())
        {
            // No connection id is ours yet.
            increment(unknownId);
            return null;
        }
        setup.wrap(datagram, base + UdpPrefixFlyweight.HEADER_LENGTH);
        if (setup.validate(length - UdpPrefixFlyweight.HEADER_LENGTH) != null)
        {
            increment(malformed);
            return null;
        }
        final ClientSetupHandshake.Outcome outcome = handshake.onSetup(setup, nowNs);
        switch (outcome)
        {
            case STRAY_ACCEPT:
                increment(strayAccepts);
                return null;
            case IGNORED:
                // A REJECT cannot name us yet; a CONNECT has no business reaching a client.
                increment(setup.kind() == SetupFlyweight.Kind.REJECT ? unknownId : malformed);
                return null;
            default:
                return outcome;
        }
    }

    /**
     * Sends one packet as one datagram: a gather write of {prefix, header, payload} from
     * preallocated arrays, so nothing is allocated. The positions of {@code header} and
     * {@code payload} are restored before returning. A datagram the kernel cannot queue (send
     * buffer full) is lost like on the network and counted in {@link #sendBufferFull()}.
     *
     * @throws IllegalArgumentException the packet is larger than {@link #maxPacketBytes()}.
     * @throws PeerResetException the server has already rejected this connection.
     * @throws PortUnreachableException ICMP port unreachable: nobody listens at the server's port.
     */
    @Override
    public void send(final ByteBuffer header, final ByteBuffer payload) throws IOException
    {
        ensureUsable();
        final int headerPosition = header.position();
        final int payloadPosition = payload == null ? 0 : payload.position();
        final int packetBytes = header.remaining() + (payload == null ? 0 : payload.remaining());
        if (packetBytes > maxPacketBytes)
        {
            throw new IllegalArgumentException("packet of " + packetBytes + " bytes exceeds maxPacketBytes() = " +
                maxPacketBytes + " negotiated with " + serverAddress + "; fragment it");
        }

        final ByteBuffer[] gather;
        if (payload == null)
        {
            gather = gatherHeaderOnly;
            gather[1] = header;
        }
        else
        {
            gather = gatherWithPayload;
            gather[1] = header;
            gather[2] = payload;
        }
        prefixBuffer.clear();
        try
        {
            if (channel.write(gather) > 0)
            {
                increment(datagramsSent);
            }
            else
            {
                increment(sendBufferFull);
            }
        }
        catch (final PortUnreachableException ex)
        {
            throw unreachable(ex);
        }
        finally
        {
            // Drop the references so the link never keeps a caller's buffer alive.
            gather[1] = null;
            if (payload != null)
            {
                gather[2] = null;
                payload.position(payloadPosition);
            }
            header.position(headerPosition);
        }
    }

    /**
     * Receives the next packet of this connection into {@code dst}: the datagram is read into an
     * internal buffer, its prefix checked, and the packet (header and payload, prefix stripped)
     * copied into {@code dst}. That one copy is the price of checking the prefix before the
     * caller's buffer is touched.
     *
     * <p>Dropped and counted, never returned: datagrams too short for a prefix and a header or
     * longer than {@link #maxPacketBytes()} ({@link #malformed()}), datagrams for another id
     * ({@link #unknownId()}), duplicate ACCEPTs ({@link #strayAccepts()}), malformed set-up
     * datagrams ({@link #malformed()}).
     *
     * @param dst must have at least {@link #maxPacketBytes()} bytes remaining.
     * @throws PeerResetException the server answered REJECT naming this connection's id.
     * @throws PortUnreachableException ICMP port unreachable: nobody listens at the server's port.
     */
    @Override
    public int receive(final ByteBuffer dst, final long timeoutNs) throws IOException
    {
        ensureUsable();
        if (dst.remaining() < maxPacketBytes)
        {
            throw new IllegalArgumentException("dst has " + dst.remaining() + " bytes remaining; receive needs " +
                "maxPacketBytes() = " + maxPacketBytes);
        }
        if (timeoutNs < 0)
        {
            throw new IllegalArgumentException("timeoutNs = " + timeoutNs + " must be >= 0 (0 polls)");
        }

        final long deadlineNs = System.nanoTime() + timeoutNs;
        long waitNs = timeoutNs;
        try
        {
            while (true)
            {
                final ByteBuffer datagram = pollDatagram(waitNs);
                if (datagram == null)
                {
                    return TIMEOUT;
                }
                int length;
                try
                {
                    length = onDatagram(datagram);
                    if (length > 0)
                    {
                        dst.put(datagram);
                    }
                }
                finally
                {
                    releaseDatagram();
                }
                if (length > 0)
                {
                    return length;
                }
                if (waitNs > 0 && waitNs != FOREVER)
                {
                    waitNs = Math.max(0, deadlineNs - System.nanoTime());
                }
            }
        }
        catch (final PortUnreachableException ex)
        {
            throw unreachable(ex);
        }
    }

    /**
     * Classifies one datagram of the open connection.
     *
     * @return the packet's length with the datagram's position and limit around the packet, or
     *     0 when the datagram was dropped.
     */
    private int onDatagram(final ByteBuffer datagram) throws PeerResetException
    {
        increment(datagramsReceived);
        final int base = datagram.position();
        final int length = datagram.remaining();
        if (length < UdpPrefixFlyweight.HEADER_LENGTH)
        {
            increment(malformed);
            return 0;
        }
        final long id = prefix.wrap(datagram, base).connectionId();
        if (id == UdpPrefixFlyweight.SETUP_CONNECTION_ID)
        {
            onSetupDatagram(datagram, base + UdpPrefixFlyweight.HEADER_LENGTH, length - UdpPrefixFlyweight.HEADER_LENGTH);
            return 0;
        }
        if (id != connectionId)
        {
            increment(unknownId);
            return 0;
        }
        final int packetLength = length - UdpPrefixFlyweight.HEADER_LENGTH;
        if (packetLength < HeaderFlyweight.HEADER_LENGTH || packetLength > maxPacketBytes)
        {
            increment(malformed);
            return 0;
        }
        datagram.position(base + UdpPrefixFlyweight.HEADER_LENGTH);
        return packetLength;
    }

    private void onSetupDatagram(final ByteBuffer datagram, final int offset, final int bodyLength) throws PeerResetException
    {
        setup.wrap(datagram, offset);
        if (setup.validate(bodyLength) != null)
        {
            increment(malformed);
            return;
        }
        switch (setup.kind())
        {
            case REJECT:
                if (setup.connectionId() == connectionId)
                {
                    resetCause = setup.reason();
                    peerReset = true;
                    throw new PeerResetException(serverAddress, connectionId, resetCause);
                }
                increment(unknownId);
                break;
            case ACCEPT:
            case RETRY:
            case REFUSE:
                // The answer to a CONNECT retransmitted before the first ACCEPT arrived, or a
                // duplicate: the set-up is over.
                increment(strayAccepts);
                break;
            default:
                increment(malformed);
                break;
        }
    }

    private void ensureUsable() throws IOException
    {
        if (closed)
        {
            throw new ClosedChannelException();
        }
        if (peerReset)
        {
            throw new PeerResetException(serverAddress, connectionId, resetCause);
        }
    }

    private PortUnreachableException unreachable(final PortUnreachableException cause)
    {
        final PortUnreachableException ex = new PortUnreachableException("server at " + serverAddress +
            " is unreachable: ICMP port unreachable, nobody listens on that port any more (server stopped?); " +
            "connection id " + UdpPrefixFlyweight.formatId(connectionId) + " is lost");
        ex.initCause(cause);
        return ex;
    }

    /** Single-writer increment (Agrona's incrementOrdered): no atomic read-modify-write needed. */
    static void increment(final AtomicLong counter)
    {
        counter.lazySet(counter.get() + 1);
    }

    /** Closes the link; a receive blocked in another thread fails with an IOException. */
    @Override
    public final void close() throws IOException
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            closeResources();
        }
        finally
        {
            channel.close();
        }
    }

    /** @return true once {@link #close()} was called. */
    public final boolean isClosed()
    {
        return closed;
    }

    /** @return min(this side's, the server's max packet bytes), header included. */
    @Override
    public final int maxPacketBytes()
    {
        return maxPacketBytes;
    }

    /** @return false: UDP may reorder datagrams. */
    @Override
    public final boolean preservesOrder()
    {
        return false;
    }

    /** @return the connection id the server assigned in its ACCEPT. */
    public final long connectionId()
    {
        return connectionId;
    }

    /**
     * @return how long the server keeps a connection with nothing in progress, as its ACCEPT
     *     announced; 0 when it never closes one.
     */
    @Override
    public final long peerIdleTimeoutNs()
    {
        return serverIdleTimeoutNs;
    }

    /**
     * @return nanoseconds from the CONNECT that was answered to its ACCEPT, or -1 when CONNECT
     *     was retransmitted (Karn's rule: the ACCEPT cannot be matched to one send).
     */
    public final long setupRttNs()
    {
        return setupRttNs;
    }

    public final InetSocketAddress serverAddress()
    {
        return serverAddress;
    }

    /** @return the local address of the client socket. */
    public final InetSocketAddress localAddress() throws IOException
    {
        return (InetSocketAddress)channel.getLocalAddress();
    }

    /** @return datagrams handed to the kernel, CONNECTs included. */
    public final long datagramsSent()
    {
        return datagramsSent.get();
    }

    /** @return datagrams received from the server, set-up and dropped ones included. */
    public final long datagramsReceived()
    {
        return datagramsReceived.get();
    }

    /** @return datagrams dropped as too short, too long or with a malformed set-up body. */
    public final long malformed()
    {
        return malformed.get();
    }

    /** @return datagrams (data or REJECT) dropped because they named another connection id. */
    public final long unknownId()
    {
        return unknownId.get();
    }

    /** @return ACCEPTs dropped because they were duplicates or answered another attempt. */
    public final long strayAccepts()
    {
        return strayAccepts.get();
    }

    /** @return CONNECT retransmissions. */
    public final long setupRetries()
    {
        return setupRetries.get();
    }

    /** @return datagrams lost because the kernel's send buffer was full. */
    public final long sendBufferFull()
    {
        return sendBufferFull.get();
    }

    @Override
    public String toString()
    {
        return getClass().getSimpleName() + "{server=" + serverAddress +
            ", connectionId=" + UdpPrefixFlyweight.formatId(connectionId) +
            ", maxPacketBytes=" + maxPacketBytes +
            ", setupRttNs=" + setupRttNs +
            ", datagramsSent=" + datagramsSent.get() +
            ", datagramsReceived=" + datagramsReceived.get() +
            ", malformed=" + malformed.get() +
            ", unknownId=" + unknownId.get() +
            ", strayAccepts=" + strayAccepts.get() +
            ", setupRetries=" + setupRetries.get() +
            ", sendBufferFull=" + sendBufferFull.get() +
            ", peerReset=" + peerReset +
            ", closed=" + closed + '}';
    }
}
