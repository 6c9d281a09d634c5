package org.lightwire.romiop.engine.view;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Elections among members wired by hand: each member's output is recorded, and the test delivers
 * what it chooses (so a lost or one-way link is a packet not delivered). Time is a number.
 */
class ElectionTest
{
    private static final long T = 100;
    private static final Configuration THREE = Configuration.of(new int[] {1, 2, 3}, new long[] {11, 12, 13});

    /** One member's election and what it sent. */
    private static final class Node implements Election.Output
    {
        final int id;
        final Election election;
        final List<String> sent = new ArrayList<>();
        LogKey key = new LogKey(1, 10);

        Node(final int id)
        {
            this.id = id;
            this.election = new Election(id, T, id * 7919L, this);
        }

        @Override
        public void requestVotes(final int epoch, final boolean pre)
        {
            sent.add((pre ? "PRE_VOTE " : "VOTE ") + epoch);
        }

        @Override
        public void grant(final int candidateId, final int epoch, final boolean pre)
        {
            sent.add((pre ? "PRE_GRANT " : "GRANT ") + epoch + " to " + candidateId);
        }

        @Override
        public void epochAdvanced(final int epoch)
        {
            sent.add("EPOCH " + epoch);
        }

        @Override
        public void elected(final int epoch)
        {
            sent.add("ELECTED " + epoch);
        }

        String drain()
        {
            final String s = String.join("; ", sent);
            sent.clear();
            return s;
        }
    }

    private final Map<Integer, Node> nodes = new TreeMap<>();

    private void group(final int leader, final int... ids)
    {
        for (final int id : ids)
        {
            final Node n = new Node(id);
            n.election.start(1, leader, 0);
            nodes.put(id, n);
        }
    }

    private Node n(final int id)
    {
        return nodes.get(id);
    }

    @Test
    void aSilentLeaderIsReplacedByTheFirstFollowerToTimeOutWithAMajority()
    {
        group(1, 1, 2, 3);
        // Member 2's timeout comes first or second; fire both followers' timers at 2T (past any timeout).
        final long at = 2 * T + 1;
        n(2).election.onTimer(THREE, at);
        assertEquals("PRE_VOTE 2", n(2).drain());
        assertEquals(1, n(2).election.epoch(), "a pre-vote changes no epoch");
        n(3).election.onPreVote(2, 2, n(2).key, n(3).key, at);
        assertEquals("PRE_GRANT 2 to 2", n(3).drain(), "3 has not heard the leader for the KeepAlive timeout either");
        n(2).election.onGrant(3, 2, true, THREE, at);
        assertEquals("EPOCH 2; VOTE 2", n(2).drain());
        assertEquals(Election.Role.CANDIDATE, n(2).election.role());
        n(3).election.onVote(2, 2, n(2).key, n(3).key, at);
        assertEquals("EPOCH 2; GRANT 2 to 2", n(3).drain());
        n(2).election.onGrant(3, 2, false, THREE, at);
        assertEquals("ELECTED 2", n(2).drain());
        assertEquals(Election.Role.LEADER, n(2).election.role());
        assertEquals(2, n(2).election.leaderId());
        assertEquals(-1, n(3).election.leaderId(), "3 learns its leader from the new view");
        n(3).election.leaderHeard(2, 2, at + 1);
        assertEquals(2, n(3).election.leaderId());
    }

    @Test
    void aMemberThatCannotHearTheLeaderDeposesNobodyWhileTheOthersHearIt()
    {
        group(1, 1, 2, 3);
        // The link 1 -> 2 is down: 3 keeps hearing the leader, 2 does not.
        for (long t = 10; t <= 1000; t += 10)
        {
            n(3).election.leaderHeard(1, 1, t);
            n(1).election.leaseRenewed(t);
            n(2).election.onTimer(THREE, t);
            for (final String s : n(2).drain().split("; "))
            {
                if (s.startsWith("PRE_VOTE"))
                {
                    n(3).election.onPreVote(2, 2, n(2).key, n(3).key, t);
                    n(1).election.onPreVote(2, 2, n(2).key, n(1).key, t);
                }
            }
            assertEquals("", n(3).drain(), "3 hears its leader: no pre-vote granted");
            assertEquals("", n(1).drain(), "the leader holds its lease: no pre-vote granted");
        }
        assertEquals(1, n(2).election.epoch());
        assertEquals(1, n(3).election.epoch());
        assertEquals(Election.Role.LEADER, n(1).election.role());
        assertEquals(Election.Role.PRE_CANDIDATE, n(2).election.role(), "it keeps asking, harmlessly");
    }

    @Test
    void aVoteGoesOnlyToACandidateWhoseLogIsAtLeastOursAndOnlyOncePerEpoch()
    {
        group(1, 1, 2, 3, 4, 5);
        final long at = 2 * T + 1;
        n(3).key = new LogKey(1, 12);
        n(3).election.onVote(2, 2, new LogKey(1, 11), n(3).key, at);
        assertEquals("EPOCH 2", n(3).drain(), "refused (shorter log), but the epoch is over for 3");
        n(3).election.onVote(4, 2, new LogKey(1, 12), n(3).key, at);
        assertEquals("GRANT 2 to 4", n(3).drain());
        n(3).election.onVote(5, 2, new LogKey(2, 0), n(3).key, at);
        assertEquals("", n(3).drain(), "one vote per epoch, whatever the key");
        n(3).election.onVote(4, 2, new LogKey(1, 12), n(3).key, at);
        assertEquals("GRANT 2 to 4", n(3).drain(), "the same candidate asking again is answered again");
        n(3).election.onVote(5, 1, new LogKey(9, 9), n(3).key, at);
        assertEquals("", n(3).drain(), "an older epoch is ignored");
    }

    @Test
    void aNewerEpochsLeaderEndsACandidacyAndAStaleLeaderIsRecognised()
    {
        group(1, 1, 2, 3);
        n(2).election.onTimer(THREE, 2 * T + 1);
        n(2).election.onGrant(3, 2, true, THREE, 2 * T + 1);
        assertEquals(Election.Role.CANDIDATE, n(2).election.role());
        n(2).drain();
        assertEquals(true, n(2).election.leaderHeard(3, 3, 2 * T + 2));
        assertEquals(Election.Role.FOLLOWER, n(2).election.role());
        assertEquals(3, n(2).election.epoch());
        assertEquals(3, n(2).election.leaderId());
        assertEquals(false, n(2).election.leaderHeard(1, 1, 2 * T + 3), "epoch 1's leader is stale now");
        assertEquals(3, n(2).election.leaderId());
    }

    @Test
    void aLoneMemberElectsItselfAndALeaderThatStepsDownCanBeReplaced()
    {
        final Configuration one = Configuration.of(new int[] {4}, new long[] {44});
        final Node n = new Node(4);
        n.election.start(1, -1, 0);
        n.election.onTimer(one, 2 * T + 1);
        assertEquals("PRE_VOTE 2; EPOCH 2; VOTE 2; ELECTED 2", n.drain());

        group(1, 1, 2, 3);
        n(1).election.onPreVote(2, 2, new LogKey(1, 10), n(1).key, 10);
        assertEquals("", n(1).drain(), "a leader with its lease grants nothing");
        n(1).election.stepDown(3 * T);
        n(1).election.onPreVote(2, 2, new LogKey(1, 10), n(1).key, 3 * T + 1);
        assertEquals("PRE_GRANT 2 to 2", n(1).drain());
    }

    @Test
    void electionTimeoutsDifferBetweenMembersAndRepeatForASeed()
    {
        group(1, 1, 2, 3);
        final long d2 = n(2).election.nextDeadlineNs();
        final long d3 = n(3).election.nextDeadlineNs();
        assertEquals(true, d2 >= T && d2 <= 2 * T && d3 >= T && d3 <= 2 * T, d2 + " " + d3);
        final Node again = new Node(2);
        again.election.start(1, 1, 0);
        assertEquals(d2, again.election.nextDeadlineNs(), "same seed, same timeout");
        assertEquals(Long.MAX_VALUE, n(1).election.nextDeadlineNs(), "a leader has no election timer");
    }
}
