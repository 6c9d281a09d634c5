package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lightwire.romiop.engine.OneEngine.feed;
import static org.lightwire.romiop.engine.WirePackets.added;
import static org.lightwire.romiop.engine.WirePackets.keepAlive;
import static org.lightwire.romiop.engine.WirePackets.list;
import static org.lightwire.romiop.engine.WirePackets.order;
import static org.lightwire.romiop.engine.WirePackets.request;

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/**
 * After a partition every member may be rejoining at once (each stepped down or gave its takeover
 * up), and a joiner waits for a leader that nobody is: a joiner of the configuration that hears
 * no leader for twice the KeepAlive timeout, while a majority is heard, takes over; members of
 * lower id go first. One engine (KeepAlive timeout 100 ms), packets fed by hand.
 */
class LeaderlessTakeoverTest
{
    private static final long MS = OneEngine.MS;

    private final SentPackets sent = new SentPackets();

    /** Member 3 of [1, 2, 3] delivered order 1 of leader 1, then was removed at 10 ms: it rejoins, with a history. */
    private MemberEngine removedMemberWithAHistory()
    {
        final MemberEngine m = OneEngine.started(new GroupConfig(3, 1, 1, 2, 3), sent);
        feed(m, request(100, 1), MS);
        feed(m, order(1, 50, 1, 1, 100, 1, 1), MS);
        assertEquals(1, m.deliveredSeq());
        feed(m, list(1, 51, 2), 10 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        return m;
    }

    /** {@code sender}'s answer to an ONLINE: a LIST of its view, {@code leaderFirst}, in epoch 1. */
    private static java.nio.ByteBuffer memberAnswer(final int sender, final int packetId, final int... leaderFirst)
    {
        final java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(MemberChangeFlyweight.listLength(leaderFirst.length));
        final MemberChangeFlyweight c = new MemberChangeFlyweight();
        c.wrap(b, 0);
        c.setList(java.nio.ByteOrder.BIG_ENDIAN, sender, packetId, sender, leaderFirst.length, 1);
        for (int i = 0; i < leaderFirst.length; i++)
        {
            c.member(i, leaderFirst[i]);
        }
        return b;
    }

    private long takeoversSent()
    {
        return sent.memberChanges().stream()
            .filter(c -> c.status() == MemberChangeFlyweight.STATUS_REMOVED && c.senderId() == 3 && c.memberId() != 3).count();
    }

    /** Feeds ADDED from each of {@code joiners} every 20 ms and runs the timer every ms, from {@code fromMs} to {@code toMs}. */
    private void joinersAsk(final MemberEngine m, final long fromMs, final long toMs, final int... joiners)
    {
        int packetId = 1000 + (int)fromMs;
        for (long t = fromMs; t <= toMs; t++)
        {
            if (t % 20 == 0)
            {
                for (final int j : joiners)
                {
                    feed(m, added(j, packetId++, 0), t * MS);
                }
            }
            m.onTimer(t * MS);
        }
    }

    @Test
    void aJoinerHearingOnlyJoinersTakesOverOnceTheLowerOnesHadTheirTurn()
    {
        final MemberEngine m = removedMemberWithAHistory();
        // Members 1 and 2 ask to join too: two lower ids heard, so it waits 2 + 2 timeouts after the LIST.
        joinersAsk(m, 11, 405, 1, 2);
        assertEquals(MemberEngine.State.JOINING, m.state());
        assertEquals(0, takeoversSent());
        joinersAsk(m, 406, 420, 1, 2);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        assertEquals(1, m.counters().leaderlessTakeovers());
        assertEquals(1, takeoversSent());
    }

    /**
     * A leaderless takeover that hears the leader of its own epoch order after all (a one-way link
     * hid it) gives up and rejoins, its promise in its ADDED: that leader then moves the group
     * past it. Waiting for a newer epoch instead, it proposed ever newer ones for good, reported
     * to by nobody (oneway 4242: proposing epoch 54 ten seconds after the heal).
     */
    @Test
    void aLeaderlessTakeoverThatHearsItsEpochsLeaderGivesUpAndRejoinsWithItsPromise()
    {
        final MemberEngine m = removedMemberWithAHistory();
        joinersAsk(m, 11, 420, 1, 2);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        final int proposed = 2;
        sent.clear();
        // Member 2's KeepAlive of epoch 1 is no leader's sign: 2 never led that epoch.
        feed(m, keepAlive(2, 5000, 1, 1, 1), 421 * MS);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        feed(m, keepAlive(1, 5001, 1, 1, 1), 422 * MS);
        assertEquals(MemberEngine.State.JOINING, m.state());
        final java.util.List<Integer> promises = sent.memberChanges().stream()
            .filter(c -> c.status() == MemberChangeFlyweight.STATUS_ADDED && c.senderId() == 3).map(c -> c.memberCount() == 1 ? c.member(0) : 0)
            .toList();
        assertEquals(java.util.List.of(proposed), promises, "one ADDED, carrying the epoch it proposed");
    }

    /**
     * A member's answer to ONLINE names the leader it follows: a sign of a leader this joiner may
     * not hear (a one-way link), unless that leader asks to join itself (partition 7111: a member
     * still following a joiner answered every joiner's ONLINE, and none ever took over).
     */
    @Test
    void aMembersAnswerToOnlineIsASignOfALeaderUnlessThatLeaderAsksToJoin()
    {
        final MemberEngine m = removedMemberWithAHistory();
        answersNamingOne(m, 11, 420, true);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state(), "1 asks to join: no leader");
        assertEquals(1, m.counters().leaderlessTakeovers());

        sent.clear();
        final MemberEngine other = removedMemberWithAHistory();
        answersNamingOne(other, 11, 1000, false);
        assertEquals(MemberEngine.State.JOINING, other.state(), "1 may lead, unheard here");
        assertEquals(0, other.counters().leaderlessTakeovers());
    }

    /** A member's answer naming this joiner as its leader is no sign of a leader either (mixed 1269). */
    @Test
    void aMembersAnswerNamingThisJoinerAsLeaderIsNoSign()
    {
        final MemberEngine m = removedMemberWithAHistory();
        int packetId = 3000;
        for (long t = 11; t <= 420; t++)
        {
            if (t % 20 == 0)
            {
                feed(m, added(1, packetId++, 0), t * MS);
                feed(m, memberAnswer(2, packetId++, 3, 2), t * MS);
            }
            m.onTimer(t * MS);
        }
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        assertEquals(1, m.counters().leaderlessTakeovers());
    }

    /** Every 20 ms member 2 answers ONLINE naming leader 1 (and 1 asks to join, when {@code oneJoins}); the timer every ms. */
    private void answersNamingOne(final MemberEngine m, final long fromMs, final long toMs, final boolean oneJoins)
    {
        int packetId = 2000;
        for (long t = fromMs; t <= toMs; t++)
        {
            if (t % 20 == 0)
            {
                if (oneJoins)
                {
                    feed(m, added(1, packetId++, 0), t * MS);
                }
                feed(m, memberAnswer(2, packetId++, 1, 2), t * MS);
            }
            m.onTimer(t * MS);
        }
    }

    @Test
    void theMemberItNamesFailedMayBeJoiningTooAndItsReportCounts()
    {
        final MemberEngine m = removedMemberWithAHistory();
        joinersAsk(m, 11, 420, 1, 2);
        assertEquals(MemberEngine.State.LEADER_RECOVERING, m.state());
        // The takeover names member 1 (its last leader) failed; member 1 is alive, joining, and reports.
        feed(m, WirePackets.reportEnd(1, 3000, 2, 1, 1, 0), 421 * MS);
        assertEquals(MemberEngine.State.LEADER_IDLE, m.state(), "a report (with its own, a majority), not a sign that member 1 still leads");
        assertEquals(3, m.leaderId());
        assertEquals(java.util.List.of(1, 3), java.util.Arrays.stream(m.currentMembers()).boxed().toList());
    }

    @Test
    void aLowerMembersTakeoverGoesFirst()
    {
        final MemberEngine m = removedMemberWithAHistory();
        joinersAsk(m, 11, 300, 1, 2);
        // Member 1's turn came first: its takeover is a sign of a leader, and this member reports to it.
        feed(m, WirePackets.takeover(1, 3, 2, 1, 1), 301 * MS);
        joinersAsk(m, 302, 600, 2);
        assertEquals(0, m.counters().leaderlessTakeovers());
        assertEquals(1, m.leaderId());
    }

    @Test
    void aJoinerThatHearsNoMajorityOrHearsALeaderWaits()
    {
        final MemberEngine alone = removedMemberWithAHistory();
        joinersAsk(alone, 11, 1000);
        assertEquals(MemberEngine.State.JOINING, alone.state(), "a minority side takes nothing over");
        assertEquals(0, alone.counters().leaderlessTakeovers());

        sent.clear();
        final MemberEngine led = removedMemberWithAHistory();
        for (long t = 11; t <= 1000; t++)
        {
            if (t % 20 == 0)
            {
                feed(led, added(1, 2000 + (int)t, 0), t * MS);
                feed(led, keepAlive(2, 3000 + (int)t, 1, 1, 1), t * MS);
            }
            led.onTimer(t * MS);
        }
        assertEquals(0, led.counters().leaderlessTakeovers(), "a leader is heard");
    }

    @Test
    void aProcessThatMayHaveBeenRestartedTakesNothingOver()
    {
        // Removed before it accepted anything: it may be a restarted process, so it leads no takeover.
        final MemberEngine m = OneEngine.started(new GroupConfig(3, 1, 1, 2, 3), sent);
        feed(m, list(1, 51, 2), 10 * MS);
        joinersAsk(m, 11, 1000, 1, 2);
        assertEquals(0, m.counters().leaderlessTakeovers());
    }
}
