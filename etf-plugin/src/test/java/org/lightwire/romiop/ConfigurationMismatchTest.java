package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.engine.GroupConfig;
import org.lightwire.romiop.engine.MemberEngine;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

class ConfigurationMismatchTest
{
    private static final long MS = 1_000_000L;

    /** Leader 1's view announcement in epoch 1: {@code entries} as they go on the wire (leader first). */
    private static ByteBuffer list(final int packetId, final int... entries)
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.listLength(entries.length));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.setList(ByteOrder.BIG_ENDIAN, 1, packetId, 1, entries.length, 1);
        for (int i = 0; i < entries.length; i++)
        {
            m.member(i, entries[i]);
        }
        return b;
    }

    /** Member 4, configured with members 1..4, in a group whose leader's configuration is [1, 2, 3]. */
    @Test
    void aReplicaTheLeaderNamesALearnerIsWarnedNamingBothListsThenEveryTenSeconds()
    {
        final MemberEngine member = new MemberEngine(new GroupConfig(4, 1, 1, 2, 3, 4).keepAlive(100 * MS, 2_000 * MS),
            (to, packet, length) -> { }, (seq, sender, packetId, requestId, payload, offset, length) -> { });
        member.start(0);
        final ConfigurationMismatch mismatch = new ConfigurationMismatch("bank", 4);
        assertNull(mismatch.check(member, MS), "no LIST yet");
        final ByteBuffer learner = list(5, 1, 2, 3, 4 | MemberChangeFlyweight.LEARNER);
        member.onPacket(learner, 0, learner.capacity(), 2 * MS);
        assertEquals(1, member.counters().configurationMismatches());
        assertEquals(true, member.learner());
        assertEquals("ROMIOP group bank, member 4: the leader's configuration is [1, 2, 3], this replica's " +
            "jacorb.lightwire.romiop.members names [1, 2, 3, 4]. A group's members are fixed; this replica is a learner: it " +
            "executes and replies, but counts for no commit or majority. Give every replica the same " +
            "jacorb.lightwire.romiop.members (see docs/romiop.md, \"Members and learners\")", mismatch.check(member, 3 * MS));
        final ByteBuffer again = list(6, 1, 2, 3, 4 | MemberChangeFlyweight.LEARNER);
        member.onPacket(again, 0, again.capacity(), 4 * MS);
        assertNull(mismatch.check(member, 5 * MS), "at most every ten seconds");
        assertEquals(true, mismatch.check(member, 10_003 * MS).startsWith("ROMIOP group bank, member 4: the leader's configuration is [1, 2, 3]"));
        assertNull(mismatch.check(member, 30_000 * MS), "no LIST differed since");
    }

    /**
     * Member 3 configured [1..5] in a group whose leader's configuration is [1, 2, 3], with 4 and 5
     * admitted as learners: the LIST names no voter outside 3's list, but marks two members of it
     * learners. Counting majorities of [1..5], 3 could take over with 4 and 5 and miss a commit of
     * {1, 2}: it is a learner too.
     */
    @Test
    void aLearnerThatOurListNamesIsAMismatchToo()
    {
        final MemberEngine member = new MemberEngine(new GroupConfig(3, 1, 1, 2, 3, 4, 5).keepAlive(100 * MS, 2_000 * MS),
            (to, packet, length) -> { }, (seq, sender, packetId, requestId, payload, offset, length) -> { });
        member.start(0);
        final ByteBuffer list = list(5, 1, 2, 3, 4 | MemberChangeFlyweight.LEARNER, 5 | MemberChangeFlyweight.LEARNER);
        member.onPacket(list, 0, list.capacity(), 2 * MS);
        assertEquals(1, member.counters().configurationMismatches());
        assertEquals(true, member.learner());
        assertEquals(true, new ConfigurationMismatch("bank", 3).check(member, 3 * MS)
            .startsWith("ROMIOP group bank, member 3: the leader's configuration is [1, 2, 3], this replica's jacorb.lightwire.romiop.members names [1, 2, 3, 4, 5]"));
    }

    @Test
    void nothingIsSaidWhenTheListsAgree()
    {
        final MemberEngine member = new MemberEngine(new GroupConfig(3, 1, 1, 2, 3).keepAlive(100 * MS, 2_000 * MS),
            (to, packet, length) -> { }, (seq, sender, packetId, requestId, payload, offset, length) -> { });
        member.start(0);
        final ByteBuffer same = list(5, 1, 2, 3);
        member.onPacket(same, 0, same.capacity(), 2 * MS);
        assertEquals(0, member.counters().configurationMismatches());
        assertEquals(false, member.learner());
        assertNull(new ConfigurationMismatch("bank", 3).check(member, 60_000 * MS));
    }
}
