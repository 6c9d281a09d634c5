package org.lightwire.romiop;

import java.util.Arrays;

import org.lightwire.romiop.engine.MemberEngine;

/**
 * Says, in the log, why a replica that leads a group's first start orders nothing yet: it waits
 * for every other member to tell it that it knows of no order (docs/romiop.md, "Starting a group").
 * Looked at on each of the engine's timer runs (every KeepAlive period while it waits); a warning
 * once the wait passes the KeepAlive timeout, then at most every {@link WarningPace#REPEAT_NS}.
 */
final class FoundingWait
{
    private final String group;
    private final int memberId;
    private final long quietNs;
    private final WarningPace pace = new WarningPace();

    /** @param quietNs how long a first start may wait before it is worth a warning. */
    FoundingWait(final String group, final int memberId, final long quietNs)
    {
        this.group = group;
        this.memberId = memberId;
        this.quietNs = quietNs;
    }

    /** @return the warning to log now, or null. */
    String check(final MemberEngine engine, final long nowNs)
    {
        if (!engine.foundingCheckPending() || nowNs - engine.foundingCheckStartedNs() < quietNs || !pace.due(nowNs))
        {
            return null;
        }
        return message(group, memberId, engine.currentMembers(), engine.foundingCheckAwaiting(), engine.foundingCheckMismatched(),
            (nowNs - engine.foundingCheckStartedNs()) / 1_000_000);
    }

    static String message(final String group, final int memberId, final int[] view, final int[] awaiting, final int[] mismatched,
        final long waitedMs)
    {
        return "ROMIOP group " + group + ", member " + memberId + ": the group's first start orders nothing until every " +
            "other member has told this founding leader that it knows of no order (so that a restarted leader never " +
            "orders over what the group delivered); after " + waitedMs + " ms still no answer from member(s) " +
            Arrays.toString(awaiting) + " (in view: " + Arrays.toString(view) + ")" +
            (mismatched.length == 0 ? "" : ", and member(s) " + Arrays.toString(mismatched) + " answered configured with another " +
                RomiopConfig.MEMBERS + " than this replica's") +
            ". Start them, or correct " + RomiopConfig.MEMBERS + " (see docs/romiop.md, \"Starting a group\"); calls wait meanwhile";
    }
}
