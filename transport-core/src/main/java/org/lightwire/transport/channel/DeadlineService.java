package org.lightwire.transport.channel;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.lightwire.transport.engine.ProtocolEngine;

/**
 * One daemon thread that keeps the deadlines of client connections whose link has no timed
 * receive ({@link org.lightwire.transport.link.Link#timedReceive()} false): while their caller
 * is blocked in a plain receive, it fires the engines' retransmission timers (the NACK it sends
 * draws the server's answer, which wakes the caller) and closes the link of a call whose
 * deadline passed or whose engine became a zombie, which ends the wait.
 *
 * <p>This is the paper's arrangement (section 4.1): the calling thread does the protocol work,
 * and only the timers run elsewhere. The thread sleeps until the earliest deadline of the calls
 * in progress; a call that begins with an earlier one wakes it, which in a steady stream of calls
 * happens about once per retransmission timeout, not once per call.
 */
final class DeadlineService
{
    private static final long IDLE_SLEEP_NS = TimeUnit.SECONDS.toNanos(1);
    /**
     * Longest sleep while calls are being made: a call that begins while the thread is between
     * scanning it and publishing its wake-up time is seen at the latest this much late.
     */
    private static final long ACTIVE_SLEEP_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static volatile DeadlineService instance;

    private final CopyOnWriteArrayList<ClientConnection> connections = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile long plannedWakeNs;
    private volatile long lastCallStartNs;

    private DeadlineService()
    {
        thread = new Thread(this::run, "lightwire-client-deadlines");
        thread.setDaemon(true);
        plannedWakeNs = System.nanoTime();
        thread.start();
    }

    static DeadlineService instance()
    {
        DeadlineService s = instance;
        if (s == null)
        {
            synchronized (DeadlineService.class)
            {
                s = instance;
                if (s == null)
                {
                    s = new DeadlineService();
                    instance = s;
                }
            }
        }
        return s;
    }

    void register(final ClientConnection connection)
    {
        connections.add(connection);
    }

    void unregister(final ClientConnection connection)
    {
        connections.remove(connection);
    }

    /** A call began whose first deadline is {@code deadlineNs}: wake the thread if it would sleep past it. */
    void callStarted(final long deadlineNs)
    {
        lastCallStartNs = System.nanoTime();
        if (deadlineNs - plannedWakeNs < 0)
        {
            plannedWakeNs = deadlineNs;
            LockSupport.unpark(thread);
        }
    }

    private void run()
    {
        while (true)
        {
            final long nowNs = System.nanoTime();
            final boolean active = nowNs - lastCallStartNs < IDLE_SLEEP_NS;
            long wakeNs = nowNs + (active ? ACTIVE_SLEEP_NS : IDLE_SLEEP_NS);
            for (final ClientConnection c : connections)
            {
                final long next = c.serviceInCall(nowNs);
                if (next != ProtocolEngine.NO_DEADLINE && next - wakeNs < 0)
                {
                    wakeNs = next;
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
