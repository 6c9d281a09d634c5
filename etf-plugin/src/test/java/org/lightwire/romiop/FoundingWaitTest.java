package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.engine.GroupConfig;
import org.lightwire.romiop.engine.MemberEngine;

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
}
