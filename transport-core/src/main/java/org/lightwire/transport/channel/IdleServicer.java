package org.lightwire.transport.channel;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.lightwire.transport.engine.ProtocolEngine;

/**
 * The one daemon thread of a JVM that services the idle connections of every
 * {@link ConnectionPool}: it fires their timers (the CALL_ACK of a connection that stayed idle
 * for the ack delay) and at least once a second reads what reached each of them, so that a server
 * that resends its last reply (the CALL_ACK was lost) is answered. It wakes at the earliest idle
 * deadline plus {@link #LATE_NS}, so the deadlines of many pools that fall within that window are
 * served in one wake-up instead of one each: a pool's own thread woke twice per call of a caller
 * that calls back to back (once when the call released the connection, once at its ack deadline,
 * by which time the next call had taken the connection again). It is never on the call path.
 * It runs while any pool is registered and ends with the last one; a pool whose servicing throws
 * is counted and does not stop the others. It serves the pools one after the other: a sweep of
 * thousands of idle connections (tens of milliseconds on a loaded machine) delays the others'
 * timers by as much.
 */
final class IdleServicer
{
    /** How late a deadline may be served, so that deadlines close together share a wake-up. */
    static final long LATE_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How often every idle connection is read, whether a timer of it is due or not. */
    static final long SWEEP_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);

    private static final IdleServicer SHARED = new IdleServicer();

    private final Set<ConnectionPool> pools = ConcurrentHashMap.newKeySet();
    /** The servicing thread while any pool is registered, else null; it ends with the last pool. */
    private Thread thread;
    private volatile Thread current;
    private volatile long plannedWakeNs = ProtocolEngine.NO_DEADLINE;
    /** Set by every deadline announced: one announced while it scans is looked at again within {@link #LATE_NS}. */
    private volatile boolean announced;
    /** When every idle connection was last read (its thread only). */
    private long lastSweepNs = System.nanoTime();
    /** Times servicing a pool threw (its thread writes, anyone reads). */
    private volatile long failures;

    private IdleServicer()
    {
    }

    static IdleServicer shared()
    {
        return SHARED;
    }

    synchronized void register(final ConnectionPool pool)
    {
        pools.add(pool);
        if (thread == null)
        {
            thread = new Thread(this::loop, "lightwire-idle-servicer");
            thread.setDaemon(true);
            // It pins no application's class loader.
            thread.setContextClassLoader(null);
            current = thread;
            thread.start();
        }
    }

    void unregister(final ConnectionPool pool)
    {
        pools.remove(pool);
        final Thread t = current;
        if (t != null)
        {
            // With the last pool gone, it ends.
            LockSupport.unpark(t);
        }
    }

    /** @return the pools serviced now (for tests). */
    int pools()
    {
        return pools.size();
    }

    /** An idle connection has a timer due at {@code deadlineNs}: the thread is woken if it would be later than allowed. */
    void dueAt(final long deadlineNs)
    {
        if (deadlineNs == ProtocolEngine.NO_DEADLINE)
        {
            return;
        }
        announced = true;
        final Thread t = current;
        if (t != null && deadlineNs + LATE_NS - plannedWakeNs < 0)
        {
            LockSupport.unpark(t);
        }
    }

    /** @return the pool's earliest idle deadline; a pool that throws is counted and left for the next round, the others served. */
    private long serviceOne(final ConnectionPool pool, final boolean sweep)
    {
        try
        {
            return pool.serviceIdle(sweep);
        }
        catch (final RuntimeException e)
        {
            failures++;
            return ProtocolEngine.NO_DEADLINE;
        }
    }

    /** @return how many times servicing a pool threw (for tests and diagnostics). */
    long failures()
    {
        return failures;
    }

    private void loop()
    {
        while (true)
        {
            synchronized (this)
            {
                if (pools.isEmpty())
                {
                    thread = null;
                    current = null;
                    return;
                }
            }
            announced = false;
            final long nowNs = System.nanoTime();
            final boolean sweep = nowNs - lastSweepNs >= SWEEP_INTERVAL_NS;
            if (sweep)
            {
                lastSweepNs = nowNs;
            }
            long wakeNs = lastSweepNs + SWEEP_INTERVAL_NS;
            for (final ConnectionPool pool : pools)
            {
                final long next = serviceOne(pool, sweep);
                if (next != ProtocolEngine.NO_DEADLINE && next + LATE_NS - wakeNs < 0)
                {
                    wakeNs = next + LATE_NS;
                }
            }
            plannedWakeNs = wakeNs;
            if (announced)
            {
                // A deadline announced during the scan (it compared with the wake planned
                // before, or this thread waited on a lock meanwhile): looked at within LATE_NS.
                wakeNs = Math.min(wakeNs, System.nanoTime() + LATE_NS);
                plannedWakeNs = wakeNs;
            }
            final long sleepNs = wakeNs - System.nanoTime();
            if (sleepNs > 0)
            {
                LockSupport.parkNanos(this, sleepNs);
            }
        }
    }
}
