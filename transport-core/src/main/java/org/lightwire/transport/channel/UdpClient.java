package org.lightwire.transport.channel;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpClientLink;
import org.lightwire.transport.link.udp.UdpLinkConfig;
import org.lightwire.transport.link.udp.UdpPrefixFlyweight;
import org.lightwire.transport.protocol.CloseCause;

/**
 * A Lightwire client over UDP: a {@link ConnectionPool} per server, each connection a
 * {@link UdpClientLink} (its own socket, read by the calling thread) and a client engine.
 * Thread-safe: concurrent calls to one server use separate connections.
 */
public final class UdpClient implements AutoCloseable
{
    /** Default most connections (concurrent calls) per server. */
    public static final int DEFAULT_MAX_CONNECTIONS = 64;

    private final EngineConfig engineConfig;
    private final UdpLinkConfig linkConfig;
    private final int maxConnections;
    private final long acquireTimeoutNs;
    private final int maxReplyBytes;
    private final ConcurrentHashMap<InetSocketAddress, ConnectionPool> pools = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong callsSentAgain = new java.util.concurrent.atomic.AtomicLong();

    /** Reads the reply before the connection goes back to the pool. */
    @FunctionalInterface
    public interface ReplyReader<T>
    {
        T read(ByteBuffer reply);
    }

    public UdpClient(
        final EngineConfig engineConfig,
        final UdpLinkConfig linkConfig,
        final int maxConnections,
        final long acquireTimeoutNs,
        final int maxReplyBytes)
    {
        this.engineConfig = engineConfig;
        this.linkConfig = linkConfig;
        this.maxConnections = maxConnections;
        this.acquireTimeoutNs = acquireTimeoutNs;
        this.maxReplyBytes = maxReplyBytes;
    }

    /** A client with default settings. */
    public static UdpClient withDefaults()
    {
        return new UdpClient(EngineConfig.defaults(), UdpLinkConfig.defaults(), DEFAULT_MAX_CONNECTIONS,
            TimeUnit.SECONDS.toNanos(30), UdpServer.DEFAULT_MAX_MESSAGE_BYTES);
    }

    /** @return the pool of connections to {@code server}, made on first use. */
    public ConnectionPool pool(final InetSocketAddress server)
    {
        return pools.computeIfAbsent(server, s -> new ConnectionPool(() -> connect(s), s.toString(), maxConnections, acquireTimeoutNs));
    }

    private ClientConnection connect(final InetSocketAddress server) throws IOException
    {
        final int packetBytes = linkConfig.maxPacketBytesTo(server);
        final UdpLinkConfig toServer = packetBytes == linkConfig.maxPacketBytes() ? linkConfig :
            linkConfig.toBuilder().maxPacketBytes(packetBytes).build();
        final UdpClientLink link = linkConfig.clientWaits() == UdpLinkConfig.ClientWaits.BLOCK ?
            UdpClientLink.connectBlocking(server, toServer) : UdpClientLink.connect(server, toServer);
        // The engine's packets are the link's: the smaller of both sides' maximum.
        final EngineConfig engine = link.maxPacketBytes() == engineConfig.maxPacketBytes() ? engineConfig :
            engineConfig.toBuilder().maxPacketBytes(link.maxPacketBytes()).build();
        final ClientConnection c = new ClientConnection(link, engine,
            server + " (connection " + UdpPrefixFlyweight.formatId(link.connectionId()) + ")", maxReplyBytes);
        // The set-up round trip is not fed to the engine: the server's first CONNECT runs cold
        // code (class loading, SecureRandom seeding) and would inflate the estimate for minutes
        // at one probe a second. The first call's probe measures the warm path instead.
        return c;
    }

    /**
     * One exactly-once call. When the server had closed the pooled connection as idle before the
     * call reached it (its REJECT says {@link CloseCause#IDLE}), the call goes again, once, on a
     * new connection: nothing of it was executed, so exactly-once holds.
     *
     * @param request from position to limit; its position and limit are undefined afterwards.
     * @param reader reads the reply (valid only during {@code read}).
     */
    public <T> T call(final InetSocketAddress server, final ByteBuffer request, final long timeoutNs, final ReplyReader<T> reader)
        throws IOException
    {
        final ConnectionPool pool = pool(server);
        // The engine sends slices of the request and leaves its position and limit undefined.
        final ByteBuffer again = request.duplicate();
        final ClientConnection c = pool.acquire();
        try
        {
            return reader.read(c.call(request, timeoutNs));
        }
        catch (final ConnectionFailedException e)
        {
            if (e.closeCause() != CloseCause.IDLE)
            {
                throw e;
            }
        }
        finally
        {
            pool.release(c);
        }
        callsSentAgain.incrementAndGet();
        // On a new connection: the server closed the idle ones together, likely every one pooled.
        pool.discardIdle();
        final ClientConnection fresh = pool.acquire();
        try
        {
            return reader.read(fresh.call(again, timeoutNs));
        }
        finally
        {
            pool.release(fresh);
        }
    }

    /** @return calls sent again on a new connection because the server had closed theirs as idle. */
    public long callsSentAgain()
    {
        return callsSentAgain.get();
    }

    /** One one-way (at-most-once) call. */
    public void send(final InetSocketAddress server, final ByteBuffer request) throws IOException
    {
        final ConnectionPool pool = pool(server);
        final ClientConnection c = pool.acquire();
        try
        {
            c.send(request);
        }
        finally
        {
            pool.release(c);
        }
    }

    /** @return connections open now, idle or in a call, to every server. */
    public int openConnections()
    {
        return pools.values().stream().mapToInt(ConnectionPool::openConnections).sum();
    }

    /**
     * Closes every pool: their idle connections and servicer threads now, connections in a call
     * when the call ends. The client stays usable: a later call opens a new pool.
     */
    @Override
    public void close()
    {
        pools.values().forEach(ConnectionPool::close);
        pools.clear();
    }
}
