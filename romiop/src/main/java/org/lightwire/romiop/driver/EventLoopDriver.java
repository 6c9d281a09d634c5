package org.lightwire.romiop.driver;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;

import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;

import org.lightwire.romiop.link.UdpGroupLink;

/**
 * Drives an engine on its {@link UdpGroupLink}'s Netty event loop: the loop hands each datagram to
 * the engine as it reads it, and fires the engine's timer as a scheduled task of the loop. No
 * thread hand-off stands between the socket and the engine, where {@link GroupDriver} has one
 * for every datagram (event loop, queue, driver thread).
 *
 * <p>A task {@link #submit submitted} by another thread (the ORB's, to send a request or a
 * reply) runs at once on that thread when the engine is free and no earlier task waits, so the
 * datagram leaves with no hand-off either; otherwise it is queued to the loop. One lock keeps the
 * engine single-threaded; a submitter never waits for it (a replica's loop may be held up by a
 * full delivery queue, and the POA thread that would drain it must not block behind it).
 *
 * <p>Timers: the engine's earliest deadline is armed as one scheduled task; a later deadline
 * leaves an earlier armed one in place (it fires, finds nothing due, and arms the next), so a
 * stream of calls does not reschedule, and wake, the loop for each call.
 */
public final class EventLoopDriver implements EngineDriver
{
    private final UdpGroupLink link;
    private final DrivenEngine engine;
    private final EventLoop loop;
    private final ReentrantLock lock = new ReentrantLock();
    /** Tasks queued to the loop and not yet run: while any wait, a new task queues behind them. */
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong inlineTasks = new AtomicLong();
    private volatile boolean running;
    private volatile Throwable lastFailure;
    /** Guarded by lock. */
    private ScheduledFuture<?> timer;
    private long timerAtNs;

    public EventLoopDriver(final UdpGroupLink link, final DrivenEngine engine)
    {
        this.link = link;
        this.engine = engine;
        this.loop = link.eventLoop();
    }

    @Override
    public EventLoopDriver start()
    {
        running = true;
        link.receiveOnLoop(this::onPacket);
        submit(now -> { });
        return this;
    }

    @Override
    public void submit(final LongConsumer task)
    {
        if (!running)
        {
            throw new IllegalStateException("the event loop driver of " + link + " is closed");
        }
        if (queued.get() == 0 && !lock.isHeldByCurrentThread() && lock.tryLock())
        {
            try
            {
                if (queued.get() == 0)
                {
                    inlineTasks.incrementAndGet();
                    run(task);
                    return;
                }
            }
            finally
            {
                lock.unlock();
            }
        }
        queued.incrementAndGet();
        execute(task);
    }

    /** Queues a task to the loop; a loop already shut down (the link closed) refuses it like a closed driver. */
    private void execute(final LongConsumer task)
    {
        try
        {
            loop.execute(() ->
            {
                lock.lock();
                try
                {
                    queued.decrementAndGet();
                    if (running)
                    {
                        run(task);
                    }
                }
                finally
                {
                    lock.unlock();
                }
            });
        }
        catch (final RejectedExecutionException e)
        {
            queued.decrementAndGet();
            throw new IllegalStateException("the event loop of " + link + " is shut down", e);
        }
    }

    /** A datagram, on the loop. */
    private void onPacket(final ByteBuffer buffer, final int length)
    {
        lock.lock();
        try
        {
            if (running)
            {
                run(now -> engine.onPacket(buffer, 0, length, now));
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /** The armed timer, on the loop. */
    private void onTimer()
    {
        lock.lock();
        try
        {
            timer = null;
            if (running)
            {
                run(now ->
                {
                    final long deadline = engine.nextDeadlineNs();
                    if (deadline != Long.MAX_VALUE && deadline - now <= 0)
                    {
                        engine.onTimer(now);
                    }
                });
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Runs one engine call under the lock, counts what it throws, then arms the engine's deadline. */
    private void run(final LongConsumer call)
    {
        try
        {
            call.accept(System.nanoTime());
        }
        catch (final RuntimeException e)
        {
            failures.incrementAndGet();
            lastFailure = e;
        }
        arm();
    }

    private void arm()
    {
        final long deadline;
        try
        {
            deadline = engine.nextDeadlineNs();
        }
        catch (final RuntimeException e)
        {
            failures.incrementAndGet();
            lastFailure = e;
            return;
        }
        if (deadline == Long.MAX_VALUE || (timer != null && timerAtNs - deadline <= 0))
        {
            return;
        }
        if (timer != null)
        {
            timer.cancel(false);
        }
        try
        {
            timer = loop.schedule(this::onTimer, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            timerAtNs = deadline;
        }
        catch (final RejectedExecutionException e)
        {
            // The link is closing: no timer will be needed.
            timer = null;
        }
    }

    /** @return tasks that ran at once on their submitter's thread (the rest went through the loop). */
    public long inlineTasks()
    {
        return inlineTasks.get();
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
        running = false;
        lock.lock();
        try
        {
            if (timer != null)
            {
                timer.cancel(false);
                timer = null;
            }
        }
        finally
        {
            lock.unlock();
        }
    }
}
