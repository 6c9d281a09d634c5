package org.lightwire.etf;

import java.util.concurrent.TimeUnit;

import org.jacorb.config.Configuration;
import org.jacorb.config.ConfigurationException;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpLinkConfig;

/**
 * Every {@code jacorb.lightwire.*} property: its key, default and allowed range are declared here
 * once, read through JacORB's {@link Configuration}, and checked; a bad value fails with a
 * {@link ConfigurationException} that names the property and the range. {@code
 * docs/configuration.md} lists the same table for users.
 */
public final class LightwireConfig
{
    static final String PREFIX = "jacorb.lightwire.";
    /** Default ORB connections a server's Lightwire requests share: enough to keep two cores reading. */
    public static final int DEFAULT_SERVER_READER_THREADS = 4;

    /** UDP port of the server's listener; -1 (default) takes the IIOP listener's port number. */
    public static final String PORT = PREFIX + "port";
    /** Address the server's UDP socket binds; default: {@code OAIAddr} if set, else every address. */
    public static final String LISTEN_ADDRESS = PREFIX + "listen_address";
    /** Host name or address published in the profile; default: the IIOP profile's host. */
    public static final String HOST = PREFIX + "host";
    /** {@code udp} (default) or {@code aal5}: AAL5 over the Linux ATM socket API, see {@link #AAL5_PREFIX}. */
    public static final String LINK = PREFIX + "link";
    /**
     * With {@code link=aal5}: the circuit and its QoS, read by {@code org.lightwire.atm.Aal5Config}
     * under this prefix: {@code circuit} (PVC itf.vpi.vci; on a server the one it serves, on a
     * client the one that reaches the server), {@code qos.class}, {@code qos.pcr},
     * {@code qos.max_sdu} (and {@code qos.tx.*}, {@code qos.rx.*}).
     */
    public static final String AAL5_PREFIX = PREFIX + "aal5.";
    /**
     * Largest packet, header included. Unset: 8192 to remote servers and {@link #LOOPBACK_PACKET_BYTES}
     * to a server on a loopback address (MTU 64 KiB: a large datagram is not fragmented there,
     * and fewer packets per message is what makes bulk calls as fast as TCP); a server accepts
     * up to {@link #LOOPBACK_PACKET_BYTES} and each connection uses what its client proposed.
     * Set: that size everywhere, both ways.
     */
    public static final String MAX_PACKET_BYTES = PREFIX + "max_packet_bytes";
    /** Packet size to loopback servers when {@link #MAX_PACKET_BYTES} is unset: the most a UDP/IPv4 datagram carries. */
    public static final int LOOPBACK_PACKET_BYTES = 65499;
    public static final String BUFFER_POOL_PACKETS = PREFIX + "buffer_pool_packets";
    public static final String ACK_DELAY_US = PREFIX + "ack_delay_us";
    public static final String RETRANSMIT_MIN_US = PREFIX + "retransmit.min_us";
    public static final String RETRANSMIT_MAX_MS = PREFIX + "retransmit.max_ms";
    public static final String RETRANSMIT_INITIAL_MS = PREFIX + "retransmit.initial_ms";
    public static final String PEER_TIMEOUT_MS = PREFIX + "peer_timeout_ms";
    public static final String RTT_PROBE_INTERVAL_MS = PREFIX + "rtt_probe_interval_ms";
    public static final String CONNECT_TIMEOUT_MS = PREFIX + "connect_timeout_ms";
    public static final String SETUP_RETRY_MS = PREFIX + "setup_retry_ms";
    public static final String RECEIVE_SPIN_US = PREFIX + "receive_spin_us";
    public static final String SOCKET_BUFFER_BYTES = PREFIX + "socket_buffer_bytes";
    public static final String MAX_MESSAGE_BYTES = PREFIX + "max_message_bytes";
    public static final String CLIENT_MAX_CONNECTIONS = PREFIX + "client.max_connections";
    /** Largest Request written straight into its transport connection's direct buffer; 0: none is. */
    public static final String CLIENT_DIRECT_REQUEST_MAX_BYTES = PREFIX + "client.direct_request_max_bytes";
    public static final String CLIENT_ACQUIRE_TIMEOUT_MS = PREFIX + "client.acquire_timeout_ms";
    /**
     * Bytes of one-ways sent at-most-once before one goes exactly-once and waits for the previous
     * such confirmation ({@link OnewayWindow}); default a quarter of {@link #SOCKET_BUFFER_BYTES}.
     */
    public static final String CLIENT_ONEWAY_WINDOW_BYTES = PREFIX + "client.oneway_window_bytes";
    public static final String CLIENT_CALL_TIMEOUT_MS = PREFIX + "client.call_timeout_ms";
    public static final String CLIENT_REPLY_THREADS = PREFIX + "client.reply_threads";
    /**
     * Client: true (default) lets JacORB's reader thread wait on every in-flight transport call
     * itself ({@link InFlightCalls}); false hands each call to a reply-waiter thread, one more
     * thread hand-off per call (kept for comparison and for links without a selectable channel).
     */
    public static final String CLIENT_READER_DRIVEN = PREFIX + "client.reader_driven";
    public static final String SERVER_MAX_CONNECTIONS = PREFIX + "server.max_connections";
    public static final String SERVER_IDLE_TIMEOUT_MS = PREFIX + "server.idle_timeout_ms";
    /**
     * Server: true (default) gives each transport connection a UDP socket of its own on the
     * Lightwire port (SO_REUSEPORT, connected to the client), read by the JacORB reader thread of
     * its lane (one selector over the sockets of the lane's connections), so a request reaches
     * JacORB with no thread hand-off; false reads every connection on the one socket's receive
     * thread and hands each request, copied, to its lane (one more wake-up per call; kept for
     * comparison and for kernels without SO_REUSEPORT).
     */
    public static final String SERVER_SOCKET_PER_CONNECTION = PREFIX + "server.socket_per_connection";
    /** Server: connections one client IP address may hold at once; more are refused (REFUSE, counted). */
    public static final String SERVER_MAX_CONNECTIONS_PER_ADDRESS = PREFIX + "server.max_connections_per_address";
    /**
     * Server: the memory, in bytes, that requests being put together from their packets may hold
     * at once, for every client together; a request that would exceed it fails its own connection
     * (NO_MEMORY at the client, COMPLETED_NO). Default: half the JVM's direct memory limit, at
     * most 256 MiB.
     */
    public static final String SERVER_REQUEST_MEMORY_BYTES = PREFIX + "server.request_memory_bytes";
    /** Server: how long a request may take to arrive whole from its first packet; 0 for no limit. */
    public static final String SERVER_REQUEST_TIMEOUT_MS = PREFIX + "server.request_timeout_ms";
    /**
     * Server: how many ORB connections (JacORB reader threads) carry the requests of all
     * Lightwire transport connections, whatever their number; a second code set negotiated by
     * some clients adds its own (see docs/configuration.md).
     */
    public static final String SERVER_READER_THREADS = PREFIX + "server.reader_threads";
    /** Profile selector: true picks a Lightwire profile wherever it is in the IOR. */
    public static final String PREFER = PREFIX + "prefer";
    /**
     * JacORB's own key: the GIOP minor version (0, 1 or 2) a server publishes in its profiles, as
     * its IIOP profile does; clients then speak that version to it (GIOP 1.0 has no wchar).
     */
    public static final String GIOP_MINOR_VERSION = "jacorb.giop_minor_version";
    private static final String ORB_INITIALIZER_PREFIX = "org.omg.PortableInterceptor.ORBInitializerClass.";
    private static final String BIDIR_INITIALIZER = "org.jacorb.orb.giop.BiDirConnectionInitializer";

    private final int port;
    private final String listenAddress;
    private final String host;
    private final EngineConfig engine;
    private final UdpLinkConfig link;
    /** The AAL5 circuit and QoS when {@link #LINK} is aal5, else null. */
    private final org.lightwire.atm.Aal5Config aal5;
    private final UdpLinkConfig serverLink;
    private final int maxMessageBytes;
    private final int clientMaxConnections;
    private final int clientDirectRequestMaxBytes;
    private final long clientAcquireTimeoutNs;
    private final long clientCallTimeoutNs;
    private final long clientOnewayWindowBytes;
    private final int clientReplyThreads;
    private final boolean clientReaderDriven;
    private final long serverIdleTimeoutNs;
    private final boolean serverSocketPerConnection;
    private final long serverRequestMemoryBytes;
    private final int serverReaderThreads;
    private final boolean prefer;
    private final int giopMinorVersion;

    private LightwireConfig(final Configuration c) throws ConfigurationException
    {
        port = (int)range(c, PORT, -1, -1, 65535);
        listenAddress = c.getAttribute(LISTEN_ADDRESS, c.getAttribute("OAIAddr", ""));
        host = c.getAttribute(HOST, "");
        final String linkName = c.getAttribute(LINK, "udp").trim();
        if (!"udp".equals(linkName) && !"aal5".equals(linkName))
        {
            throw new ConfigurationException(LINK + " = " + linkName + " is not a known link; the allowed values are udp and aal5");
        }
        aal5 = "aal5".equals(linkName) ? aal5(c) : null;
        final int maxPacketBytes = (int)range(c, MAX_PACKET_BYTES, EngineConfig.DEFAULT_MAX_PACKET_BYTES, 64, 65499);
        final boolean packetSizeSet = !c.getAttribute(MAX_PACKET_BYTES, "").trim().isEmpty();
        final long retransmitMinNs = TimeUnit.MICROSECONDS.toNanos(
            range(c, RETRANSMIT_MIN_US, EngineConfig.DEFAULT_RETRANSMIT_MIN_NS / 1000, 1, 60_000_000));
        final long retransmitMaxNs = TimeUnit.MILLISECONDS.toNanos(
            range(c, RETRANSMIT_MAX_MS, EngineConfig.DEFAULT_RETRANSMIT_MAX_NS / 1_000_000,
                Math.max(1, TimeUnit.NANOSECONDS.toMillis(retransmitMinNs + 999_999)), 600_000));
        final long retransmitInitialNs = TimeUnit.MILLISECONDS.toNanos(
            range(c, RETRANSMIT_INITIAL_MS, Math.min(EngineConfig.DEFAULT_RETRANSMIT_INITIAL_NS, retransmitMaxNs) / 1_000_000,
                Math.max(1, TimeUnit.NANOSECONDS.toMillis(retransmitMinNs + 999_999)), TimeUnit.NANOSECONDS.toMillis(retransmitMaxNs)));
        final long peerTimeoutNs = TimeUnit.MILLISECONDS.toNanos(
            range(c, PEER_TIMEOUT_MS, Math.max(EngineConfig.DEFAULT_PEER_TIMEOUT_NS, 2 * retransmitMaxNs) / 1_000_000,
                2 * TimeUnit.NANOSECONDS.toMillis(retransmitMaxNs), 3_600_000));
        try
        {
            engine = EngineConfig.builder()
                .maxPacketBytes(maxPacketBytes)
                .bufferPoolPackets((int)range(c, BUFFER_POOL_PACKETS, EngineConfig.DEFAULT_BUFFER_POOL_PACKETS, 1, 127))
                .ackDelayNs(TimeUnit.MICROSECONDS.toNanos(range(c, ACK_DELAY_US, EngineConfig.DEFAULT_ACK_DELAY_NS / 1000, 0, 60_000_000)))
                .retransmitMinNs(retransmitMinNs)
                .retransmitMaxNs(retransmitMaxNs)
                .retransmitInitialNs(retransmitInitialNs)
                .peerTimeoutNs(peerTimeoutNs)
                .rttProbeIntervalNs(TimeUnit.MILLISECONDS.toNanos(
                    range(c, RTT_PROBE_INTERVAL_MS, EngineConfig.DEFAULT_RTT_PROBE_INTERVAL_NS / 1_000_000, 0, 3_600_000)))
                .requestTimeoutNs(TimeUnit.MILLISECONDS.toNanos(
                    range(c, SERVER_REQUEST_TIMEOUT_MS, EngineConfig.DEFAULT_REQUEST_TIMEOUT_NS / 1_000_000, 0, 3_600_000)))
                .build();
            final long connectTimeoutMs = range(c, CONNECT_TIMEOUT_MS, 5000, 1, 3_600_000);
            final int socketBufferBytes = (int)range(c, SOCKET_BUFFER_BYTES, UdpLinkConfig.DEFAULT_SOCKET_BUFFER_BYTES, 4096, 1 << 30);
            link = UdpLinkConfig.builder()
                .maxPacketBytes(maxPacketBytes)
                .loopbackMaxPacketBytes(packetSizeSet ? 0 : LOOPBACK_PACKET_BYTES)
                .connectTimeoutNs(TimeUnit.MILLISECONDS.toNanos(connectTimeoutMs))
                .setupRetryNs(TimeUnit.MILLISECONDS.toNanos(range(c, SETUP_RETRY_MS, Math.min(200, connectTimeoutMs), 1, connectTimeoutMs)))
                .receiveSpinNs(TimeUnit.MICROSECONDS.toNanos(range(c, RECEIVE_SPIN_US, 0, 0, 1_000_000)))
                .socketReceiveBufferBytes(socketBufferBytes)
                .socketSendBufferBytes(socketBufferBytes)
                .maxConnections((int)range(c, SERVER_MAX_CONNECTIONS, UdpLinkConfig.DEFAULT_MAX_CONNECTIONS, 1, 1 << 20))
                .maxConnectionsPerAddress((int)range(c, SERVER_MAX_CONNECTIONS_PER_ADDRESS,
                    UdpLinkConfig.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, 1, 1 << 20))
                // JacORB's reader thread waits on the channels of all in-flight calls with one
                // selector (InFlightCalls), so client channels must stay selectable.
                .clientWaits(UdpLinkConfig.ClientWaits.SELECT)
                .build();
            serverLink = packetSizeSet ? link : link.toBuilder().maxPacketBytes(LOOPBACK_PACKET_BYTES).build();
        }
        catch (final IllegalArgumentException e)
        {
            // The ranges above are checked first; this names what the core found wrong all the same.
            throw new ConfigurationException("jacorb.lightwire: " + e.getMessage());
        }
        maxMessageBytes = (int)range(c, MAX_MESSAGE_BYTES, 64 * 1024 * 1024, 1024, Integer.MAX_VALUE - 64);
        clientMaxConnections = (int)range(c, CLIENT_MAX_CONNECTIONS, 64, 1, 65536);
        clientDirectRequestMaxBytes = (int)range(c, CLIENT_DIRECT_REQUEST_MAX_BYTES, 2 * 1024 * 1024, 0, 1 << 30);
        clientAcquireTimeoutNs = TimeUnit.MILLISECONDS.toNanos(range(c, CLIENT_ACQUIRE_TIMEOUT_MS, 30_000, 0, 3_600_000));
        clientCallTimeoutNs = TimeUnit.MILLISECONDS.toNanos(range(c, CLIENT_CALL_TIMEOUT_MS, 0, 0, 86_400_000));
        clientOnewayWindowBytes = range(c, CLIENT_ONEWAY_WINDOW_BYTES, link.socketReceiveBufferBytes() / 4, 1024, 1L << 30);
        clientReplyThreads = (int)range(c, CLIENT_REPLY_THREADS, 1024, 1, 65536);
        clientReaderDriven = bool(c, CLIENT_READER_DRIVEN, true);
        serverIdleTimeoutNs = TimeUnit.MILLISECONDS.toNanos(range(c, SERVER_IDLE_TIMEOUT_MS, 600_000, 1000, 86_400_000));
        serverSocketPerConnection = bool(c, SERVER_SOCKET_PER_CONNECTION, true);
        serverRequestMemoryBytes = range(c, SERVER_REQUEST_MEMORY_BYTES,
            org.lightwire.transport.channel.RequestMemoryBudget.defaultLimitBytes(), 65_536, 1L << 40);
        serverReaderThreads = (int)range(c, SERVER_READER_THREADS, DEFAULT_SERVER_READER_THREADS, 1, 256);
        prefer = bool(c, PREFER, true);
        giopMinorVersion = (int)range(c, GIOP_MINOR_VERSION, 2, 0, 2);
        refuseBiDir(c);
    }

    /**
     * Bidirectional GIOP (a server calling back over its client's connection) has no place in
     * Lightwire: a transport connection carries calls from its client to its server only. An ORB
     * that installs JacORB's BiDir initializer and Lightwire is refused here, at configuration,
     * rather than with a NO_PERMISSION at its first callback.
     */
    private static void refuseBiDir(final Configuration c) throws ConfigurationException
    {
        for (final String key : c.getAttributeNamesWithPrefix(ORB_INITIALIZER_PREFIX))
        {
            if ((key + "=" + c.getAttribute(key, "")).contains(BIDIR_INITIALIZER))
            {
                throw new ConfigurationException(key + " installs " + BIDIR_INITIALIZER + ": bidirectional GIOP is not supported " +
                    "over Lightwire, whose connections carry calls from client to server only; give this ORB IIOP alone for " +
                    "callbacks (leave out org.lightwire.etf.LightwireFactories from jacorb.transport.factories), or drop the initializer");
            }
        }
    }

    /** @return the GIOP version this server's profiles name: 1.{@link #GIOP_MINOR_VERSION}. */
    public org.omg.GIOP.Version giopVersion()
    {
        return new org.omg.GIOP.Version((byte)1, (byte)giopMinorVersion);
    }

    private static org.lightwire.atm.Aal5Config aal5(final Configuration c) throws ConfigurationException
    {
        final java.util.Properties p = new java.util.Properties();
        for (final String key : c.getAttributeNamesWithPrefix(AAL5_PREFIX))
        {
            p.setProperty(key, c.getAttribute(key, ""));
        }
        try
        {
            final org.lightwire.atm.Aal5Config config = org.lightwire.atm.Aal5Config.fromProperties(p, AAL5_PREFIX);
            if (config.pvc() == null)
            {
                throw new ConfigurationException(AAL5_PREFIX + "circuit is not set: the JacORB plug-in runs AAL5 over PVCs " +
                    "(itf.vpi.vci, e.g. 0.0.100); SVCs are not supported by it yet");
            }
            return config;
        }
        catch (final IllegalArgumentException e)
        {
            throw new ConfigurationException(LINK + " = aal5: " + e.getMessage());
        }
    }

    /** @return the AAL5 circuit and QoS when {@link #LINK} is aal5, else null. */
    public org.lightwire.atm.Aal5Config aal5()
    {
        return aal5;
    }

    /**
     * Reads and checks every Lightwire property.
     *
     * @throws ConfigurationException naming the first property with a bad value, and its range.
     */
    public static LightwireConfig from(final Configuration configuration) throws ConfigurationException
    {
        return new LightwireConfig(configuration);
    }

    /**
     * @return the property's whole-number value, or the default when unset.
     * @throws ConfigurationException naming the key and range when the value is not a number in range.
     */
    public static long range(final Configuration c, final String key, final long defaultValue, final long min, final long max)
        throws ConfigurationException
    {
        final String text = c.getAttribute(key, "").trim();
        if (text.isEmpty())
        {
            return defaultValue;
        }
        final long value;
        try
        {
            value = Long.parseLong(text);
        }
        catch (final NumberFormatException e)
        {
            throw new ConfigurationException(key + " = " + text + " is not a whole number; the allowed range is " + min + ".." + max);
        }
        if (value < min || value > max)
        {
            throw new ConfigurationException(key + " = " + value + " is outside the allowed range " + min + ".." + max);
        }
        return value;
    }

    /**
     * @return the property's boolean value (true/on, false/off), or the default when unset.
     * @throws ConfigurationException naming the key for any other value.
     */
    public static boolean bool(final Configuration c, final String key, final boolean defaultValue) throws ConfigurationException
    {
        final String text = c.getAttribute(key, "").trim();
        if (text.isEmpty())
        {
            return defaultValue;
        }
        if ("true".equalsIgnoreCase(text) || "on".equalsIgnoreCase(text))
        {
            return true;
        }
        if ("false".equalsIgnoreCase(text) || "off".equalsIgnoreCase(text))
        {
            return false;
        }
        throw new ConfigurationException(key + " = " + text + " is not a boolean; the allowed values are true and false");
    }

    /** @return the configured UDP port, or -1 for "the IIOP port number". */
    public int port()
    {
        return port;
    }

    /** @return the address to bind, or "" for every address. */
    public String listenAddress()
    {
        return listenAddress;
    }

    /** @return the host to publish, or "" for the IIOP profile's. */
    public String host()
    {
        return host;
    }

    public EngineConfig engine()
    {
        return engine;
    }

    /** @return the server's link settings: as {@link #link()}, with the largest packet it accepts. */
    public UdpLinkConfig serverLink()
    {
        return serverLink;
    }

    public UdpLinkConfig link()
    {
        return link;
    }

    public int maxMessageBytes()
    {
        return maxMessageBytes;
    }

    public int clientMaxConnections()
    {
        return clientMaxConnections;
    }

    /** @return the largest Request written into its transport connection's direct buffer (0: none). */
    public int clientDirectRequestMaxBytes()
    {
        return clientDirectRequestMaxBytes;
    }

    public long clientAcquireTimeoutNs()
    {
        return clientAcquireTimeoutNs;
    }

    /** @return the transport's own limit on a call, or 0: none beyond JacORB's reply timeouts. */
    public long clientCallTimeoutNs()
    {
        return clientCallTimeoutNs;
    }

    /** @return bytes of one-ways in a window ({@link #CLIENT_ONEWAY_WINDOW_BYTES}). */
    public long clientOnewayWindowBytes()
    {
        return clientOnewayWindowBytes;
    }

    public int clientReplyThreads()
    {
        return clientReplyThreads;
    }

    /** @return true when JacORB's reader thread waits on the in-flight calls itself. */
    public boolean clientReaderDriven()
    {
        return clientReaderDriven;
    }

    public long serverIdleTimeoutNs()
    {
        return serverIdleTimeoutNs;
    }

    /** @return the memory budget of the requests a server puts together, in bytes. */
    public long serverRequestMemoryBytes()
    {
        return serverRequestMemoryBytes;
    }

    /** @return how many ORB connections (JacORB reader threads) a server's Lightwire requests share. */
    public int serverReaderThreads()
    {
        return serverReaderThreads;
    }

    public boolean serverSocketPerConnection()
    {
        return serverSocketPerConnection;
    }

    public boolean prefer()
    {
        return prefer;
    }
}
