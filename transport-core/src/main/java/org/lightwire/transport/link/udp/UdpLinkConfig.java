package org.lightwire.transport.link.udp;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Immutable settings of the Lightwire UDP link, client and server side (see
 * {@code docs/udp-link.md}). Build one with {@link #builder()}; {@link Builder#build()} checks
 * every setting and throws {@link IllegalArgumentException} naming the setting and its allowed
 * range.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>allowed</th><th>meaning</th></tr>
 *   <tr><td>maxPacketBytes</td><td>8192</td><td>64..65499</td><td>largest omniTransport packet,
 *       header included, this side accepts; a connection uses the smaller of both sides'</td></tr>
 *   <tr><td>loopbackMaxPacketBytes</td><td>0</td><td>0, 64..65499</td><td>client: largest packet
 *       it proposes to a server on a loopback address (whose MTU is 64 KiB, so large datagrams
 *       are not fragmented); 0 = {@code maxPacketBytes}</td></tr>
 *   <tr><td>connectTimeoutNs</td><td>5 s</td><td>1 ms..1 h</td><td>how long a client waits for
 *       ACCEPT before it gives up</td></tr>
 *   <tr><td>setupRetryNs</td><td>200 ms</td><td>1 ms..connectTimeoutNs</td><td>first CONNECT
 *       retransmission interval; doubles after each retransmission</td></tr>
 *   <tr><td>receiveSpinNs</td><td>0</td><td>0..1 s</td><td>how long a client receive busy-polls
 *       before it parks</td></tr>
 *   <tr><td>socketReceiveBufferBytes</td><td>4 MiB</td><td>4096..1 GiB</td><td>SO_RCVBUF
 *       requested (the kernel may grant less)</td></tr>
 *   <tr><td>socketSendBufferBytes</td><td>4 MiB</td><td>4096..1 GiB</td><td>SO_SNDBUF
 *       requested (the kernel may grant less)</td></tr>
 *   <tr><td>bindAddress</td><td>null</td><td>any</td><td>client's local address; null binds
 *       the wildcard address and an ephemeral port</td></tr>
 *   <tr><td>maxConnectionsPerAddress</td><td>1024</td><td>1..1048576</td><td>server: connections
 *       one client IP address may hold at once; a CONNECT beyond is answered REFUSE</td></tr>
 *   <tr><td>maxConnections</td><td>4096</td><td>1..1048576</td><td>server: connections it
 *       holds at once; CONNECTs beyond are not answered</td></tr>
 *   <tr><td>reusePort</td><td>false</td><td>-</td><td>server: set SO_REUSEPORT before binding
 *       so several endpoints can share a port</td></tr>
 *   <tr><td>serverIo</td><td>BLOCKING</td><td>BLOCKING, NETTY</td><td>server: how its socket is
 *       read (see {@link ServerIo})</td></tr>
 *   <tr><td>clientWaits</td><td>BLOCK</td><td>BLOCK, SELECT</td><td>client: how a caller waits
 *       for its reply (see {@link ClientWaits})</td></tr>
 *   <tr><td>nativeTransport</td><td>true</td><td>-</td><td>server with {@code serverIo} NETTY: use
 *       Netty's epoll transport when {@code Epoll.isAvailable()}, NIO otherwise</td></tr>
 * </table>
 */
public final class UdpLinkConfig
{
    public static final int DEFAULT_MAX_PACKET_BYTES = 8192;
    public static final long DEFAULT_CONNECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);
    public static final long DEFAULT_SETUP_RETRY_NS = TimeUnit.MILLISECONDS.toNanos(200);
    public static final long DEFAULT_RECEIVE_SPIN_NS = 0;
    public static final int DEFAULT_SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;
    /** A quarter of the table: one address cannot fill it, and a host of many client ORBs fits. */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1024;
    // NETTY, not BLOCKING, while clients park at once (receiveSpinNs 0): see docs/udp-link.md.
    public static final ServerIo DEFAULT_SERVER_IO = ServerIo.BLOCKING;
    public static final ClientWaits DEFAULT_CLIENT_WAITS = ClientWaits.BLOCK;

    public static final long MIN_CONNECT_TIMEOUT_NS = TimeUnit.MILLISECONDS.toNanos(1);
    public static final long MAX_CONNECT_TIMEOUT_NS = TimeUnit.HOURS.toNanos(1);
    public static final long MIN_SETUP_RETRY_NS = TimeUnit.MILLISECONDS.toNanos(1);
    public static final long MAX_RECEIVE_SPIN_NS = TimeUnit.SECONDS.toNanos(1);
    public static final int MIN_SOCKET_BUFFER_BYTES = 4096;
    public static final int MAX_SOCKET_BUFFER_BYTES = 1 << 30;
    public static final int MAX_MAX_CONNECTIONS = 1 << 20;

    private final int maxPacketBytes;
    private final int loopbackMaxPacketBytes;
    private final long connectTimeoutNs;
    private final long setupRetryNs;
    private final long receiveSpinNs;
    private final int socketReceiveBufferBytes;
    private final int socketSendBufferBytes;
    private final InetSocketAddress bindAddress;
    private final int maxConnections;
    private final int maxConnectionsPerAddress;
    private final boolean reusePort;
    private final ServerIo serverIo;
    private final ClientWaits clientWaits;
    private final boolean nativeTransport;

    /** How a {@link UdpServerEndpoint} reads its socket. */
    /**
     * How a client caller waits for its reply. Both read the socket on the calling thread
     * ({@link UdpClientLink}); they differ in the system calls of a wait and in who runs the
     * timers. Measured in {@code bench}'s LoopbackDemo (see the README).
     */
    public enum ClientWaits
    {
        /**
         * One plain blocking receive, as a raw UDP ping-pong does; the retransmission timers and
         * the call deadline are kept by a shared thread, which ends a wait by closing the link
         * ({@link UdpClientLink#connectBlocking}).
         */
        BLOCK,
        /** A selector with a timeout, then a receive: the caller keeps its own timers. */
        SELECT
    }

    public enum ServerIo
    {
        /**
         * A JDK {@code DatagramChannel} in blocking mode, read by one thread of its own: one
         * system call per datagram received, one per datagram sent, as a raw UDP echo.
         */
        BLOCKING,
        /**
         * A Netty event loop (epoll or NIO, see {@code nativeTransport}): readiness, the read
         * and a read that finds the socket empty per datagram when they come one at a time.
         */
        NETTY
    }

    private UdpLinkConfig(final Builder builder)
    {
        maxPacketBytes = builder.maxPacketBytes;
        loopbackMaxPacketBytes = builder.loopbackMaxPacketBytes;
        connectTimeoutNs = builder.connectTimeoutNs;
        setupRetryNs = builder.setupRetryNs;
        receiveSpinNs = builder.receiveSpinNs;
        socketReceiveBufferBytes = builder.socketReceiveBufferBytes;
        socketSendBufferBytes = builder.socketSendBufferBytes;
        bindAddress = builder.bindAddress;
        maxConnections = builder.maxConnections;
        maxConnectionsPerAddress = builder.maxConnectionsPerAddress;
        reusePort = builder.reusePort;
        serverIo = builder.serverIo;
        clientWaits = builder.clientWaits;
        nativeTransport = builder.nativeTransport;
    }

    /** @return a builder holding the defaults. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return the configuration with every setting at its default. */
    public static UdpLinkConfig defaults()
    {
        return builder().build();
    }

    /** @return a builder holding this configuration's values. */
    public Builder toBuilder()
    {
        return new Builder()
            .maxPacketBytes(maxPacketBytes)
            .loopbackMaxPacketBytes(loopbackMaxPacketBytes)
            .connectTimeoutNs(connectTimeoutNs)
            .setupRetryNs(setupRetryNs)
            .receiveSpinNs(receiveSpinNs)
            .socketReceiveBufferBytes(socketReceiveBufferBytes)
            .socketSendBufferBytes(socketSendBufferBytes)
            .bindAddress(bindAddress)
            .maxConnections(maxConnections)
            .maxConnectionsPerAddress(maxConnectionsPerAddress)
            .reusePort(reusePort)
            .serverIo(serverIo)
            .clientWaits(clientWaits)
            .nativeTransport(nativeTransport);
    }

    public int maxPacketBytes()
    {
        return maxPacketBytes;
    }

    /** @return the client's packet size for a server on a loopback address; 0 = {@link #maxPacketBytes()}. */
    public int loopbackMaxPacketBytes()
    {
        return loopbackMaxPacketBytes;
    }

    /** @return the largest packet a client proposes to {@code server}. */
    public int maxPacketBytesTo(final InetSocketAddress server)
    {
        return loopbackMaxPacketBytes > 0 && server.getAddress() != null && server.getAddress().isLoopbackAddress() ?
            loopbackMaxPacketBytes : maxPacketBytes;
    }

    public long connectTimeoutNs()
    {
        return connectTimeoutNs;
    }

    public long setupRetryNs()
    {
        return setupRetryNs;
    }

    public long receiveSpinNs()
    {
        return receiveSpinNs;
    }

    public int socketReceiveBufferBytes()
    {
        return socketReceiveBufferBytes;
    }

    public int socketSendBufferBytes()
    {
        return socketSendBufferBytes;
    }

    /** @return the client's local bind address, or null for the wildcard and an ephemeral port. */
    public InetSocketAddress bindAddress()
    {
        return bindAddress;
    }

    public int maxConnections()
    {
        return maxConnections;
    }

    /** @return server: connections one client IP address may hold at once. */
    public int maxConnectionsPerAddress()
    {
        return maxConnectionsPerAddress;
    }

    public boolean reusePort()
    {
        return reusePort;
    }

    public ServerIo serverIo()
    {
        return serverIo;
    }

    public ClientWaits clientWaits()
    {
        return clientWaits;
    }

    public boolean nativeTransport()
    {
        return nativeTransport;
    }

    @Override
    public String toString()
    {
        return "UdpLinkConfig{maxPacketBytes=" + maxPacketBytes +
            ", loopbackMaxPacketBytes=" + loopbackMaxPacketBytes +
            ", connectTimeoutNs=" + connectTimeoutNs +
            ", setupRetryNs=" + setupRetryNs +
            ", receiveSpinNs=" + receiveSpinNs +
            ", socketReceiveBufferBytes=" + socketReceiveBufferBytes +
            ", socketSendBufferBytes=" + socketSendBufferBytes +
            ", bindAddress=" + bindAddress +
            ", maxConnections=" + maxConnections +
            ", maxConnectionsPerAddress=" + maxConnectionsPerAddress +
            ", reusePort=" + reusePort +
            ", serverIo=" + serverIo +
            ", clientWaits=" + clientWaits +
            ", nativeTransport=" + nativeTransport + '}';
    }

    /** Mutable builder of {@link UdpLinkConfig}; not thread-safe. */
    public static final class Builder
    {
        private int maxPacketBytes = DEFAULT_MAX_PACKET_BYTES;
        private int loopbackMaxPacketBytes;
        private long connectTimeoutNs = DEFAULT_CONNECT_TIMEOUT_NS;
        private long setupRetryNs = DEFAULT_SETUP_RETRY_NS;
        private long receiveSpinNs = DEFAULT_RECEIVE_SPIN_NS;
        private int socketReceiveBufferBytes = DEFAULT_SOCKET_BUFFER_BYTES;
        private int socketSendBufferBytes = DEFAULT_SOCKET_BUFFER_BYTES;
        private InetSocketAddress bindAddress;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
        private boolean reusePort;
        private ServerIo serverIo = DEFAULT_SERVER_IO;
        private ClientWaits clientWaits = DEFAULT_CLIENT_WAITS;
        private boolean nativeTransport = true;

        private Builder()
        {
        }

        public Builder maxPacketBytes(final int maxPacketBytes)
        {
            this.maxPacketBytes = maxPacketBytes;
            return this;
        }

        public Builder loopbackMaxPacketBytes(final int loopbackMaxPacketBytes)
        {
            this.loopbackMaxPacketBytes = loopbackMaxPacketBytes;
            return this;
        }

        public Builder connectTimeoutNs(final long connectTimeoutNs)
        {
            this.connectTimeoutNs = connectTimeoutNs;
            return this;
        }

        public Builder setupRetryNs(final long setupRetryNs)
        {
            this.setupRetryNs = setupRetryNs;
            return this;
        }

        public Builder receiveSpinNs(final long receiveSpinNs)
        {
            this.receiveSpinNs = receiveSpinNs;
            return this;
        }

        public Builder socketReceiveBufferBytes(final int socketReceiveBufferBytes)
        {
            this.socketReceiveBufferBytes = socketReceiveBufferBytes;
            return this;
        }

        public Builder socketSendBufferBytes(final int socketSendBufferBytes)
        {
            this.socketSendBufferBytes = socketSendBufferBytes;
            return this;
        }

        public Builder bindAddress(final InetSocketAddress bindAddress)
        {
            this.bindAddress = bindAddress;
            return this;
        }

        public Builder maxConnections(final int maxConnections)
        {
            this.maxConnections = maxConnections;
            return this;
        }

        public Builder maxConnectionsPerAddress(final int maxConnectionsPerAddress)
        {
            this.maxConnectionsPerAddress = maxConnectionsPerAddress;
            return this;
        }

        public Builder reusePort(final boolean reusePort)
        {
            this.reusePort = reusePort;
            return this;
        }

        public Builder clientWaits(final ClientWaits clientWaits)
        {
            this.clientWaits = clientWaits;
            return this;
        }

        public Builder serverIo(final ServerIo serverIo)
        {
            this.serverIo = serverIo;
            return this;
        }

        public Builder nativeTransport(final boolean nativeTransport)
        {
            this.nativeTransport = nativeTransport;
            return this;
        }

        /**
         * @return the configuration.
         * @throws IllegalArgumentException naming the first setting outside its allowed range.
         */
        public UdpLinkConfig build()
        {
            checkRange("maxPacketBytes", maxPacketBytes, SetupFlyweight.MIN_PACKET_BYTES, SetupFlyweight.MAX_PACKET_BYTES);
            if (loopbackMaxPacketBytes != 0)
            {
                checkRange("loopbackMaxPacketBytes", loopbackMaxPacketBytes, SetupFlyweight.MIN_PACKET_BYTES, SetupFlyweight.MAX_PACKET_BYTES);
            }
            checkRange("connectTimeoutNs", connectTimeoutNs, MIN_CONNECT_TIMEOUT_NS, MAX_CONNECT_TIMEOUT_NS);
            if (setupRetryNs < MIN_SETUP_RETRY_NS || setupRetryNs > connectTimeoutNs)
            {
                throw new IllegalArgumentException("setupRetryNs = " + setupRetryNs + " is outside the allowed range " +
                    MIN_SETUP_RETRY_NS + "..connectTimeoutNs (" + connectTimeoutNs + ")");
            }
            checkRange("receiveSpinNs", receiveSpinNs, 0, MAX_RECEIVE_SPIN_NS);
            checkRange("socketReceiveBufferBytes", socketReceiveBufferBytes, MIN_SOCKET_BUFFER_BYTES, MAX_SOCKET_BUFFER_BYTES);
            checkRange("socketSendBufferBytes", socketSendBufferBytes, MIN_SOCKET_BUFFER_BYTES, MAX_SOCKET_BUFFER_BYTES);
            checkRange("maxConnections", maxConnections, 1, MAX_MAX_CONNECTIONS);
            checkRange("maxConnectionsPerAddress", maxConnectionsPerAddress, 1, MAX_MAX_CONNECTIONS);
            if (clientWaits == null)
            {
                throw new IllegalArgumentException("clientWaits must not be null: choose " +
                    java.util.Arrays.toString(ClientWaits.values()));
            }
            if (serverIo == null)
            {
                throw new IllegalArgumentException("serverIo must not be null: choose " +
                    java.util.Arrays.toString(ServerIo.values()));
            }
            return new UdpLinkConfig(this);
        }

        private static void checkRange(final String name, final long value, final long min, final long max)
        {
            if (value < min || value > max)
            {
                throw new IllegalArgumentException(
                    name + " = " + value + " is outside the allowed range " + min + ".." + max);
            }
        }
    }
}
