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
 */
final class IdleServicer
{
    /** How late a deadline may be served, so that deadlines close together share a wake-up. */
    static final long LATE_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How often every idle connection is read, whether a timer of it is due or not. */
    static final long SWEEP_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);

    private static final class Holder
    {
        static final IdleServicer SHARED = new IdleServicer();
    }

    private final Set<ConnectionPool> pools = ConcurrentHashMap.newKeySet();
    private final Thread thread;
    private volatile long plannedWakeNs = ProtocolEngine.NO_DEADLINE;
    /** When every idle connection was last read (its thread only). */
    private long lastSweepNs = System.nanoTime();

    private IdleServicer()
    {
        thread = new Thread(this::loop, "lightwire-idle-servicer");
        thread.setDaemon(true);
        thread.start();
    }

    static IdleServicer shared()
    {
        return Holder.SHARED;
    }

    void register(final ConnectionPool pool)
    {
        pools.add(pool);
    }

    void unregister(final ConnectionPool pool)
    {
        pools.remove(pool);
    }

    /** @return the pools serviced now (for tests). */
    int pools()
    {
        return pools.size();
    }

    /** An idle connection has a timer due at {@code deadlineNs}: the thread is woken if it would be later than allowed. */
    void dueAt(final long deadlineNs)
    {
        if (deadlineNs != ProtocolEngine.NO_DEADLINE && deadlineNs + LATE_NS - plannedWakeNs < 0)
        {
            LockSupport.unpark(thread);
        }
    }

    private void loop()
    {
        while (true)
        {
            final long nowNs = System.nanoTime();
            final boolean sweep = nowNs - lastSweepNs >= SWEEP_INTERVAL_NS;
            if (sweep)
            {
                lastSweepNs = nowNs;
            }
            long wakeNs = lastSweepNs + SWEEP_INTERVAL_NS;
            for (final ConnectionPool pool : pools)
            {
                final long next = pool.serviceIdle(sweep);
                if (next != ProtocolEngine.NO_DEADLINE && next + LATE_NS - wakeNs < 0)
                {
                    wakeNs = next + LATE_NS;
                }
            }
            plannedWakeNs = wakeNs;
            final long sleepNs = wakeNs - System.nanoTime();
            if (sleepNs > 0)
            {
                LockSupport.parkNanos(this, sleepNs);
            }
        }
    }
}
