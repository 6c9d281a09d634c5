package org.lightwire.romiop.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * ROMIOP Request (type 0): a client's GIOP request, multicast to the group, held by every member
 * until a MsgOrder places it (paper, Figure 4 lines 16-17). The paper names no body fields; ours
 * identify the request as (sender_id, packet_id), which is what MsgOrder lists. {@code client_seq}
 * numbers a client's requests 1, 2, 3, ... (mod 2^24, skipping 0), so that the sequencer can keep
 * each client's requests in the order it sent them; 0 means unnumbered.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes, type 0)             |
 *  +---------------------------------------------------------------+
 *  |                   sender_id (client)                          |
 *  +---------------------------------------------------------------+
 *  |                   packet_id (Lamport)                         |
 *  +---------------------------------------------------------------+
 *  |                   request_id (GIOP)                           |
 *  +---------------+-----------------------------------------------+
 *  |response_flags |         client_seq (24 bits, 0 = none)        |
 *  +---------------+-----------------------------------------------+
 *  |                   payload (GIOP message) ...                  |
 * </pre>
 */
public final class RequestFlyweight extends PacketFlyweight
{
    public static final int REQUEST_ID_OFFSET = 8;
    public static final int RESPONSE_FLAGS_OFFSET = 12;
    public static final int PAYLOAD_OFFSET = 16;
    public static final int HEADER_LENGTH = PacketHeader_1_0.HEADER_LENGTH + PAYLOAD_OFFSET;

    @Override
    public PacketType packetType()
    {
        return PacketType.REQUEST;
    }

    @Override
    protected int fixedBodyLength()
    {
        return PAYLOAD_OFFSET;
    }

    /** Writes the whole packet header and fixed fields; copy the payload to {@link #payloadOffset()}. */
    public RequestFlyweight set(
        final ByteOrder order, final int senderId, final int packetId, final int requestId, final int responseFlags, final int payloadLength)
    {
        init(order, true, HEADER_LENGTH + payloadLength, senderId, packetId);
        putI32(REQUEST_ID_OFFSET, requestId);
        putI32(RESPONSE_FLAGS_OFFSET, 0);
        putU8(RESPONSE_FLAGS_OFFSET, responseFlags);
        return this;
    }

    /** Sets {@code client_seq} (after {@link #set}); only the low 24 bits are kept. */
    public RequestFlyweight clientSeq(final int seq)
    {
        final boolean little = byteOrder() == ByteOrder.LITTLE_ENDIAN;
        putU8(RESPONSE_FLAGS_OFFSET + 1, little ? seq & 0xFF : (seq >>> 16) & 0xFF);
        putU8(RESPONSE_FLAGS_OFFSET + 2, (seq >>> 8) & 0xFF);
        putU8(RESPONSE_FLAGS_OFFSET + 3, little ? (seq >>> 16) & 0xFF : seq & 0xFF);
        return this;
    }

    /** @return the client's number for this request, 1..2^24-1, or 0 when unnumbered. */
    public int clientSeq()
    {
        final int a = getU8(RESPONSE_FLAGS_OFFSET + 1);
        final int b = getU8(RESPONSE_FLAGS_OFFSET + 2);
        final int c = getU8(RESPONSE_FLAGS_OFFSET + 3);
        return byteOrder() == ByteOrder.LITTLE_ENDIAN ? a | b << 8 | c << 16 : a << 16 | b << 8 | c;
    }

    public int requestId()
    {
        return getI32(REQUEST_ID_OFFSET);
    }

    public int responseFlags()
    {
        return getU8(RESPONSE_FLAGS_OFFSET);
    }

    /** @return absolute index in the buffer of the payload's first byte. */
    public int payloadOffset()
    {
        return body(PAYLOAD_OFFSET);
    }

    public int payloadLength()
    {
        return packetSize() - HEADER_LENGTH;
    }

    /** Copies the payload into the packet. */
    public RequestFlyweight payload(final ByteBuffer src, final int srcOffset, final int length)
    {
        buffer.put(payloadOffset(), src, srcOffset, length);
        return this;
    }

    @Override
    public String toString()
    {
        if (!wrapped())
        {
            return "Request{unwrapped}";
        }
        return describe("Request").append(", requestId=").append(requestId())
            .append(", responseFlags=").append(responseFlags()).append(", clientSeq=").append(clientSeq())
            .append(", payloadLength=").append(payloadLength()).append('}').toString();
    }
}
