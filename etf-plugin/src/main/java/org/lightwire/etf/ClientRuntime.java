package org.lightwire.etf;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jacorb.config.ConfigurationException;
import org.lightwire.atm.Aal5Config;
import org.lightwire.atm.Aal5Link;
import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.ConnectionPool;
import org.lightwire.transport.channel.UdpClient;

/**
 * What the client connections of one ORB share: the transport client (a pool of transport
 * connections per server, one per concurrent call; over AAL5 one per server PVC) and the reply waiters, a bounded cached pool
 * of threads each of which blocks in one transport call until its reply is whole.
 *
 * <p>Why a hand-off at all, against the paper's rule of no thread on the call path: JacORB holds
 * its connection's write lock during {@code flush()}, so a flush that waited for the reply would
 * serialise every caller of the connection behind the slowest call. The caller's thread sends the
 * request; a waiter receives the reply and hands it to the connection's reader.
 */
final class ClientRuntime
{
    private final LightwireConfig config;
    private final UdpClient client;
    private final ThreadPoolExecutor replyWaiters;
    /** Link aal5: one pool per server PVC, each of one connection, as a PVC opens once per host. */
    private final ConcurrentHashMap<String, ConnectionPool> aal5Pools = new ConcurrentHashMap<>();
    final AtomicLong onewaysSent = new AtomicLong();
    final AtomicLong callsStarted = new AtomicLong();
    final AtomicLong callsFailed = new AtomicLong();

    ClientRuntime(final LightwireConfig config)
    {
        this.config = config;
        final long acquireNs = config.clientAcquireTimeoutNs();
        this.client = new UdpClient(config.engine(), config.link(), config.clientMaxConnections(), acquireNs, config.maxMessageBytes());
        final AtomicInteger threadNumber = new AtomicInteger();
        // Cached: a thread per concurrent call, gone after a minute idle. When the bound is
        // reached the caller waits for its own reply inside flush(): slower, never wrong.
        this.replyWaiters = new ThreadPoolExecutor(0, config.clientReplyThreads(), 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
            r ->
            {
                final Thread t = new Thread(r, "lightwire-reply-" + threadNumber.incrementAndGet());
                t.setDaemon(true);
                return t;
            },
            new ThreadPoolExecutor.CallerRunsPolicy());
    }

    LightwireConfig config()
    {
        return config;
    }

    UdpClient client()
    {
        return client;
    }

    /**
     * The link selection point of the client: the pool of transport connections to the server of
     * {@code profile}, over UDP to its host and port, or over the AAL5 PVC its profile names
     * ({@link LightwireConfig#LINK}).
     *
     * @throws IOException when this ORB's link and the profile do not match, or the host does not
     *     resolve; the message says which setting to change.
     */
    ConnectionPool pool(final LightwireProfile profile) throws IOException
    {
        final int[] pvc = profile.aal5Pvc();
        if (!config.aal5())
        {
            if (pvc != null)
            {
                throw new IOException("the server publishes an AAL5 PVC (vpi.vci " + pvc[0] + "." + pvc[1] + "), and this ORB's link is" +
                    " udp: set " + LightwireConfig.LINK + "=aal5 and " + LightwireConfig.AAL5_ITF + " to reach it over ATM");
            }
            final InetSocketAddress address = profile.address().resolve();
            return client.pool(address);
        }
        if (pvc == null)
        {
            throw new IOException("the server publishes no AAL5 PVC, and this ORB's link is aal5: its profile is for UDP (" +
                profile.address() + "); set " + LightwireConfig.LINK + "=udp to reach it");
        }
        final Aal5Config circuit;
        try
        {
            circuit = config.aal5Client(pvc[0], pvc[1]);
        }
        catch (final ConfigurationException e)
        {
            throw new IOException(e.getMessage(), e);
        }
        return aal5Pools.computeIfAbsent(circuit.circuit(), name -> new ConnectionPool(
            () -> new ClientConnection(Aal5Link.open(circuit), config.engine(), "aal5 " + name, config.maxMessageBytes()),
            name, 1, config.clientAcquireTimeoutNs()));
    }

    ThreadPoolExecutor replyWaiters()
    {
        return replyWaiters;
    }
}
