package org.lightwire.transport.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Flyweight over the 8-byte omniTransport header (paper, Table 2), field for field.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  | message type  | exactly-once  |  message size (incl. header)  |
 *  |    CARD8      |    BOOL       |     CARD16, big-endian        |
 *  +---------------+---------------+---------------+---------------+
 *  | call sequence |packet sequence|  fragmented   |    padding    |
 *  |    CARD8      |    CARD8      |    BOOL       |  CARD8 (= 0)  |
 *  +---------------+---------------+---------------+---------------+
 * </pre>
 *
 * <p>Multi-byte fields are in network byte order (big-endian), whatever the buffer's own order.
 * A BOOL is 0 for false and 1 for true; the parser accepts only those two values. The flyweight
 * holds no state but the buffer and offset it is wrapped around, so one instance serves every
 * packet of a connection without allocation.
 */
public final class HeaderFlyweight
{
    /** Length of the header in bytes. */
    public static final int HEADER_LENGTH = 8;
    /** Largest message size the CARD16 size field can express, header included. */
    public static final int MAX_MESSAGE_SIZE = 0xFFFF;

    public static final int TYPE_OFFSET = 0;
    public static final int EXACTLY_ONCE_OFFSET = 1;
    public static final int SIZE_OFFSET = 2;
    public static final int CALL_SEQ_OFFSET = 4;
    public static final int PACKET_SEQ_OFFSET = 5;
    public static final int FRAGMENTED_OFFSET = 6;
    public static final int PADDING_OFFSET = 7;

    private ByteBuffer buffer;
    private int offset;

    /** Points the flyweight at the header that starts at {@code offset} of {@code buffer}. */
    public HeaderFlyweight wrap(final ByteBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    public ByteBuffer buffer()
    {
        return buffer;
    }

    public int offset()
    {
        return offset;
    }

    /** @return the raw CARD8 type code. */
    public int typeCode()
    {
        return buffer.get(offset + TYPE_OFFSET) & 0xFF;
    }

    /** @return the message type, or null when the code is unknown. */
    public MessageType type()
    {
        return MessageType.fromCode(typeCode());
    }

    public HeaderFlyweight type(final MessageType type)
    {
        buffer.put(offset + TYPE_OFFSET, (byte)type.code());
        return this;
    }

    /** @return the raw BOOL byte of the exactly-once field. */
    public int exactlyOnceByte()
    {
        return buffer.get(offset + EXACTLY_ONCE_OFFSET) & 0xFF;
    }

    public boolean exactlyOnce()
    {
        return exactlyOnceByte() != 0;
    }

    public HeaderFlyweight exactlyOnce(final boolean exactlyOnce)
    {
        buffer.put(offset + EXACTLY_ONCE_OFFSET, (byte)(exactlyOnce ? 1 : 0));
        return this;
    }

    /** @return the message size in bytes, header included (CARD16, big-endian). */
    public int messageSize()
    {
        return ((buffer.get(offset + SIZE_OFFSET) & 0xFF) << 8) | (buffer.get(offset + SIZE_OFFSET + 1) & 0xFF);
    }

    public HeaderFlyweight messageSize(final int size)
    {
        if (size < HEADER_LENGTH || size > MAX_MESSAGE_SIZE)
        {
            throw new IllegalArgumentException("message size " + size + " outside " + HEADER_LENGTH + ".." + MAX_MESSAGE_SIZE);
        }
        buffer.put(offset + SIZE_OFFSET, (byte)(size >>> 8));
        buffer.put(offset + SIZE_OFFSET + 1, (byte)size);
        return this;
    }

    public int callSeq()
    {
        return buffer.get(offset + CALL_SEQ_OFFSET) & 0xFF;
    }

    public HeaderFlyweight callSeq(final int seq)
    {
        buffer.put(offset + CALL_SEQ_OFFSET, (byte)seq);
        return this;
    }

    public int packetSeq()
    {
        return buffer.get(offset + PACKET_SEQ_OFFSET) & 0xFF;
    }

    public HeaderFlyweight packetSeq(final int seq)
    {
        buffer.put(offset + PACKET_SEQ_OFFSET, (byte)seq);
        return this;
    }

    /** @return the raw BOOL byte of the fragmented field. */
    public int fragmentedByte()
    {
        return buffer.get(offset + FRAGMENTED_OFFSET) & 0xFF;
    }

    /** @return true when more packets cut from the same {@code send()} buffer follow this one. */
    public boolean fragmented()
    {
        return fragmentedByte() != 0;
    }

    public HeaderFlyweight fragmented(final boolean fragmented)
    {
        buffer.put(offset + FRAGMENTED_OFFSET, (byte)(fragmented ? 1 : 0));
        return this;
    }

    public int padding()
    {
        return buffer.get(offset + PADDING_OFFSET) & 0xFF;
    }

    /** Writes every field at once; padding is written as 0. */
    public HeaderFlyweight set(
        final MessageType type,
        final boolean exactlyOnce,
        final int messageSize,
        final int callSeq,
        final int packetSeq,
        final boolean fragmented)
    {
        type(type).exactlyOnce(exactlyOnce).messageSize(messageSize).callSeq(callSeq).packetSeq(packetSeq).fragmented(fragmented);
        buffer.put(offset + PADDING_OFFSET, (byte)0);
        return this;
    }

    /**
     * Checks the header against the length of the datagram that carried it.
     *
     * @param packetLength bytes from the header's first byte to the end of the datagram.
     * @return null when the header is well formed, otherwise the reason it is not.
     */
    public Invalid validate(final int packetLength)
    {
        if (packetLength < HEADER_LENGTH)
        {
            return Invalid.TRUNCATED;
        }
        if (type() == null)
        {
            return Invalid.UNKNOWN_TYPE;
        }
        if (messageSize() != packetLength)
        {
            return Invalid.SIZE_MISMATCH;
        }
        if (exactlyOnceByte() > 1 || fragmentedByte() > 1)
        {
            return Invalid.BAD_BOOLEAN;
        }
        return null;
    }

    /** Why a received header was rejected; each reason has its own drop counter. */
    public enum Invalid
    {
        TRUNCATED,
        UNKNOWN_TYPE,
        SIZE_MISMATCH,
        BAD_BOOLEAN
    }

    /** @return a ByteOrder-independent note: every multi-byte field here is big-endian. */
    public static ByteOrder byteOrder()
    {
        return ByteOrder.BIG_ENDIAN;
    }

    @Override
    public String toString()
    {
        if (buffer == null || buffer.limit() - offset < HEADER_LENGTH)
        {
            return "Header{unwrapped}";
        }
        return "Header{type=" + (type() != null ? type() : "?" + typeCode()) +
            ", exactlyOnce=" + exactlyOnceByte() +
            ", size=" + messageSize() +
            ", callSeq=" + callSeq() +
            ", packetSeq=" + packetSeq() +
            ", fragmented=" + fragmentedByte() +
            ", padding=" + padding() + '}';
    }
}
