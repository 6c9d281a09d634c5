package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.engine.GroupConfig;
import org.lightwire.romiop.engine.MemberEngine;

/** FoundingWait and RestartWait: what a replica that orders nothing yet says in the log. */
class FoundingWaitTest
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
    void aFirstStartWaitingPastTheKeepAliveTimeoutIsWarnedAboutNamingTheSilentMembersThenEveryTenSeconds()
    {
        final MemberEngine leader = started(new GroupConfig(1, 1, 1, 2, 3));
        final FoundingWait wait = new FoundingWait("bank", 1, 2_000 * MS);
        assertNull(wait.check(leader, 1_999 * MS), "within the KeepAlive timeout: a first start takes a round trip");
        assertEquals("ROMIOP group bank, member 1: the group's first start orders nothing until every other member has told " +
            "this founding leader that it knows of no order (so that a restarted leader never orders over what the group " +
            "delivered); after 2000 ms still no answer from member(s) [2, 3] (in view: [1, 2, 3]). Start them, or correct " +
            "jacorb.lightwire.romiop.members (see docs/romiop.md, \"Starting a group\"); calls wait meanwhile", wait.check(leader, 2_000 * MS));
        assertNull(wait.check(leader, 11_999 * MS));
        assertEquals(true, wait.check(leader, 12_000 * MS).contains("after 12000 ms still no answer from member(s) [2, 3]"));
    }

    @Test
    void membersConfiguredWithAnotherMemberListAreNamed()
    {
        assertEquals("ROMIOP group bank, member 1: the group's first start orders nothing until every other member has told " +
            "this founding leader that it knows of no order (so that a restarted leader never orders over what the group " +
            "delivered); after 2000 ms still no answer from member(s) [2] (in view: [1, 2, 3]), and member(s) [3] answered " +
            "configured with another jacorb.lightwire.romiop.members than this replica's. Start them, or correct " +
            "jacorb.lightwire.romiop.members (see docs/romiop.md, \"Starting a group\"); calls wait meanwhile",
            FoundingWait.message("bank", 1, new int[] {1, 2, 3}, new int[] {2}, new int[] {3}, 2_000));
    }

    @Test
    void nothingIsSaidWhenThereIsNoWait()
    {
        final FoundingWait wait = new FoundingWait("bank", 1, 2_000 * MS);
        assertNull(wait.check(started(new GroupConfig(1, 1, 1)), 60_000 * MS), "a group of one asks nobody");
        assertNull(wait.check(started(new GroupConfig(2, 1, 1, 2, 3)), 60_000 * MS), "a member that does not lead");
    }

    // RestartWait: a replica that knows it restarted and waits to learn the group's epochs.

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
