package org.lightwire.romiop.protocol;

import java.nio.ByteOrder;

/**
 * ROMIOP OrderAck (type 9, ours): a member tells its leader how far it holds the order of an
 * epoch. {@code accepted} is the highest order sequence number up to which the member holds every
 * MsgOrder of {@code epoch} and every request they name; the leader's commit is the highest number
 * a majority of the configuration has accepted. {@code delivered} is how far the member has
 * delivered (never beyond a commit, nor beyond what it accepted), which tells the leader what it
 * may forget.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes, type 9)             |
 *  +---------------------------------------------------------------+
 *  |                   sender_id (member)                          |
 *  +---------------------------------------------------------------+
 *  |                   packet_id (Lamport)                         |
 *  +---------------------------------------------------------------+
 *  |                   epoch (unsigned long)                       |
 *  +---------------------------------------------------------------+
 *  |                   reserved (0)                                |
 *  +---------------------------------------------------------------+
 *  |                   accepted (unsigned long long)               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   delivered (unsigned long long)              |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class OrderAckFlyweight extends PacketFlyweight
{
    public static final int EPOCH_OFFSET = 8;
    public static final int RESERVED_OFFSET = 12;
    public static final int ACCEPTED_OFFSET = 16;
    public static final int DELIVERED_OFFSET = 24;
    public static final int BODY_LENGTH = 32;
    public static final int LENGTH = PacketHeader_1_0.HEADER_LENGTH + BODY_LENGTH;

    @Override
    public PacketType packetType()
    {
        return PacketType.ORDER_ACK;
    }

    @Override
    protected int fixedBodyLength()
    {
        return BODY_LENGTH;
    }

    /** An OrderAck is never acknowledged itself (flags bit 1 clear), as an ACK is not. */
    public OrderAckFlyweight set(final ByteOrder order, final int senderId, final int packetId, final int epoch,
        final long accepted, final long delivered)
    {
        init(order, false, LENGTH, senderId, packetId);
        putI32(EPOCH_OFFSET, epoch);
        putI32(RESERVED_OFFSET, 0);
        putI64(ACCEPTED_OFFSET, accepted);
        putI64(DELIVERED_OFFSET, delivered);
        return this;
    }

    public int epoch()
    {
        return getI32(EPOCH_OFFSET);
    }

    public long accepted()
    {
        return getI64(ACCEPTED_OFFSET);
    }

    public long delivered()
    {
        return getI64(DELIVERED_OFFSET);
    }

    @Override
    protected Invalid validateBody(final int bodyLength)
    {
        if (bodyLength != BODY_LENGTH)
        {
            return Invalid.SIZE_MISMATCH;
        }
        if (header.ackRequested() || getI32(RESERVED_OFFSET) != 0)
        {
            return Invalid.BAD_FIELD;
        }
        // A member delivers only what it holds.
        return Long.compareUnsigned(delivered(), accepted()) > 0 ? Invalid.BAD_FIELD : null;
    }

    @Override
    public String toString()
    {
        if (!wrapped())
        {
            return "OrderAck{unwrapped}";
        }
        return describe("OrderAck").append(", epoch=").append(Integer.toUnsignedString(epoch()))
            .append(", accepted=").append(accepted()).append(", delivered=").append(delivered()).append('}').toString();
    }
}
