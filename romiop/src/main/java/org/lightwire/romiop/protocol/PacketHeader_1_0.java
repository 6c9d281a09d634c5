package org.lightwire.romiop.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Flyweight over the 12-byte ROMIOP packet header, field for field as the paper's Figure 3
 * ({@code struct PacketHeader_1_0}).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+---------------+---------------+
 *  |                magic[4] = 'R' 'M' 'O' 'P'                     |
 *  +---------------+---------------+-------------------------------+
 *  | version 0x11  |     flags     |     packet_type (short)       |
 *  +---------------+---------------+-------------------------------+
 *  |              packet_size (unsigned long, header included)     |
 *  +---------------------------------------------------------------+
 *
 *  flags: bit 0 = byte order (0 big-endian, 1 little-endian, as GIOP),
 *         bit 1 = ACK requested,
 *         bit 2 = to the sequencer (Request only: sent to the leader alone, which carries it to
 *                 the group inside its MsgOrder),
 *         bit 3 = piece (Reply only: the payload is a {@link FragmentHeader} and a piece of the
 *                 reply),
 *         bit 4 = report (MsgOrder and KeepAlive only: part of a survivor's report to the member
 *                 taking over),
 *         bit 5 = unproven (a report's KeepAlive only: its sender may be a restarted process, one
 *                 started from the founding configuration that accepted nothing since); told (a
 *                 KeepAlive that is no report: a member telling a leader of an older epoch the
 *                 epoch it is in, no leader's word),
 *         bit 6 = founding promise (a report's KeepAlive only: its sender, in this incarnation,
 *                 promised a founding leader's check its epoch); start (a KeepAlive that is no
 *                 report: the leader's word to a joiner it admitted on where it starts),
 *         bit 7 = proves nothing (a report's KeepAlive only: no takeover may count it).
 * </pre>
 *
 * <p>The version octet is major in the high nibble and minor in the low one (0x11 = 1.1). Every
 * multi-byte field after the magic, in the header and in the body, is in the byte order that
 * flags bit 0 names: the sender writes its native order, the receiver converts, as GIOP does.
 */
public final class PacketHeader_1_0
{
    public static final int HEADER_LENGTH = 12;
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 4;
    public static final int FLAGS_OFFSET = 5;
    public static final int TYPE_OFFSET = 6;
    public static final int SIZE_OFFSET = 8;

    public static final byte[] MAGIC = {'R', 'M', 'O', 'P'};
    /**
     * Wire version 1.1: 1.0's packets, with the epoch and the commit in MsgOrder and KeepAlive, and
     * ViewChange and OrderAck. A packet of another version is dropped ({@link Invalid#BAD_VERSION}).
     */
    public static final int VERSION_1_1 = 0x11;
    public static final int FLAG_LITTLE_ENDIAN = 0x01;
    public static final int FLAG_ACK_REQUESTED = 0x02;
    /** Request only: sent to the sequencer alone, which carries it to the group in its MsgOrder. */
    public static final int FLAG_TO_SEQUENCER = 0x04;
    /** Reply only: a piece of a reply too large for one packet, behind a {@link FragmentHeader}. */
    public static final int FLAG_PIECE = 0x08;
    /**
     * MsgOrder and KeepAlive only: part of a survivor's report to the member taking over (its
     * undelivered orders; the KeepAlive that ends it), not a leader's order or probe.
     */
    public static final int FLAG_REPORT = 0x10;
    /** A report's KeepAlive only: its sender may be a restarted process (it accepted nothing since its founding start). */
    public static final int FLAG_UNPROVEN = 0x20;
    /** A report's KeepAlive only: its sender promised a founding leader's check its epoch, in this incarnation. */
    public static final int FLAG_FOUNDING_PROMISE = 0x40;
    /**
     * A report's KeepAlive only: no takeover counts its sender, which knows it restarted (its
     * start count) and has accepted nothing since.
     */
    public static final int FLAG_PROVES_NOTHING = 0x80;
    static final int FLAGS_RESERVED_MASK = 0x00;

    private ByteBuffer buffer;
    private int offset;

    public PacketHeader_1_0 wrap(final ByteBuffer buffer, final int offset)
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

    /** Writes magic, version 1.0, flags, type and size in {@code order}. */
    public PacketHeader_1_0 set(final ByteOrder order, final boolean ackRequested, final PacketType type, final int packetSize)
    {
        for (int i = 0; i < MAGIC.length; i++)
        {
            buffer.put(offset + MAGIC_OFFSET + i, MAGIC[i]);
        }
        buffer.put(offset + VERSION_OFFSET, (byte)VERSION_1_1);
        buffer.put(offset + FLAGS_OFFSET,
            (byte)((order == ByteOrder.LITTLE_ENDIAN ? FLAG_LITTLE_ENDIAN : 0) | (ackRequested ? FLAG_ACK_REQUESTED : 0)));
        Bytes.putU16(buffer, offset + TYPE_OFFSET, type.code(), order);
        Bytes.putI32(buffer, offset + SIZE_OFFSET, packetSize, order);
        return this;
    }

    public boolean magicMatches()
    {
        for (int i = 0; i < MAGIC.length; i++)
        {
            if (buffer.get(offset + MAGIC_OFFSET + i) != MAGIC[i])
            {
                return false;
            }
        }
        return true;
    }

    public int version()
    {
        return buffer.get(offset + VERSION_OFFSET) & 0xFF;
    }

    public int flags()
    {
        return buffer.get(offset + FLAGS_OFFSET) & 0xFF;
    }

    /** @return the byte order of every multi-byte field, from flags bit 0. */
    public ByteOrder byteOrder()
    {
        return (flags() & FLAG_LITTLE_ENDIAN) != 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
    }

    public boolean ackRequested()
    {
        return (flags() & FLAG_ACK_REQUESTED) != 0;
    }

    /** @return flags bit 2: a Request sent to the sequencer alone, for it to carry to the group. */
    public boolean toSequencer()
    {
        return (flags() & FLAG_TO_SEQUENCER) != 0;
    }

    /** Sets or clears flags bit 2 of a header already written. */
    public PacketHeader_1_0 toSequencer(final boolean on)
    {
        return flag(FLAG_TO_SEQUENCER, on);
    }

    /** @return flags bit 3: a Reply that carries a piece of a reply too large for one packet. */
    public boolean piece()
    {
        return (flags() & FLAG_PIECE) != 0;
    }

    /** Sets or clears flags bit 3 of a header already written. */
    public PacketHeader_1_0 piece(final boolean on)
    {
        return flag(FLAG_PIECE, on);
    }

    /** @return flags bit 4: a MsgOrder or KeepAlive of a survivor's report to the member taking over. */
    public boolean report()
    {
        return (flags() & FLAG_REPORT) != 0;
    }

    /** Sets or clears flags bit 4 of a header already written. */
    public PacketHeader_1_0 report(final boolean on)
    {
        return flag(FLAG_REPORT, on);
    }

    /** A KeepAlive that is no report only (bit 5, as {@link #FLAG_UNPROVEN} on a report's): a member telling a leader of an older epoch its own. */
    public static final int FLAG_TOLD = 0x20;

    /** @return flags bit 5 of a KeepAlive that is no report: a member's word of its epoch to an older epoch's leader, no leader's. */
    public boolean told()
    {
        return !report() && (flags() & FLAG_TOLD) != 0;
    }

    /** Sets or clears flags bit 5 of a header already written (a KeepAlive that is no report). */
    public PacketHeader_1_0 told(final boolean on)
    {
        return flag(FLAG_TOLD, on);
    }

    /** @return flags bit 5: the sender of this report may be a restarted process. */
    public boolean unproven()
    {
        return (flags() & FLAG_UNPROVEN) != 0;
    }

    /** Sets or clears flags bit 5 of a header already written. */
    public PacketHeader_1_0 unproven(final boolean on)
    {
        return flag(FLAG_UNPROVEN, on);
    }

    /** A KeepAlive that is no report only (bit 6, as {@link #FLAG_FOUNDING_PROMISE} on a report's): the leader's word to a joiner on where it starts. */
    public static final int FLAG_START = 0x40;

    /** @return flags bit 6 of a KeepAlive that is no report: the leader's word to a joiner it admitted on where it starts. */
    public boolean start()
    {
        return !report() && (flags() & FLAG_START) != 0;
    }

    /** Sets or clears flags bit 6 of a header already written (a KeepAlive that is no report). */
    public PacketHeader_1_0 start(final boolean on)
    {
        return flag(FLAG_START, on);
    }

    /** @return flags bit 6: the sender of this report promised a founding leader's check its epoch. */
    public boolean foundingPromise()
    {
        return (flags() & FLAG_FOUNDING_PROMISE) != 0;
    }

    /** Sets or clears flags bit 6 of a header already written. */
    public PacketHeader_1_0 foundingPromise(final boolean on)
    {
        return flag(FLAG_FOUNDING_PROMISE, on);
    }

    /** @return flags bit 7: no takeover may count this report. */
    public boolean provesNothing()
    {
        return (flags() & FLAG_PROVES_NOTHING) != 0;
    }

    /** Sets or clears flags bit 7 of a header already written. */
    public PacketHeader_1_0 provesNothing(final boolean on)
    {
        return flag(FLAG_PROVES_NOTHING, on);
    }

    private PacketHeader_1_0 flag(final int bit, final boolean on)
    {
        buffer.put(offset + FLAGS_OFFSET, (byte)(on ? flags() | bit : flags() & ~bit));
        return this;
    }

    /** @return packet_type as a raw unsigned short in the packet's byte order. */
    public int typeCode()
    {
        return Bytes.getU16(buffer, offset + TYPE_OFFSET, byteOrder());
    }

    /** @return the type, or null when the code is unknown. */
    public PacketType type()
    {
        return PacketType.fromCode(typeCode());
    }

    /** Rewrites packet_size of a header already written (a packet that grew). */
    public PacketHeader_1_0 packetSize(final int packetSize)
    {
        Bytes.putI32(buffer, offset + SIZE_OFFSET, packetSize, byteOrder());
        return this;
    }

    /** @return packet_size: bytes of the whole packet, header included (unsigned long). */
    public long packetSize()
    {
        return Bytes.getI32(buffer, offset + SIZE_OFFSET, byteOrder()) & 0xFFFF_FFFFL;
    }

    /**
     * @param packetLength bytes from the header's first byte to the end of the datagram.
     * @return null when the header is well formed, otherwise the reason it is not.
     */
    public Invalid validate(final int packetLength)
    {
        if (packetLength < HEADER_LENGTH)
        {
            return Invalid.TRUNCATED;
        }
        if (!magicMatches())
        {
            return Invalid.BAD_MAGIC;
        }
        if (version() != VERSION_1_1)
        {
            return Invalid.BAD_VERSION;
        }
        if ((flags() & FLAGS_RESERVED_MASK) != 0)
        {
            return Invalid.BAD_FLAGS;
        }
        if (type() == null)
        {
            return Invalid.UNKNOWN_TYPE;
        }
        if ((toSequencer() && type() != PacketType.REQUEST) || (piece() && type() != PacketType.REPLY) ||
            (report() && type() != PacketType.MSG_ORDER && type() != PacketType.KEEP_ALIVE) ||
            (unproven() && type() != PacketType.KEEP_ALIVE) ||
            (foundingPromise() && type() != PacketType.KEEP_ALIVE) || (start() && told()) ||
            (provesNothing() && (!report() || type() != PacketType.KEEP_ALIVE)))
        {
            return Invalid.BAD_FLAGS;
        }
        if (packetSize() != packetLength)
        {
            return Invalid.SIZE_MISMATCH;
        }
        return null;
    }

    @Override
    public String toString()
    {
        if (buffer == null || buffer.limit() - offset < HEADER_LENGTH)
        {
            return "PacketHeader_1_0{unwrapped}";
        }
        return "PacketHeader_1_0{magic=" + (magicMatches() ? "RMOP" : "?") +
            ", version=0x" + Integer.toHexString(version()) +
            ", flags=0x" + Integer.toHexString(flags()) +
            ", order=" + byteOrder() +
            ", type=" + (type() != null ? type() : "?" + typeCode()) +
            ", size=" + packetSize() + '}';
    }
}
