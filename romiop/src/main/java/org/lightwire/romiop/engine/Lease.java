package org.lightwire.romiop.engine;

import java.util.HashMap;
import java.util.Map;
import org.lightwire.romiop.engine.view.Configuration;
import org.lightwire.romiop.engine.view.Presence;

/**
 * The leader's lease (docs/notes/romiop-views.md, section 5): the leader orders only while a
 * majority of its configuration, itself included, was heard within {@code keepAliveTimeoutNs}.
 * Without it the leader holds new requests and answers each client's request, at most once per
 * {@code retransmitTimeoutNs}, with a ViewChange UNAVAILABLE. Safety does not rest on the lease
 * (an order only a minority accepts is never committed); it turns a wait for the consolidation
 * timeout into a prompt, clear error. Off when KeepAlives are off: without them a quiet member is
 * never heard.
 *
 * <p>The expiry kept is a lower bound: hearing a member only moves the true expiry later, so the
 * majority is counted again only once the kept expiry has passed, not on every packet. The
 * deadline handed to the driver is the true expiry, worked out when asked: the driver wakes the
 * engine only when the lease really runs out.
 */
final class Lease
{
    private final Presence presence;
    private final long windowNs;
    private final long answerIntervalNs;
    private final int maxClients;
    private final boolean enabled;
    /** Clients answered UNAVAILABLE while the lease is lost, to when. */
    private final Map<Integer, Long> answeredNs = new HashMap<>();
    private boolean lost;
    private long expiresNs;
    /** A member was heard since {@link #expiresNs} was computed: it is a lower bound, not exact. */
    private boolean inexact;
    /** The configuration changed since {@link #expiresNs} was computed: it bounds nothing. */
    private boolean stale = true;

    Lease(final GroupConfig config)
    {
        this.presence = new Presence(config.selfId);
        this.windowNs = config.keepAliveTimeoutNs;
        this.answerIntervalNs = config.retransmitTimeoutNs;
        this.maxClients = config.maxClients;
        this.enabled = config.keepAlivePeriodNs > 0 && config.keepAliveTimeoutNs > 0;
    }

    /** A packet from a member of the configuration. */
    void heard(final int memberId, final long nowNs)
    {
        presence.heard(memberId, nowNs);
        inexact = true;
    }

    /** A new leader's lease starts whole: every member counts as heard now. */
    void start(final Configuration c, final long nowNs)
    {
        presence.heardAll(c, nowNs);
        lost = false;
        answeredNs.clear();
        recompute(c);
    }

    void configurationChanged()
    {
        stale = true;
    }

    /** @return true when the lease may have changed and {@link #update} should count the majority. */
    boolean due(final long nowNs)
    {
        return enabled && (lost || stale || expiresNs - nowNs <= 0);
    }

    /**
     * Counts the majority present now.
     *
     * @return +1 when the lease was regained, -1 when it was lost, 0 when unchanged.
     */
    int update(final Configuration c, final long nowNs)
    {
        recompute(c);
        final boolean holds = presence.majorityPresent(c, nowNs, windowNs);
        if (holds == !lost)
        {
            return 0;
        }
        lost = !holds;
        answeredNs.clear();
        return holds ? 1 : -1;
    }

    boolean isLost()
    {
        return lost;
    }

    boolean isPresent(final int memberId, final long nowNs)
    {
        return presence.isPresent(memberId, nowNs, windowNs);
    }

    /** @return true when {@code clientId} is to be answered UNAVAILABLE now: not within the last {@code retransmitTimeoutNs}. */
    boolean answer(final int clientId, final long nowNs)
    {
        final Long at = answeredNs.get(clientId);
        if (at != null && nowNs - at < answerIntervalNs)
        {
            return false;
        }
        if (at == null && answeredNs.size() >= maxClients)
        {
            // Bounded: forgetting the times only lets a client be answered again sooner.
            answeredNs.clear();
        }
        answeredNs.put(clientId, nowNs);
        return true;
    }

    /** @return when the lease runs out unless a member is heard, or Long.MAX_VALUE while lost or off. */
    long nextDeadlineNs(final Configuration c)
    {
        if (!enabled || lost)
        {
            return Long.MAX_VALUE;
        }
        if (stale || inexact)
        {
            // Past already when the configuration changed so: the engine runs at once and counts.
            recompute(c);
        }
        return expiresNs;
    }

    private void recompute(final Configuration c)
    {
        expiresNs = presence.majorityExpiresNs(c, windowNs);
        stale = false;
        inexact = false;
    }
}
