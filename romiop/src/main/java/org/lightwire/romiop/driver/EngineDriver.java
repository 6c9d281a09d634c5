package org.lightwire.romiop.driver;

import java.util.function.LongConsumer;

/**
 * Runs one I/O-free group engine: gives it every datagram, fires its timer, and runs other
 * threads' work on it ({@link #submit}), one at a time and with the current time.
 * {@link GroupDriver} does this on a thread of its own; {@link EventLoopDriver} on the link's
 * Netty event loop, with no hand-off from socket to engine.
 */
public interface EngineDriver extends AutoCloseable
{
    /** Starts driving; @return this. */
    EngineDriver start();

    /**
     * Runs {@code task} on the engine, with the current {@code nowNs}, after every task submitted
     * before it. Thread-safe.
     *
     * @throws IllegalStateException when the driver is closed.
     */
    void submit(LongConsumer task);

    /** @return how many tasks or engine calls threw. */
    long failures();

    /** @return the last exception a task or engine call threw, or null. */
    Throwable lastFailure();

    /** Stops driving; tasks not yet run are dropped. */
    @Override
    void close();
}
