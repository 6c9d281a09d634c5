package org.lightwire.etf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class OnewayWindowTest
{
    /** Confirmations that waited, in the window a test makes (JUnit makes a new instance per test). */
    private final AtomicLong waits = new AtomicLong();

    @Test
    void aWindowHoldsAtMostItsCallsThenAskForAConfirmation()
    {
        final OnewayWindow w = new OnewayWindow(3, 1 << 20, new AtomicLong());
        assertTrue(w.admit(100));
        assertTrue(w.admit(100));
        assertTrue(w.admit(100));
        assertFalse(w.admit(100));
        // Refused one-ways are not counted: still refused until a confirmation opens a new window.
        assertFalse(w.admit(1));
        w.startConfirmation().countDown();
        assertTrue(w.admit(100));
    }

    @Test
    void aWindowHoldsAtMostItsBytesAndALargerOneWayIsAConfirmationAtOnce()
    {
        final OnewayWindow w = new OnewayWindow(64, 1000, new AtomicLong());
        assertTrue(w.admit(600));
        assertTrue(w.admit(400));
        assertFalse(w.admit(1));
        w.startConfirmation().countDown();
        assertTrue(w.admit(1000));
        w.startConfirmation().countDown();
        assertFalse(w.admit(1001));
    }

    @Test
    void theFirstConfirmationDoesNotWait()
    {
        final OnewayWindow w = new OnewayWindow(1, 1000, waits);
        final CountDownLatch first = w.startConfirmation();
        assertEquals(1, first.getCount());
        assertEquals(0, waits.get());
    }

    @Test
    void aConfirmationAlreadyAnsweredIsNotWaitedFor()
    {
        final OnewayWindow w = new OnewayWindow(1, 1000, waits);
        w.startConfirmation().countDown();
        final CountDownLatch second = w.startConfirmation();
        assertEquals(1, second.getCount());
        assertEquals(0, waits.get());
    }

    @Test
    @Timeout(10)
    void aConfirmationWaitsUntilThePreviousOneIsAnswered() throws Exception
    {
        final OnewayWindow w = new OnewayWindow(1, 1000, waits);
        final CountDownLatch first = w.startConfirmation();
        final CompletableFuture<CountDownLatch> second = confirmationWaiting(w);
        assertFalse(second.isDone(), "the second confirmation went before the first was answered");
        first.countDown();
        final CountDownLatch next = second.get(5, TimeUnit.SECONDS);
        assertNotSame(first, next);
        assertEquals(1, next.getCount());
        assertEquals(1, waits.get());
    }

    @Test
    @Timeout(10)
    void closingEndsAWaitAndLaterConfirmationsDoNotWait() throws Exception
    {
        final OnewayWindow w = new OnewayWindow(1, 1000, waits);
        w.startConfirmation();
        final CompletableFuture<CountDownLatch> second = confirmationWaiting(w);
        w.close();
        second.get(5, TimeUnit.SECONDS);
        // Its latch is never counted down (the call is abandoned), and nobody waits for it.
        w.startConfirmation();
        assertEquals(1, waits.get());
    }

    @Test
    void anEmptyWindowIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new OnewayWindow(0, 1000, new AtomicLong()));
        assertThrows(IllegalArgumentException.class, () -> new OnewayWindow(1, 0, new AtomicLong()));
    }

    /** @return a confirmation started on another thread, once that thread waits (parked in the latch's await); at most 5 s. */
    private CompletableFuture<CountDownLatch> confirmationWaiting(final OnewayWindow w) throws InterruptedException
    {
        final long waitsBefore = waits.get();
        final AtomicReference<Thread> sender = new AtomicReference<>();
        final CompletableFuture<CountDownLatch> started = CompletableFuture.supplyAsync(() ->
        {
            sender.set(Thread.currentThread());
            return w.startConfirmation();
        });
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (waits.get() == waitsBefore || sender.get().getState() != Thread.State.WAITING)
        {
            assertTrue(System.nanoTime() < deadlineNs, "the second confirmation never waited");
            Thread.sleep(1);
        }
        return started;
    }
}
