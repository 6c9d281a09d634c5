package org.lightwire.romiop.protocol;

import java.nio.ByteOrder;

/**
 * ROMIOP Cancel (type 5): a client that gave up on a request (its call timed out) withdraws it;
 * members drop it if it was not yet ordered. The paper lists the type without a body; ours names
 * the request as a MsgOrder entry does, plus its GIOP request_id.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes, type 5)             |
 *  +---------------------------------------------------------------+
 *  |                   sender_id (client)                          |
 *  +---------------------------------------------------------------+
 *  |                   packet_id (Lamport)                         |
 *  +---------------------------------------------------------------+
 *  |                   request_packet_id                           |
 *  +---------------------------------------------------------------+
 *  |                   request_id (GIOP)                           |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>A client cancels only its own requests, so the request's sender is the Cancel's sender.
 */
public final class CancelFlyweight extends PacketFlyweight
{
    public static final int REQUEST_PACKET_ID_OFFSET = 8;
    public static final int REQUEST_ID_OFFSET = 12;
    public static final int BODY_LENGTH = 16;
    public static final int LENGTH = PacketHeader_1_0.HEADER_LENGTH + BODY_LENGTH;

    @Override
    public PacketType packetType()
    {
        return PacketType.CANCEL;
    }

    @Override
    protected int fixedBodyLength()
    {
        return BODY_LENGTH;
    }

    public CancelFlyweight set(final ByteOrder order, final int senderId, final int packetId, final int requestPacketId, final int requestId)
    {
        init(order, true, LENGTH, senderId, packetId);
        putI32(REQUEST_PACKET_ID_OFFSET, requestPacketId);
        putI32(REQUEST_ID_OFFSET, requestId);
        return this;
    }

    public int requestPacketId()
    {
        return getI32(REQUEST_PACKET_ID_OFFSET);
    }

    public int requestId()
    {
        return getI32(REQUEST_ID_OFFSET);
    }

    @Override
    protected Invalid validateBody(final int bodyLength)
    {
        return bodyLength == BODY_LENGTH ? null : Invalid.SIZE_MISMATCH;
    }

    @Override
    public String toString()
    {
        if (!wrapped())
        {
            return "Cancel{unwrapped}";
        }
        return describe("Cancel").append(", requestPacketId=").append(Integer.toUnsignedString(requestPacketId()))
            .append(", requestId=").append(requestId()).append('}').toString();
    }
}
