package org.lightwire.etf.lane;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;

import org.lightwire.etf.LightwireConfig;
import org.lightwire.etf.giop.GiopRequestCheck;
import org.lightwire.transport.channel.ConnectionReader;
import org.lightwire.transport.channel.RequestHandler;
import org.lightwire.transport.channel.RequestMemoryBudget;
import org.lightwire.transport.channel.ServerCall;

/**
 * The transport server's application ({@link RequestHandler}): puts each transport connection on
 * a lane when it opens, gives each request to its connection's lane, and forgets a connection
 * when it closes.
 *
 * <p>A request that completes while a lane's reader thread polls the connection's own socket is
 * handed to that lane in place, on that thread: the common path, with no copy and no hand-off.
 * Any other request (a connection without a socket of its own, the AAL5 circuit's driver, a
 * stray datagram on the shared socket) comes on another thread: it is copied and queued for its
 * lane, which the queue wakes.
 */
public final class LaneRouter implements RequestHandler
{
    private final LanePool pool;
    private final boolean ownSockets;
    private final RequestMemoryBudget handOffMemory;
    private final ConcurrentHashMap<String, Route> routes = new ConcurrentHashMap<>();

    /**
     * @param ownSockets what {@link #readsConnections()} answers: give connections sockets of their own for the lanes to read.
     * @param handOffMemory the budget of the copies queued for the lanes, all lanes together: a
     *     request that does not fit is answered {@code NO_MEMORY} instead of queued.
     */
    public LaneRouter(final LanePool pool, final boolean ownSockets, final RequestMemoryBudget handOffMemory)
    {
        this.pool = pool;
        this.ownSockets = ownSockets;
        this.handOffMemory = handOffMemory;
    }

    @Override
    public boolean readsConnections()
    {
        return ownSockets;
    }

    /**
     * A connection with a socket of its own joins a lane, whose thread reads it from now on.
     *
     * @throws IllegalStateException when no lane could be had: the transport then serves the
     *     connection through its shared socket, and its requests reach {@link #onRequest} there.
     */
    @Override
    public void onConnectionOpened(final String connection, final ConnectionReader reader)
    {
        final Route r = new Route(connection, reader);
        routes.put(connection, r);
        final Lane lane = pool.assign(r, true);
        if (lane == null)
        {
            routes.remove(connection, r);
            throw new IllegalStateException("no lane for " + connection + ": " + pool.lastRefusal().why());
        }
        lane.register(r);
    }

    @Override
    public void onRequest(final ServerCall call)
    {
        Route r = routes.get(call.connection());
        if (r != null)
        {
            final Lane lane = r.lane();
            if (lane != null && lane.isReaderThread())
            {
                lane.onPolledRequest(r, call);
                return;
            }
        }
        else
        {
            r = routes.computeIfAbsent(call.connection(), name -> new Route(name, null));
        }
        handOff(r, call);
    }

    /** A request from a thread that is not its lane's: copied (the transport reuses its buffer when this returns) and queued. */
    private void handOff(final Route r, final ServerCall call)
    {
        final ByteBuffer r0 = call.request();
        if (!handOffMemory.tryReserve(r0.remaining()))
        {
            pool.counters().handOffsRefused.increment();
            final GiopRequestCheck facts = new GiopRequestCheck();
            facts.check(r0.duplicate());
            ErrorReplies.noMemory(call, facts.minor(), facts.requestId(), facts.responseExpected(),
                "Lightwire: the server's requests waiting for its lanes hold " + handOffMemory.usedBytes() + " of their " +
                handOffMemory.limitBytes() + " bytes; no room for one of " + r0.remaining() + " bytes (" +
                LightwireConfig.SERVER_REQUEST_MEMORY_BYTES + "; or let each connection's lane read it: " +
                LightwireConfig.SERVER_SOCKET_PER_CONNECTION + "=true)");
            return;
        }
        final ByteBuffer copy = ByteBuffer.allocate(r0.remaining());
        copy.put(r0.duplicate()).flip();
        pool.counters().requestsHandedOff.increment();
        Lane lane = r.lane();
        if (lane == null || !lane.isOpen())
        {
            lane = pool.assign(r, false);
        }
        if (lane == null)
        {
            handOffMemory.release(copy.remaining());
            final GiopRequestCheck facts = new GiopRequestCheck();
            facts.check(copy);
            final LanePool.Refusal refusal = pool.lastRefusal();
            ErrorReplies.noLane(call, facts.minor(), facts.requestId(), facts.responseExpected(),
                "Lightwire: no lane for " + r.name() + ": " + refusal.why(), refusal.byOrb());
            return;
        }
        lane.handOff(new LaneReader.HandOff(r, call, copy, false, handOffMemory));
    }

    @Override
    public void onConnectionClosed(final String connection, final String reason)
    {
        final Route r = routes.remove(connection);
        if (r != null)
        {
            r.close();
        }
    }
}
