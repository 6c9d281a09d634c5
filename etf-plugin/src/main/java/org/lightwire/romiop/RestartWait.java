package org.lightwire.romiop;

import org.lightwire.romiop.engine.MemberEngine;

/**
 * Says, in the log, why a replica that knows it restarted (its start count, kept in
 * {@code start_count_dir}) takes no part in its group yet: it waits for members that did not
 * restart to tell it the group's epochs (docs/romiop.md, "Failure model for restarts"). When every
 * replica restarted, none can: the orders of the group's earlier run are lost with them, and it
 * founds no new order until the counts are removed. A warning once the wait passes the KeepAlive
 * timeout, then at most every {@link WarningPace#REPEAT_NS}.
 */
final class RestartWait
{
    private final String group;
    private final int memberId;
    private final String startCountDir;
    private final long quietNs;
    private final WarningPace pace = new WarningPace();
    private long sinceNs = -1;

    /** @param quietNs how long a restart may wait before it is worth a warning. */
    RestartWait(final String group, final int memberId, final String startCountDir, final long quietNs)
    {
        this.group = group;
        this.memberId = memberId;
        this.startCountDir = startCountDir;
        this.quietNs = quietNs;
    }

    /** @return the warning to log now, or null. */
    String check(final MemberEngine engine, final long nowNs)
    {
        if (!engine.awaitsEpochs())
        {
            sinceNs = -1;
            return null;
        }
        if (sinceNs < 0)
        {
            sinceNs = nowNs;
        }
        if (nowNs - sinceNs < quietNs || !pace.due(nowNs))
        {
            return null;
        }
        return message(group, memberId, engine.startCount(), startCountDir, (nowNs - sinceNs) / 1_000_000);
    }

    static String message(final String group, final int memberId, final long startCount, final String startCountDir, final long waitedMs)
    {
        return "ROMIOP group " + group + ", member " + memberId + ": start " + startCount + " of this replica (" +
            RomiopConfig.START_COUNT_DIR + " = " + startCountDir + "), which takes part in the group only once members that did " +
            "not restart have told it the group's epochs; after " + waitedMs + " ms too few have. Start them. If every replica of " +
            "the group restarted, the orders of its earlier run are lost with them and the group founds no new order on its own: " +
            "to start it afresh, remove " + group + "-*.starts from " + RomiopConfig.START_COUNT_DIR + " on every replica while none " +
            "runs (see docs/romiop.md, \"Failure model for restarts\"); calls wait meanwhile";
    }
}
