package org.lightwire.romiop.consolidation;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.lightwire.romiop.consolidation.ConsolidationPolicy.Consistency;
import org.lightwire.romiop.consolidation.ConsolidationPolicy.Mode;

/**
 * Consolidates the replies of one group call into one {@link Decision}: pure, clock-free (time
 * comes in as {@code nowNs}), not thread-safe (one per outstanding call, driven by its client
 * engine's thread). Each method returns the decision when it is made, and null while undecided;
 * after the decision every later input is ignored (and counted).
 *
 * <p>Rules (docs/romiop.md has them as a table):
 * <ul>
 * <li>Only the first reply of each current member counts; a member's duplicate is counted and
 *     ignored, a reply from a non-member is ignored, and a member that leaves the group takes its
 *     vote with it.</li>
 * <li>Key members: a key member that is not in the group decides KEY_MEMBER_MISSING at once;
 *     otherwise nothing succeeds before every key member has replied.</li>
 * <li>FIRST_REPLY decides on the first reply. QUORUM_COUNT, QUORUM_PERCENT (rounded up),
 *     ATOMIC and LAST_REPLY wait for their number of replies (the whole group for the last two),
 *     then apply the consistency to exactly those replies; LAST_REPLY returns the last one to
 *     arrive. A group smaller than a quorum count decides NO_QUORUM at once.</li>
 * <li>FIRST_CONSISTENT decides as soon as the replies so far settle the consistency: MAJORITY
 *     when one reply has more than half of the group's members; ALL_SAME or ALL_DIFFERENT when
 *     every member replied, or INCONSISTENT_VOTE as soon as two replies break the rule.</li>
 * <li>Consistency over the counted replies: NONE takes the most frequent (the earliest on a tie);
 *     ALL_SAME and ALL_DIFFERENT as named; MAJORITY needs more than half of the counted votes.</li>
 * <li>At the deadline ({@link #onTimer}): no reply is TIMEOUT; a key member without a reply is
 *     KEY_MEMBER_MISSING; a quorum or ATOMIC call short of its number is NO_QUORUM; LAST_REPLY and
 *     FIRST_CONSISTENT consolidate what has arrived (their consistency applied to it).</li>
 * </ul>
 */
public final class ReplyConsolidator
{
    private final ConsolidationPolicy policy;
    private final long startNs;
    private final long deadlineNs;
    private int[] members;
    private final List<Integer> repliedIds = new ArrayList<>();
    private final List<byte[]> replies = new ArrayList<>();
    private Decision decision;
    private long duplicates;
    private long ignored;

    /**
     * @param currentMembers the group's members when the call was made.
     * @param startNs when the call was made; the deadline is this plus the policy's timeout.
     */
    public ReplyConsolidator(final ConsolidationPolicy policy, final int[] currentMembers, final long startNs)
    {
        this.policy = policy;
        this.members = sorted(currentMembers);
        this.startNs = startNs;
        this.deadlineNs = startNs + policy.timeoutNs();
    }

    /** @return when {@link #onTimer} must be called at the latest. */
    public long deadlineNs()
    {
        return deadlineNs;
    }

    /** @return the decision, once made; null before. */
    public Decision decision()
    {
        return decision;
    }

    /** @return members whose reply is counted: more than none means the call's request was ordered. */
    public int replied()
    {
        return repliedIds.size();
    }

    /** @return replies ignored as duplicates of a member's earlier reply. */
    public long duplicates()
    {
        return duplicates;
    }

    /** @return replies ignored because they came from a non-member or after the decision. */
    public long ignored()
    {
        return ignored;
    }

    /** A member's reply, bytes {@code [offset, offset + length)} compared byte for byte (copied). */
    public Decision onReply(final int memberId, final ByteBuffer reply, final int offset, final int length)
    {
        final byte[] copy = new byte[length];
        reply.get(offset, copy, 0, length);
        return onReply(memberId, copy);
    }

    /** A member's reply; the array is kept, not copied. */
    public Decision onReply(final int memberId, final byte[] reply)
    {
        if (decision != null || Arrays.binarySearch(members, memberId) < 0)
        {
            ignored++;
            return null;
        }
        if (repliedIds.contains(memberId))
        {
            duplicates++;
            return null;
        }
        repliedIds.add(memberId);
        replies.add(reply);
        return evaluate(false);
    }

    /** The group's membership changed (a member left or joined). */
    public Decision onMembersChanged(final int[] currentMembers)
    {
        if (decision != null)
        {
            return null;
        }
        // Only ever shrinks: a member that joined during the call is not awaited, since it
        // delivers from its join point on and the call's request may have been ordered before it.
        final int[] now = sorted(currentMembers);
        members = Arrays.stream(members).filter(id -> Arrays.binarySearch(now, id) >= 0).toArray();
        for (int i = repliedIds.size() - 1; i >= 0; i--)
        {
            if (Arrays.binarySearch(members, repliedIds.get(i)) < 0)
            {
                repliedIds.remove(i);
                replies.remove(i);
            }
        }
        return evaluate(false);
    }

    /** Time passes: at or after {@link #deadlineNs()} the call is decided with what has arrived. */
    public Decision onTimer(final long nowNs)
    {
        if (decision != null || nowNs - deadlineNs < 0)
        {
            return null;
        }
        return evaluate(true);
    }

    private Decision evaluate(final boolean forced)
    {
        for (final int key : policy.keyMembers())
        {
            if (Arrays.binarySearch(members, key) < 0)
            {
                return decide(Outcome.KEY_MEMBER_MISSING, -1, "key member " + key + " is not in the group " + Arrays.toString(members));
            }
        }
        final int n = members.length;
        final int need = policy.needed(n);
        final int got = replies.size();
        if (policy.mode() == Mode.QUORUM_COUNT && n < need)
        {
            return decide(Outcome.NO_QUORUM, -1, "quorum of " + need + " members, but the group has " + n + " " + Arrays.toString(members));
        }
        if (n == 0)
        {
            return decide(Outcome.NO_QUORUM, -1, "the group has no members");
        }
        final List<Integer> keyMissing = new ArrayList<>();
        for (final int key : policy.keyMembers())
        {
            if (!repliedIds.contains(key))
            {
                keyMissing.add(key);
            }
        }
        if (forced)
        {
            final String within = " within " + TimeUnit.NANOSECONDS.toMillis(deadlineNs - startNs) + " ms";
            if (got == 0)
            {
                return decide(Outcome.TIMEOUT, -1, "no member replied" + within);
            }
            if (!keyMissing.isEmpty())
            {
                return decide(Outcome.KEY_MEMBER_MISSING, -1, "key member(s) " + keyMissing + " did not reply" + within + "; " + tally());
            }
            switch (policy.mode())
            {
                case LAST_REPLY:
                    return consistent(got, true, got + " of " + n + " members replied" + within + "; consolidated with those");
                case FIRST_CONSISTENT:
                    return consistent(got, false, got + " of " + n + " members replied" + within + "; consolidated with those");
                case FIRST_REPLY:
                    return consistent(1, false, "first reply");
                case QUORUM_COUNT:
                case QUORUM_PERCENT:
                    return quorum(n, got, need, within);
                default:
                    if (got < need)
                    {
                        return noQuorum(n, got, need, within);
                    }
                    return consistent(need, false, need + " of " + n + " members replied");
            }
        }
        if (!keyMissing.isEmpty())
        {
            return null;
        }
        switch (policy.mode())
        {
            case FIRST_REPLY:
                return got >= 1 ? consistent(1, false, "first reply, from member " + repliedIds.get(0)) : null;
            case FIRST_CONSISTENT:
                return firstConsistent(n, got);
            case LAST_REPLY:
                return got >= need ? consistent(got, true, "all " + n + " members replied") : null;
            case QUORUM_COUNT:
            case QUORUM_PERCENT:
                return quorum(n, got, need, null);
            default:
                return got >= need ? consistent(need, false, need + " of " + n + " members replied (quorum " + need + ")") : null;
        }
    }

    /**
     * Quorum voting as the paper's Figure 8 reads: the quorum is {@code need} members giving the
     * same reply, so that one faulty member cannot win a vote by answering first. With
     * {@code all_different} the quorum counts replies instead (agreement is not what is asked);
     * {@code all_same} also fails on any dissenting reply; {@code majority} also needs the
     * agreeing replies to be more than half of those received.
     *
     * @param within null while replies may still come; at the deadline, " within N ms".
     */
    private Decision quorum(final int n, final int got, final int need, final String within)
    {
        final boolean forced = within != null;
        if (policy.consistency() == Consistency.ALL_DIFFERENT)
        {
            if (got >= need)
            {
                return consistent(need, false, need + " of " + n + " members replied (quorum " + need + ")");
            }
            return forced ? noQuorum(n, got, need, within) : null;
        }
        final Tally t = new Tally(got);
        if (policy.consistency() == Consistency.ALL_SAME && t.distinct > 1)
        {
            return decide(Outcome.INCONSISTENT_VOTE, -1, "replies differ (all_same): " + tally());
        }
        final boolean majority = policy.consistency() == Consistency.MAJORITY;
        if (t.topVotes >= need && (!majority || 2 * t.topVotes > got))
        {
            return decide(Outcome.SUCCESS, t.topIndex, t.topVotes + " of " + n + " members gave the same reply (quorum " + need + ")");
        }
        // The best any reply can still do: the most frequent one gets every reply still to come.
        final int toCome = n - got;
        if (t.topVotes + toCome < need)
        {
            return decide(Outcome.INCONSISTENT_VOTE, -1, "no reply can reach a quorum of " + need + " identical replies: " + tally());
        }
        if (majority && 2 * (t.topVotes + toCome) <= n)
        {
            return decide(Outcome.INCONSISTENT_VOTE, -1, majorityShort(t, got, n, need, ""));
        }
        if (!forced)
        {
            return null;
        }
        if (t.topVotes >= need)
        {
            return decide(Outcome.INCONSISTENT_VOTE, -1, majorityShort(t, got, n, need, within));
        }
        if (got >= need)
        {
            return decide(Outcome.INCONSISTENT_VOTE, -1, got + " of " + n + " members replied" + within + " but fewer than " + need +
                " agree: " + tally());
        }
        return noQuorum(n, got, need, within);
    }

    /** Why a quorum under {@code majority} consistency fails although enough replies may agree. */
    private String majorityShort(final Tally t, final int got, final int n, final int need, final String within)
    {
        return got + " of " + n + " members replied" + within + "; " + t.topVotes + " agree (quorum " + need +
            (t.topVotes >= need ? " met" : " not met") + "), but majority consistency needs more than half of the replies" +
            (got < n ? ", and not even every member's reply still to come can give that" : "") + ": " + tally();
    }

        private Decision noQuorum(final int n, final int got, final int need, final String within)
    {
        return decide(Outcome.NO_QUORUM, -1, got + " of " + n + " members replied" + within + "; quorum " + need + " (" +
            policy.mode().name().toLowerCase(java.util.Locale.ROOT) + ") not reached; missing: " + missing());
    }

    private Decision firstConsistent(final int n, final int got)
    {
        final Tally t = new Tally(got);
        switch (policy.consistency())
        {
            case NONE:
                return got >= 1 ? consistent(1, false, "first reply, from member " + repliedIds.get(0)) : null;
            case MAJORITY:
                if (2 * t.topVotes > n)
                {
                    return decide(Outcome.SUCCESS, t.topIndex, t.topVotes + " of " + n + " members gave the same reply, a majority of the group");
                }
                // Can the leader still reach a majority with the members yet to reply?
                if (2 * (t.topVotes + n - got) <= n)
                {
                    return decide(Outcome.INCONSISTENT_VOTE, -1, "no reply can reach a majority of " + n + " members; " + tally());
                }
                return null;
            case ALL_SAME:
                if (t.distinct > 1)
                {
                    return decide(Outcome.INCONSISTENT_VOTE, -1, "replies differ (all_same): " + tally());
                }
                return got == n ? decide(Outcome.SUCCESS, 0, "all " + n + " members gave the same reply") : null;
            default:
                if (t.distinct < got)
                {
                    return decide(Outcome.INCONSISTENT_VOTE, -1, "two members gave the same reply (all_different): " + tally());
                }
                return got == n ? decide(Outcome.SUCCESS, 0, "all " + n + " members gave different replies") : null;
        }
    }

    /** Applies the consistency to the first {@code count} replies; {@code last} returns the last of them. */
    private Decision consistent(final int count, final boolean last, final String what)
    {
        final Tally t = new Tally(count);
        final int chosen = last ? count - 1 : 0;
        switch (policy.consistency())
        {
            case NONE:
                return decide(Outcome.SUCCESS, last ? chosen : t.topIndex, what);
            case ALL_SAME:
                return t.distinct == 1 ? decide(Outcome.SUCCESS, chosen, what + "; all the same") :
                    decide(Outcome.INCONSISTENT_VOTE, -1, what + "; replies differ (all_same): " + tally());
            case ALL_DIFFERENT:
                return t.distinct == count ? decide(Outcome.SUCCESS, chosen, what + "; all different") :
                    decide(Outcome.INCONSISTENT_VOTE, -1, what + "; two members gave the same reply (all_different): " + tally());
            default:
                return 2 * t.topVotes > count ? decide(Outcome.SUCCESS, t.topIndex, what + "; " + t.topVotes + " of " + count + " agree") :
                    decide(Outcome.INCONSISTENT_VOTE, -1, what + "; no reply has a majority of the " + count + " counted: " + tally());
        }
    }

    private Decision decide(final Outcome outcome, final int index, final String why)
    {
        final int[] replied = new int[repliedIds.size()];
        for (int i = 0; i < replied.length; i++)
        {
            replied[i] = repliedIds.get(i);
        }
        decision = new Decision(outcome, index >= 0 ? replies.get(index) : null, index >= 0 ? repliedIds.get(index) : -1,
            replied, members.clone(), why, policy);
        return decision;
    }

    /** @return the votes as "2 x reply#1 from [1, 3]; 1 x reply#2 from [2]". */
    private String tally()
    {
        final StringBuilder sb = new StringBuilder();
        final boolean[] done = new boolean[replies.size()];
        int value = 0;
        for (int i = 0; i < replies.size(); i++)
        {
            if (done[i])
            {
                continue;
            }
            final List<Integer> from = new ArrayList<>();
            for (int j = i; j < replies.size(); j++)
            {
                if (!done[j] && Arrays.equals(replies.get(i), replies.get(j)))
                {
                    done[j] = true;
                    from.add(repliedIds.get(j));
                }
            }
            sb.append(sb.length() == 0 ? "" : "; ").append(from.size()).append(" x reply#").append(++value).append(" from ").append(from);
        }
        return sb.length() == 0 ? "no replies" : sb.toString();
    }

    private List<Integer> missing()
    {
        final List<Integer> m = new ArrayList<>();
        for (final int id : members)
        {
            if (!repliedIds.contains(id))
            {
                m.add(id);
            }
        }
        return m;
    }

    private static int[] sorted(final int[] ids)
    {
        final int[] s = ids.clone();
        Arrays.sort(s);
        return s;
    }

    /** Votes among the first {@code count} replies: distinct values, and the most frequent (earliest on a tie). */
    private final class Tally
    {
        int distinct;
        int topVotes;
        int topIndex = -1;

        Tally(final int count)
        {
            for (int i = 0; i < count; i++)
            {
                boolean seen = false;
                for (int j = 0; j < i && !seen; j++)
                {
                    seen = Arrays.equals(replies.get(i), replies.get(j));
                }
                if (seen)
                {
                    continue;
                }
                distinct++;
                int votes = 0;
                for (int j = i; j < count; j++)
                {
                    if (Arrays.equals(replies.get(i), replies.get(j)))
                    {
                        votes++;
                    }
                }
                if (votes > topVotes)
                {
                    topVotes = votes;
                    topIndex = i;
                }
            }
        }
    }
}
