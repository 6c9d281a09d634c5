package org.lightwire.romiop;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;

/**
 * A replica's side of ROMIOP state transfer in the ORB: turns the engine's
 * {@link org.lightwire.romiop.engine.StateHandler} calls into {@code get_state} and
 * {@code set_state} requests ({@link StateRequests}) to the servant of the group object, queued
 * for the ORB where the group's deliveries go, so that they execute at the cut of the total order
 * the engine chose; and their replies ({@link StateReply}) into the engine's answers.
 *
 * <ul>
 * <li>Capture (the donor): {@code get_state} right after the request of order {@code cut}; its
 * State goes to the engine ({@link Replica#stateCaptured}); an exception, or no object to ask,
 * becomes {@link Replica#stateUnavailable} with a reason ({@link StateErrors}) that reaches the
 * joiner.</li>
 * <li>Install (the joiner): {@code set_state} before the request of order {@code cut + 1}; an
 * exception makes the replica leave its group ({@link Replica#leave}): it would otherwise serve
 * requests on a state that is not the group's.</li>
 * <li>Refusal (the joiner): no member had a state to give; the engine has stopped (it stays in
 * the group's configuration, counted as failed, until the replica is restarted).</li>
 * </ul>
 *
 * The object is the one the application passed to {@link RomiopFactories#groupReference}, the
 * first one if several ({@link #stateObject}). A joiner may be given its state before its
 * application has made the group reference (the engine joins as the ORB starts listening):
 * {@link #install} then waits for it, up to {@code keyWaitMs}, holding back the requests ordered
 * after the cut.
 *
 * <p>Beyond the paper (ROMIOP has no state transfer); the interface is FT-CORBA's
 * {@code FT::Checkpointable} (CORBA 3.0, chapter 23) under the name {@code LightwireFT}.
 */
final class StateTransfer
{
    /** What the transfer needs of its replica. */
    interface Replica
    {
        /** Driver thread: the next connection-local request id (the counter deliveries take theirs from). */
        long nextRequestId();

        /** Driver thread: queues a request for the ORB after every request delivered so far; false when it could not. */
        boolean queue(byte[] request);

        /** Any thread: gives the engine, on its driver thread, the state after order {@code cut}. */
        void stateCaptured(long cut, byte[] state);

        /** Any thread: tells the engine, on its driver thread, that there is no state after order {@code cut}, and why. */
        void stateUnavailable(long cut, String reason);

        /** Any thread: makes this member leave its group. */
        void leave();
    }

    /** A state request handed to the ORB, awaiting its reply. */
    private record Call(boolean capture, long cut, byte[] objectKey)
    {
    }

    private final int memberId;
    private final Replica replica;
    private final Logger logger;
    private final long keyWaitMs;
    /** The group object's key; guarded by {@link #keyLock}. */
    private byte[] objectKey;
    private final Object keyLock = new Object();
    private final Map<Long, Call> calls = new ConcurrentHashMap<>();
    private volatile String lastError;
    /** Set once a {@code set_state} failed: this replica's servant no longer holds the group's state. */
    private volatile boolean stateLost;

    /** get_state calls answered with a state (donor). */
    final AtomicLong statesServed = new AtomicLong();
    /** Captures answered with {@link Replica#stateUnavailable} (donor). */
    final AtomicLong statesNotServed = new AtomicLong();
    /** set_state calls the servant completed (joiner). */
    final AtomicLong statesApplied = new AtomicLong();
    /** Installs that failed, after which the member left its group (joiner). */
    final AtomicLong statesNotApplied = new AtomicLong();
    /** Joins refused because the donor had no state to give (joiner). */
    final AtomicLong joinsRefused = new AtomicLong();

    /**
     * @param keyWaitMs how long {@link #install} waits for the application to name the group
     *                  object before the member gives up and leaves.
     */
    StateTransfer(final int memberId, final Replica replica, final Logger logger, final long keyWaitMs)
    {
        this.memberId = memberId;
        this.replica = replica;
        this.logger = logger;
        this.keyWaitMs = keyWaitMs;
    }

    /**
     * Names the object whose servant holds this replica's state: the first one named keeps it.
     *
     * @return true when {@code key} is that object's key (now or before), false when another
     *     object holds the state already.
     */
    boolean stateObject(final byte[] key)
    {
        synchronized (keyLock)
        {
            if (objectKey == null)
            {
                objectKey = key.clone();
                keyLock.notifyAll();
                return true;
            }
            return java.util.Arrays.equals(objectKey, key);
        }
    }

    /** @return the group object's key, or null before the application named it. */
    byte[] stateObject()
    {
        synchronized (keyLock)
        {
            return objectKey;
        }
    }

    /** The engine asks for the state after order {@code cut}; driver thread, after the delivery of {@code cut}. */
    void capture(final long cut)
    {
        final byte[] key = stateObject();
        if (key == null)
        {
            unavailable(cut, StateErrors.noObjectKey(memberId));
            return;
        }
        final long id = replica.nextRequestId();
        calls.put(id, new Call(true, cut, key));
        if (!replica.queue(StateRequests.getState(id, key)))
        {
            calls.remove(id);
            unavailable(cut, StateErrors.notQueued(memberId, StateRequests.GET_STATE));
        }
    }

    /** The engine hands over the state after order {@code cut}; driver thread, before the delivery of {@code cut + 1}. */
    void install(final long cut, final byte[] state)
    {
        final byte[] key = awaitStateObject();
        if (key == null)
        {
            installFailed(StateErrors.noObjectKeyToInstall(memberId, cut, keyWaitMs));
            return;
        }
        final long id = replica.nextRequestId();
        calls.put(id, new Call(false, cut, key));
        if (!replica.queue(StateRequests.setState(id, key, state)))
        {
            calls.remove(id);
            installFailed(StateErrors.notQueued(memberId, StateRequests.SET_STATE) + "; it leaves the group");
        }
    }

    /** The group had no state for this member ({@code reason}, in the last donor's words); the engine has stopped. */
    void refused(final String reason)
    {
        joinsRefused.incrementAndGet();
        lastError = reason;
        logger.error("ROMIOP member " + memberId + " was refused the group's state by every member and has stopped (restart it once it can " +
            "take a state): " + reason);
    }

    /**
     * A Reply the ORB sent on the group connection; any thread.
     *
     * @return true when it answered a state request (it is handled), false for a client's reply.
     */
    boolean onReply(final long requestId, final byte[] reply)
    {
        final Call c = calls.remove(requestId);
        if (c == null)
        {
            return false;
        }
        final StateReply r = StateReply.read(reply, c.capture());
        if (c.capture())
        {
            if (r.outcome == StateReply.Outcome.NO_EXCEPTION)
            {
                statesServed.incrementAndGet();
                logger.info("ROMIOP member " + memberId + " gives its state after order " + c.cut() + ": " + r.state.length + " bytes");
                replica.stateCaptured(c.cut(), r.state);
            }
            else
            {
                unavailable(c.cut(), StateErrors.captureFailed(memberId, c.objectKey(), r));
            }
        }
        else if (r.outcome == StateReply.Outcome.NO_EXCEPTION)
        {
            statesApplied.incrementAndGet();
            logger.info("ROMIOP member " + memberId + " took the group's state after order " + c.cut());
        }
        else
        {
            installFailed(StateErrors.installFailed(memberId, c.objectKey(), c.cut(), r));
        }
        return true;
    }

    /**
     * The ORB closed the connection the state requests were queued on ({@code why}): a request it
     * had not answered will not be, so each gets the answer of a failed one (the donor's engine
     * refuses its joiners; a joiner leaves).
     */
    void connectionClosed(final String why)
    {
        for (final Long id : java.util.List.copyOf(calls.keySet()))
        {
            final Call c = calls.remove(id);
            if (c == null)
            {
                continue;
            }
            final String operation = c.capture() ? StateRequests.GET_STATE : StateRequests.SET_STATE;
            final String reason = StateErrors.closedBeforeAnswer(memberId, operation, why);
            if (c.capture())
            {
                unavailable(c.cut(), reason);
            }
            else
            {
                installFailed(reason + "; it leaves the group");
            }
        }
    }

    private byte[] awaitStateObject()
    {
        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(keyWaitMs);
        synchronized (keyLock)
        {
            long leftNs;
            while (objectKey == null && (leftNs = end - System.nanoTime()) > 0)
            {
                try
                {
                    TimeUnit.NANOSECONDS.timedWait(keyLock, leftNs);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return objectKey;
        }
    }

    private void unavailable(final long cut, final String reason)
    {
        statesNotServed.incrementAndGet();
        lastError = reason;
        logger.warn("ROMIOP member " + memberId + " gives no state after order " + cut + ": " + reason);
        replica.stateUnavailable(cut, reason);
    }

    private void installFailed(final String reason)
    {
        stateLost = true;
        statesNotApplied.incrementAndGet();
        lastError = reason;
        logger.error("ROMIOP member " + memberId + " could not take the group's state: " + reason);
        replica.leave();
    }

    /**
     * @return true once a {@code set_state} failed: the servant does not hold the group's state, so
     *     nothing it executes from then on may reach a client (the member is leaving its group).
     */
    boolean stateLost()
    {
        return stateLost;
    }

    /** @return the last reason a state was refused, given or taken, or null when none was. */
    String lastError()
    {
        return lastError;
    }

    /** @return "statesServed=0, statesNotServed=0, ..." for the listener's counters. */
    String counters()
    {
        return "statesServed=" + statesServed + ", statesNotServed=" + statesNotServed + ", statesApplied=" + statesApplied +
            ", statesNotApplied=" + statesNotApplied + ", joinsRefused=" + joinsRefused;
    }
}
