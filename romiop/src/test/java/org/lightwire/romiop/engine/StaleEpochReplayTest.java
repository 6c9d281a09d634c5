package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;

/**
 * MsgOrders a member sent as leader of an earlier epoch, delivered again while a new incarnation
 * of it leads a later one (a delayed duplicate, or an attacker repeating what it saw): no member
 * takes them, though they carry their requests and name order numbers nobody has used yet.
 * Group [1,2,3] on a {@link HandWiredNet}: 1, cut off, orders 30 requests sent to it alone
 * (nobody hears those orders); 2 takes over and orders others; 1 is restarted and rejoins; 2
 * crashes and the new 1 takes over; then every MsgOrder the old 1 sent reaches 3.
 */
class StaleEpochReplayTest
{
    private static final int CLIENT = 100;

    @Test
    void ordersOfAnEarlierEpochAreDroppedWhenTheSameIdLeadsAgain()
    {
        final int[] all = {1, 2, 3};
        final HandWiredNet net = new HandWiredNet().founded(all);
        requests(net, 1, 5, all);
        net.record(1);
        net.cutBetween(new int[] {1}, new int[] {2, 3});
        for (int k = 6; k <= 35; k++)
        {
            net.inject(1, WirePackets.requestToSequencer(CLIENT, k));
            net.runMs(1);
        }
        final List<byte[]> oldOrders = msgOrders(net.recorded.get(1));
        assertEquals(30, oldOrders.stream().mapToLong(StaleEpochReplayTest::firstOrderSeq).filter(seq -> seq >= 6 && seq <= 35).distinct().count(),
            "the cut-off leader ordered 6..35");
        net.runMs(400);
        assertEquals(2, net.engines.get(2).leaderId(), "2 took over");
        requests(net, 36, 45, 2, 3);
        net.heal();
        net.restart(1, new GroupConfig(1, 1, all));
        net.runMs(400);
        requests(net, 61, 70, all);
        net.crash(2);
        while (net.engines.get(1).leaderId() != 1 || net.engines.get(3).epoch() != net.engines.get(1).epoch())
        {
            net.runMs(1);
        }
        final int epochBefore = net.engines.get(3).epoch();
        final long staleBefore = net.engines.get(3).counters().staleEpochPackets();
        for (final byte[] p : oldOrders)
        {
            net.inject(3, ByteBuffer.wrap(p.clone()));
        }
        assertEquals(oldOrders.size(), net.engines.get(3).counters().staleEpochPackets() - staleBefore, "each replayed MsgOrder is counted stale");
        assertEquals(epochBefore, net.engines.get(3).epoch());
        requests(net, 71, 85, 1, 3);
        net.runMs(400);
        net.assertOneOrder();
        assertEquals(net.delivered.get(1).tailMap(26L), net.delivered.get(3).tailMap(26L), "3 delivers what the new leader orders");
        assertEquals(15, net.delivered.get(3).tailMap(26L).size(), "requests 71..85, once each");
    }

    private static void requests(final HandWiredNet net, final int first, final int last, final int... to)
    {
        for (int k = first; k <= last; k++)
        {
            net.request(CLIENT, k, to);
            net.runMs(1);
        }
        net.runMs(50);
    }

    private static ByteBuffer wrap(final byte[] p)
    {
        return ByteBuffer.wrap(p).order((p[5] & 1) != 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
    }

    private static long firstOrderSeq(final byte[] msgOrder)
    {
        return wrap(msgOrder).getLong(PacketHeader_1_0.HEADER_LENGTH + MsgOrderFlyweight.FIRST_ORDER_SEQ_OFFSET);
    }

    private static List<byte[]> msgOrders(final List<byte[]> packets)
    {
        final List<byte[]> orders = new ArrayList<>();
        for (final byte[] p : packets)
        {
            if (wrap(p).getShort(6) == PacketType.MSG_ORDER.code())
            {
                orders.add(p);
            }
        }
        return orders;
    }
}
