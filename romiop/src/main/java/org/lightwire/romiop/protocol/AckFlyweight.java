package org.lightwire.romiop.protocol;

import java.nio.ByteOrder;

/**
 * ROMIOP ACK (type 2): a receiver confirms a packet (paper, Figure 4 lines 41-45; section 4.1:
 * duplicates are acknowledged again before they are dropped). Never itself acknowledged.
 *
 * <ul>
 * <li>acked_type REQUEST (or REPLY, MEMBER_CHANGE, CANCEL): acked_sender_id and acked_id name the
 * acknowledged packet by its (sender_id, packet_id).</li>
 * <li>acked_type MSG_ORDER: cumulative; acked_id is the highest order sequence number up to which
 * the sender has delivered everything, so the sequencer learns what it may forget.</li>
 * <li>acked_type REPLY with flag {@link #FLAG_CALLS_DONE} (a client, to the group):
 * cumulative; acked_sender_id is the client itself and acked_id a packet id of its own: every
 * two-way request of this client up to that id is done (consolidated, cancelled or given up),
 * so every reply to it may be forgotten.</li>
 * </ul>
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes, type 2)             |
 *  +---------------------------------------------------------------+
 *  |                   sender_id (acknowledging member)            |
 *  +---------------------------------------------------------------+
 *  |                   packet_id (Lamport)                         |
 *  +-------------------------------+-------------------------------+
 *  |     acked_type (short)        |     ack_flags (short)         |
 *  +-------------------------------+-------------------------------+
 *  |                   acked_sender_id                             |
 *  +---------------------------------------------------------------+
 *  |                   acked_id (unsigned long long)               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class AckFlyweight extends PacketFlyweight
{
    public static final int ACKED_TYPE_OFFSET = 8;
    public static final int ACK_FLAGS_OFFSET = 10;
    /** ack_flags bit 0, with acked_type REPLY: "every reply to my requests up to acked_id". */
    public static final int FLAG_CALLS_DONE = 1;
    public static final int ACKED_SENDER_ID_OFFSET = 12;
    public static final int ACKED_ID_OFFSET = 16;
    public static final int BODY_LENGTH = 24;
    public static final int LENGTH = PacketHeader_1_0.HEADER_LENGTH + BODY_LENGTH;

    @Override
    public PacketType packetType()
    {
        return PacketType.ACK;
    }

    @Override
    protected int fixedBodyLength()
    {
        return BODY_LENGTH;
    }

    public AckFlyweight set(
        final ByteOrder order, final int senderId, final int packetId, final PacketType ackedType, final int ackedSenderId, final long ackedId)
    {
        init(order, false, LENGTH, senderId, packetId);
        putU16(ACKED_TYPE_OFFSET, ackedType.code());
        putU16(ACK_FLAGS_OFFSET, 0);
        putI32(ACKED_SENDER_ID_OFFSET, ackedSenderId);
        putI64(ACKED_ID_OFFSET, ackedId);
        return this;
    }

    /** Sets ack_flags (after {@link #set}); @return this. */
    public AckFlyweight ackFlags(final int flags)
    {
        putU16(ACK_FLAGS_OFFSET, flags);
        return this;
    }

    public int ackFlags()
    {
        return getU16(ACK_FLAGS_OFFSET);
    }

    /** @return true for a client's cumulative "calls done" REPLY ACK. */
    public boolean callsDone()
    {
        return (ackFlags() & FLAG_CALLS_DONE) != 0;
    }

    public int ackedTypeCode()
    {
        return getU16(ACKED_TYPE_OFFSET);
    }

    public PacketType ackedType()
    {
        return PacketType.fromCode(ackedTypeCode());
    }

    public int ackedSenderId()
    {
        return getI32(ACKED_SENDER_ID_OFFSET);
    }

    public long ackedId()
    {
        return getI64(ACKED_ID_OFFSET);
    }

    @Override
    protected Invalid validateBody(final int bodyLength)
    {
        if (bodyLength != BODY_LENGTH)
        {
            return Invalid.SIZE_MISMATCH;
        }
        final PacketType acked = ackedType();
        if (acked == null || acked == PacketType.ACK || acked == PacketType.NAK)
        {
            return Invalid.BAD_FIELD;
        }
        final int flags = ackFlags();
        return flags == 0 || (flags == FLAG_CALLS_DONE && acked == PacketType.REPLY) ? null : Invalid.BAD_FIELD;
    }

    @Override
    public String toString()
    {
        if (!wrapped())
        {
            return "Ack{unwrapped}";
        }
        return describe("Ack").append(", ackedType=").append(ackedType() != null ? ackedType() : "?" + ackedTypeCode())
            .append(", ackedSender=").append(ackedSenderId())
            .append(", ackedId=").append(ackedId()).append(callsDone() ? ", callsDone" : "").append('}').toString();
    }
}
