package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.engine.view.Configuration;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/** Tier 1: the leader's LIST announcement, its resends until ACKed, and the view sent to clients; a hand-advanced clock, a recording sender. */
class ViewAnnouncerTest
{
    private static final long MS = 1_000_000L;
    private static final int LEADER = 1;
    private static final int EPOCH = 7;

    private final SentPackets sent = new SentPackets();
    private final GroupCounters counters = new GroupCounters();
    private int[] view = {1, 2, 3};
    private int leaderId = LEADER;
    private Configuration configuration = configuration(1, 2, 3);
    private ViewAnnouncer announcer;

    private void leader(final GroupConfig config)
    {
        announcer = new ViewAnnouncer(config, counters, new Outbox(config, sent), new ViewAnnouncer.View()
        {
            @Override
            public int[] ids()
            {
                return view;
            }

            @Override
            public int leaderId()
            {
                return leaderId;
            }

            @Override
            public int epoch()
            {
                return EPOCH;
            }

            @Override
            public Configuration configuration()
            {
                return configuration;
            }
        });
    }

    /** Retransmit every 20 ms; clients are resent a LIST for 100 ms; at most two clients remembered. */
    private static GroupConfig config(final int selfId)
    {
        return new GroupConfig(selfId, selfId, 1, 2, 3).retransmitTimeoutNs(20 * MS).replyGiveUpNs(100 * MS).maxClients(2);
    }

    private static Configuration configuration(final int... ids)
    {
        return Configuration.of(ids, new long[ids.length]);
    }

    /** @return the destinations of the packets sent, in order. */
    private List<Integer> destinations()
    {
        final List<Integer> to = new ArrayList<>();
        for (final SentPackets.Sent s : sent.all)
        {
            to.add(s.to());
        }
        return to;
    }

    private MemberChangeFlyweight lastList()
    {
        final List<MemberChangeFlyweight> lists = sent.memberChanges();
        return lists.get(lists.size() - 1);
    }

    private static List<Integer> members(final MemberChangeFlyweight list)
    {
        final List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < list.listSize(); i++)
        {
            ids.add(list.listMember(i));
        }
        return ids;
    }

    private void ackFromEveryMember(final int packetId)
    {
        for (final int id : view)
        {
            announcer.onAck(id, packetId);
        }
    }

    @Test
    void theListNamesTheLeaderFirstThenTheOthersAscendingLearnersMarkedThenTheConfigurationOutsideTheViewAndTheEpoch()
    {
        // Leader 2; 4 is a learner (in the view, not configured); 5 is configured but outside the view.
        view = new int[] {1, 2, 3, 4};
        leaderId = 2;
        configuration = configuration(1, 2, 3, 5);
        leader(config(2));
        announcer.announce(0);

        assertEquals(List.of(GroupSender.GROUP), destinations());
        final MemberChangeFlyweight list = lastList();
        assertNull(list.validate(sent.all.get(0).bytes().capacity()));
        assertEquals(MemberChangeFlyweight.STATUS_LIST, list.status());
        assertEquals(2, list.senderId());
        assertEquals(2, list.memberId(), "the announcement names its sender");
        assertEquals(List.of(2, 1, 3, 4, 5), members(list));
        assertEquals(4, list.listViewSize());
        assertEquals(List.of(true, true, true, false, true),
            List.of(list.listVoter(0), list.listVoter(1), list.listVoter(2), list.listVoter(3), list.listVoter(4)));
        assertEquals(5 | MemberChangeFlyweight.OUTSIDE_VIEW, list.member(4));
        assertEquals(4 | MemberChangeFlyweight.LEARNER, list.member(3));
        assertEquals(EPOCH, list.listEpoch());
    }

    @Test
    void theListIsResentToTheGroupEveryRetransmitTimeoutUntilEveryOtherMemberAckedIt()
    {
        leader(config(LEADER));
        announcer.announce(0);
        final int packetId = lastList().packetId();
        assertEquals(20 * MS, announcer.nextDeadlineNs());

        announcer.onTimer(20 * MS - 1);
        assertEquals(1, sent.size(), "not yet due");
        announcer.onAck(3, packetId);
        announcer.onTimer(20 * MS);
        assertEquals(2, sent.size(), "2 has not ACKed");
        assertEquals(sent.all.get(0).bytes(), sent.all.get(1).bytes(), "the resend is the same packet");
        assertEquals(40 * MS, announcer.nextDeadlineNs());

        // The leader does not ACK itself: every other member's ACK is enough.
        announcer.onAck(2, packetId);
        announcer.onTimer(40 * MS);
        assertEquals(List.of(GroupSender.GROUP, GroupSender.GROUP), destinations());
        assertEquals(Deadlines.NONE, announcer.nextDeadlineNs());
        announcer.onTimer(60 * MS);
        assertEquals(2, sent.size());
    }

    @Test
    void anAckOfAnotherPacketOrOfAnEarlierAnnouncementCountsForNothing()
    {
        leader(config(LEADER));
        announcer.announce(0);
        final int first = lastList().packetId();
        ackFromEveryMember(first + 1);
        announcer.onTimer(20 * MS);
        assertEquals(2, sent.size(), "an ACK of another packet id");

        ackFromEveryMember(first);
        announcer.announce(30 * MS);
        final int second = lastList().packetId();
        assertNotEquals(first, second);
        announcer.onTimer(50 * MS);
        assertEquals(4, sent.size(), "the ACKs of the first announcement do not count for the second");
        ackFromEveryMember(second);
        announcer.onTimer(70 * MS);
        assertEquals(4, sent.size());
        assertEquals(Deadlines.NONE, announcer.nextDeadlineNs());
    }

    @Test
    void stopEndsTheResendsAtOnce()
    {
        leader(config(LEADER));
        announcer.announce(0);
        announcer.stop();
        assertEquals(Deadlines.NONE, announcer.nextDeadlineNs());
        announcer.onTimer(20 * MS);
        announcer.onTimer(200 * MS);
        assertEquals(1, sent.size());
    }

    @Test
    void aKnownClientIsSentTheListAndResentItUntilReplyGiveUpPasses()
    {
        leader(config(LEADER));
        announcer.clientSeen(100, false, false, 0);
        announcer.clientSeen(101, false, false, 0);
        announcer.announce(0);
        final int packetId = lastList().packetId();
        assertEquals(List.of(GroupSender.GROUP, 100, 101), destinations());
        ackFromEveryMember(packetId);
        announcer.onAck(101, packetId);
        sent.clear();

        for (long t = 20 * MS; t <= 200 * MS; t += 20 * MS)
        {
            announcer.onTimer(t);
        }
        // At 20, 40, 60 and 80 ms; at 100 ms the client is given up for, and 101 ACKed.
        assertEquals(List.of(100, 100, 100, 100), destinations());
        assertEquals(Deadlines.NONE, announcer.nextDeadlineNs());
    }

    @Test
    void membersAreResentTheListPastReplyGiveUpWhileClientsAreNot()
    {
        leader(config(LEADER));
        announcer.clientSeen(100, false, false, 0);
        announcer.announce(0);
        announcer.onAck(2, lastList().packetId());
        sent.clear();

        for (long t = 20 * MS; t <= 140 * MS; t += 20 * MS)
        {
            announcer.onTimer(t);
        }
        final long toGroup = destinations().stream().filter(to -> to == GroupSender.GROUP).count();
        final long toClient = destinations().stream().filter(to -> to == 100).count();
        assertEquals(7, toGroup, "3 never ACKed: every 20 ms from 20 to 140 ms");
        assertEquals(4, toClient, "20 to 80 ms only");
        assertEquals(160 * MS, announcer.nextDeadlineNs());
    }

    @Test
    void aLeaderSendsItsViewToANewClientAndAgainOnlyToOneRetransmittingThatWasNotSentItWithinRetransmitTimeout()
    {
        leader(config(LEADER));
        announcer.clientSeen(100, true, false, 0);
        assertEquals(List.of(100), destinations());
        assertEquals(1, counters.viewsSentToClients());
        final MemberChangeFlyweight list = lastList();
        assertEquals(LEADER, list.memberId());
        assertEquals(List.of(1, 2, 3), members(list));
        assertEquals(Deadlines.NONE, announcer.nextDeadlineNs(), "a view sent to a client is not resent");

        announcer.clientSeen(100, true, true, 20 * MS - 1);
        assertEquals(1, sent.size(), "retransmitting, but sent the view within 20 ms");
        announcer.clientSeen(100, true, true, 20 * MS);
        assertEquals(List.of(100, 100), destinations());
        announcer.clientSeen(100, true, true, 39 * MS);
        announcer.clientSeen(100, true, false, 60 * MS);
        assertEquals(2, sent.size(), "within 20 ms of the last, or not retransmitting");
        assertEquals(2, counters.viewsSentToClients());
    }

    @Test
    void aFollowerSendsClientsNothingButALeaderLaterSendsOneThatRetransmits()
    {
        leader(config(2));
        announcer.clientSeen(100, false, false, 0);
        announcer.clientSeen(100, false, true, 50 * MS);
        assertEquals(0, sent.size());
        assertTrue(announcer.knowsClient(100));

        announcer.clientSeen(100, true, false, 60 * MS);
        assertEquals(0, sent.size(), "known already: it had the view with the leader's announcement");
        announcer.clientSeen(100, true, true, 61 * MS);
        assertEquals(List.of(100), destinations());
        assertEquals(1, counters.viewsSentToClients());
    }

    @Test
    void atMostMaxClientsAreRememberedTheLeastRecentlySeenForgotten()
    {
        leader(config(LEADER));
        announcer.clientSeen(100, false, false, 0);
        announcer.clientSeen(101, false, false, 1 * MS);
        announcer.clientSeen(100, false, false, 2 * MS);
        announcer.clientSeen(102, false, false, 3 * MS);
        assertTrue(announcer.knowsClient(100));
        assertFalse(announcer.knowsClient(101), "the least recently seen of three, with room for two");
        assertTrue(announcer.knowsClient(102));

        announcer.announce(4 * MS);
        assertEquals(List.of(GroupSender.GROUP, 100, 102), destinations());
    }

    @Test
    void aJoinerIsSentTheListBeingAnnouncedOrTheCurrentViewWhenNoneIs()
    {
        leader(config(LEADER));
        announcer.announce(0);
        final int announced = lastList().packetId();
        announcer.sendToJoiner(4);
        assertEquals(4, sent.all.get(1).to());
        assertEquals(sent.all.get(0).bytes(), sent.all.get(1).bytes(), "the one announced: its ACK counts");

        ackFromEveryMember(announced);
        announcer.onTimer(20 * MS);
        view = new int[] {1, 2, 3, 4};
        configuration = configuration(1, 2, 3, 4);
        announcer.sendToJoiner(4);
        assertEquals(List.of(GroupSender.GROUP, 4, 4), destinations());
        final MemberChangeFlyweight current = lastList();
        assertNotEquals(announced, current.packetId());
        assertEquals(List.of(1, 2, 3, 4), members(current));
        assertEquals(Deadlines.NONE, announcer.nextDeadlineNs(), "a joiner's copy is not resent");
    }

    @Test
    void sendNamesItsSubjectAndIsNotResent()
    {
        leader(config(LEADER));
        announcer.send(100, 3);
        assertEquals(List.of(100), destinations());
        final MemberChangeFlyweight list = lastList();
        assertEquals(3, list.memberId());
        assertEquals(List.of(1, 2, 3), members(list));
        assertEquals(EPOCH, list.listEpoch());
        assertEquals(0, counters.viewsSentToClients());
        assertEquals(Deadlines.NONE, announcer.nextDeadlineNs());
    }
}
