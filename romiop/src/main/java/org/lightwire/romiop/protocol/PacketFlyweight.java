package org.lightwire.romiop.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What every ROMIOP packet flyweight shares: the {@link PacketHeader_1_0} and the body prefix that
 * every packet carries (paper, section 4: "the packet unique identifier that each member puts in
 * every message sent to the group").
 *
 * <pre>
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes)                     |
 *  +---------------------------------------------------------------+
 *  |               sender_id (unsigned long)                       |  body + 0
 *  +---------------------------------------------------------------+
 *  |               packet_id (unsigned long, Lamport counter)      |  body + 4
 *  +---------------------------------------------------------------+
 *  |               type-specific fields ...                        |  body + 8
 * </pre>
 *
 * <p>A flyweight wraps the packet's first header byte. Body offsets are relative to the byte after
 * the header. Every field is read and written in the order that the header's flags name.
 */
public abstract class PacketFlyweight
{
    public static final int SENDER_ID_OFFSET = 0;
    public static final int PACKET_ID_OFFSET = 4;
    /** Bytes of the body prefix shared by every packet type. */
    public static final int PREFIX_LENGTH = 8;

    protected final PacketHeader_1_0 header = new PacketHeader_1_0();
    protected ByteBuffer buffer;
    protected int offset;
    private ByteOrder order = ByteOrder.BIG_ENDIAN;

    /** Points the flyweight at a received packet; the byte order is taken from its flags. */
    public PacketFlyweight wrap(final ByteBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        header.wrap(buffer, offset);
        if (buffer.limit() - offset >= PacketHeader_1_0.HEADER_LENGTH)
        {
            order = header.byteOrder();
        }
        return this;
    }

    /** The packet type this flyweight reads and writes. */
    public abstract PacketType packetType();

    /** Length of the fixed part of the body, prefix included. */
    protected abstract int fixedBodyLength();

    /** Writes the header and the prefix; the caller then sets the type's own fields. */
    protected void init(final ByteOrder order, final boolean ackRequested, final int packetSize, final int senderId, final int packetId)
    {
        this.order = order;
        header.set(order, ackRequested, packetType(), packetSize);
        putI32(SENDER_ID_OFFSET, senderId);
        putI32(PACKET_ID_OFFSET, packetId);
    }

    public PacketHeader_1_0 header()
    {
        return header;
    }

    public ByteOrder byteOrder()
    {
        return order;
    }

    public int senderId()
    {
        return getI32(SENDER_ID_OFFSET);
    }

    public int packetId()
    {
        return getI32(PACKET_ID_OFFSET);
    }

    /** @return total length in bytes as written or declared by packet_size. */
    public int packetSize()
    {
        return (int)header.packetSize();
    }

    /**
     * @param packetLength bytes from the header's first byte to the end of the datagram.
     * @return null when the packet is well formed for this type, otherwise the reason.
     */
    public Invalid validate(final int packetLength)
    {
        final Invalid headerInvalid = header.validate(packetLength);
        if (headerInvalid != null)
        {
            return headerInvalid;
        }
        if (header.type() != packetType())
        {
            return Invalid.WRONG_TYPE;
        }
        if (packetLength < PacketHeader_1_0.HEADER_LENGTH + fixedBodyLength())
        {
            return Invalid.TRUNCATED;
        }
        return validateBody(packetLength - PacketHeader_1_0.HEADER_LENGTH);
    }

    /** Type-specific checks once header and fixed length are known good. */
    protected Invalid validateBody(final int bodyLength)
    {
        return null;
    }

    protected final int body(final int field)
    {
        return offset + PacketHeader_1_0.HEADER_LENGTH + field;
    }

    protected final int getU8(final int field)
    {
        return buffer.get(body(field)) & 0xFF;
    }

    protected final void putU8(final int field, final int value)
    {
        buffer.put(body(field), (byte)value);
    }

    protected final int getU16(final int field)
    {
        return Bytes.getU16(buffer, body(field), order);
    }

    protected final void putU16(final int field, final int value)
    {
        Bytes.putU16(buffer, body(field), value, order);
    }

    protected final int getI32(final int field)
    {
        return Bytes.getI32(buffer, body(field), order);
    }

    protected final void putI32(final int field, final int value)
    {
        Bytes.putI32(buffer, body(field), value, order);
    }

    protected final long getI64(final int field)
    {
        return Bytes.getI64(buffer, body(field), order);
    }

    protected final void putI64(final int field, final long value)
    {
        Bytes.putI64(buffer, body(field), value, order);
    }

    /** @return "Name{header, sender=.., packetId=.." for subclasses to continue. */
    protected final StringBuilder describe(final String name)
    {
        return new StringBuilder(name).append('{').append(header)
            .append(", sender=").append(senderId())
            .append(", packetId=").append(Integer.toUnsignedString(packetId()));
    }

    protected final boolean wrapped()
    {
        return buffer != null && buffer.limit() - offset >= PacketHeader_1_0.HEADER_LENGTH + fixedBodyLength();
    }
}
