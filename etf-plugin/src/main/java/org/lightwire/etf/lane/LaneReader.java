package org.lightwire.etf.lane;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

import org.lightwire.transport.channel.ConnectionReader;
import org.lightwire.transport.channel.RequestMemoryBudget;
import org.lightwire.transport.channel.ServerCall;

/**
 * What a lane's reader thread reads next: one {@link Selector} over the own sockets of the
 * lane's transport connections, and a queue of requests other threads hand over (connections
 * without an own socket, AAL5, and connections moved here from another lane).
 *
 * <p>Fair rotation: a selection gives the round's ready connections; {@link #step} reads ONE
 * datagram of the next of them, and once every one has had its turn, takes one hand-off, then
 * selects again. A client that keeps its socket full gets one datagram per round, like every
 * other ready connection of the lane, however much it sends. One datagram per step is also what
 * keeps requests in place: the lane reads the next datagram only after JacORB took the request
 * before it (see {@link Lane#read}), so every reader of the lane shares one receive buffer.
 *
 * <p>Solo: while the pool gives the lane a single connection to read alone ({@link Lane#solo()}),
 * the thread waits on that connection's socket in one blocking receive instead, as a thread per
 * connection would: one system call per datagram, not a selection and a receive. Nothing can wake
 * that wait but a datagram of the connection or its socket's close, so the pool queues nothing for a
 * solo lane; when it wants the lane to take others ({@link Lane#shareRequested()}), the thread
 * registers the socket with its selector at its next step, and the lane is shared from then on.
 *
 * <p>Thread-safety: {@link #step}, registration and deregistration run on the lane's reader
 * thread only; {@link #handOff}, {@link #register} and {@link #close} may be called by any
 * thread (they wake the selector).
 */
final class LaneReader
{
    /** The largest datagram a connection's socket can hold (a UDP/IPv4 payload), plus one byte to tell a truncated one. */
    static final int SCRATCH_BYTES = 65_499 + 8 + 1;

    /** A request another thread handed to the lane, its bytes copied, with the call that answers it. */
    static final class HandOff
    {
        final Route route;
        final ServerCall call;
        final ByteBuffer request;
        /** True for a connection moved here: its socket is to be registered before its request is presented. */
        final boolean moved;

        /** Where the copy is charged (null when it is not), and how much is still charged. */
        private final RequestMemoryBudget memory;
        private long charged;

        HandOff(final Route route, final ServerCall call, final ByteBuffer request, final boolean moved)
        {
            this(route, call, request, moved, null);
        }

        /** @param memory the budget the copy {@code request} was charged to, by its remaining bytes. */
        HandOff(final Route route, final ServerCall call, final ByteBuffer request, final boolean moved,
            final RequestMemoryBudget memory)
        {
            this.route = route;
            this.call = call;
            this.request = request;
            this.moved = moved;
            this.memory = memory;
            this.charged = memory == null ? 0 : request.remaining();
        }

        /** Gives the copy's charge back: once the request is presented or answered (idempotent). */
        synchronized void release()
        {
            if (charged > 0)
            {
                memory.release(charged);
                charged = 0;
            }
        }
    }

    private final Lane lane;
    private final Selector selector;
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES);
    private final Queue<HandOff> handOffs = new ConcurrentLinkedQueue<>();
    private final Queue<Route> registrations = new ConcurrentLinkedQueue<>();
    private final Consumer<SelectionKey> collect = this::collect;
    /** The keys the last selection found ready; those before {@link #readyNext} had their turn. */
    private SelectionKey[] ready = new SelectionKey[16];
    private int readyCount;
    private int readyNext;
    /** True while this round still owes the hand-off queue its turn. */
    private boolean handOffTurn;
    /** The connection this thread reads with blocking receives (the lane is solo), or null while it selects. Lane thread only. */
    private Route alone;
    private volatile boolean closed;

    LaneReader(final Lane lane) throws IOException
    {
        this.lane = lane;
        this.selector = Selector.open();
    }

    /** Queues a request for the lane and wakes its thread; once the lane is closed, the lane answers what is queued. */
    void handOff(final HandOff h)
    {
        handOffs.add(h);
        wakeup();
    }

    /** Queues a connection whose socket the lane's thread registers with its selector. */
    void register(final Route route)
    {
        registrations.add(route);
        if (closed)
        {
            drainRegistrations();
            return;
        }
        wakeup();
    }

    /** @return the next hand-off waiting, now removed; null when none is. */
    HandOff pollHandOff()
    {
        return handOffs.poll();
    }

    /**
     * One step of the lane's reading, on its thread: the next ready connection of this round reads
     * one datagram, or the hand-off queue gives one request. Blocks in the selector while nothing is
     * ready; returns at once when woken (a hand-off, a registration, a close).
     */
    void step()
    {
        try
        {
            if (alone != null)
            {
                stepAlone();
                return;
            }
            if (readyNext == readyCount && !handOffTurn)
            {
                registerWaiting();
                if (alone != null)
                {
                    // Made solo: its connection is read alone from the next step on, never selected.
                    return;
                }
                select();
            }
            if (readyNext < readyCount)
            {
                final SelectionKey k = ready[readyNext];
                ready[readyNext++] = null;
                final Route r = (Route)k.attachment();
                if (r.selectionKey != k || r.lane() != lane)
                {
                    // A key this lane no longer reads with (its connection moved on): never selected again.
                    k.cancel();
                    return;
                }
                lane.poll(r);
                return;
            }
            if (handOffTurn)
            {
                handOffTurn = false;
                final HandOff h = handOffs.poll();
                if (h != null)
                {
                    lane.onHandOff(h);
                }
            }
        }
        catch (final ClosedSelectorException e)
        {
            // The lane closed under us: its inbound stream is closed too, and read() fails.
        }
    }

    /**
     * One blocking receive of the solo connection, unless the lane is to turn shared (asked by the
     * pool, or something was queued for it all the same): then its socket joins the selector.
     */
    private void stepAlone()
    {
        final Route r = alone;
        if (closed)
        {
            // The lane's inbound stream is closed too: read() fails before the next step.
            return;
        }
        if (lane.shareRequested() || !handOffs.isEmpty() || !registrations.isEmpty())
        {
            alone = null;
            lane.soloEnded(r, true);
            registerNow(r);
            return;
        }
        if (!lane.receiveAlone(r))
        {
            // Closed: the router learns of it from the transport.
            deregister(r);
        }
    }

    private void select()
    {
        readyCount = 0;
        readyNext = 0;
        try
        {
            if (!handOffs.isEmpty() || closed)
            {
                if (!selector.keys().isEmpty())
                {
                    selector.selectNow(collect);
                }
            }
            else
            {
                selector.select(collect);
            }
        }
        catch (final IOException e)
        {
            // epoll_wait failing is not a client's doing; the next step selects again.
        }
        handOffTurn = !handOffs.isEmpty();
    }

    private void collect(final SelectionKey key)
    {
        if (readyCount == ready.length)
        {
            ready = java.util.Arrays.copyOf(ready, ready.length * 2);
        }
        ready[readyCount++] = key;
    }

    private void registerWaiting()
    {
        Route r;
        // Once solo, the thread stops: anything still queued makes the lane shared at its next step.
        while (alone == null && (r = registrations.poll()) != null)
        {
            registerNow(r);
        }
    }

    /**
     * Registers the connection's socket with this lane's selector and gives its reader the lane's
     * receive buffer; on the lane's thread. A socket that cannot be selected closes its connection:
     * no thread would read it otherwise.
     */
    void registerNow(final Route r)
    {
        final ConnectionReader reader = r.reader;
        if (reader == null || r.closed() || r.settledLane() != lane || r.selectionKey != null)
        {
            if (lane.solo() == r)
            {
                lane.soloEnded(r, false);
            }
            return;
        }
        try
        {
            if (lane.solo() == r)
            {
                // A socket never selected yet: blocking already, unless closed meanwhile.
                if (reader.useBlockingReads())
                {
                    reader.shareReceiveBuffer(scratch);
                    alone = r;
                }
                else
                {
                    lane.soloEnded(r, false);
                }
                return;
            }
            final SelectableChannel channel = reader.selectableChannel();
            if (channel == null)
            {
                // Closed already: its close reaches the router.
                return;
            }
            reader.shareReceiveBuffer(scratch);
            try
            {
                r.selectionKey = channel.register(selector, SelectionKey.OP_READ, r);
            }
            catch (final CancelledKeyException e)
            {
                // Its key of an earlier stay on this lane is cancelled but not yet flushed.
                selector.selectNow();
                selector.selectedKeys().clear();
                r.selectionKey = channel.register(selector, SelectionKey.OP_READ, r);
            }
        }
        catch (final IOException | RuntimeException e)
        {
            lane.refuseConnection(r);
        }
    }

    /** Takes the connection's socket out of this lane's selector, or ends its solo reading; on the lane's thread. */
    void deregister(final Route r)
    {
        if (alone == r)
        {
            alone = null;
        }
        if (lane.solo() == r)
        {
            lane.soloEnded(r, false);
        }
        final SelectionKey k = r.selectionKey;
        if (k != null)
        {
            k.cancel();
            r.selectionKey = null;
        }
    }

    private void drainRegistrations()
    {
        Route r;
        while ((r = registrations.poll()) != null)
        {
            if (r.reader != null)
            {
                r.reader.close();
            }
        }
    }

    private void wakeup()
    {
        try
        {
            selector.wakeup();
        }
        catch (final ClosedSelectorException e)
        {
            // Closed meanwhile: nobody waits.
        }
    }

    /** Closes the selector (a blocked {@link #step} returns) and the connections still queued for registration. */
    void close()
    {
        closed = true;
        try
        {
            selector.close();
        }
        catch (final IOException e)
        {
            // Closing an epoll instance reports nothing a caller could act on.
        }
        drainRegistrations();
    }
}
