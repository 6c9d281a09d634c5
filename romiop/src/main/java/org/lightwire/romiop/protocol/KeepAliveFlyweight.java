package org.lightwire.romiop.protocol;

import java.nio.ByteOrder;

/**
 * ROMIOP KeepAlive (type 4): the leader's periodic "are you alive" probe (paper, section 3.3);
 * members answer with an ACK. Ours also carries the highest order sequence number the leader has
 * assigned, so a member that lost the last MsgOrder of a burst learns of the gap and NAKs; and
 * (wire 1.1) the leader's epoch and commit, so that members deliver what a majority holds without
 * waiting for the next MsgOrder.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes, type 4)             |
 *  +---------------------------------------------------------------+
 *  |                   sender_id (leader)                          |
 *  +---------------------------------------------------------------+
 *  |                   packet_id (Lamport)                         |
 *  +---------------------------------------------------------------+
 *  |                   last_order_seq (unsigned long long)         |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   epoch (unsigned long)                       |
 *  +---------------------------------------------------------------+
 *  |                   report_entries (a report's; else 0)         |
 *  +---------------------------------------------------------------+
 *  |                   commit (unsigned long long)                 |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |      a report's (flags bit 4) tail, which a report may omit:  |
 *  +---------------------------------------------------------------+
 *  |                   incarnation (unsigned long long)            |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   reach_epoch (unsigned long)                 |
 *  +---------------------------------------------------------------+
 *  |                   reach (unsigned long long)                  |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   fixed (unsigned long long)                  |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   known_count (unsigned long)                 |
 *  +---------------------------------------------------------------+
 *  |  known_count times: member_id (unsigned long),                |
 *  |                     its incarnation (unsigned long long)      |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The tail says which incarnation of its sender the report is from (a process's incarnation
 * number grows with each start), how far the leader's orders reached when its sender, a
 * possibly restarted process, was last admitted (in the epoch {@code reach_epoch}; 0 and 0 when
 * it was not), the highest order number its sender knows committed ({@code fixed}: at least its
 * commit, which is what it delivered; more when a takeover of its own fixed a target it has not
 * caught up to), and the newest incarnation its sender knows of each member of its configuration
 * (docs/romiop.md, "Incarnations"). A report without a tail is read as incarnation 0, no reach,
 * fixed at its commit and nothing known.
 */
public final class KeepAliveFlyweight extends PacketFlyweight
{
    public static final int LAST_ORDER_SEQ_OFFSET = 8;
    public static final int EPOCH_OFFSET = 16;
    public static final int REPORT_ENTRIES_OFFSET = 20;
    public static final int COMMIT_OFFSET = 24;
    public static final int BODY_LENGTH = 32;
    public static final int LENGTH = PacketHeader_1_0.HEADER_LENGTH + BODY_LENGTH;
    public static final int INCARNATION_OFFSET = 32;
    public static final int REACH_EPOCH_OFFSET = 40;
    public static final int REACH_OFFSET = 44;
    public static final int FIXED_OFFSET = 52;
    public static final int KNOWN_COUNT_OFFSET = 60;
    public static final int KNOWN_OFFSET = 64;
    /** Bytes of one entry of a report's known incarnations: a member id and its incarnation. */
    public static final int KNOWN_ENTRY_LENGTH = 12;
    /** At most this many known incarnations in a report (a configuration is at most as large). */
    public static final int MAX_KNOWN = 1024;

    /** @return the length of a report's KeepAlive with its tail and {@code known} known incarnations. */
    public static int reportLength(final int known)
    {
        return PacketHeader_1_0.HEADER_LENGTH + KNOWN_OFFSET + KNOWN_ENTRY_LENGTH * known;
    }

    @Override
    public PacketType packetType()
    {
        return PacketType.KEEP_ALIVE;
    }

    @Override
    protected int fixedBodyLength()
    {
        return BODY_LENGTH;
    }

    public KeepAliveFlyweight set(final ByteOrder order, final int senderId, final int packetId, final int epoch,
        final long lastOrderSeq, final long commit)
    {
        init(order, true, LENGTH, senderId, packetId);
        putI64(LAST_ORDER_SEQ_OFFSET, lastOrderSeq);
        putI32(EPOCH_OFFSET, epoch);
        putI32(REPORT_ENTRIES_OFFSET, 0);
        putI64(COMMIT_OFFSET, commit);
        return this;
    }

    /** A report's (flags bit 4): the number of order entries the MsgOrders of the report carried. */
    public KeepAliveFlyweight reportEntries(final int entries)
    {
        putI32(REPORT_ENTRIES_OFFSET, entries);
        return this;
    }

    public int reportEntries()
    {
        return getI32(REPORT_ENTRIES_OFFSET);
    }

    /**
     * Writes a report's tail (the packet must have been set with {@link #reportLength}): its
     * sender's {@code incarnation}, how far its last admission as a possibly restarted process
     * reached ({@code reach} in {@code reachEpoch}) and the highest order number it knows
     * committed ({@code fixed}, not below its commit), followed by {@code known} entries written
     * with {@link #known(int, int, long)}.
     */
    public KeepAliveFlyweight reportTail(final long incarnation, final int reachEpoch, final long reach, final long fixed, final int known)
    {
        putI64(INCARNATION_OFFSET, incarnation);
        putI32(REACH_EPOCH_OFFSET, reachEpoch);
        putI64(REACH_OFFSET, reach);
        putI64(FIXED_OFFSET, fixed);
        putI32(KNOWN_COUNT_OFFSET, known);
        return this;
    }

    /** Writes the {@code index}th known incarnation of a report's tail: {@code memberId}'s newest known, {@code incarnation}. */
    public KeepAliveFlyweight known(final int index, final int memberId, final long incarnation)
    {
        putI32(KNOWN_OFFSET + KNOWN_ENTRY_LENGTH * index, memberId);
        putI64(KNOWN_OFFSET + KNOWN_ENTRY_LENGTH * index + 4, incarnation);
        return this;
    }

    /** @return true when this report carries its tail (a well-formed one: see {@link #validate}). */
    public boolean hasTail()
    {
        return header.report() && packetSize() > LENGTH;
    }

    /** @return the incarnation of the report's sender (0 for a report without a tail). */
    public long incarnation()
    {
        return hasTail() ? getI64(INCARNATION_OFFSET) : 0;
    }

    /** @return the epoch of the sender's last admission as a possibly restarted process (0: none, or no tail). */
    public int reachEpoch()
    {
        return hasTail() ? getI32(REACH_EPOCH_OFFSET) : 0;
    }

    /** @return how far the leader's orders reached at that admission (0: none, or no tail). */
    public long reach()
    {
        return hasTail() ? getI64(REACH_OFFSET) : 0;
    }

    /**
     * @return the highest order number the report's sender knows committed (its commit without a
     *     tail): a takeover of its own fixed that far, and it may not hold the orders past its commit.
     */
    public long fixed()
    {
        return hasTail() ? getI64(FIXED_OFFSET) : commit();
    }

    /** @return how many known incarnations the report's tail carries (0 without a tail). */
    public int knownCount()
    {
        return hasTail() ? getI32(KNOWN_COUNT_OFFSET) : 0;
    }

    public int knownMember(final int index)
    {
        return getI32(KNOWN_OFFSET + KNOWN_ENTRY_LENGTH * index);
    }

    public long knownIncarnation(final int index)
    {
        return getI64(KNOWN_OFFSET + KNOWN_ENTRY_LENGTH * index + 4);
    }

    public int epoch()
    {
        return getI32(EPOCH_OFFSET);
    }

    public long commit()
    {
        return getI64(COMMIT_OFFSET);
    }

    public long lastOrderSeq()
    {
        return getI64(LAST_ORDER_SEQ_OFFSET);
    }

    @Override
    protected Invalid validateBody(final int bodyLength)
    {
        if (bodyLength != BODY_LENGTH && !(header.report() && bodyLength >= KNOWN_OFFSET))
        {
            return Invalid.SIZE_MISMATCH;
        }
        if (bodyLength > BODY_LENGTH)
        {
            final int known = getI32(KNOWN_COUNT_OFFSET);
            if (known < 0 || known > MAX_KNOWN || bodyLength != KNOWN_OFFSET + KNOWN_ENTRY_LENGTH * known)
            {
                return Invalid.BAD_COUNT;
            }
            if (getI64(INCARNATION_OFFSET) < 0 || getI64(REACH_OFFSET) < 0 || getI64(FIXED_OFFSET) < getI64(COMMIT_OFFSET))
            {
                return Invalid.BAD_FIELD;
            }
        }
        return epoch() == 0 || commit() < 0 || commit() > lastOrderSeq() ? Invalid.BAD_FIELD : null;
    }

    @Override
    public String toString()
    {
        if (!wrapped())
        {
            return "KeepAlive{unwrapped}";
        }
        return describe("KeepAlive").append(", epoch=").append(Integer.toUnsignedString(epoch()))
            .append(", lastOrderSeq=").append(lastOrderSeq()).append(", commit=").append(commit()).append('}').toString();
    }
}
