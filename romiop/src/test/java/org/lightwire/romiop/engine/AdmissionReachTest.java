package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;

/**
 * A restarted process's admission reach (docs/romiop.md, "Incarnations", rule 2) is never below
 * what its leader told this incarnation's ask, whatever KeepAlive admits it (found by a review):
 * [1, 2, 3]; 1 commits 200/1 at 2 with 3 alone (2 does not hear 1); 3 restarts, learns the
 * epochs and is listed by 1, which is then cut off (alive, keeping its memory), and the network
 * hands 3 a KeepAlive of 1 from before its restart (ordered through 1). Taken as the reach, 3
 * counts at once for 2's takeover, which decides at 1 and orders 300/1 at 2 while 1 delivered
 * 200/1 there. With the reach at least 1's told last order, 2, 3 wait for 1, and one order holds.
 */
class AdmissionReachTest
{
    @Test
    void aDelayedKeepAliveDoesNotLowerTheReach()
    {
        delayedAdmission(new HandWiredNet(), false);
    }

    @Test
    void aDelayedKeepAliveDoesNotLowerTheReachCountingStarts()
    {
        delayedAdmission(new HandWiredNet().countingStarts(), false);
    }

    /** The same with the leader's latest KeepAlive instead: ordered through 2, the reach covers 200/1 either way. */
    @Test
    void aFreshKeepAliveAdmitsWithTheLeadersLastOrder()
    {
        delayedAdmission(new HandWiredNet(), true);
    }

    private static void delayedAdmission(final HandWiredNet net, final boolean fresh)
    {
        final int[] all = {1, 2, 3};
        net.founded(all);
        net.runMs(30);
        net.request(100, 1, all);
        net.runMs(30);
        assertEquals("100/1", net.delivered.get(2).get(1L));
        net.record(1);
        net.runMs(25);
        final byte[] stale = lastKeepAliveOf(net, 1);
        assertNotNull(stale, "a KeepAlive of 1 ordered through 1");
        net.cutOneWay(1, 2);
        net.request(200, 1, 1, 3);
        net.runMs(5);
        assertEquals("200/1", net.delivered.get(1).get(2L), "1 committed 200/1 at 2 with 3 alone");
        // 1 reaches 3 only with LISTs and answers to its asks: no KeepAlive admits it.
        net.passOnly(1, 3, p -> isStatus(p, MemberChangeFlyweight.STATUS_LIST) || isStatus(p, MemberChangeFlyweight.STATUS_EPOCH_TOLD));
        net.restart(3, GroupConfig.joining(3, 1, 2, 3));
        for (int ms = 0; ms < 60 && !listed(net.engines.get(3)); ms++)
        {
            net.runMs(1);
        }
        assertEquals(true, listed(net.engines.get(3)), "1 listed the new 3");
        net.cutBetween(new int[] {1}, new int[] {2, 3});
        net.inject(3, ByteBuffer.wrap((fresh ? lastKeepAliveOf(net, 0) : stale).clone()));
        for (int ms = 0; ms < 1000 && net.engines.get(2).state() != MemberEngine.State.LEADER_IDLE &&
            net.engines.get(2).state() != MemberEngine.State.LEADER_BATCHING; ms++)
        {
            net.runMs(1);
        }
        net.request(300, 1, 2, 3);
        net.runMs(300);
        net.heal();
        net.runMs(1500);
        net.request(500, 1, all);
        net.runMs(300);
        net.assertOneOrder();
    }

    private static boolean listed(final MemberEngine e)
    {
        for (final int id : e.currentMembers())
        {
            if (id == 3)
            {
                return true;
            }
        }
        return false;
    }

    /** @return the last KeepAlive (no report) 1 sent, ordered through {@code through} (0: any), or null. */
    private static byte[] lastKeepAliveOf(final HandWiredNet net, final long through)
    {
        byte[] last = null;
        for (final byte[] p : net.recorded.get(1))
        {
            if (type(p) == PacketType.KEEP_ALIVE.code())
            {
                final KeepAliveFlyweight k = new KeepAliveFlyweight();
                k.wrap(ByteBuffer.wrap(p), 0);
                if (!k.header().report() && (through == 0 || k.lastOrderSeq() == through))
                {
                    last = p;
                }
            }
        }
        return last;
    }

    private static int type(final byte[] p)
    {
        return ByteBuffer.wrap(p).order((p[5] & PacketHeader_1_0.FLAG_LITTLE_ENDIAN) != 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN)
            .getShort(6);
    }

    private static boolean isStatus(final byte[] p, final int status)
    {
        return type(p) == PacketType.MEMBER_CHANGE.code() && p[PacketHeader_1_0.HEADER_LENGTH + MemberChangeFlyweight.STATUS_OFFSET] == status;
    }
}
