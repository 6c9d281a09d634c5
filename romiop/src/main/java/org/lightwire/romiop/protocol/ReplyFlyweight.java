package org.lightwire.romiop.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * ROMIOP Reply (type 1): one member's GIOP reply, sent to the group and consolidated by the client
 * that made the request (paper, section 3.3 and Figure 4 lines 19-20). The request it answers is
 * named by the (sender_id, packet_id) of that Request and by its GIOP request_id.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes, type 1)             |
 *  +---------------------------------------------------------------+
 *  |                   sender_id (replying member)                 |
 *  +---------------------------------------------------------------+
 *  |                   packet_id (Lamport)                         |
 *  +---------------------------------------------------------------+
 *  |                   request_sender_id                           |
 *  +---------------------------------------------------------------+
 *  |                   request_packet_id                           |
 *  +---------------------------------------------------------------+
 *  |                   request_id (GIOP)                           |
 *  +---------------+-----------------------------------------------+
 *  | reply_status  |               reserved (0)                    |
 *  +---------------+-----------------------------------------------+
 *  |                   payload (GIOP reply) ...                    |
 * </pre>
 */
public final class ReplyFlyweight extends PacketFlyweight
{
    public static final int REQUEST_SENDER_ID_OFFSET = 8;
    public static final int REQUEST_PACKET_ID_OFFSET = 12;
    public static final int REQUEST_ID_OFFSET = 16;
    public static final int REPLY_STATUS_OFFSET = 20;
    public static final int PAYLOAD_OFFSET = 24;
    public static final int HEADER_LENGTH = PacketHeader_1_0.HEADER_LENGTH + PAYLOAD_OFFSET;

    @Override
    public PacketType packetType()
    {
        return PacketType.REPLY;
    }

    @Override
    protected int fixedBodyLength()
    {
        return PAYLOAD_OFFSET;
    }

    public ReplyFlyweight set(
        final ByteOrder order, final int senderId, final int packetId,
        final int requestSenderId, final int requestPacketId, final int requestId, final int replyStatus, final int payloadLength)
    {
        init(order, true, HEADER_LENGTH + payloadLength, senderId, packetId);
        putI32(REQUEST_SENDER_ID_OFFSET, requestSenderId);
        putI32(REQUEST_PACKET_ID_OFFSET, requestPacketId);
        putI32(REQUEST_ID_OFFSET, requestId);
        putI32(REPLY_STATUS_OFFSET, 0);
        putU8(REPLY_STATUS_OFFSET, replyStatus);
        return this;
    }

    public int requestSenderId()
    {
        return getI32(REQUEST_SENDER_ID_OFFSET);
    }

    public int requestPacketId()
    {
        return getI32(REQUEST_PACKET_ID_OFFSET);
    }

    public int requestId()
    {
        return getI32(REQUEST_ID_OFFSET);
    }

    public int replyStatus()
    {
        return getU8(REPLY_STATUS_OFFSET);
    }

    public int payloadOffset()
    {
        return body(PAYLOAD_OFFSET);
    }

    public int payloadLength()
    {
        return packetSize() - HEADER_LENGTH;
    }

    public ReplyFlyweight payload(final ByteBuffer src, final int srcOffset, final int length)
    {
        buffer.put(payloadOffset(), src, srcOffset, length);
        return this;
    }

    @Override
    public String toString()
    {
        if (!wrapped())
        {
            return "Reply{unwrapped}";
        }
        return describe("Reply").append(", requestSender=").append(requestSenderId())
            .append(", requestPacketId=").append(Integer.toUnsignedString(requestPacketId()))
            .append(", requestId=").append(requestId())
            .append(", replyStatus=").append(replyStatus())
            .append(", payloadLength=").append(payloadLength()).append('}').toString();
    }
}
