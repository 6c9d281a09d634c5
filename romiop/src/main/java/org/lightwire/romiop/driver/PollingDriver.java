package org.lightwire.romiop.driver;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

import org.lightwire.romiop.link.UdpGroupLink;

/**
 * Drives an engine on the threads that wait for it: the ORB's reader thread, waiting for the next
 * GIOP message, calls {@link #pollUntil}, and while it waits it selects on the link's sockets,
 * hands each datagram to the engine and fires the engine's timer itself. A request a replica's
 * group delivers, or a reply a client's group consolidates, is then in JacORB's hands on the
 * thread that read it from the socket: the hand-off from an event loop to JacORB's reader, which
 * {@link EventLoopDriver} still has, is gone. The link must be {@linkplain UdpGroupLink.Settings#polled polled}.
 *
 * <p>Two locks. The <em>poll lock</em> makes one thread at a time the poller, the one that
 * selects; the <em>engine lock</em> keeps the engine single-threaded and is held only while the
 * engine runs, never while a thread waits in select. A task {@link #submit submitted} by another
 * thread (a POA thread's reply, a caller's request) therefore runs at once on its own thread
 * whenever the engine is free, as with {@link EventLoopDriver}; when the engine is busy, the task
 * is queued and whoever holds the engine runs it before letting go. Tasks run in submission order.
 *
 * <p>When no reader has polled for {@value #READER_ABSENCE_MS} ms (the ORB's reader is busy, or
 * there is none yet), the driver's own thread becomes the poller, so timers, ACKs and
 * retransmissions go on; a reader that comes back takes over (it wakes the selecting driver
 * thread, which steps aside). A due engine deadline with nobody polling is fired by the driver
 * thread too.
 *
 * <p>What a reader's poll delivers is never waited for on the reader: a delivery callback that
 * would block until its reader takes a message must not block when {@link #onReaderThread} (the
 * reader is that taker). Each poll reads at most {@value #BURST} datagrams before the reader
 * looks at its condition again, which bounds what it queues.
 */
public final class PollingDriver implements EngineDriver
{
    static final long READER_ABSENCE_MS = 5;
    private static final long READER_ABSENCE_NS = TimeUnit.MILLISECONDS.toNanos(READER_ABSENCE_MS);
    /** Datagrams read per poll before the poller looks at its condition, tasks and timers again. */
    static final int BURST = 64;
    /** A reader waiting for the poll lock looks at its own condition at least this often. */
    private static final long HANDOVER_WAIT_NS = TimeUnit.MICROSECONDS.toNanos(200);

    private final UdpGroupLink link;
    private final DrivenEngine engine;
    private final Thread thread;
    private final ReentrantLock pollLock = new ReentrantLock();
    private final ReentrantLock engineLock = new ReentrantLock();
    private final ConcurrentLinkedQueue<LongConsumer> tasks = new ConcurrentLinkedQueue<>();
    /** Threads in {@link #pollUntil}. */
    private final AtomicInteger readers = new AtomicInteger();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong inlineTasks = new AtomicLong();
    private final AtomicLong readerPolls = new AtomicLong();
    private final AtomicLong driverPolls = new AtomicLong();
    private final AtomicLong handovers = new AtomicLong();
    private final AtomicLong idleWakeups = new AtomicLong();
    private volatile boolean running;
    private volatile boolean closed;
    private volatile Throwable lastFailure;
    /** When the last reader left {@link #pollUntil}. */
    private volatile long readerLeftNs;
    /** The engine's next deadline, as of the last time it ran (Long.MAX_VALUE: none). */
    private volatile long engineDeadlineNs = Long.MAX_VALUE;
    /** When the thread in select wakes by itself (Long.MAX_VALUE: nobody selects). */
    private volatile long selectUntilNs = Long.MAX_VALUE;
    private volatile boolean driverPolling;
    /** The engine's {@link DrivenEngine#wakesForRequests}, as of the last time it ran. */
    private volatile boolean wakeForRequests = true;
    private volatile Thread pollingReader;

    /** @param name the driver thread's name. */
    public PollingDriver(final String name, final UdpGroupLink link, final DrivenEngine engine)
    {
        if (!link.polled())
        {
            throw new IllegalArgumentException(link + " is not polled: open it with Settings.polled(true) for a polling driver");
        }
        this.link = link;
        this.engine = engine;
        this.thread = new Thread(this::runDriverThread, name);
        thread.setDaemon(true);
    }

    @Override
    public PollingDriver start()
    {
        running = true;
        readerLeftNs = System.nanoTime() - READER_ABSENCE_NS;
        thread.start();
        submit(now -> { });
        return this;
    }

    @Override
    public void submit(final LongConsumer task)
    {
        if (!running)
        {
            throw new IllegalStateException("the polling driver " + thread.getName() + " is closed");
        }
        tasks.add(task);
        if (!engineLock.isHeldByCurrentThread())
        {
            runQueuedTasks(true);
        }
    }

    /** Runs what is queued while the engine is free; whoever holds the engine runs it otherwise. */
    private void runQueuedTasks(final boolean inline)
    {
        while (!tasks.isEmpty() && engineLock.tryLock())
        {
            try
            {
                if (inline)
                {
                    inlineTasks.incrementAndGet();
                }
                runTasks();
            }
            finally
            {
                releaseEngine();
            }
        }
    }

    /**
     * Runs the tasks queued now, engine lock held; what they queue in turn runs at the next
     * release, so a task that keeps submitting cannot hold the engine from the link for ever.
     */
    private void runTasks()
    {
        for (int n = tasks.size(); n > 0 && running; n--)
        {
            final LongConsumer task = tasks.poll();
            if (task == null)
            {
                break;
            }
            call(task);
        }
    }

    /**
     * Lets go of the engine: runs what was queued meanwhile, notes the engine's deadline, and wakes
     * the poller if that deadline is earlier than the poller's own wake-up.
     */
    private void releaseEngine()
    {
        runTasks();
        long deadline;
        try
        {
            deadline = engine.nextDeadlineNs();
            wakeForRequests = engine.wakesForRequests();
        }
        catch (final RuntimeException e)
        {
            fail(e);
            deadline = Long.MAX_VALUE;
            wakeForRequests = true;
        }
        engineDeadlineNs = deadline;
        engineLock.unlock();
        final long until = selectUntilNs;
        if (deadline != Long.MAX_VALUE && until != Long.MAX_VALUE && deadline - until < 0)
        {
            link.wakeupSelect();
        }
        if (!tasks.isEmpty())
        {
            runQueuedTasks(false);
        }
    }

    private void call(final LongConsumer c)
    {
        try
        {
            c.accept(System.nanoTime());
        }
        catch (final RuntimeException e)
        {
            fail(e);
        }
    }

    private void fail(final Throwable e)
    {
        failures.incrementAndGet();
        lastFailure = e;
    }

    /**
     * Polls the link on this thread until {@code done} is true or {@code maxWaitNs} passed, or the
     * driver is closed: datagrams go to the engine, due timers fire, on this thread. The caller's
     * condition is usually that its ORB connection has a message to read.
     *
     * @return {@code done}'s value at the end.
     */
    public boolean pollUntil(final BooleanSupplier done, final long maxWaitNs)
    {
        readers.incrementAndGet();
        try
        {
            final long end = System.nanoTime() + maxWaitNs;
            while (running && !done.getAsBoolean())
            {
                if (System.nanoTime() - end >= 0)
                {
                    return false;
                }
                if (!pollLock.tryLock())
                {
                    if (driverPolling)
                    {
                        handovers.incrementAndGet();
                        link.wakeupSelect();
                    }
                    try
                    {
                        if (!pollLock.tryLock(HANDOVER_WAIT_NS, TimeUnit.NANOSECONDS))
                        {
                            continue;
                        }
                    }
                    catch (final InterruptedException e)
                    {
                        Thread.currentThread().interrupt();
                        return done.getAsBoolean();
                    }
                }
                try
                {
                    pollingReader = Thread.currentThread();
                    while (running && !done.getAsBoolean() && System.nanoTime() - end < 0)
                    {
                        readerPolls.incrementAndGet();
                        if (!pollOnce(end) || readers.get() > 1)
                        {
                            // Closed, or another reader waits: it looks at its own condition.
                            break;
                        }
                    }
                }
                finally
                {
                    pollingReader = null;
                    pollLock.unlock();
                }
            }
            return done.getAsBoolean();
        }
        finally
        {
            readerLeftNs = System.nanoTime();
            readers.decrementAndGet();
        }
    }

    /**
     * One poll, poll lock held: waits in select until a datagram, {@code untilNs} or the engine's
     * deadline, whichever is first, then gives the engine what came and fires its timer if due.
     * A client's request ends the wait only while the engine {@linkplain DrivenEngine#wakesForRequests wakes for requests};
     * otherwise it is read with whatever does.
     *
     * @return false when the link is closed.
     */
    private boolean pollOnce(final long untilNs)
    {
        final long now = System.nanoTime();
        final long deadline = engineDeadlineNs;
        final long wake = deadline != Long.MAX_VALUE && deadline - untilNs < 0 ? deadline : untilNs;
        try
        {
            selectUntilNs = wake;
            link.selectRequests(wakeForRequests);
            link.select(tasks.isEmpty() ? wake - now : 0);
        }
        catch (final ClosedChannelException e)
        {
            return false;
        }
        finally
        {
            selectUntilNs = Long.MAX_VALUE;
        }
        engineLock.lock();
        try
        {
            if (!running)
            {
                return false;
            }
            link.drain(this::onPacket, BURST);
            fireTimerIfDue();
            return true;
        }
        catch (final ClosedChannelException e)
        {
            return false;
        }
        finally
        {
            releaseEngine();
        }
    }

    /** A datagram, engine lock held. */
    private void onPacket(final ByteBuffer buffer, final int length)
    {
        try
        {
            engine.onPacket(buffer, 0, length, System.nanoTime());
        }
        catch (final RuntimeException e)
        {
            fail(e);
        }
    }

    /** Engine lock held. */
    private void fireTimerIfDue()
    {
        call(now ->
        {
            final long deadline = engine.nextDeadlineNs();
            if (deadline != Long.MAX_VALUE && deadline - now <= 0)
            {
                engine.onTimer(now);
            }
        });
    }

    /**
     * The driver's own thread: polls whenever no reader has for {@value #READER_ABSENCE_MS} ms,
     * and fires a due deadline that nobody is polling for.
     */
    private void runDriverThread()
    {
        while (running)
        {
            final long now = System.nanoTime();
            if (readers.get() == 0 && now - readerLeftNs >= READER_ABSENCE_NS && pollLock.tryLock())
            {
                try
                {
                    driverPolling = true;
                    while (running && readers.get() == 0)
                    {
                        driverPolls.incrementAndGet();
                        if (!pollOnce(System.nanoTime() + READER_ABSENCE_NS))
                        {
                            return;
                        }
                    }
                }
                finally
                {
                    driverPolling = false;
                    pollLock.unlock();
                }
                continue;
            }
            final long deadline = engineDeadlineNs;
            if (deadline != Long.MAX_VALUE && deadline - now <= 0 && readers.get() == 0 && pollLock.tryLock())
            {
                // Due, and the reader is away: fire it now rather than when the reader is back.
                try
                {
                    driverPolls.incrementAndGet();
                    if (!pollOnce(now))
                    {
                        return;
                    }
                }
                finally
                {
                    pollLock.unlock();
                }
                continue;
            }
            // A reader is polling (it fires the timers): look again in a while. Else wake when
            // the reader has been away long enough, or at the engine's deadline.
            long sleep = READER_ABSENCE_NS;
            if (readers.get() == 0)
            {
                sleep = READER_ABSENCE_NS - (now - readerLeftNs);
                if (deadline != Long.MAX_VALUE && deadline - now < sleep)
                {
                    sleep = deadline - now;
                }
            }
            idleWakeups.incrementAndGet();
            LockSupport.parkNanos(this, Math.max(TimeUnit.MICROSECONDS.toNanos(100), Math.min(sleep, READER_ABSENCE_NS)));
        }
    }

    /** @return true on a thread polling in {@link #pollUntil} right now (a reader: nothing it delivers may wait for it). */
    public boolean onReaderThread()
    {
        return pollingReader == Thread.currentThread();
    }

    /** @return true from {@link #start} until {@link #close}. */
    public boolean running()
    {
        return running;
    }

    /** @return true once {@link #close}d (a driver not yet started is not closed). */
    public boolean closed()
    {
        return closed;
    }

    /** Makes a thread polling now look at its condition at once. */
    public void wakeup()
    {
        link.wakeupSelect();
    }

    /** @return tasks that ran at once on their submitter's thread. */
    public long inlineTasks()
    {
        return inlineTasks.get();
    }

    /** @return polls (selects) made by readers in {@link #pollUntil}. */
    public long readerPolls()
    {
        return readerPolls.get();
    }

    /** @return polls made by the driver's own thread, while no reader polled. */
    public long driverPolls()
    {
        return driverPolls.get();
    }

    /** @return times the driver thread parked to look again later (about 200 a second while a reader polls). */
    public long idleWakeups()
    {
        return idleWakeups.get();
    }

    /** @return times a returning reader woke the driver thread to take polling back. */
    public long handovers()
    {
        return handovers.get();
    }

    @Override
    public long failures()
    {
        return failures.get();
    }

    @Override
    public Throwable lastFailure()
    {
        return lastFailure;
    }

    /** Stops: no task, datagram or timer reaches the engine any more. The link is the caller's to close. */
    @Override
    public void close()
    {
        closed = true;
        running = false;
        link.wakeupSelect();
        LockSupport.unpark(thread);
        if (Thread.currentThread() != thread)
        {
            try
            {
                thread.join(TimeUnit.SECONDS.toMillis(2));
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString()
    {
        return "PollingDriver{" + thread.getName() + ", readerPolls=" + readerPolls + ", driverPolls=" + driverPolls + ", handovers=" +
            handovers + ", idleWakeups=" + idleWakeups + ", inlineTasks=" + inlineTasks + ", failures=" + failures + '}';
    }
}
