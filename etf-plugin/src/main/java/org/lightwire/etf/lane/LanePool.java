package org.lightwire.etf.lane;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.lightwire.etf.LightwireConfig;
import org.lightwire.etf.LightwireProfile;
import org.lightwire.etf.giop.GiopRequestCheck;
import org.lightwire.transport.channel.ServerCall;
import org.omg.CORBA.NO_RESOURCES;

/**
 * A server's lanes: how many there are, which lane a transport connection joins, and where it
 * goes when its code sets are not its lane's. Lanes are made when needed, never before the first
 * transport connection opens: up to {@code jacorb.lightwire.server.reader_threads} for
 * connections as they open (each new connection joins the lane with the fewest, or a new lane
 * while every lane has some), and up to eight more for code sets that find every lane settled on
 * others. Beyond that hard cap a connection that needs yet other code sets is refused
 * (NO_RESOURCES) and closed, unless a lane carries no connection any more: that one is closed
 * and its place taken. So no client, however many connections and code sets it tries, makes the
 * server hold more than {@code reader_threads + 8} of JacORB's reader threads.
 *
 * <p>Solo lanes: a new connection with a socket of its own that finds a lane with no connection
 * gets it alone, and the lane's thread waits on that socket in a blocking receive
 * ({@link LaneReader}) rather than a selector, while fewer than {@link #maxSoloLanes} lanes are
 * solo: at least half of {@code reader_threads} always remain to be shared. The pool gives a solo
 * lane nothing else, since nothing but its connection's datagrams can wake it; when a connection
 * has to join a lane that already carries others, the solo lanes are asked to turn shared, which
 * each does at its connection's next datagram (an idle one keeps its lane alone until it closes).
 *
 * <p>A lane JacORB closes leaves the pool; the next connection that needs one gets a new lane.
 */
public final class LanePool
{
    /** Lanes beyond {@code reader_threads} for code sets that no lane has. */
    public static final int EXTRA_LANES_FOR_CODE_SETS = 8;

    /**
     * @return how many lanes may be solo at once: half of {@code readerThreads}, rounded down, so
     *     that idle connections holding solo lanes leave at least half the lanes to be shared.
     */
    public static int maxSoloLanes(final int readerThreads)
    {
        return readerThreads / 2;
    }

    /** Hands a new lane to JacORB: configures it, marks it connected, {@code deliverConnection}. */
    @FunctionalInterface
    public interface Delivery
    {
        /** @throws NO_RESOURCES when JacORB takes no more server connections. */
        void deliver(Lane lane);
    }

    private final int readerThreads;
    private final int maxLanes;
    private final int maxSoloLanes;
    private final Delivery delivery;
    private final Supplier<LightwireProfile> profile;
    private final LaneCounters counters;
    /** Open lanes, in the order they were made. Guarded by this. */
    private final List<Lane> lanes = new ArrayList<>();
    private int nextIndex;
    private boolean shutDown;

    /**
     * @param readerThreads lanes made for connections as they open.
     * @param profile the profile each lane reports to JacORB (a lane has many peers: the listener's own).
     */
    public LanePool(final int readerThreads, final Delivery delivery, final Supplier<LightwireProfile> profile,
        final LaneCounters counters)
    {
        this.readerThreads = readerThreads;
        this.maxLanes = readerThreads + EXTRA_LANES_FOR_CODE_SETS;
        this.maxSoloLanes = maxSoloLanes(readerThreads);
        this.delivery = delivery;
        this.profile = profile;
        this.counters = counters;
    }

    /**
     * Puts a new transport connection on a lane: the one with the fewest connections, or a new
     * one while there are fewer than {@code reader_threads} and every lane has a connection; never
     * on a solo lane. A lane with no connection is made solo for it when {@code alone} allows it
     * and fewer than {@link #maxSoloLanes} lanes are solo; a connection that joins a lane with
     * others asks the solo lanes to turn shared.
     *
     * @param alone the caller registers {@code r}'s own socket with the lane ({@link Lane#register}),
     *     so the lane may read it alone.
     * @return the lane, or null when there is none and JacORB refused a new one.
     */
    synchronized Lane assign(final Route r, final boolean alone)
    {
        Lane best = null;
        int soloLanes = 0;
        for (final Lane l : lanes)
        {
            if (l.solo() != null)
            {
                soloLanes++;
            }
            else if (best == null || l.members().size() < best.members().size())
            {
                best = l;
            }
        }
        final Lane lane;
        if (lanes.size() < readerThreads && (best == null || !best.members().isEmpty()))
        {
            final Lane fresh = create();
            lane = fresh != null ? fresh : best;
        }
        else
        {
            lane = best;
        }
        if (lane == null)
        {
            return null;
        }
        final boolean empty = lane.members().isEmpty();
        // Joined under this lock: no other assignment or move sees the lane empty meanwhile.
        if (!r.moveTo(lane))
        {
            return null;
        }
        if (empty && alone && r.reader != null && soloLanes < maxSoloLanes)
        {
            lane.solo(r);
            counters.soloStarts.increment();
        }
        else if (!empty && soloLanes > 0)
        {
            for (final Lane l : lanes)
            {
                if (l.solo() != null)
                {
                    l.requestShare();
                }
            }
        }
        return lane;
    }

    /**
     * The lane's thread no longer waits on {@code r} alone: the connection closed or moved, or the
     * lane turned shared ({@code shared}). A lane that is solo for another connection is left so.
     */
    synchronized void soloEnded(final Lane lane, final Route r, final boolean shared)
    {
        if (lane.solo() == r)
        {
            lane.solo(null);
            if (shared)
            {
                counters.soloLanesShared.increment();
            }
        }
    }

    /**
     * Moves a connection whose request needs other code sets than its lane's (on that lane's
     * reader thread): its request, copied, goes to a lane of those code sets, an unsettled lane,
     * or a new one, and its socket with it. With none to be had, the request is answered
     * NO_RESOURCES and the connection closed.
     *
     * @param request the request, the caller's copy (the client's request id still in it).
     * @param facts the check of that request, for a refusal's reply.
     */
    void move(final Route r, final ServerCall call, final ByteBuffer request, final CodeSetKey wanted, final Lane from,
        final GiopRequestCheck facts)
    {
        Lane target = null;
        String refusal = null;
        boolean refusedByOrb = false;
        boolean joined = false;
        synchronized (this)
        {
            if (shutDown)
            {
                refusal = "the server ORB is shutting down";
            }
            else
            {
                target = laneFor(wanted, from);
                if (target == null && lanes.size() >= maxLanes && from.members().size() == 1 && from.members().contains(r) &&
                    from.pending() == 0)
                {
                    // The connection was put, as it opened, on a lane that nobody else uses any more:
                    // that lane makes room for the connection's own code sets.
                    r.moveTo(null);
                    retire(from, wanted);
                    target = create();
                    if (target != null && !target.claim(wanted))
                    {
                        target = null;
                    }
                }
                if (target == null)
                {
                    if (lanes.size() >= maxLanes)
                    {
                        counters.laneCapRefusals.increment();
                        refusal = "every one of the server's " + lanes.size() + " lanes (" + LightwireConfig.SERVER_READER_THREADS + " + " +
                            EXTRA_LANES_FOR_CODE_SETS + ") is settled on other code sets than " + wanted +
                            "; raise " + LightwireConfig.SERVER_READER_THREADS;
                    }
                    else
                    {
                        refusal = lastRefusal.why();
                        refusedByOrb = lastRefusal.byOrb();
                    }
                }
                else
                {
                    // Joined under this lock, as in an assignment: no assignment sees the target empty and makes it solo meanwhile.
                    counters.connectionsMoved.increment();
                    joined = r.moveTo(target, new LaneReader.HandOff(r, call, request, true));
                }
            }
        }
        if (target == null)
        {
            ErrorReplies.noLane(call, facts.minor(), facts.requestId(), facts.responseExpected(),
                "Lightwire: no lane for the code sets of " + r.name() + ": " + refusal, refusedByOrb);
            counters.connectionsRefused.increment();
            r.moveTo(null);
            if (r.reader != null)
            {
                r.reader.close();
            }
            return;
        }
        if (joined)
        {
            target.failHandOffsIfClosed();
        }
        else
        {
            // Closed meanwhile: nobody waits for the answer, but the call is answered all the same.
            ErrorReplies.empty(call);
        }
    }

    /**
     * Why a new lane could not be made, and whether JacORB's own server connection limit refused
     * it ({@code jacorb.connection.max_server_connections}): read together, so that a refusal's
     * reply never mixes one failure's reason with another's kind.
     */
    record Refusal(String why, boolean byOrb)
    {
    }

    /** Why the last new lane could not be made. Guarded by this. */
    private Refusal lastRefusal = new Refusal("", false);

    /** @return a lane for {@code wanted}: the least busy one settled on it, else an unsettled one (claimed), else a new one. */
    private Lane laneFor(final CodeSetKey wanted, final Lane from)
    {
        Lane best = null;
        for (final Lane l : lanes)
        {
            if (l != from && l.isOpen() && l.solo() == null && wanted.equals(l.key()) && (best == null || l.members().size() < best.members().size()))
            {
                best = l;
            }
        }
        if (best != null)
        {
            return best;
        }
        for (final Lane l : lanes)
        {
            if (l != from && l.isOpen() && l.solo() == null && l.key() == null && (best == null || l.members().size() < best.members().size()))
            {
                best = l;
            }
        }
        if (best != null && best.claim(wanted))
        {
            return best;
        }
        if (lanes.size() >= maxLanes && !retireIdleLane(wanted, from))
        {
            return null;
        }
        final Lane fresh = create();
        if (fresh != null && fresh.claim(wanted))
        {
            return fresh;
        }
        return null;
    }

    /**
     * At the cap, closes a lane that carries no connection and owes no reply: its code sets are no
     * longer anyone's, and {@code wanted} needs the room. Without this, clients that came and went
     * with other code sets would hold the cap's lanes for good. Under this pool's lock; the lane
     * leaves the pool at once, and JacORB's reader thread ends with COMM_FAILURE.
     *
     * @return true when a lane was closed.
     */
    private boolean retireIdleLane(final CodeSetKey wanted, final Lane from)
    {
        for (final Lane l : lanes)
        {
            if (l != from && l.isOpen() && l.solo() == null && l.members().isEmpty() && l.pending() == 0)
            {
                retire(l, wanted);
                return true;
            }
        }
        return false;
    }

    private void retire(final Lane l, final CodeSetKey wanted)
    {
        counters.lanesRetired.incrementAndGet();
        l.shutdown("retired " + l.describe() + ": no connection was left on it, and " + wanted + " needed a lane");
    }

    /** Makes a lane and hands it to JacORB. @return null when JacORB refused it (counted), or the pool is shut down. */
    private Lane create()
    {
        if (shutDown)
        {
            lastRefusal = new Refusal("the server ORB is shutting down", false);
            return null;
        }
        final Lane lane;
        try
        {
            lane = new Lane(this, nextIndex++, profile.get(), counters);
        }
        catch (final IOException e)
        {
            lastRefusal = new Refusal("cannot open a selector for a new lane: " + e.getMessage(), false);
            return null;
        }
        try
        {
            delivery.deliver(lane);
        }
        catch (final NO_RESOURCES e)
        {
            counters.deliveryFailures.increment();
            lastRefusal = new Refusal("the server ORB refused a new connection: " + e.getMessage() + " (jacorb.connection.max_server_connections)",
                true);
            lane.shutdown("the server ORB refused the lane");
            return null;
        }
        catch (final RuntimeException e)
        {
            counters.deliveryFailures.increment();
            lastRefusal = new Refusal("the server ORB refused a new connection: " + e, false);
            lane.shutdown("the server ORB refused the lane");
            return null;
        }
        counters.lanesOpened.incrementAndGet();
        lanes.add(lane);
        return lane;
    }

    /** @return why the last lane could not be made, and by whom, for the refusal's reply. */
    synchronized Refusal lastRefusal()
    {
        return lastRefusal;
    }

    /** A lane was closed: it leaves the pool. */
    synchronized void laneClosed(final Lane lane)
    {
        lanes.remove(lane);
    }

    /** The server stops: every lane is closed, and none is made again. */
    public void shutdown(final String why)
    {
        final Lane[] all;
        synchronized (this)
        {
            shutDown = true;
            all = lanes.toArray(new Lane[0]);
        }
        for (final Lane l : all)
        {
            l.shutdown(why);
        }
    }

    /** @return the open lanes now. */
    public synchronized int laneCount()
    {
        return lanes.size();
    }

    /** @return the open lanes that read a connection alone now. */
    public synchronized int soloLaneCount()
    {
        int n = 0;
        for (final Lane l : lanes)
        {
            if (l.solo() != null)
            {
                n++;
            }
        }
        return n;
    }

    /** @return the transport connections of each open lane, in the order the lanes were made. */
    public synchronized int[] connectionsPerLane()
    {
        final int[] counts = new int[lanes.size()];
        for (int i = 0; i < counts.length; i++)
        {
            counts[i] = lanes.get(i).members().size();
        }
        return counts;
    }

    /** @return each open lane's code-set key ("none" before its first request), in the order the lanes were made. */
    public synchronized List<String> laneKeys()
    {
        final List<String> keys = new ArrayList<>(lanes.size());
        for (final Lane l : lanes)
        {
            keys.add(String.valueOf(l.key()));
        }
        return keys;
    }

    public LaneCounters counters()
    {
        return counters;
    }
}
