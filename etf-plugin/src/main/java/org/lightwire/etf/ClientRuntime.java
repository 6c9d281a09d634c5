package org.lightwire.etf;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.lightwire.transport.channel.UdpClient;

/**
 * What the client connections of one ORB share: the transport client (a pool of transport
 * connections per server, one per concurrent call) and the reply waiters, a bounded cached pool
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
    private org.lightwire.transport.channel.ConnectionPool aal5Pool;
    private final ThreadPoolExecutor replyWaiters;
    private int users;
    private long closes;
    final AtomicLong onewaysSent = new AtomicLong();
    final AtomicLong callsStarted = new AtomicLong();
    final AtomicLong callsFailed = new AtomicLong();
    /** Calls sent again on a new transport connection because the server had closed theirs as idle. */
    final AtomicLong callsSentAgain = new AtomicLong();
    /** Requests given the code-set context on a transport connection that had not carried it. */
    final AtomicLong codeSetContextsAdded = new AtomicLong();
    /** Requests JacORB wrote straight into their transport connection's direct buffer. */
    final AtomicLong directRequests = new AtomicLong();
    /** Requests that would have been, but direct memory ran out (-XX:MaxDirectMemorySize). */
    final AtomicLong directRequestBuffersRefused = new AtomicLong();
    /** One-way requests sent exactly-once to confirm the at-most-once ones before them. */
    final AtomicLong onewaysConfirmed = new AtomicLong();
    /** Confirmations that waited for the previous window of one-ways to be confirmed ({@link OnewayWindow}). */
    final AtomicLong onewayWindowWaits = new AtomicLong();

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

    /**
     * A client connection starts using the transport connections: until every user has
     * {@link #release released} them they stay open.
     */
    synchronized void retain()
    {
        users++;
    }

    /**
     * A client connection no longer uses the transport connections. With the last user (when the
     * ORB shuts down, it closes its connections) every pool is closed: its sockets, its idle
     * servicer thread. A connection made later opens new pools; it waits here while they close.
     */
    synchronized void release()
    {
        if (--users > 0)
        {
            return;
        }
        client.close();
        if (aal5Pool != null)
        {
            aal5Pool.close();
            aal5Pool = null;
        }
        closes++;
    }

    /** @return transport connections open now, over every pool. */
    synchronized int openTransportConnections()
    {
        return client.openConnections() + (aal5Pool == null ? 0 : aal5Pool.openConnections());
    }

    /** @return how often the last user released the pools and they were closed. */
    synchronized long closes()
    {
        return closes;
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
     * @return the pool of the one transport connection over the configured AAL5 PVC (one circuit
     *     carries one call at a time), made on first use.
     */
    synchronized org.lightwire.transport.channel.ConnectionPool aal5Pool()
    {
        if (aal5Pool == null)
        {
            final org.lightwire.atm.Aal5Config a = config.aal5();
            // Each transport connection runs the set-up exchange over the circuit: a restarted
            // client or server is a new connection, never taken for the old one.
            aal5Pool = new org.lightwire.transport.channel.ConnectionPool(() ->
                new org.lightwire.transport.channel.ClientConnection(org.lightwire.transport.link.circuit.CircuitClientLink.connect(
                    org.lightwire.atm.Aal5Link.open(a), "aal5 " + a.circuit(), config.link().connectTimeoutNs(), config.link().setupRetryNs()),
                    config.engine(), "aal5 " + a.circuit(), config.maxMessageBytes()),
                "aal5:" + a.circuit(), 1, config.clientAcquireTimeoutNs());
        }
        return aal5Pool;
    }

    ThreadPoolExecutor replyWaiters()
    {
        return replyWaiters;
    }
}
