package org.lightwire.romiop.protocol;

import java.nio.ByteOrder;

/**
 * ROMIOP ViewChange (type 8, ours): the packets of the majority-agreed view change (a Raft
 * election with pre-vote, ranked by Viewstamped Replication's log key), the join of a member
 * incarnation, and a leader's notice that its view has no majority. One layout; {@code kind} says
 * which:
 *
 * <ul>
 *   <li>PRE_VOTE and VOTE: the sender asks to lead {@code epoch}; {@code lastNormalEpoch} and
 *       {@code logEnd} (the highest sequence number it accepted) are its log key, {@code commit}
 *       how far it knows the order committed;</li>
 *   <li>PRE_VOTE_GRANTED and VOTE_GRANTED: the sender grants the (pre-)vote for {@code epoch};</li>
 *   <li>START_VIEW: the leader of {@code epoch} starts it with the configuration listed, the log
 *       ending at {@code logEnd} and committed to {@code commit};</li>
 *   <li>JOIN: a member incarnation asks to be added ({@code incarnation} is the sender's);</li>
 *   <li>UNAVAILABLE: a leader tells a client that its view (the configuration listed, with the
 *       members it hears flagged present) has no majority and orders nothing.</li>
 * </ul>
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes, type 8)             |
 *  +---------------------------------------------------------------+
 *  |                   sender_id                                   |
 *  +---------------------------------------------------------------+
 *  |                   packet_id (Lamport)                         |
 *  +---------------+---------------+-------------------------------+
 *  |     kind      | reserved (0)  |     member_count (ushort)     |
 *  +---------------+---------------+-------------------------------+
 *  |                   epoch (unsigned long)                       |
 *  +---------------------------------------------------------------+
 *  |                   last_normal_epoch (unsigned long)           |
 *  +---------------------------------------------------------------+
 *  |                   reserved (0)                                |
 *  +---------------------------------------------------------------+
 *  |                   incarnation (sender's, unsigned long long)  |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   log_end (unsigned long long)                |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   commit (unsigned long long)                 |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |   member_count x { member_id, flags (bit 0 present),          |
 *  |                    incarnation (unsigned long long) }         |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class ViewChangeFlyweight extends PacketFlyweight
{
    public static final int KIND_PRE_VOTE = 0;
    public static final int KIND_VOTE = 1;
    public static final int KIND_PRE_VOTE_GRANTED = 2;
    public static final int KIND_VOTE_GRANTED = 3;
    public static final int KIND_START_VIEW = 4;
    public static final int KIND_JOIN = 5;
    public static final int KIND_UNAVAILABLE = 6;
    private static final String[] KIND_NAMES = {"PRE_VOTE", "VOTE", "PRE_VOTE_GRANTED", "VOTE_GRANTED", "START_VIEW", "JOIN", "UNAVAILABLE"};

    /** An entry's flag: the leader hears this member (UNAVAILABLE only). */
    public static final int MEMBER_PRESENT = 1;

    public static final int KIND_OFFSET = 8;
    public static final int MEMBER_COUNT_OFFSET = 10;
    public static final int EPOCH_OFFSET = 12;
    public static final int LAST_NORMAL_EPOCH_OFFSET = 16;
    public static final int RESERVED_OFFSET = 20;
    public static final int INCARNATION_OFFSET = 24;
    public static final int LOG_END_OFFSET = 32;
    public static final int COMMIT_OFFSET = 40;
    public static final int MEMBERS_OFFSET = 48;
    public static final int MEMBER_LENGTH = 16;
    public static final int HEADER_LENGTH = PacketHeader_1_0.HEADER_LENGTH + MEMBERS_OFFSET;

    @Override
    public PacketType packetType()
    {
        return PacketType.VIEW_CHANGE;
    }

    @Override
    protected int fixedBodyLength()
    {
        return MEMBERS_OFFSET;
    }

    public static int length(final int memberCount)
    {
        return HEADER_LENGTH + MEMBER_LENGTH * memberCount;
    }

    /** Writes the fixed part; for START_VIEW and UNAVAILABLE fill the members with {@link #member}. */
    public ViewChangeFlyweight set(final ByteOrder order, final int senderId, final int packetId, final int kind, final int epoch,
        final int lastNormalEpoch, final long incarnation, final long logEnd, final long commit, final int memberCount)
    {
        init(order, true, length(memberCount), senderId, packetId);
        putU8(KIND_OFFSET, kind);
        putU8(KIND_OFFSET + 1, 0);
        putU16(MEMBER_COUNT_OFFSET, memberCount);
        putI32(EPOCH_OFFSET, epoch);
        putI32(LAST_NORMAL_EPOCH_OFFSET, lastNormalEpoch);
        putI32(RESERVED_OFFSET, 0);
        putI64(INCARNATION_OFFSET, incarnation);
        putI64(LOG_END_OFFSET, logEnd);
        putI64(COMMIT_OFFSET, commit);
        return this;
    }

    public ViewChangeFlyweight member(final int index, final int memberId, final int flags, final long incarnation)
    {
        final int at = MEMBERS_OFFSET + MEMBER_LENGTH * index;
        putI32(at, memberId);
        putI32(at + 4, flags);
        putI64(at + 8, incarnation);
        return this;
    }

    public int kind()
    {
        return getU8(KIND_OFFSET);
    }

    public int memberCount()
    {
        return getU16(MEMBER_COUNT_OFFSET);
    }

    public int epoch()
    {
        return getI32(EPOCH_OFFSET);
    }

    public int lastNormalEpoch()
    {
        return getI32(LAST_NORMAL_EPOCH_OFFSET);
    }

    public long incarnation()
    {
        return getI64(INCARNATION_OFFSET);
    }

    public long logEnd()
    {
        return getI64(LOG_END_OFFSET);
    }

    public long commit()
    {
        return getI64(COMMIT_OFFSET);
    }

    public int memberId(final int index)
    {
        return getI32(MEMBERS_OFFSET + MEMBER_LENGTH * index);
    }

    public int memberFlags(final int index)
    {
        return getI32(MEMBERS_OFFSET + MEMBER_LENGTH * index + 4);
    }

    public long memberIncarnation(final int index)
    {
        return getI64(MEMBERS_OFFSET + MEMBER_LENGTH * index + 8);
    }

    @Override
    protected Invalid validateBody(final int bodyLength)
    {
        if (bodyLength != MEMBERS_OFFSET + MEMBER_LENGTH * memberCount())
        {
            return Invalid.BAD_COUNT;
        }
        final int kind = kind();
        if (kind > KIND_UNAVAILABLE || getU8(KIND_OFFSET + 1) != 0 || getI32(RESERVED_OFFSET) != 0)
        {
            return Invalid.BAD_FIELD;
        }
        final boolean listed = kind == KIND_START_VIEW || kind == KIND_UNAVAILABLE;
        if (listed != (memberCount() > 0))
        {
            return Invalid.BAD_COUNT;
        }
        for (int i = 0; i < memberCount(); i++)
        {
            if ((memberFlags(i) & ~(kind == KIND_UNAVAILABLE ? MEMBER_PRESENT : 0)) != 0)
            {
                return Invalid.BAD_FIELD;
            }
        }
        if (Long.compareUnsigned(commit(), logEnd()) > 0 && kind != KIND_JOIN && kind != KIND_UNAVAILABLE)
        {
            // A member commits only what it accepted.
            return Invalid.BAD_FIELD;
        }
        return null;
    }

    @Override
    public String toString()
    {
        if (!wrapped())
        {
            return "ViewChange{unwrapped}";
        }
        final StringBuilder sb = describe("ViewChange").append(", kind=")
            .append(kind() < KIND_NAMES.length ? KIND_NAMES[kind()] : Integer.toString(kind()))
            .append(", epoch=").append(Integer.toUnsignedString(epoch()))
            .append(", lastNormalEpoch=").append(Integer.toUnsignedString(lastNormalEpoch()))
            .append(", incarnation=").append(Long.toHexString(incarnation()))
            .append(", logEnd=").append(logEnd()).append(", commit=").append(commit()).append(", members=[");
        final int n = Math.min(memberCount(), (buffer.limit() - body(MEMBERS_OFFSET)) / MEMBER_LENGTH);
        for (int i = 0; i < n; i++)
        {
            sb.append(i == 0 ? "" : ", ").append(memberId(i)).append('/').append(Long.toHexString(memberIncarnation(i)));
            if ((memberFlags(i) & MEMBER_PRESENT) != 0)
            {
                sb.append(" present");
            }
        }
        return sb.append("]}").toString();
    }
}
