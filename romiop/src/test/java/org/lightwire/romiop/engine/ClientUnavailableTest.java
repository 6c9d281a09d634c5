package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.lightwire.romiop.protocol.ViewChangeFlyweight;
import org.junit.jupiter.api.Test;

/** Tier 1: a client takes a leader's UNAVAILABLE notice from a member of its view only. */
class ClientUnavailableTest
{
    private static final long MS = 1_000_000L;
    private final List<Unavailability> notices = new ArrayList<>();
    private final GroupClientEngine client = new GroupClientEngine(new GroupConfig(100, 1, 1, 2, 3).retransmitTimeoutNs(20 * MS),
        (to, packet, length) -> { }, (memberId, packetId, requestId, payload, offset, length) -> { }, null, notices::add);

    /** A notice from {@code from} for epoch 1 of {1, 2, 3}, with {@code present} flagged. */
    private static ByteBuffer notice(final int from, final int kind, final int... present)
    {
        final ByteBuffer b = ByteBuffer.allocate(ViewChangeFlyweight.length(3));
        final ViewChangeFlyweight v = new ViewChangeFlyweight();
        v.wrap(b, 0);
        v.set(ByteOrder.BIG_ENDIAN, from, 40, kind, 1, 1, 0, 5, 4, 3);
        for (int i = 0; i < 3; i++)
        {
            final int id = i + 1;
            v.member(i, id, java.util.Arrays.stream(present).anyMatch(p -> p == id) ? ViewChangeFlyweight.MEMBER_PRESENT : 0, 0);
        }
        return b;
    }

    @Test
    void anUnavailableNoticeFromAMemberNamesTheEpochWhoIsPresentAndTheMajority()
    {
        client.multicast(7, 3, ByteBuffer.allocate(3), 0, 3, 0);
        client.onPacket(notice(1, ViewChangeFlyweight.KIND_UNAVAILABLE, 1), 0, ViewChangeFlyweight.length(3), 5 * MS);
        assertEquals(1, notices.size());
        final Unavailability u = notices.get(0);
        assertEquals(1, u.leaderId());
        assertEquals(1, u.epoch());
        assertEquals(2, u.quorum());
        assertEquals("epoch 1, members present [1] of [1, 2, 3], a majority needs 2", u.describe());
        assertEquals(1, client.counters().unavailableReceived());
        assertEquals(0, client.counters().unavailableDropped());
    }

    @Test
    void aNoticeFromOutsideTheViewOrOfAnotherKindIsDroppedAndCounted()
    {
        client.onPacket(notice(9, ViewChangeFlyweight.KIND_UNAVAILABLE, 9), 0, ViewChangeFlyweight.length(3), 5 * MS);
        client.onPacket(notice(1, ViewChangeFlyweight.KIND_START_VIEW), 0, ViewChangeFlyweight.length(3), 6 * MS);
        final ByteBuffer truncated = notice(1, ViewChangeFlyweight.KIND_UNAVAILABLE, 1);
        client.onPacket(truncated, 0, ViewChangeFlyweight.length(3) - 1, 7 * MS);
        assertEquals(List.of(), notices);
        assertEquals(2, client.counters().unavailableDropped(), "a non-member's notice and a START_VIEW");
        assertEquals(0, client.counters().unavailableReceived());
        assertEquals(0, client.counters().unexpectedPackets());
    }
}
