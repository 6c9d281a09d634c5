package org.lightwire.romiop.engine;

import java.util.HashMap;
import java.util.Map;
import org.lightwire.romiop.engine.view.Configuration;

/**
 * A joiner's watch for a leader (docs/romiop.md, "Failover"): after a partition every member may
 * be rejoining at once, and nobody would lead. A joiner of the configuration that hears no sign of
 * a leader for twice the KeepAlive timeout, while it hears a majority of the configuration
 * (itself included), takes over itself; members of lower id it hears go first, one more timeout
 * each.
 *
 * <p>A sign of a leader: a KeepAlive or MsgOrder that is no report, a leader's own LIST, a
 * takeover's REMOVED, entering JOINING; and a member's answer to ONLINE, which names the leader it
 * follows, unless that leader was heard asking to join itself or is this joiner. The maps hold
 * members of the configuration only, so they stay as small as it is.
 */
final class LeaderSigns
{
    private final int selfId;
    private final long timeoutNs;
    private long lastSignNs;
    /** When each member of the configuration was last heard, whatever it sent (a joiner's ADDED too). */
    private final Map<Integer, Long> heardNs = new HashMap<>();
    /** When each member of the configuration was last heard asking to join (ADDED): it leads nobody then. */
    private final Map<Integer, Long> joiningNs = new HashMap<>();

    LeaderSigns(final int selfId, final long keepAliveTimeoutNs)
    {
        this.selfId = selfId;
        this.timeoutNs = keepAliveTimeoutNs;
    }

    /** A sign of a leader now. */
    void sign(final long nowNs)
    {
        lastSignNs = nowNs;
    }

    /** A packet from {@code memberId}, a member of the configuration (the joiner counts who it hears). */
    void heard(final int memberId, final long nowNs)
    {
        heardNs.put(memberId, nowNs);
    }

    /** {@code memberId}, a member of the configuration, asks to join. */
    void askedToJoin(final int memberId, final long nowNs)
    {
        joiningNs.put(memberId, nowNs);
    }

    /** A member's answer to ONLINE names {@code leaderId} as the leader it follows. */
    void answerNaming(final int leaderId, final long nowNs)
    {
        final Long joining = joiningNs.get(leaderId);
        if (leaderId != selfId && (joining == null || nowNs - joining > timeoutNs))
        {
            lastSignNs = nowNs;
        }
    }

    /** @return true when no sign of a leader came for long enough, while a majority of {@code configuration} is heard. */
    boolean takeoverDue(final Configuration configuration, final long nowNs)
    {
        int heard = 1;
        int lower = 0;
        for (final int id : configuration.ids())
        {
            final Long at = heardNs.get(id);
            if (id != selfId && at != null && nowNs - at <= timeoutNs)
            {
                heard++;
                lower += id < selfId ? 1 : 0;
            }
        }
        return heard >= configuration.quorum() && nowNs - lastSignNs >= (2L + lower) * timeoutNs;
    }
}
