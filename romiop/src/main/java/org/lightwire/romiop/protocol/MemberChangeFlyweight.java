package org.lightwire.romiop.protocol;

import java.nio.ByteOrder;

/**
 * ROMIOP MemberChange (type 6): membership (paper, Figure 4 lines 22-31). A joining member sends
 * ADDED, then ONLINE once confirmed; members answer ONLINE with LIST, carrying their member list;
 * a member leaving, or removed by the leader's KeepAlive probes, is announced with REMOVED. The
 * paper names the statuses added, removed and online; LIST is ours, for the answer to online.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes, type 6)             |
 *  +---------------------------------------------------------------+
 *  |                   sender_id                                   |
 *  +---------------------------------------------------------------+
 *  |                   packet_id (Lamport)                         |
 *  +---------------------------------------------------------------+
 *  |                   member_id (the member that changed)         |
 *  +---------------+---------------+-------------------------------+
 *  |    status     | reserved (0)  |     member_count (ushort)     |
 *  +---------------+---------------+-------------------------------+
 *  |   member_count entries: LIST's view (leader first; LEARNER    |
 *  |   set on members outside the configuration), the other        |
 *  |   members of its configuration (OUTSIDE_VIEW set), then the   |
 *  |   epoch its leader leads; or the entries of another           |
 *  |   status: REMOVED 3 (a takeover's), ADDED 0 or 1, EPOCH_ASK 1,  |
 *  |   EPOCH_TOLD 3 (2 from a sender that does not say 'knows')    |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class MemberChangeFlyweight extends PacketFlyweight
{
    public static final int MEMBER_ID_OFFSET = 8;
    public static final int STATUS_OFFSET = 12;
    public static final int MEMBER_COUNT_OFFSET = 14;
    public static final int MEMBERS_OFFSET = 16;
    public static final int HEADER_LENGTH = PacketHeader_1_0.HEADER_LENGTH + MEMBERS_OFFSET;

    public static final int STATUS_ADDED = 0;
    public static final int STATUS_REMOVED = 1;
    public static final int STATUS_ONLINE = 2;
    public static final int STATUS_LIST = 3;
    /**
     * Ours: a process that may have been restarted asks the members' epochs (four entries: its
     * nonce, 0, and its incarnation's high and low 32 bits); a founding leader asks before it
     * orders (its nonce, the epoch it proposes (never 0), its incarnation's high and low 32 bits,
     * then its configuration's member ids, ascending).
     */
    public static final int STATUS_EPOCH_ASK = 4;
    /** Entries of an EPOCH_ASK before a founding leader's configuration. */
    public static final int ASK_ENTRIES = 4;
    /**
     * Ours: the answer, unicast, {@code member_id} the asker (entries: its nonce, the newest epoch
     * the sender is in or promised, 1 when the sender knows of orders (delivered, held, kept for
     * a report, or named by its leader) else 0, 1 when the sender's configuration is the one a
     * founding leader's ask named (or the ask named none) else 0, 1 when it promised that ask the
     * epoch it told else 0); then, optionally, the highest order number the sender knows exists
     * (its last order, for a leader; high and low 32 bits), the sender's incarnation (high, low),
     * the epoch it leads and orders in (0 when it does not) and, three entries each, the newest
     * incarnation it knows of members of its configuration (id, high, low).
     */
    public static final int STATUS_EPOCH_TOLD = 5;
    /** Entries of an EPOCH_TOLD before its optional tail. */
    public static final int TOLD_ENTRIES = 5;
    /** Entries of an EPOCH_TOLD with its tail, before the known incarnations. */
    public static final int TOLD_TAIL_ENTRIES = 10;

    /**
     * Set in a LIST's entry that names a member of its leader's configuration outside the view
     * (such entries follow the view's): a joiner learns what it counts commits against from it.
     */
    public static final int OUTSIDE_VIEW = 0x8000_0000;
    /**
     * Set in a LIST's view entry that names a learner: a member of the view outside the leader's
     * configuration (admitted by id, it delivers and replies but counts for no commit or majority).
     * Never on the first entry (the leader) nor with {@link #OUTSIDE_VIEW}.
     */
    public static final int LEARNER = 0x4000_0000;

    @Override
    public PacketType packetType()
    {
        return PacketType.MEMBER_CHANGE;
    }

    @Override
    protected int fixedBodyLength()
    {
        return MEMBERS_OFFSET;
    }

    public static int length(final int memberCount)
    {
        return HEADER_LENGTH + 4 * memberCount;
    }

    /** @return the length of a LIST of {@code listSize} members (and its epoch entry). */
    public static int listLength(final int listSize)
    {
        return length(listSize + 1);
    }

    /**
     * Writes a LIST of {@code listSize} members, its last entry {@code epoch} (the epoch the
     * list's first member leads); fill the members with {@link #member(int, int)}.
     */
    public MemberChangeFlyweight setList(
        final ByteOrder order, final int senderId, final int packetId, final int memberId, final int listSize, final int epoch)
    {
        set(order, senderId, packetId, memberId, STATUS_LIST, listSize + 1);
        putI32(MEMBERS_OFFSET + 4 * listSize, epoch);
        return this;
    }

    /** Writes the packet; for LIST fill the members with {@link #member(int, int)}. */
    public MemberChangeFlyweight set(
        final ByteOrder order, final int senderId, final int packetId, final int memberId, final int status, final int memberCount)
    {
        init(order, true, length(memberCount), senderId, packetId);
        putI32(MEMBER_ID_OFFSET, memberId);
        putU8(STATUS_OFFSET, status);
        putU8(STATUS_OFFSET + 1, 0);
        putU16(MEMBER_COUNT_OFFSET, memberCount);
        return this;
    }

    public MemberChangeFlyweight member(final int index, final int memberId)
    {
        putI32(MEMBERS_OFFSET + 4 * index, memberId);
        return this;
    }

    public int memberId()
    {
        return getI32(MEMBER_ID_OFFSET);
    }

    public int status()
    {
        return getU8(STATUS_OFFSET);
    }

    public int memberCount()
    {
        return getU16(MEMBER_COUNT_OFFSET);
    }

    public int member(final int index)
    {
        return getI32(MEMBERS_OFFSET + 4 * index);
    }

    /** @return the highest order number an EPOCH_TOLD's sender knows exists (0 without a tail). */
    public long toldLastOrderSeq()
    {
        return memberCount() >= TOLD_TAIL_ENTRIES ? wide(5) : 0;
    }

    /** @return an EPOCH_TOLD's sender's incarnation (0 without a tail). */
    public long toldIncarnation()
    {
        return memberCount() >= TOLD_TAIL_ENTRIES ? wide(7) : 0;
    }

    /** @return the epoch an EPOCH_TOLD's sender leads and orders in (0: none, or no tail). */
    public int toldLeadingEpoch()
    {
        return memberCount() >= TOLD_TAIL_ENTRIES ? member(9) : 0;
    }

    /** @return how many known incarnations an EPOCH_TOLD carries. */
    public int toldKnownCount()
    {
        return memberCount() >= TOLD_TAIL_ENTRIES ? (memberCount() - TOLD_TAIL_ENTRIES) / 3 : 0;
    }

    public int toldKnownMember(final int index)
    {
        return member(TOLD_TAIL_ENTRIES + 3 * index);
    }

    public long toldKnownIncarnation(final int index)
    {
        return wide(TOLD_TAIL_ENTRIES + 3 * index + 1);
    }

    /** Writes an EPOCH_TOLD's tail (the packet set with {@code TOLD_TAIL_ENTRIES + 3 * known} entries). */
    public MemberChangeFlyweight toldTail(final long lastOrderSeq, final long incarnation, final int leadingEpoch)
    {
        return wide(5, lastOrderSeq).wide(7, incarnation).member(9, leadingEpoch);
    }

    /** Writes the {@code index}th known incarnation of an EPOCH_TOLD's tail. */
    public MemberChangeFlyweight toldKnown(final int index, final int memberId, final long incarnation)
    {
        return member(TOLD_TAIL_ENTRIES + 3 * index, memberId).wide(TOLD_TAIL_ENTRIES + 3 * index + 1, incarnation);
    }

    private long wide(final int index)
    {
        return ((long)member(index) << 32) | (member(index + 1) & 0xFFFF_FFFFL);
    }

    private MemberChangeFlyweight wide(final int index, final long value)
    {
        return member(index, (int)(value >>> 32)).member(index + 1, (int)value);
    }

    /** @return an EPOCH_ASK's nonce. */
    public int askNonce()
    {
        return member(0);
    }

    /** @return the epoch a founding leader's EPOCH_ASK proposes (0 for a recovery ask). */
    public int askProposal()
    {
        return member(1);
    }

    /** @return the incarnation of an EPOCH_ASK's sender. */
    public long askIncarnation()
    {
        return wide(2);
    }

    /** @return how many member ids a founding leader's EPOCH_ASK lists after its fixed entries. */
    public int askListed()
    {
        return memberCount() - ASK_ENTRIES;
    }

    /** Writes an EPOCH_ASK's fixed entries (the packet set with {@code ASK_ENTRIES} plus the listed ids). */
    public MemberChangeFlyweight ask(final int nonce, final int proposal, final long incarnation)
    {
        return member(0, nonce).member(1, proposal).wide(2, incarnation);
    }

    /** @return the number of members a LIST names (its entries less the epoch). */
    public int listSize()
    {
        return memberCount() - 1;
    }

    /** @return the number of a LIST's entries that name its view: the first ones, without {@link #OUTSIDE_VIEW}. */
    public int listViewSize()
    {
        int n = 0;
        while (n < listSize() && (member(n) & OUTSIDE_VIEW) == 0)
        {
            n++;
        }
        return n;
    }

    /** @return the member a LIST's entry {@code index} names, in or outside the view, learner or not. */
    public int listMember(final int index)
    {
        return member(index) & ~(OUTSIDE_VIEW | LEARNER);
    }

    /** @return true when a LIST's entry {@code index} names a member of its leader's configuration. */
    public boolean listVoter(final int index)
    {
        return (member(index) & LEARNER) == 0;
    }

    /** @return the epoch a LIST's leader leads: its last entry. */
    public int listEpoch()
    {
        return member(memberCount() - 1);
    }

    @Override
    protected Invalid validateBody(final int bodyLength)
    {
        if (bodyLength != MEMBERS_OFFSET + 4 * memberCount())
        {
            return Invalid.BAD_COUNT;
        }
        if (status() > STATUS_EPOCH_TOLD)
        {
            return Invalid.BAD_FIELD;
        }
        if (status() == STATUS_LIST)
        {
            // At least one member and the epoch, which is never 0; the view (its leader first)
            // before the members outside it.
            if (memberCount() < 2)
            {
                return Invalid.BAD_COUNT;
            }
            // Learners in the view only, never its leader.
            final int viewSize = listViewSize();
            for (int i = viewSize; i < listSize(); i++)
            {
                if ((member(i) & OUTSIDE_VIEW) == 0 || (member(i) & LEARNER) != 0)
                {
                    return Invalid.BAD_FIELD;
                }
            }
            return listEpoch() == 0 || viewSize == 0 || (member(0) & LEARNER) != 0 ? Invalid.BAD_FIELD : null;
        }
        // A takeover's REMOVED carries three entries: the epoch it proposes, the epoch its sender
        // was in and what it delivered (a leave's carries none). A joiner's ADDED may carry one: the epoch it reported
        // for (a leader of an older one moves past it).
        final int most = switch (status())
        {
            case STATUS_ONLINE -> 0;
            case STATUS_REMOVED -> 3;
            case STATUS_EPOCH_TOLD -> Integer.MAX_VALUE;
            // A joiner's: its nonce, 0 and its incarnation; a founding leader's: its nonce, the
            // epoch it proposes, its incarnation and its configuration.
            case STATUS_EPOCH_ASK -> Integer.MAX_VALUE;
            default -> 1;
        };
        if (status() == STATUS_EPOCH_ASK)
        {
            // (A founding leader's ask names at least itself after its fixed entries; a recovery ask none.)
            if (memberCount() < ASK_ENTRIES || (askProposal() == 0) != (memberCount() == ASK_ENTRIES))
            {
                return Invalid.BAD_COUNT;
            }
            return askIncarnation() < 0 ? Invalid.BAD_FIELD : null;
        }
        if (status() == STATUS_EPOCH_TOLD && memberCount() > TOLD_ENTRIES)
        {
            // The tail whole, or none: its fixed entries, then three per known incarnation.
            if (memberCount() < TOLD_TAIL_ENTRIES || (memberCount() - TOLD_TAIL_ENTRIES) % 3 != 0)
            {
                return Invalid.BAD_COUNT;
            }
            return toldLastOrderSeq() < 0 || toldIncarnation() < 0 ? Invalid.BAD_FIELD : null;
        }
        return memberCount() > most ? Invalid.BAD_COUNT : null;
    }

    @Override
    public String toString()
    {
        if (!wrapped())
        {
            return "MemberChange{unwrapped}";
        }
        final StringBuilder sb = describe("MemberChange").append(", member=").append(memberId())
            .append(", status=").append(status()).append(", members=[");
        final int n = Math.min(memberCount(), (buffer.limit() - body(MEMBERS_OFFSET)) / 4);
        for (int i = 0; i < n; i++)
        {
            sb.append(i == 0 ? "" : ", ").append(member(i));
        }
        return sb.append("]}").toString();
    }
}
