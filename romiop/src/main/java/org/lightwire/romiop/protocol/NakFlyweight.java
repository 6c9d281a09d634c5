package org.lightwire.romiop.protocol;

import java.nio.ByteOrder;

/**
 * ROMIOP NAK (type 3): a member asks the sequencer for what it is missing. The paper lists NAK as
 * a type without a body; ours has two forms, chosen by nak_type.
 *
 * <ul>
 * <li>MSG_ORDER: "resend orders from from_order_seq"; entry_count is 0.</li>
 * <li>REQUEST: "resend these requests", one (sender_id, packet_id) entry each, as named by a
 * MsgOrder that the member cannot deliver past; from_order_seq is 0.</li>
 * </ul>
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes, type 3)             |
 *  +---------------------------------------------------------------+
 *  |                   sender_id (member that misses)              |
 *  +---------------------------------------------------------------+
 *  |                   packet_id (Lamport)                         |
 *  +-------------------------------+-------------------------------+
 *  |     nak_type (short)          |     entry_count (ushort)      |
 *  +-------------------------------+-------------------------------+
 *  |                   reserved (0)                                |
 *  +---------------------------------------------------------------+
 *  |                   from_order_seq (unsigned long long)         |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |   entry_count x { request sender_id, request packet_id }      |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class NakFlyweight extends PacketFlyweight
{
    public static final int NAK_TYPE_OFFSET = 8;
    public static final int ENTRY_COUNT_OFFSET = 10;
    public static final int FROM_ORDER_SEQ_OFFSET = 16;
    public static final int ENTRIES_OFFSET = 24;
    public static final int ENTRY_LENGTH = 8;
    public static final int HEADER_LENGTH = PacketHeader_1_0.HEADER_LENGTH + ENTRIES_OFFSET;

    @Override
    public PacketType packetType()
    {
        return PacketType.NAK;
    }

    @Override
    protected int fixedBodyLength()
    {
        return ENTRIES_OFFSET;
    }

    public static int length(final int entryCount)
    {
        return HEADER_LENGTH + entryCount * ENTRY_LENGTH;
    }

    /** Writes a NAK for orders from {@code fromOrderSeq}. */
    public NakFlyweight setOrderNak(final ByteOrder order, final int senderId, final int packetId, final long fromOrderSeq)
    {
        return set(order, senderId, packetId, PacketType.MSG_ORDER, 0, fromOrderSeq);
    }

    /** Writes a NAK for {@code entryCount} requests; fill them with {@link #entry}. */
    public NakFlyweight setRequestNak(final ByteOrder order, final int senderId, final int packetId, final int entryCount)
    {
        return set(order, senderId, packetId, PacketType.REQUEST, entryCount, 0);
    }

    private NakFlyweight set(
        final ByteOrder order, final int senderId, final int packetId, final PacketType nakType, final int entryCount, final long fromOrderSeq)
    {
        init(order, false, length(entryCount), senderId, packetId);
        putU16(NAK_TYPE_OFFSET, nakType.code());
        putU16(ENTRY_COUNT_OFFSET, entryCount);
        putI32(ENTRY_COUNT_OFFSET + 2, 0);
        putI64(FROM_ORDER_SEQ_OFFSET, fromOrderSeq);
        return this;
    }

    public NakFlyweight entry(final int index, final int requestSenderId, final int requestPacketId)
    {
        putI32(ENTRIES_OFFSET + index * ENTRY_LENGTH, requestSenderId);
        putI32(ENTRIES_OFFSET + index * ENTRY_LENGTH + 4, requestPacketId);
        return this;
    }

    public int nakTypeCode()
    {
        return getU16(NAK_TYPE_OFFSET);
    }

    public PacketType nakType()
    {
        return PacketType.fromCode(nakTypeCode());
    }

    public int entryCount()
    {
        return getU16(ENTRY_COUNT_OFFSET);
    }

    public long fromOrderSeq()
    {
        return getI64(FROM_ORDER_SEQ_OFFSET);
    }

    public int entrySenderId(final int index)
    {
        return getI32(ENTRIES_OFFSET + index * ENTRY_LENGTH);
    }

    public int entryPacketId(final int index)
    {
        return getI32(ENTRIES_OFFSET + index * ENTRY_LENGTH + 4);
    }

    @Override
    protected Invalid validateBody(final int bodyLength)
    {
        if (bodyLength != ENTRIES_OFFSET + entryCount() * ENTRY_LENGTH)
        {
            return Invalid.BAD_COUNT;
        }
        final PacketType t = nakType();
        if (t == PacketType.MSG_ORDER)
        {
            return entryCount() == 0 ? null : Invalid.BAD_COUNT;
        }
        return t == PacketType.REQUEST ? null : Invalid.BAD_FIELD;
    }

    @Override
    public String toString()
    {
        if (!wrapped())
        {
            return "Nak{unwrapped}";
        }
        final StringBuilder sb = describe("Nak").append(", nakType=").append(nakType() != null ? nakType() : "?" + nakTypeCode())
            .append(", fromOrderSeq=").append(fromOrderSeq())
            .append(", entries=[");
        final int n = Math.min(entryCount(), (buffer.limit() - body(ENTRIES_OFFSET)) / ENTRY_LENGTH);
        for (int i = 0; i < n; i++)
        {
            sb.append(i == 0 ? "" : ", ").append(entrySenderId(i)).append(':').append(Integer.toUnsignedString(entryPacketId(i)));
        }
        return sb.append("]}").toString();
    }
}
