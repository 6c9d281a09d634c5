package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/**
 * A flood of MemberChange ADDED from ids of no member's (forged, or a misconfigured fleet): the
 * leader admits at most {@code max_members}, and never more than one LIST packet names, refusing
 * and counting the rest. (Without the bound, about 2,000 ADDED made the view's LIST overrun the
 * 8 KiB send buffer: the engine threw.)
 */
class JoinFloodTest
{
    private static final long MS = 1_000_000L;

    private final SentPackets sent = new SentPackets();

    private MemberEngine leader(final GroupConfig config)
    {
        final MemberEngine e = new MemberEngine(config.keepAlive(20 * MS, 100 * MS), sent, (seq, sender, packetId, requestId, payload, offset, length) -> { });
        e.start(0);
        return e;
    }

    private static void flood(final MemberEngine leader, final int count)
    {
        for (int id = 1000; id < 1000 + count; id++)
        {
            final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(0));
            ((MemberChangeFlyweight)new MemberChangeFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, id, 7, id, MemberChangeFlyweight.STATUS_ADDED, 0);
            leader.onPacket(b, 0, b.capacity(), MS + id);
        }
    }

    @Test
    void theViewStopsAtMaxMembersAndEveryOtherAddedIsRefusedAndCounted()
    {
        final MemberEngine leader = leader(new GroupConfig(1, 1, 1, 2, 3).maxMembers(8));
        flood(leader, 20_000);
        assertEquals(8, leader.currentMembers().length);
        assertEquals(5, leader.counters().membersAdded());
        assertEquals(20_000 - 5, leader.counters().joinsRefused());
        assertEquals(MemberEngine.State.LEADER_IDLE, leader.state());
    }

    @Test
    void theViewStopsWhereOneListPacketEndsWhateverMaxMembersSays()
    {
        final MemberEngine leader = leader(new GroupConfig(1, 1, 1, 2, 3).maxMembers(100_000).maxPacketBytes(512));
        flood(leader, 5_000);
        // 512 bytes: the header (28) and the epoch (4) leave room for 120 members.
        final int fits = 120;
        assertEquals(fits, leader.currentMembers().length);
        assertEquals(5_000 - (fits - 3), leader.counters().joinsRefused());
    }
}
