package org.lightwire.transport.link.memory;

import java.nio.ByteBuffer;

import org.lightwire.transport.protocol.HeaderFlyweight;
import org.lightwire.transport.protocol.MessageType;

/** Builds well-formed packets whose call and packet sequence numbers identify them. */
final class TestPackets
{
    private TestPackets()
    {
    }

    /** @return an 8-byte header naming {@code type}, {@code id} as its call and packet sequence numbers. */
    static ByteBuffer header(final MessageType type, final int id, final int payloadBytes)
    {
        final ByteBuffer header = ByteBuffer.allocate(HeaderFlyweight.HEADER_LENGTH);
        new HeaderFlyweight().wrap(header, 0)
            .set(type, false, HeaderFlyweight.HEADER_LENGTH + payloadBytes, id & 0xFF, (id >>> 8) & 0xFF, false);
        return header;
    }

    /** @return a payload of {@code length} bytes that starts with {@code id}, big-endian. */
    static ByteBuffer payload(final int id, final int length)
    {
        final ByteBuffer payload = ByteBuffer.allocate(length);
        for (int i = 0; i < length; i++)
        {
            payload.put(i, (byte)(id * 31 + i));
        }
        if (length >= 4)
        {
            payload.putInt(0, id);
        }
        return payload;
    }

    /** @return the whole packet as the network should deliver it. */
    static byte[] bytes(final ByteBuffer header, final ByteBuffer payload)
    {
        final byte[] packet = new byte[header.remaining() + (payload == null ? 0 : payload.remaining())];
        header.duplicate().get(packet, 0, header.remaining());
        if (payload != null)
        {
            payload.duplicate().get(packet, header.remaining(), payload.remaining());
        }
        return packet;
    }

    /** @return the id a packet built here carries in its header. */
    static int id(final byte[] packet)
    {
        return (packet[HeaderFlyweight.CALL_SEQ_OFFSET] & 0xFF) | ((packet[HeaderFlyweight.PACKET_SEQ_OFFSET] & 0xFF) << 8);
    }

    static byte[] toArray(final ByteBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
