package org.lightwire.transport.channel;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.lightwire.transport.engine.ProtocolEngine;

/**
 * The client's connections to one server, as omniORB keeps its channels: created on demand, one
 * per concurrent call, bounded, and reused when idle (most recently used first, as its socket
 * and engine are warm).
 *
 * <p>The JVM's {@link IdleServicer} services idle connections: it sends the CALL_ACK of a
 * connection that stayed idle for the ack delay (up to a millisecond late), and at least once a
 * second reads what reached every idle connection, so that a server that resends its last reply
 * (our CALL_ACK was lost) is answered with another instead of holding that reply until its peer
 * timeout closes the connection. It is never on the call path.
 */
public final class ConnectionPool implements AutoCloseable
{
    /** Opens a new connection to the pool's server. */
    @FunctionalInterface
    public interface Connector
    {
        ClientConnection connect() throws IOException;
    }

    private final Connector connector;
    private final String server;
    private final int maxConnections;
    private final long acquireTimeoutNs;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private final ArrayDeque<ClientConnection> idle = new ArrayDeque<>();
    /** The idle connections the servicer looks at (its thread only). */
    private final List<ClientConnection> scratch = new ArrayList<>();
    private final IdleServicer servicer = IdleServicer.shared();
    private int open;
    private int pendingConnects;
    private volatile boolean closed;
    private long connectsMade;
    private long connectionsDiscarded;

    /**
     * @param connector opens connections.
     * @param server the server's name, for messages.
     * @param maxConnections the most connections (concurrent calls) to this server.
     * @param acquireTimeoutNs how long a caller waits for a connection when all are busy.
     */
    public ConnectionPool(final Connector connector, final String server, final int maxConnections, final long acquireTimeoutNs)
    {
        if (maxConnections < 1)
        {
            throw new IllegalArgumentException("maxConnections = " + maxConnections + " must be at least 1");
        }
        this.connector = connector;
        this.server = server;
        this.maxConnections = maxConnections;
        this.acquireTimeoutNs = acquireTimeoutNs;
        servicer.register(this);
    }

    /**
     * @return an idle connection, or a new one while fewer than the maximum are open.
     * @throws IOException when none is free within the acquire timeout, or connecting failed.
     */
    public ClientConnection acquire() throws IOException
    {
        final long deadlineNs = System.nanoTime() + acquireTimeoutNs;
        while (true)
        {
            final ClientConnection c = idleOrReserved(deadlineNs);
            if (c == null)
            {
                return connectOutsideLock();
            }
            // Outside the lock: what reached it while it was idle (a closing server's REJECT, an
            // ICMP error) is read before a call goes on it, so that the call goes on another.
            if (readBeforeUse(c))
            {
                return c;
            }
            lock.lock();
            try
            {
                discard(c);
                released.signal();
            }
            finally
            {
                lock.unlock();
            }
        }
    }

    /** @return true when {@code c} can take a call once what reached it while idle is read; a failure of that read gives it up, as the idle servicer does. */
    private static boolean readBeforeUse(final ClientConnection c)
    {
        try
        {
            return c.readWhatCameWhileIdle(System.nanoTime());
        }
        catch (final RuntimeException e)
        {
            return false;
        }
    }

    /**
     * @param deadlineNs when the caller's acquire times out (once for all its rounds).
     * @return a usable idle connection (taken out of the pool), or null when a new one is to be
     *     connected (counted as pending).
     */
    private ClientConnection idleOrReserved(final long deadlineNs) throws IOException
    {
        lock.lock();
        try
        {
            while (true)
            {
                if (closed)
                {
                    throw new IOException("the connection pool to " + server + " is closed");
                }
                ClientConnection c;
                while ((c = idle.pollFirst()) != null)
                {
                    if (c.isUsable())
                    {
                        return c;
                    }
                    discard(c);
                }
                if (open + pendingConnects < maxConnections)
                {
                    pendingConnects++;
                    return null;
                }
                final long waitNs = deadlineNs - System.nanoTime();
                if (waitNs <= 0)
                {
                    throw new IOException("all " + maxConnections + " connections to " + server + " stayed busy for " +
                        TimeUnit.NANOSECONDS.toMillis(acquireTimeoutNs) + " ms; raise the connection limit (maxConnections)");
                }
                released.awaitNanos(waitNs);
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for a connection to " + server, e);
        }
        finally
        {
            lock.unlock();
        }
    }

    private ClientConnection connectOutsideLock() throws IOException
    {
        ClientConnection c = null;
        try
        {
            c = connector.connect();
            return c;
        }
        finally
        {
            lock.lock();
            try
            {
                pendingConnects--;
                if (c != null)
                {
                    open++;
                    connectsMade++;
                }
                else
                {
                    released.signal();
                }
            }
            finally
            {
                lock.unlock();
            }
        }
    }

    /** Gives a connection back after a call; a failed one is closed and forgotten. */
    public void release(final ClientConnection c)
    {
        lock.lock();
        try
        {
            if (closed || !c.isUsable())
            {
                discard(c);
            }
            else
            {
                idle.addFirst(c);
            }
            released.signal();
        }
        finally
        {
            lock.unlock();
        }
        servicer.dueAt(c.nextDeadlineNs());
    }

    /**
     * Closes every idle connection, so that the next calls open new ones. For a caller that has
     * learnt that the server restarted or vanished: the idle connections belong to its old
     * incarnation and would fail on their next call.
     *
     * @return how many connections were closed.
     */
    public int discardIdle()
    {
        lock.lock();
        try
        {
            int n = 0;
            ClientConnection c;
            while ((c = idle.pollFirst()) != null)
            {
                discard(c);
                n++;
            }
            released.signalAll();
            return n;
        }
        finally
        {
            lock.unlock();
        }
    }

    private void discard(final ClientConnection c)
    {
        open--;
        connectionsDiscarded++;
        c.close();
    }

    /**
     * From the servicer's thread: services the idle connections whose timer is due, or every one
     * when {@code sweep} (what arrived is read: a resent reply is acknowledged again).
     *
     * @return the earliest timer of an idle connection, or {@link ProtocolEngine#NO_DEADLINE}.
     */
    long serviceIdle(final boolean sweep)
    {
        scratch.clear();
        lock.lock();
        try
        {
            scratch.addAll(idle);
        }
        finally
        {
            lock.unlock();
        }
        final long nowNs = System.nanoTime();
        long earliestNs = ProtocolEngine.NO_DEADLINE;
        for (final ClientConnection c : scratch)
        {
            final long deadlineNs = c.nextDeadlineNs();
            if (sweep || deadlineNs != ProtocolEngine.NO_DEADLINE && deadlineNs - nowNs <= 0)
            {
                // (Its own clock reading: a call may have come and gone since nowNs.)
                c.serviceIdle(System.nanoTime());
            }
            final long next = c.nextDeadlineNs();
            if (next != ProtocolEngine.NO_DEADLINE && (earliestNs == ProtocolEngine.NO_DEADLINE || next - earliestNs < 0))
            {
                earliestNs = next;
            }
        }
        scratch.clear();
        return earliestNs;
    }

    /** @return connections open now, idle or in a call. */
    public int openConnections()
    {
        lock.lock();
        try
        {
            return open;
        }
        finally
        {
            lock.unlock();
        }
    }

    public long connectsMade()
    {
        return connectsMade;
    }

    public long connectionsDiscarded()
    {
        return connectionsDiscarded;
    }

    @Override
    public void close()
    {
        lock.lock();
        try
        {
            closed = true;
            ClientConnection c;
            while ((c = idle.pollFirst()) != null)
            {
                discard(c);
            }
            released.signalAll();
        }
        finally
        {
            lock.unlock();
        }
        servicer.unregister(this);
    }
}
