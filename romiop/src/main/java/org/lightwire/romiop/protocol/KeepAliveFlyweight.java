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
 * </pre>
 */
public final class KeepAliveFlyweight extends PacketFlyweight
{
    public static final int LAST_ORDER_SEQ_OFFSET = 8;
    public static final int EPOCH_OFFSET = 16;
    public static final int REPORT_ENTRIES_OFFSET = 20;
    public static final int COMMIT_OFFSET = 24;
    public static final int BODY_LENGTH = 32;
    public static final int LENGTH = PacketHeader_1_0.HEADER_LENGTH + BODY_LENGTH;

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
        if (bodyLength != BODY_LENGTH)
        {
            return Invalid.SIZE_MISMATCH;
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
