package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.engine.GroupConfig;
import org.lightwire.romiop.engine.MemberEngine;

class RestartWaitTest
{
    private static final long MS = 1_000_000L;

    private static MemberEngine started(final GroupConfig config)
    {
        final MemberEngine e = new MemberEngine(config.keepAlive(100 * MS, 2_000 * MS), (to, packet, length) -> { },
            (seq, sender, packetId, requestId, payload, offset, length) -> { });
        e.start(0);
        return e;
    }

    @Test
    void aRestartThatLearnsNoEpochsIsToldWhatItWaitsForAndHowToStartTheGroupAfresh()
    {
        final MemberEngine restarted = started(new GroupConfig(2, 1, 1, 2, 3).startCount(2));
        final RestartWait wait = new RestartWait("bank", 2, "/var/lib/bank", 2_000 * MS);
        assertNull(wait.check(restarted, 100 * MS));
        assertNull(wait.check(restarted, 2_099 * MS), "within the KeepAlive timeout of the first look");
        assertEquals("ROMIOP group bank, member 2: start 2 of this replica (jacorb.lightwire.romiop.start_count_dir = /var/lib/bank), " +
            "which takes part in the group only once members that did not restart have told it the group's epochs; after 2000 ms " +
            "too few have. Start them. If every replica of the group restarted, the orders of its earlier run are lost with them " +
            "and the group founds no new order on its own: to start it afresh, remove bank-*.starts from " +
            "jacorb.lightwire.romiop.start_count_dir on every replica while none runs (see docs/romiop.md, \"Failure model for " +
            "restarts\"); calls wait meanwhile", wait.check(restarted, 2_100 * MS));
        assertNull(wait.check(restarted, 12_099 * MS));
        assertEquals(true, wait.check(restarted, 12_100 * MS).contains("after 12000 ms too few have"));
    }

    @Test
    void nothingIsSaidByAFirstStartOrAProcessWithoutCounts()
    {
        final RestartWait wait = new RestartWait("bank", 2, "/var/lib/bank", 2_000 * MS);
        assertNull(wait.check(started(new GroupConfig(2, 1, 1, 2, 3).startCount(1)), 60_000 * MS));
        assertNull(wait.check(started(new GroupConfig(2, 1, 1, 2, 3)), 60_000 * MS));
        assertNull(wait.check(started(new GroupConfig(1, 1, 1, 2, 3).startCount(2)), 60_000 * MS), "a founding leader checks instead");
    }
}
