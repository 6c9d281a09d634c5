package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.lightwire.it.idl.lwtest.replica_probe;

/** Waits on a condition of replica processes, polling, at most 30 s; fails with the message given. */
final class Await
{
    private static final long LIMIT_NS = TimeUnit.SECONDS.toNanos(30);

    private Await()
    {
    }

    static void until(final BooleanSupplier condition, final Supplier<String> failure) throws InterruptedException
    {
        final long end = System.nanoTime() + LIMIT_NS;
        while (!condition.getAsBoolean() && System.nanoTime() - end < 0)
        {
            Thread.sleep(20);
        }
        assertTrue(condition.getAsBoolean(), failure);
    }

    /** Until the leader's counters show {@code view} (e.g. "[1, 2, 3]"). */
    static void leaderView(final replica_probe leader, final String view) throws InterruptedException
    {
        until(() -> leader.counters().contains("view " + view), () -> "the leader's view is not " + view + ": " + leader.counters());
    }
}
