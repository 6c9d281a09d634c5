package org.lightwire.transport.link.udp;

import java.io.Closeable;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server side of Lightwire over UDP: one UDP socket that answers the set-up exchange and
 * demultiplexes the datagrams of many connections by the connection id in their
 * {@link UdpPrefixFlyweight prefix} (see {@code docs/udp-link.md}).
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
 * <p>The protocol logic is a {@link ServerDemultiplexer}; the socket and the one receive thread
 * that reads it are a front-end chosen by {@link UdpLinkConfig#serverIo()}: a blocking JDK
 * channel with a thread of its own (one system call per datagram each way), or a Netty event
 * loop (epoll when {@code nativeTransport} is set and available, NIO otherwise). All
 * connection state lives on the receive thread; counters may be read from any thread.
 */
public final class UdpServerEndpoint implements Closeable
{
    /** Shortest interval between two REJECTs for the same unknown id. */
    public static final long REJECT_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Most REJECTs sent back to back; the bucket refills one every {@link #REJECT_REFILL_NS}. */
    public static final int REJECT_BURST = 64;
    /** Refill interval of the REJECT token bucket (1000 REJECTs per second sustained). */
    public static final long REJECT_REFILL_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final UdpLinkConfig config;
    private final ServerFrontEnd frontEnd;
    private final ServerDemultiplexer demultiplexer;
    private final AtomicBoolean closed = new AtomicBoolean();

    private UdpServerEndpoint(final UdpLinkConfig config, final ServerPacketHandler handler)
    {
        this.config = config;
        frontEnd = config.serverIo() == UdpLinkConfig.ServerIo.NETTY ?
            new NettyServerFrontEnd(config) : new BlockingServerFrontEnd(config);
        demultiplexer = new ServerDemultiplexer(config, handler, frontEnd, System::nanoTime);
    }

    /**
     * Binds a server endpoint and starts its receive thread (a daemon).
     *
     * @param address where to bind; port 0 picks a free port (see {@link #localAddress()}).
     * @param config {@code maxPacketBytes}, {@code maxConnections}, socket buffer sizes,
     *     {@code reusePort}, {@code serverIo} and {@code nativeTransport} apply.
     * @param handler the application; called on the receive thread.
     * @throws BindException the address could not be bound; the message names it.
     */
    public static UdpServerEndpoint bind(
        final InetSocketAddress address, final UdpLinkConfig config, final ServerPacketHandler handler) throws IOException
    {
        if (handler == null)
        {
            throw new IllegalArgumentException("handler must not be null");
        }
        final UdpServerEndpoint endpoint = new UdpServerEndpoint(config, handler);
        endpoint.frontEnd.start(address, endpoint.demultiplexer);
        return endpoint;
    }

    /** @return the bound address (with the port chosen when bound to port 0). */
    public InetSocketAddress localAddress()
    {
        return frontEnd.localAddress();
    }

    /** @return true when the endpoint runs on Netty's native epoll transport. */
    public boolean usesNativeTransport()
    {
        return frontEnd.usesNativeTransport();
    }

    /** @return how the endpoint reads its socket. */
    public UdpLinkConfig.ServerIo serverIo()
    {
        return config.serverIo();
    }

    /** @return the configuration the endpoint was bound with. */
    public UdpLinkConfig config()
    {
        return config;
    }

    /**
     * Closes every connection ({@link ServerPacketHandler#onClose} on the receive thread),
     * closes the socket and ends the receive thread. Returns when the socket is closed (so the
     * port can be bound again), waiting at most about two seconds per step. Idempotent.
     */
    @Override
    public void close()
    {
        close(true);
    }

    /**
     * Closes without telling the clients, as a crashed process does: for tests of what a client
     * sees of a server that died.
     */
    void closeSilently()
    {
        close(false);
    }

    /** @param tellClients send each open connection's client a REJECT (SERVER_CLOSED). */
    private void close(final boolean tellClients)
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        demultiplexer.startClosing();
        frontEnd.close(() -> demultiplexer.closeAllConnections(tellClients));
    }

    /** @return true once {@link #close()} was called. */
    public boolean isClosed()
    {
        return closed.get();
    }

    /** @return connections open now. */
    public long openConnections()
    {
        return demultiplexer.openConnections();
    }

    /**
     * @return every datagram read from the socket, dropped ones included; counted after the
     *     datagram was handled, so its other counters are already up to date.
     */
    public long datagramsReceived()
    {
        return demultiplexer.datagramsReceived();
    }

    /** @return datagrams handed to the socket: packets, ACCEPTs and REJECTs. */
    public long datagramsSent()
    {
        return demultiplexer.datagramsSent();
    }

    /** @return packets given to {@link ServerPacketHandler#onPacket}. */
    public long packetsDelivered()
    {
        return demultiplexer.packetsDelivered();
    }

    /** @return datagrams too short or too long, malformed set-up bodies, ACCEPT or REJECT sent to a server. */
    public long malformed()
    {
        return demultiplexer.malformed();
    }

    /** @return data datagrams whose id names no open connection. */
    public long unknownId()
    {
        return demultiplexer.unknownId();
    }

    /** @return data datagrams with a known id from an address other than the connection's. */
    public long wrongAddress()
    {
        return demultiplexer.wrongAddress();
    }

    /** @return connections opened. */
    public long connectionsAccepted()
    {
        return demultiplexer.connectionsAccepted();
    }

    /** @return CONNECTs left unanswered: table full, endpoint closing, or a nonce collision. */
    public long connectionsRefused()
    {
        return demultiplexer.connectionsRefused();
    }

    /** @return connections closed, by the application or by the endpoint's close. */
    public long connectionsClosed()
    {
        return demultiplexer.connectionsClosed();
    }

    /** @return retransmitted CONNECTs answered again with the same ACCEPT. */
    public long duplicateConnects()
    {
        return demultiplexer.duplicateConnects();
    }

    /** @return REJECTs sent for unknown ids. */
    public long rejectsSent()
    {
        return demultiplexer.rejectsSent();
    }

    /** @return REJECTs not sent because of the rate limits. */
    public long rejectsSuppressed()
    {
        return demultiplexer.rejectsSuppressed();
    }

    /** @return exceptions thrown by the {@link ServerPacketHandler}, caught and dropped. */
    public long handlerErrors()
    {
        return demultiplexer.handlerErrors();
    }

    /**
     * @return I/O errors on the socket, and errors the handler threw that are not
     *     {@link RuntimeException}s (see {@link #lastIoError()}).
     */
    public long ioErrors()
    {
        return demultiplexer.ioErrors();
    }

    /** @return the last error counted by {@link #ioErrors()}, or null. */
    public Throwable lastIoError()
    {
        return demultiplexer.lastIoError();
    }

    /**
     * @return data datagrams that reached the shared socket for a connection with a socket of
     *     its own, dropped (the client retransmits); none are expected.
     */
    public long strayDatagrams()
    {
        return demultiplexer.strayDatagrams();
    }

    /** @return connections given a socket of their own ({@link UdpServerConnection#openOwnSocket()}). */
    public long ownSocketsOpened()
    {
        return demultiplexer.ownSocketsOpened();
    }

    /** @return connections closed because a new CONNECT, its address proved, came from their client address. */
    public long connectionsReplaced()
    {
        return demultiplexer.connectionsReplaced();
    }

    /** @return RETRYs sent: CONNECTs without a valid cookie, which cost the server no state. */
    public long retriesSent()
    {
        return demultiplexer.retriesSent();
    }

    /** @return CONNECTs whose cookie was forged, issued for another address, port or nonce, or expired. */
    public long badCookies()
    {
        return demultiplexer.badCookies();
    }

    /** @return proved CONNECTs refused because the server held {@code maxConnections}. */
    public long refusedFull()
    {
        return demultiplexer.refusedFull();
    }

    /** @return CONNECTs with a valid cookie for a connection that has since closed (late duplicates, replays): ignored. */
    public long replayedConnects()
    {
        return demultiplexer.replayedConnects();
    }

    /** @return proved CONNECTs refused because their address held {@code maxConnectionsPerAddress}. */
    public long refusedAddressLimit()
    {
        return demultiplexer.refusedAddressLimit();
    }

    @Override
    public String toString()
    {
        return "UdpServerEndpoint{serverIo=" + config.serverIo() +
            ", frontEnd=" + frontEnd +
            ", closed=" + closed.get() +
            ", demultiplexer=" + demultiplexer + '}';
    }
}
