package org.lightwire.romiop;

import java.util.Arrays;

import org.lightwire.romiop.engine.MemberEngine;

/**
 * Says, in the log, that this replica was configured with another member list than its group's
 * leader (docs/romiop.md, "Members and learners"): the group's configuration is fixed, so such a
 * replica is a learner (its acceptances commit nothing) or counts members the others do not.
 * Looked at on each of the engine's timer runs; a warning when a LIST differed since the last
 * look, at most every {@link WarningPace#REPEAT_NS}.
 */
final class ConfigurationMismatch
{
    private final String group;
    private final int memberId;
    private final WarningPace pace = new WarningPace();
    private long seen;

    ConfigurationMismatch(final String group, final int memberId)
    {
        this.group = group;
        this.memberId = memberId;
    }

    /** @return the warning to log now, or null. */
    String check(final MemberEngine engine, final long nowNs)
    {
        final long mismatches = engine.counters().configurationMismatches();
        if (mismatches == seen || !pace.due(nowNs))
        {
            return null;
        }
        seen = mismatches;
        return message(group, memberId, engine.mismatchedConfiguration(), engine.configurationIds(), engine.learner());
    }

    static String message(final String group, final int memberId, final int[] leaders, final int[] own, final boolean learner)
    {
        return "ROMIOP group " + group + ", member " + memberId + ": the leader's configuration is " + Arrays.toString(leaders) +
            ", this replica's " + RomiopConfig.MEMBERS + " names " + Arrays.toString(own) + ". A group's members are fixed; " +
            (learner ? "this replica is a learner: it executes and replies, but counts for no commit or majority. "
                : "this replica counts majorities against its own list. ") +
            "Give every replica the same " + RomiopConfig.MEMBERS + " (see docs/romiop.md, \"Members and learners\")";
    }
}
