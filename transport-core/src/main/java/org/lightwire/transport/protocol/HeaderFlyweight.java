package org.lightwire.transport.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Flyweight over the 16-byte header of every Lightwire packet: the 8-byte omniTransport header
 * (paper, Table 2), field for field, followed by the sequence extension, which carries the
 * high-order bits of the call and packet numbers whose low-order bytes are the paper's 8-bit
 * sequence fields.
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
 *  |          call number, bits 8..39 (CARD32 of a CARD40)         |
 *  +---------------+-----------------------------------------------+
 *  | call, 40..47  |      packet number, bits 8..31 (CARD24)       |
 *  +---------------+-----------------------------------------------+
 * </pre>
 *
 * <p>The call number is a CARD48 and the packet number a CARD32 whose top bit must be 0: call
 * number = bytes 8..12 shifted left by 8, or'ed with the call sequence byte; packet number =
 * bytes 13..15 shifted left by 8, or'ed with the packet sequence byte. Neither wraps within a
 * connection's life, so a delayed or replayed packet can always be told from a new one (the
 * paper's 8-bit numbers, compared modulo 256, could not: see {@code docs/protocol.md}).
 *
 * <p>Multi-byte fields are in network byte order (big-endian), whatever the buffer's own order.
 * A BOOL is 0 for false and 1 for true; the parser accepts only those two values. The flyweight
 * holds no state but the buffer and offset it is wrapped around, so one instance serves every
 * packet of a connection without allocation.
 */
public final class HeaderFlyweight
{
    /** Length of the header in bytes: the paper's 8 and the 8-byte sequence extension. */
    public static final int HEADER_LENGTH = 16;
    /** Length of the paper's part of the header. */
    public static final int PAPER_HEADER_LENGTH = 8;
    /** Largest message size the CARD16 size field can express, header included. */
    public static final int MAX_MESSAGE_SIZE = 0xFFFF;
    /** Largest call number: a CARD48. */
    public static final long MAX_CALL_NUMBER = (1L << 48) - 1;
    /** Largest packet number: a CARD32 whose top bit is 0. */
    public static final int MAX_PACKET_NUMBER = Integer.MAX_VALUE;

    public static final int TYPE_OFFSET = 0;
    public static final int EXACTLY_ONCE_OFFSET = 1;
    public static final int SIZE_OFFSET = 2;
    public static final int CALL_SEQ_OFFSET = 4;
    public static final int PACKET_SEQ_OFFSET = 5;
    public static final int FRAGMENTED_OFFSET = 6;
    public static final int PADDING_OFFSET = 7;
    /** Bits 8..47 of the call number, CARD40 big-endian. */
    public static final int CALL_HIGH_OFFSET = 8;
    /** Bits 8..31 of the packet number, CARD24 big-endian. */
    public static final int PACKET_HIGH_OFFSET = 13;

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

    /** @return the paper's call sequence field: the low 8 bits of {@link #callNumber()}. */
    public int callSeq()
    {
        return buffer.get(offset + CALL_SEQ_OFFSET) & 0xFF;
    }

    /** @return the paper's packet sequence field: the low 8 bits of {@link #packetNumber()}. */
    public int packetSeq()
    {
        return buffer.get(offset + PACKET_SEQ_OFFSET) & 0xFF;
    }

    /** @return the call number, 0 to {@link #MAX_CALL_NUMBER}: the extension's high bits and the call sequence byte. */
    public long callNumber()
    {
        long high = 0;
        for (int i = 0; i < 5; i++)
        {
            high = (high << 8) | (buffer.get(offset + CALL_HIGH_OFFSET + i) & 0xFF);
        }
        return (high << 8) | callSeq();
    }

    /**
     * @return the packet number within its message: the extension's high bits and the packet
     *     sequence byte; negative when the top bit is set, which {@link #validate} refuses.
     */
    public int packetNumber()
    {
        final int high = ((buffer.get(offset + PACKET_HIGH_OFFSET) & 0xFF) << 16) |
            ((buffer.get(offset + PACKET_HIGH_OFFSET + 1) & 0xFF) << 8) |
            (buffer.get(offset + PACKET_HIGH_OFFSET + 2) & 0xFF);
        return (high << 8) | packetSeq();
    }

    /** Writes the call number: its low byte in the call sequence field, the rest in the extension. */
    public HeaderFlyweight callNumber(final long call)
    {
        if (call < 0 || call > MAX_CALL_NUMBER)
        {
            throw new IllegalArgumentException("call number " + call + " outside 0.." + MAX_CALL_NUMBER);
        }
        buffer.put(offset + CALL_SEQ_OFFSET, (byte)call);
        final long high = call >>> 8;
        for (int i = 0; i < 5; i++)
        {
            buffer.put(offset + CALL_HIGH_OFFSET + i, (byte)(high >>> (8 * (4 - i))));
        }
        return this;
    }

    /** Writes the packet number: its low byte in the packet sequence field, the rest in the extension. */
    public HeaderFlyweight packetNumber(final int packet)
    {
        if (packet < 0)
        {
            throw new IllegalArgumentException("packet number " + packet + " outside 0.." + MAX_PACKET_NUMBER);
        }
        buffer.put(offset + PACKET_SEQ_OFFSET, (byte)packet);
        buffer.put(offset + PACKET_HIGH_OFFSET, (byte)(packet >>> 24));
        buffer.put(offset + PACKET_HIGH_OFFSET + 1, (byte)(packet >>> 16));
        buffer.put(offset + PACKET_HIGH_OFFSET + 2, (byte)(packet >>> 8));
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
        final long callNumber,
        final int packetNumber,
        final boolean fragmented)
    {
        type(type).exactlyOnce(exactlyOnce).messageSize(messageSize).callNumber(callNumber).packetNumber(packetNumber)
            .fragmented(fragmented);
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
        if (packetNumber() < 0)
        {
            return Invalid.BAD_NUMBER;
        }
        return null;
    }

    /** Why a received header was rejected; each reason has its own drop counter. */
    public enum Invalid
    {
        TRUNCATED,
        UNKNOWN_TYPE,
        SIZE_MISMATCH,
        BAD_BOOLEAN,
        /** A packet number with its top bit set. */
        BAD_NUMBER
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
            ", call=" + callNumber() +
            ", packet=" + packetNumber() +
            ", fragmented=" + fragmentedByte() +
            ", padding=" + padding() + '}';
    }
}
