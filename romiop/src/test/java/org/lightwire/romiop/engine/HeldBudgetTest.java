package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.RequestFlyweight;

/**
 * A flood of requests from ids of no real client (or one real client's burst) at a member that
 * the leader's orders do not drain: what the member holds stays within {@code max_held_bytes};
 * a request beyond is neither held nor ACKed (its client resends it), and one an order names is
 * taken whatever it costs. Member 2 of [1, 2, 3], a hand-advanced clock, a recording sender.
 */
class HeldBudgetTest
{
    private static final long MS = 1_000_000L;
    private static final int PAYLOAD = 1_000;
    private static final int COST = PAYLOAD + HeldRequest.OVERHEAD_BYTES;
    private static final long BUDGET = 100 * COST;

    private final SentPackets sent = new SentPackets();
    private final List<Long> executed = new ArrayList<>();

    private MemberEngine member()
    {
        final MemberEngine e = new MemberEngine(new GroupConfig(2, 1, 1, 2, 3).keepAlive(20 * MS, 100 * MS).requestAckDelayNs(0)
            .orderAckDelayNs(0).maxHeldBytes(BUDGET), sent,
            (seq, sender, packetId, requestId, payload, offset, length) -> executed.add(MemberEngine.key(sender, packetId)));
        e.start(0);
        return e;
    }

    private static ByteBuffer request(final int clientId)
    {
        final ByteBuffer b = ByteBuffer.allocate(RequestFlyweight.HEADER_LENGTH + PAYLOAD);
        ((RequestFlyweight)new RequestFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, clientId, 1, 1, 0, PAYLOAD);
        return b;
    }

    private static ByteBuffer order(final long seq, final int clientId, final long commit)
    {
        final ByteBuffer b = ByteBuffer.allocate(MsgOrderFlyweight.length(1));
        final MsgOrderFlyweight o = new MsgOrderFlyweight();
        o.wrap(b, 0);
        o.set(ByteOrder.BIG_ENDIAN, 1, 90 + (int)seq, 1, seq, 1, commit);
        o.entry(0, clientId, 1);
        return b;
    }

    private static void feed(final MemberEngine e, final ByteBuffer b, final long nowNs)
    {
        e.onPacket(b, 0, b.capacity(), nowNs);
    }

    private long requestAcks()
    {
        return sent.acks().stream().filter(a -> a.ackedType() == PacketType.REQUEST).count();
    }

    @Test
    void aFloodOfRequestsIsHeldOnlyUpToTheBudgetAndWhatIsRefusedIsNotAcked()
    {
        final MemberEngine m = member();
        for (int client = 100_000; client < 110_000; client++)
        {
            feed(m, request(client), MS);
        }
        assertTrue(m.deliverySummary().contains("held 100,"), m.deliverySummary());
        assertEquals(10_000 - 100, m.counters().requestsRefusedFull());
        assertEquals(100, requestAcks(), "only the requests held are ACKed: the others' clients resend");
    }

    @Test
    void aRequestAnOrderNamesIsTakenWhenFullAndARefusedOneIsTakenOnceDeliveryFreesRoom()
    {
        final MemberEngine m = member();
        for (int client = 100_000; client < 100_100; client++)
        {
            feed(m, request(client), MS);
        }
        feed(m, request(200_000), 2 * MS);
        assertEquals(1, m.counters().requestsRefusedFull(), "full");
        // The leader ordered the refused request first: the member needs it, and takes it.
        feed(m, order(1, 200_000, 0), 3 * MS);
        feed(m, request(200_000), 4 * MS);
        assertEquals(1, m.counters().requestsRefusedFull());
        assertEquals(List.of(MemberEngine.key(200_000, 1)), executed, "delivered: leader and member are two of three");
        feed(m, request(300_000), 5 * MS);
        assertEquals(2, m.counters().requestsRefusedFull(), "full again: 100 held");
        feed(m, order(2, 100_000, 1), 6 * MS);
        assertEquals(2, executed.size());
        feed(m, request(300_000), 7 * MS);
        assertEquals(2, m.counters().requestsRefusedFull(), "a delivery made room for one more: the resent request is taken");
        feed(m, request(300_001), 8 * MS);
        assertEquals(3, m.counters().requestsRefusedFull(), "and only one");
    }
}
