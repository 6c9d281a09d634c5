package org.lightwire.etf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.ConnectionPool;
import org.lightwire.transport.engine.ProtocolEngine;

/**
 * The exactly-once transport calls in flight on one client ETF connection, driven by JacORB's
 * reader thread itself: while it has no whole GIOP message to present, the reader waits in one
 * {@link Selector} on the channels of every in-flight call's transport connection, and completes
 * each call on the thread that JacORB then uses to hand the reply to its caller. So a reply
 * crosses one thread boundary in the client (reader to caller), as over IIOP, instead of two
 * (reply waiter to reader to caller), and nothing is woken when a call starts: a call's channel
 * stays registered after the call, so the next call on that (pooled, reused most recently used
 * first) connection needs no wake-up; only a call on a connection the reader does not yet watch,
 * or one whose timer falls before the reader's wait ends (below), wakes it.
 *
 * <p>Timers: the reader fires each call's engine timer (NACK on loss) and call deadline. It waits
 * until the earliest timer of the calls it knows; with none, for as long as a call started now on
 * a connection it watches would wait before its first timer (the connection's usual reply time,
 * at least its retransmission timeout), and after {@link #LINGER_NS} without a call until woken.
 * It publishes when its wait ends, and a caller wakes it only for a call whose first timer falls
 * more than {@link #TICK_NS} before that (or on a channel it does not watch): otherwise it learns
 * of the call when the reply makes the channel readable, which is one wake-up per call, as a
 * blocking read of IIOP's costs.
 *
 * <p>Why not a thread per call, as the paper's rule of no thread on the call path would suggest
 * for a single caller: JacORB holds its connection's write lock during {@code flush()}, so the
 * caller cannot wait for its reply there without serialising every other caller.
 */
final class InFlightCalls
{
    /** How late a call's timer may fire because the reader did not know of the call: a caller wakes it past that. */
    static final long TICK_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How long after its last call the reader keeps waking for calls it may not know of before it sleeps until woken. */
    static final long LINGER_NS = TimeUnit.MILLISECONDS.toNanos(50);

    /** What the reader does with a finished call. */
    interface Completion
    {
        /** The reply is valid only during this upcall; the connection goes back to the pool after it. */
        void replied(Call call, ByteBuffer reply);

        /** The call failed; its connection is closed and already back in the pool (discarded). */
        void failed(Call call, IOException cause);
    }

    /** One exactly-once call started by a caller's {@code flush()}. */
    static final class Call
    {
        final ConnectionPool pool;
        final ClientConnection connection;
        final SelectableChannel channel;
        final long generation;
        final byte[] request;
        /** The whole message sent, for a call sent again on a new connection; its own position and limit. */
        final ByteBuffer message;
        /** True for a call sent again because the server had closed its first connection as idle. */
        final boolean resent;
        final long startNs;
        final long timeoutNs;
        /** Counted down when the call ends, if it confirms a window of one-ways ({@link OnewayWindow}); else null. */
        final CountDownLatch confirms;

        Call(final ConnectionPool pool, final ClientConnection connection, final long generation, final byte[] request,
            final ByteBuffer message, final boolean resent, final long startNs, final long timeoutNs, final CountDownLatch confirms)
        {
            this.pool = pool;
            this.connection = connection;
            this.channel = connection.selectableChannel();
            this.generation = generation;
            this.request = request;
            this.message = message;
            this.resent = resent;
            this.startNs = startNs;
            this.timeoutNs = timeoutNs;
            this.confirms = confirms;
        }

        long deadlineNs()
        {
            final long callDeadlineNs = startNs + timeoutNs;
            final long engineNs = connection.nextDeadlineNs();
            return engineNs == ProtocolEngine.NO_DEADLINE || engineNs - callDeadlineNs > 0 ? callDeadlineNs : engineNs;
        }
    }

    private final Completion completion;
    private final long spinNs;
    private final ReentrantLock driving = new ReentrantLock();
    private final ConcurrentLinkedQueue<Call> submitted = new ConcurrentLinkedQueue<>();
    /** Channels the reader's selector watches, with their connections; read by callers to decide whether to wake it. */
    private final ConcurrentHashMap<SelectableChannel, ClientConnection> watched = new ConcurrentHashMap<>();
    // Reader state, guarded by driving.
    private final HashMap<SelectableChannel, Call> active = new HashMap<>();
    private final List<SelectableChannel> ready = new ArrayList<>();
    private final List<Call> due = new ArrayList<>();
    private volatile Selector selector;
    private long lastCallNs;
    /** Idle waits since the last call: each is twice as long as the one before, from the lead on. */
    private int idleWaits;
    /** {@link #wakeByNs} while the reader is not waiting: it admits every submitted call before it waits again. */
    private static final long AWAKE = Long.MIN_VALUE;
    /** When the reader's current wait ends unless it is woken, or {@link #AWAKE}. */
    private volatile long wakeByNs = AWAKE;
    /** Wake-ups asked for; a selectNow() clears the selector's own, so the reader also counts them. */
    private final AtomicLong wakeRequests = new AtomicLong();
    /** The wake-ups the reader has acted on (reader only). */
    private long wakeRequestsSeen;
    private volatile boolean closed = true;

    /**
     * @param spinNs how long the reader busy-polls its channels before it parks in the selector
     *               (0: never).
     */
    InFlightCalls(final Completion completion, final long spinNs)
    {
        this.completion = completion;
        this.spinNs = spinNs;
    }

    /** (Re)opens for a new connection generation. */
    void open() throws IOException
    {
        driving.lock();
        try
        {
            if (selector == null)
            {
                selector = Selector.open();
            }
            closed = false;
        }
        finally
        {
            driving.unlock();
        }
    }

    /** Hands a started call to the reader; called by the caller's thread after {@code startCall}. */
    void submit(final Call call)
    {
        submitted.add(call);
        if (closed)
        {
            failLeftovers();
            return;
        }
        if (!watched.containsKey(call.channel))
        {
            wakeup();
            return;
        }
        // After the add: a reader that published its wait before it is woken here if need be; one
        // that publishes after it finds the call before it waits.
        final long wakeBy = wakeByNs;
        if (wakeBy != AWAKE && call.deadlineNs() - (wakeBy - TICK_NS) < 0)
        {
            wakeup();
        }
    }

    /** Makes the reader's current or next wait return at once. */
    void wakeup()
    {
        wakeRequests.incrementAndGet();
        final Selector s = selector;
        if (s != null)
        {
            s.wakeup();
        }
    }

    /**
     * One round of the reader: waits until a channel is readable, a timer is due or it is woken,
     * and completes the calls that finished ({@link Completion} upcalls on this thread).
     */
    void drive()
    {
        driving.lock();
        try
        {
            if (closed)
            {
                return;
            }
            admitSubmitted();
            long nowNs = System.nanoTime();
            if (!active.isEmpty())
            {
                lastCallNs = nowNs;
            }
            final long waitNs = waitNs(nowNs);
            ready.clear();
            final long wakeBy = nowNs + Math.min(waitNs, Long.MAX_VALUE / 4);
            wakeByNs = wakeBy == AWAKE ? wakeBy + 1 : wakeBy;
            try
            {
                if (!submitted.isEmpty())
                {
                    // Submitted since the admission (its caller may have read AWAKE and not woken us).
                    selector.selectNow(this::onReady);
                }
                else if (!spinThenSelectNow(wakeBy))
                {
                    // Last look, after every selectNow() of this round (watch()'s, the spin's),
                    // each of which may have swallowed a wake-up: one asked for since the last
                    // round ends this one now; one asked for after this read wakes the select.
                    final long asked = wakeRequests.get();
                    if (asked != wakeRequestsSeen)
                    {
                        wakeRequestsSeen = asked;
                        selector.selectNow(this::onReady);
                    }
                    else
                    {
                        // What is left of the wait after a spin; 0: until woken (Long.MAX_VALUE +
                        // 999_999 would overflow to a 1 ms tick).
                        final long leftNs = waitNs >= Long.MAX_VALUE / 4 ? waitNs : wakeBy - System.nanoTime();
                        if (leftNs <= 0)
                        {
                            selector.selectNow(this::onReady);
                        }
                        else
                        {
                            selector.select(this::onReady, leftNs > Long.MAX_VALUE - 999_999 ? 0 :
                                Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNs + 999_999)));
                        }
                        // Whatever asked for a wake-up counted so far is visible now, and this round
                        // admits it: the next round's last look need not take another.
                        wakeRequestsSeen = wakeRequests.get();
                    }
                }
            }
            catch (final IOException | ClosedSelectorException e)
            {
                // Only a closed selector fails a select; close() follows and ends the calls.
                return;
            }
            finally
            {
                wakeByNs = AWAKE;
            }
            admitSubmitted();
            for (final SelectableChannel ch : ready)
            {
                final Call call = active.get(ch);
                if (call == null)
                {
                    unwatchIdle(ch);
                }
                else
                {
                    poll(call);
                }
            }
            nowNs = System.nanoTime();
            due.clear();
            for (final Call call : active.values())
            {
                if (call.deadlineNs() - nowNs <= 0)
                {
                    due.add(call);
                }
            }
            for (final Call call : due)
            {
                poll(call);
            }
        }
        finally
        {
            driving.unlock();
        }
    }

    /**
     * Busy-polls for {@link #spinNs}, but never past {@code wakeByNs}, the end of this round's
     * wait (a timer falls due there), and not once a wake-up is asked for (a close, say).
     *
     * @return true when a busy poll found a readable channel (and {@link #ready} holds it).
     */
    private boolean spinThenSelectNow(final long wakeByNs) throws IOException
    {
        if (spinNs <= 0 || active.isEmpty())
        {
            return false;
        }
        final long spinEndNs = System.nanoTime() + spinNs;
        final long endNs = wakeByNs - spinEndNs < 0 ? wakeByNs : spinEndNs;
        do
        {
            if (selector.selectNow(this::onReady) > 0)
            {
                return true;
            }
            Thread.onSpinWait();
        }
        while (endNs - System.nanoTime() > 0 && submitted.isEmpty() && wakeRequests.get() == wakeRequestsSeen);
        // Ended by a submit (whose wake-up a selectNow() may have swallowed): look again now.
        return !submitted.isEmpty();
    }

    /**
     * @return how long the reader may wait: while no call is known, as long as a call started now
     *     on a watched connection waits before its first timer (at least a tick), twice that the
     *     next time, and so on until {@link #LINGER_NS} have passed since the last call, then
     *     until woken; with calls known, until the earliest of their timers, however far. A caller
     *     whose call's first timer falls before the end of the wait wakes the reader. (Capped at a
     *     tick, every ORB with a slow call in flight woke a thousand times a second: 256 client
     *     ORBs on two cores served a third of the calls they serve uncapped. Idle waits of a tick
     *     woke the reader twice a call, at the tick after the next call started and at its reply.)
     */
    private long waitNs(final long nowNs)
    {
        final boolean idle = active.isEmpty();
        final long leadNs = watchedLeadNs(idle);
        if (idle)
        {
            if (nowNs - lastCallNs > LINGER_NS)
            {
                return Long.MAX_VALUE;
            }
            final long firstNs = leadNs == Long.MAX_VALUE ? TICK_NS : Math.max(TICK_NS, leadNs);
            // Doubling: back-to-back calls cost one round each (the reply's), calls further apart
            // a few rounds, not one per lead.
            return firstNs >= LINGER_NS ? firstNs : Math.min(LINGER_NS, firstNs << Math.min(idleWaits++, 16));
        }
        idleWaits = 0;
        long wakeNs = nowNs + Long.MAX_VALUE / 4;
        for (final Call call : active.values())
        {
            final long d = call.deadlineNs();
            if (d - wakeNs < 0)
            {
                wakeNs = d;
            }
        }
        return Math.max(0, wakeNs - nowNs);
    }

    /**
     * Forgets the discarded watched connections (a closed channel is never readable again, so
     * {@link #unwatchIdle} never drops it, and its entry would keep the connection and its buffers
     * reachable).
     *
     * @param lead whether to read the connections' leads too (only an idle wait uses them).
     * @return the shortest time any watched connection's next call would wait before its first
     *     timer ({@link ClientConnection#callLeadNs}), or Long.MAX_VALUE with none or without {@code lead}.
     */
    private long watchedLeadNs(final boolean lead)
    {
        long leadNs = Long.MAX_VALUE;
        for (final Iterator<Map.Entry<SelectableChannel, ClientConnection>> it = watched.entrySet().iterator(); it.hasNext(); )
        {
            final Map.Entry<SelectableChannel, ClientConnection> e = it.next();
            if (e.getKey().isOpen())
            {
                leadNs = lead ? Math.min(leadNs, e.getValue().callLeadNs()) : leadNs;
            }
            else if (!active.containsKey(e.getKey()))
            {
                it.remove();
            }
        }
        return leadNs;
    }

    private void onReady(final SelectionKey key)
    {
        ready.add(key.channel());
    }

    private void admitSubmitted()
    {
        Call call;
        while ((call = submitted.poll()) != null)
        {
            active.put(call.channel, call);
            if (!watched.containsKey(call.channel))
            {
                watch(call);
            }
        }
    }

    private void watch(final Call call)
    {
        final SelectableChannel ch = call.channel;
        try
        {
            try
            {
                ch.register(selector, SelectionKey.OP_READ);
            }
            catch (final CancelledKeyException e)
            {
                // Cancelled by unwatchIdle since the last select: flush it, then register anew.
                selector.selectNow();
                ch.register(selector, SelectionKey.OP_READ);
            }
            watched.put(ch, call.connection);
        }
        catch (final ClosedChannelException e)
        {
            // The connection was closed under the call: its poll fails it.
        }
        catch (final IOException e)
        {
            // selectNow failed: the selector is closing; close() ends the calls.
        }
    }

    /**
     * A watched channel of a connection with no call of ours is readable (a late packet for an
     * idle connection, which the pool services, or a call another reader started on it): stop
     * watching it, unless a call of ours has just started on it.
     */
    private void unwatchIdle(final SelectableChannel ch)
    {
        watched.remove(ch);
        // After the removal: a caller that submitted before it is admitted here; one after it
        // sees the channel unregistered and wakes us.
        admitSubmitted();
        if (active.containsKey(ch))
        {
            return;
        }
        final SelectionKey key = ch.keyFor(selector);
        if (key != null)
        {
            key.cancel();
        }
    }

    private void poll(final Call call)
    {
        final ByteBuffer reply;
        try
        {
            reply = call.connection.pollReply(call.timeoutNs);
        }
        catch (final IOException e)
        {
            finish(call);
            call.pool.release(call.connection);
            completion.failed(call, e);
            return;
        }
        catch (final RuntimeException e)
        {
            finish(call);
            call.connection.close();
            call.pool.release(call.connection);
            completion.failed(call, new IOException(e.toString(), e));
            return;
        }
        if (reply != null)
        {
            finish(call);
            try
            {
                completion.replied(call, reply);
            }
            finally
            {
                call.pool.release(call.connection);
            }
        }
    }

    private void finish(final Call call)
    {
        active.remove(call.channel);
        // A call admitted after the select and finished in the same round is a call too.
        lastCallNs = System.nanoTime();
        idleWaits = 0;
    }

    /**
     * Closes: the reader's wait ends, and every call still in flight is abandoned (its transport
     * connection closed and given back to the pool, which discards it).
     */
    void close()
    {
        closed = true;
        wakeup();
        failLeftovers();
    }

    private void failLeftovers()
    {
        driving.lock();
        try
        {
            if (!closed)
            {
                return;
            }
            Call left;
            while ((left = submitted.poll()) != null)
            {
                active.put(left.channel, left);
            }
            for (final Iterator<Call> it = active.values().iterator(); it.hasNext(); )
            {
                final Call call = it.next();
                it.remove();
                call.connection.close();
                call.pool.release(call.connection);
            }
            watched.clear();
            if (selector != null)
            {
                try
                {
                    selector.close();
                }
                catch (final IOException e)
                {
                    // Nothing to report: the selector is gone either way.
                }
                selector = null;
            }
        }
        finally
        {
            driving.unlock();
        }
    }

    /** @return calls started and not yet finished, for tests and reports. */
    int inFlight()
    {
        driving.lock();
        try
        {
            return active.size() + submitted.size();
        }
        finally
        {
            driving.unlock();
        }
    }
}
