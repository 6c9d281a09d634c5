package org.lightwire.etf;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Flow control of one ORB connection's one-ways. The paper sends one-ways at-most-once and never
 * flow-controls them (section 4.1), so a client faster than its server overruns the server's
 * socket buffer and loses them, where IIOP's sender would have waited for TCP's window. Here a
 * run of one-ways is a window of at most {@code maxCalls} calls and {@code maxBytes} bytes; the
 * one-way that would overfill it is sent exactly-once instead (a confirmation: the server answers
 * it when its reader takes it, so after the one-ways before it on that transport connection), and
 * before it is sent, the previous window's confirmation must have been answered. So at most two
 * windows are unread at the server: the one being confirmed and the one being sent.
 *
 * <p>One-ways that go on different transport connections (other threads' calls hold the usual
 * one) are confirmed only on the connection the confirmation takes; a single sender's one-ways,
 * the stream that overruns a server, stay on one or two connections and are confirmed in full.
 *
 * <p>{@link #admit} and {@link #startConfirmation} run under JacORB's write lock of the
 * connection, one sender at a time; the confirmation's end is signalled by whichever thread ends
 * the call.
 */
final class OnewayWindow
{
    private final int maxCalls;
    private final long maxBytes;
    private int calls;
    private long bytes;
    /** The last confirmation started; volatile for close(), which another thread runs. */
    private volatile CountDownLatch previous;
    private volatile boolean closed;
    private final AtomicLong waits;

    /**
     * @param maxCalls one-ways sent at-most-once before one is sent exactly-once, at least 1.
     * @param maxBytes their bytes, at least 1: a one-way that would take the window past it is the confirmation.
     * @param waits counts the confirmations that had to wait for the one before.
     */
    OnewayWindow(final int maxCalls, final long maxBytes, final AtomicLong waits)
    {
        if (maxCalls < 1 || maxBytes < 1)
        {
            throw new IllegalArgumentException("a one-way window of " + maxCalls + " calls and " + maxBytes + " bytes");
        }
        this.maxCalls = maxCalls;
        this.maxBytes = maxBytes;
        this.waits = waits;
    }

    /**
     * @return true when a one-way of {@code messageBytes} fits the window and is counted in it (it
     *     goes at-most-once); false when it must be the window's confirmation.
     */
    boolean admit(final int messageBytes)
    {
        if (calls >= maxCalls || bytes + messageBytes > maxBytes)
        {
            return false;
        }
        calls++;
        bytes += messageBytes;
        return true;
    }

    /**
     * Waits until the previous window's confirmation has ended (answered, failed, or this
     * connection closed), then opens a new window whose confirmation the returned latch signals:
     * the caller counts it down when the call ends, however it ends.
     */
    CountDownLatch startConfirmation()
    {
        final CountDownLatch before = previous;
        if (before != null && before.getCount() > 0 && !closed)
        {
            waits.incrementAndGet();
            try
            {
                // Every confirmation ends: answered, failed by the transport's retransmission
                // bounds or the call timeout, or abandoned by close(), which counts it down.
                before.await();
            }
            catch (final InterruptedException e)
            {
                // The caller's thread was interrupted: send without waiting (at-most-once allows
                // a one-way to be lost) and keep the interrupt for the caller to see.
                Thread.currentThread().interrupt();
            }
        }
        calls = 0;
        bytes = 0;
        final CountDownLatch next = new CountDownLatch(1);
        previous = next;
        return next;
    }

    /** Ends every wait: the connection is closing and its calls are abandoned. */
    void close()
    {
        closed = true;
        final CountDownLatch p = previous;
        if (p != null)
        {
            p.countDown();
        }
    }
}
