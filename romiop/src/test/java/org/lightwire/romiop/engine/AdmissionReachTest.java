package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
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

    /**
     * [1..7]: 1 commits 200/1 at 2 with {1, 3, 4, 5} (2, 6, 7 do not hear it) and crashes; 3 and 4
     * restart and learn the epochs (2 answers not knowing of order 2), their later asks to 2 lost.
     * 2 takes over with {2, 5, 6, 7} and catches up from 5: its catch-up KeepAlives carry the new
     * epoch and only what it delivered (1). 2 lists 3 and 4, and a delayed catch-up KeepAlive
     * reaches them; {2, 5} are then cut off. Admitted by it with reach 1 (found by a third review),
     * 3 and 4 counted at once for 6's takeover with 7, which ordered 300/1 at 2. A leader's answer
     * counts for an admission only when sent while it ordered in the admitting KeepAlive's epoch,
     * and a catch-up KeepAlive is no start KeepAlive: it admits nobody.
     */
    @Test
    void aTakeoversCatchUpKeepAliveDoesNotAdmit()
    {
        catchUpAdmission(new HandWiredNet());
    }

    @Test
    void aTakeoversCatchUpKeepAliveDoesNotAdmitCountingStarts()
    {
        catchUpAdmission(new HandWiredNet().countingStarts());
    }

    private static void catchUpAdmission(final HandWiredNet net)
    {
        final int[] all = {1, 2, 3, 4, 5, 6, 7};
        net.founded(all);
        net.runMs(30);
        net.request(100, 1, all);
        net.runMs(30);
        assertEquals("100/1", net.delivered.get(7).get(1L));
        net.cutOneWay(1, 2);
        net.cutOneWay(1, 6);
        net.cutOneWay(1, 7);
        net.request(200, 1, 1);
        net.runMs(3);
        assertEquals("200/1", net.delivered.get(1).get(2L), "1 delivered 200/1 at 2");
        assertEquals("200/1", net.delivered.get(5).get(2L), "5 delivered 200/1 at 2");
        net.crash(1);
        // 2 -> 3, 4: only LISTs and answers to asks; 5 -> 2: no orders (the catch-up stalls a while).
        net.passOnly(2, 3, p -> isStatus(p, MemberChangeFlyweight.STATUS_LIST) || isStatus(p, MemberChangeFlyweight.STATUS_EPOCH_TOLD));
        net.passOnly(2, 4, p -> isStatus(p, MemberChangeFlyweight.STATUS_LIST) || isStatus(p, MemberChangeFlyweight.STATUS_EPOCH_TOLD));
        net.passOnly(5, 2, p -> type(p) != PacketType.MSG_ORDER.code());
        // 2 -> 6, 7: only takeover packets (their reports reach 2; nothing after).
        net.passOnly(2, 6, p -> isStatus(p, MemberChangeFlyweight.STATUS_REMOVED));
        net.passOnly(2, 7, p -> isStatus(p, MemberChangeFlyweight.STATUS_REMOVED));
        net.record(2);
        net.restart(3, GroupConfig.joining(3, all));
        net.restart(4, GroupConfig.joining(4, all));
        net.runMs(5);
        assertTrue(net.engines.get(3).counters().epochsLearned() > 0, "3 learned");
        assertTrue(net.engines.get(4).counters().epochsLearned() > 0, "4 learned");
        // Their later asks (beside ADDED) are lost on the way to 2: 2's one answer told lastOrderSeq 1.
        net.passOnly(3, 2, p -> !isStatus(p, MemberChangeFlyweight.STATUS_EPOCH_ASK));
        net.passOnly(4, 2, p -> !isStatus(p, MemberChangeFlyweight.STATUS_EPOCH_ASK));
        byte[] catchUp = null;
        for (int ms = 0; ms < 400 && catchUp == null; ms++)
        {
            net.runMs(1);
            catchUp = catchUpKeepAlive(net);
        }
        assertNotNull(catchUp, "2 sent a catch-up KeepAlive of the old epoch, ordered through 1");
        net.passAll(5, 2);
        for (int ms = 0; ms < 400 && net.engines.get(2).state() == MemberEngine.State.LEADER_RECOVERING; ms++)
        {
            net.runMs(1);
        }
        for (int ms = 0; ms < 200 && !(listed(net.engines.get(3)) && listed(net.engines.get(4), 4)); ms++)
        {
            net.runMs(1);
        }
        assertTrue(listed(net.engines.get(3)) && listed(net.engines.get(4), 4), "2 listed 3 and 4");
        net.inject(3, ByteBuffer.wrap(catchUp.clone()));
        net.inject(4, ByteBuffer.wrap(catchUp.clone()));
        assertEquals(List.of(MemberEngine.State.JOINING, MemberEngine.State.JOINING), List.of(net.engines.get(3).state(), net.engines.get(4).state()),
            "not admitted by a catch-up KeepAlive");
        // No start: a joiner starts only at its leader's start KeepAlive (2's do not reach them).
        assertTrue(net.engines.get(3).counters().startsAwaited() > 0);
        net.cutBetween(new int[] {2, 5}, new int[] {3, 4, 6, 7});
        net.runMs(600);
        net.request(300, 1, 3, 4, 6, 7);
        net.runMs(300);
        net.heal();
        net.runMs(1500);
        net.assertOneOrder();
    }

    private static byte[] catchUpKeepAlive(final HandWiredNet net)
    {
        for (final byte[] p : net.recorded.get(2))
        {
            if (type(p) == PacketType.KEEP_ALIVE.code())
            {
                final KeepAliveFlyweight k = new KeepAliveFlyweight();
                k.wrap(ByteBuffer.wrap(p), 0);
                if (!k.header().report() && k.epoch() == 3 && k.lastOrderSeq() == 1)
                {
                    return p;
                }
            }
        }
        return null;
    }

    private static boolean listed(final MemberEngine e)
    {
        return listed(e, 3);
    }

    private static boolean listed(final MemberEngine e, final int self)
    {
        for (final int id : e.currentMembers())
        {
            if (id == self)
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
