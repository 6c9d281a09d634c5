package org.lightwire.romiop.driver;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import org.lightwire.romiop.link.GroupLink;

/**
 * Runs one I/O-free group engine on one thread of its own: the engine is touched by nothing else,
 * so it needs no lock. The loop takes submitted tasks, fires the engine's timer when its deadline
 * has passed, then waits in {@link GroupLink#receive} until the next deadline, a datagram, or a
 * submission, and hands each datagram to the engine, always with {@link System#nanoTime}.
 *
 * <p>Other threads (the ORB's) reach the engine only through {@link #submit}: the task is queued
 * and the link woken, and it runs on the driver thread with the current time. A task or engine
 * call that throws is counted ({@link #failures}) and the loop goes on.
 */
public final class GroupDriver implements EngineDriver
{
    /** Longest wait in receive when the engine has no deadline: bounds how stale a wake-up can be. */
    private static final long IDLE_WAIT_NS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Datagrams handled per turn before tasks and timers get a look again. */
    private static final int RECEIVE_BURST = 64;

    private final GroupLink link;
    private final DrivenEngine engine;
    private final Thread thread;
    private final ConcurrentLinkedQueue<LongConsumer> tasks = new ConcurrentLinkedQueue<>();
    private final ByteBuffer receiveBuffer;
    private final AtomicLong failures = new AtomicLong();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile Throwable lastFailure;

    /**
     * @param name          the thread's name.
     * @param maxPacketBytes the largest datagram the link can hand over.
     */
    public GroupDriver(final String name, final GroupLink link, final DrivenEngine engine, final int maxPacketBytes)
    {
        this.link = link;
        this.engine = engine;
        this.receiveBuffer = ByteBuffer.allocate(maxPacketBytes);
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    @Override
    public GroupDriver start()
    {
        thread.start();
        return this;
    }

    /**
     * Runs {@code task} on the driver thread, soon, with the current {@code nowNs}. Tasks run in
     * submission order. Thread-safe.
     *
     * @throws IllegalStateException when the driver is closed.
     */
    @Override
    public void submit(final LongConsumer task)
    {
        if (!running)
        {
            throw new IllegalStateException("the group driver " + thread.getName() + " is closed");
        }
        tasks.add(task);
        if (Thread.currentThread() != thread)
        {
            link.wakeup();
        }
    }

    /** @return true on the driver's own thread. */
    public boolean onDriverThread()
    {
        return Thread.currentThread() == thread;
    }

    /** @return how many tasks or engine calls threw. */
    @Override
    public long failures()
    {
        return failures.get();
    }

    /** @return the last exception a task or engine call threw, or null. */
    @Override
    public Throwable lastFailure()
    {
        return lastFailure;
    }

    private void run()
    {
        try
        {
            while (running)
            {
                runTasks();
                long now = System.nanoTime();
                long deadline = safeDeadline();
                if (deadline != Long.MAX_VALUE && deadline - now <= 0)
                {
                    call(() -> engine.onTimer(System.nanoTime()));
                    now = System.nanoTime();
                    deadline = safeDeadline();
                }
                // Tasks submitted meanwhile (or by a task) must not starve receiving: poll, do not wait.
                final long waitNs = !tasks.isEmpty() ? 0 : deadline == Long.MAX_VALUE ? IDLE_WAIT_NS : Math.min(IDLE_WAIT_NS, Math.max(0, deadline - now));
                int n;
                try
                {
                    n = link.receive(receiveBuffer, waitNs);
                }
                catch (final IOException e)
                {
                    if (running)
                    {
                        failures.incrementAndGet();
                        lastFailure = e;
                    }
                    break;
                }
                for (int burst = 0; n >= 0 && burst < RECEIVE_BURST; burst++)
                {
                    final int length = n;
                    call(() -> engine.onPacket(receiveBuffer, 0, length, System.nanoTime()));
                    try
                    {
                        n = link.receive(receiveBuffer, 0);
                    }
                    catch (final IOException e)
                    {
                        n = -1;
                    }
                }
            }
        }
        finally
        {
            stopped.countDown();
        }
    }

    private long safeDeadline()
    {
        try
        {
            return engine.nextDeadlineNs();
        }
        catch (final RuntimeException e)
        {
            failures.incrementAndGet();
            lastFailure = e;
            return Long.MAX_VALUE;
        }
    }

    private void runTasks()
    {
        // Only those queued now: a task that submits another must not keep the loop from receiving.
        LongConsumer task;
        for (int n = tasks.size(); n > 0 && (task = tasks.poll()) != null; n--)
        {
            final LongConsumer t = task;
            call(() -> t.accept(System.nanoTime()));
        }
    }

    private void call(final Runnable r)
    {
        try
        {
            r.run();
        }
        catch (final RuntimeException e)
        {
            failures.incrementAndGet();
            lastFailure = e;
        }
    }

    /** Stops the thread (tasks not yet run are dropped) and waits up to two seconds for it. */
    @Override
    public void close()
    {
        running = false;
        link.wakeup();
        if (Thread.currentThread() != thread)
        {
            try
            {
                stopped.await(2, TimeUnit.SECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
