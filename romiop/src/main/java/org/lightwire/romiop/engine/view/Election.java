package org.lightwire.romiop.engine.view;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Who leads which epoch: Raft's election with pre-vote, the candidates ranked by
 * {@link LogKey} (docs/notes/romiop-views.md, section 6). A pure state machine: time comes in as
 * {@code nowNs}, packets go out through {@link Output}; it reads no clock and sends nothing itself.
 *
 * <p>A follower that has not heard its leader for its election timeout (the KeepAlive timeout plus
 * a random share of it) asks for pre-votes for the next epoch, changing nothing. A member grants a
 * pre-vote only when it has not heard a leader for the KeepAlive timeout itself and the
 * candidate's log key is at least its own; so a member cut off alone, or one that cannot hear a
 * leader the others hear, deposes nobody. With pre-votes of a majority the candidate moves to the
 * next epoch and asks for votes; a member grants one vote per epoch, on the same two conditions,
 * and moves to that epoch for good. A majority of votes makes the candidate the epoch's leader.
 */
public final class Election
{
    /** A member's part in the election. */
    public enum Role
    {
        /** Follows the leader of its epoch, or waits for one. */
        FOLLOWER,
        /** Asking for pre-votes for the next epoch; its own epoch is unchanged. */
        PRE_CANDIDATE,
        /** Moved to a new epoch, asking for votes. */
        CANDIDATE,
        /** Leads its epoch. */
        LEADER
    }

    /** What the election sends and tells; called on the caller's thread, during its calls. */
    public interface Output
    {
        /** Multicast PRE_VOTE ({@code pre}) or VOTE for {@code epoch}, with this member's log key. */
        void requestVotes(int epoch, boolean pre);

        /** Send {@code candidateId} a PRE_VOTE_GRANTED ({@code pre}) or VOTE_GRANTED for {@code epoch}. */
        void grant(int candidateId, int epoch, boolean pre);

        /** This member moved to {@code epoch} without a leader yet: it takes no order of an older epoch from now on. */
        void epochAdvanced(int epoch);

        /** This member won {@code epoch}: it starts the view. */
        void elected(int epoch);
    }

    private final int selfId;
    private final long keepAliveTimeoutNs;
    private final SplittableRandom random;
    private final Output out;
    private final Set<Integer> grants = new HashSet<>();

    private Role role = Role.FOLLOWER;
    private int epoch;
    private int leaderId = -1;
    private int votedFor = -1;
    /** The epoch asked for while a pre-candidate. */
    private int proposedEpoch;
    /** When the leader (for a leader: a majority of its members) was last heard. */
    private long leaderHeardNs;
    private long deadlineNs;

    /**
     * @param seed seeds the random share of the election timeout (the member's incarnation, so
     *             that members time out at different moments and runs repeat exactly).
     */
    public Election(final int selfId, final long keepAliveTimeoutNs, final long seed, final Output out)
    {
        this.selfId = selfId;
        this.keepAliveTimeoutNs = keepAliveTimeoutNs;
        this.random = new SplittableRandom(seed);
        this.out = out;
    }

    /** Starts in {@code epoch} following {@code leaderId} (this member, or -1 for none known), as if just heard. */
    public void start(final int epoch, final int leaderId, final long nowNs)
    {
        this.epoch = epoch;
        this.leaderId = leaderId;
        this.votedFor = leaderId;
        this.role = leaderId == selfId ? Role.LEADER : Role.FOLLOWER;
        this.leaderHeardNs = nowNs;
        this.deadlineNs = nowNs + electionTimeoutNs();
    }

    public Role role()
    {
        return role;
    }

    /** @return the current epoch (unsigned 32 bits). */
    public int epoch()
    {
        return epoch;
    }

    /** @return the leader of the current epoch, or -1 while none is known. */
    public int leaderId()
    {
        return leaderId;
    }

    /**
     * A packet that only the leader of {@code leaderEpoch} sends (a MsgOrder, KeepAlive or
     * START_VIEW) came from {@code leader}: follow it when its epoch is at least ours.
     *
     * @return false when {@code leaderEpoch} is older than ours: the packet is stale.
     */
    public boolean leaderHeard(final int leaderEpoch, final int leader, final long nowNs)
    {
        final int byEpoch = Integer.compareUnsigned(leaderEpoch, epoch);
        if (byEpoch < 0 || leader == selfId)
        {
            return byEpoch >= 0;
        }
        if (byEpoch > 0)
        {
            epoch = leaderEpoch;
            votedFor = -1;
        }
        leaderId = leader;
        role = Role.FOLLOWER;
        leaderHeardNs = nowNs;
        deadlineNs = nowNs + electionTimeoutNs();
        return true;
    }

    /** The leader heard a majority of its members: its lease holds, and it refuses votes meanwhile. */
    public void leaseRenewed(final long nowNs)
    {
        if (role == Role.LEADER)
        {
            leaderHeardNs = nowNs;
        }
    }

    /** A leader whose lease ran out steps down: it follows nobody until an election ends. */
    public void stepDown(final long nowNs)
    {
        if (role == Role.LEADER)
        {
            role = Role.FOLLOWER;
            leaderId = -1;
            deadlineNs = nowNs + electionTimeoutNs();
        }
    }

    /** A PRE_VOTE from {@code from} for {@code proposed}: granted (through the output) or ignored. */
    public void onPreVote(final int from, final int proposed, final LogKey key, final LogKey own, final long nowNs)
    {
        if (Integer.compareUnsigned(proposed, epoch) > 0 && !leaderRecentlyHeard(nowNs) && key.atLeast(own))
        {
            out.grant(from, proposed, true);
        }
    }

    /** A VOTE from {@code from} for {@code candidateEpoch}: granted (through the output) or refused. */
    public void onVote(final int from, final int candidateEpoch, final LogKey key, final LogKey own, final long nowNs)
    {
        final int byEpoch = Integer.compareUnsigned(candidateEpoch, epoch);
        if (byEpoch < 0 || leaderRecentlyHeard(nowNs))
        {
            return;
        }
        if (byEpoch > 0)
        {
            // A majority pre-voted for this epoch: ours is over, whoever wins it.
            epoch = candidateEpoch;
            votedFor = -1;
            leaderId = -1;
            role = Role.FOLLOWER;
            out.epochAdvanced(epoch);
        }
        if ((votedFor == -1 || votedFor == from) && key.atLeast(own))
        {
            votedFor = from;
            deadlineNs = nowNs + electionTimeoutNs();
            out.grant(from, candidateEpoch, false);
        }
    }

    /** A grant from {@code from}: counted toward a majority of {@code configuration}. */
    public void onGrant(final int from, final int grantedEpoch, final boolean pre, final Configuration configuration,
        final long nowNs)
    {
        if (pre ? role == Role.PRE_CANDIDATE && grantedEpoch == proposedEpoch : role == Role.CANDIDATE && grantedEpoch == epoch)
        {
            grants.add(from);
            advanceOnMajority(configuration, nowNs);
        }
    }

    /** @return when {@link #onTimer} has something to do; {@code Long.MAX_VALUE} for a leader. */
    public long nextDeadlineNs()
    {
        return role == Role.LEADER ? Long.MAX_VALUE : deadlineNs;
    }

    /** Starts asking for pre-votes when the leader, or the election under way, has been silent too long. */
    public void onTimer(final Configuration configuration, final long nowNs)
    {
        if (role == Role.LEADER || nowNs - deadlineNs < 0)
        {
            return;
        }
        role = Role.PRE_CANDIDATE;
        proposedEpoch = epoch + 1;
        grants.clear();
        grants.add(selfId);
        deadlineNs = nowNs + electionTimeoutNs();
        out.requestVotes(proposedEpoch, true);
        advanceOnMajority(configuration, nowNs);
    }

    private void advanceOnMajority(final Configuration configuration, final long nowNs)
    {
        if (!configuration.isQuorum(grants::contains))
        {
            return;
        }
        if (role == Role.PRE_CANDIDATE)
        {
            role = Role.CANDIDATE;
            epoch = proposedEpoch;
            votedFor = selfId;
            leaderId = -1;
            grants.clear();
            grants.add(selfId);
            deadlineNs = nowNs + electionTimeoutNs();
            out.epochAdvanced(epoch);
            out.requestVotes(epoch, false);
            advanceOnMajority(configuration, nowNs);
        }
        else if (role == Role.CANDIDATE)
        {
            role = Role.LEADER;
            leaderId = selfId;
            leaderHeardNs = nowNs;
            out.elected(epoch);
        }
    }

    private boolean leaderRecentlyHeard(final long nowNs)
    {
        final boolean following = role == Role.FOLLOWER && leaderId >= 0 || role == Role.LEADER;
        return following && nowNs - leaderHeardNs < keepAliveTimeoutNs;
    }

    private long electionTimeoutNs()
    {
        return keepAliveTimeoutNs + random.nextLong(keepAliveTimeoutNs + 1);
    }
}
