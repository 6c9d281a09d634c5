package org.lightwire.romiop.protocol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * ROMIOP State (type 10): state transfer between two members, unicast. A member that joined past
 * orders it did not execute ASKs a donor for a state taken after an order at or past
 * {@code cut}, from byte {@code offset} on, naming its transfer in {@code total} (a nonce, never 0:
 * a delayed copy of an ASK of a transfer the donor finished starts no new one); the donor answers with CHUNKs of the state it took
 * after order {@code cut} ({@code total} bytes in all, this one's bytes from {@code offset}), or
 * REFUSED with its reason as UTF-8 text when its application cannot give its state, or CAPTURING
 * while its application has not answered yet (the joiner then keeps asking that donor). Each
 * state a donor takes has a {@code snapshot} tag (never 0) that its CHUNKs carry; an ASK names
 * the tag its {@code offset} refers to (0: none yet), so a joiner never splices two states and a
 * donor never reads an offset against another state.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes, type 10)            |
 *  +---------------------------------------------------------------+
 *  |                   sender_id                                   |
 *  +---------------------------------------------------------------+
 *  |                   packet_id (Lamport)                         |
 *  +---------------+-----------------------------------------------+
 *  | kind (octet)  |   snapshot (24 bits; REFUSED, CAPTURING: 0)   |
 *  +---------------+-----------------------------------------------+
 *  |                   cut (unsigned long long)                    |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   offset (unsigned long)                      |
 *  +---------------------------------------------------------------+
 *  |        total (unsigned long; ASK: transfer nonce; REFUSED: 0) |
 *  +---------------------------------------------------------------+
 *  |                   data (CHUNK: state bytes; REFUSED: reason)  |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class StateFlyweight extends PacketFlyweight
{
    public static final int ASK = 0;
    public static final int CHUNK = 1;
    public static final int REFUSED = 2;
    public static final int CAPTURING = 3;
    public static final int KIND_OFFSET = 8;
    public static final int CUT_OFFSET = 12;
    public static final int STATE_OFFSET = 20;
    public static final int TOTAL_OFFSET = 24;
    public static final int BODY_LENGTH = 28;
    public static final int HEADER_LENGTH = PacketHeader_1_0.HEADER_LENGTH + BODY_LENGTH;

    @Override
    public PacketType packetType()
    {
        return PacketType.STATE;
    }

    @Override
    protected int fixedBodyLength()
    {
        return BODY_LENGTH;
    }

    /** Writes the fixed part for {@code dataLength} bytes of data, which the caller copies to {@link #dataOffset}. */
    public StateFlyweight set(final ByteOrder order, final int senderId, final int packetId, final int kind, final long cut,
        final int stateOffset, final int total, final int dataLength)
    {
        return set(order, senderId, packetId, kind, 0, cut, stateOffset, total, dataLength);
    }

    /** As {@link #set(ByteOrder, int, int, int, long, int, int, int)}, naming a snapshot (low 24 bits of {@code snapshot}). */
    public StateFlyweight set(final ByteOrder order, final int senderId, final int packetId, final int kind, final int snapshot,
        final long cut, final int stateOffset, final int total, final int dataLength)
    {
        init(order, false, HEADER_LENGTH + dataLength, senderId, packetId);
        putU8(KIND_OFFSET, kind);
        putU8(KIND_OFFSET + 1, (snapshot >>> 16) & 0xFF);
        putU16(KIND_OFFSET + 2, snapshot & 0xFFFF);
        putI64(CUT_OFFSET, cut);
        putI32(STATE_OFFSET, stateOffset);
        putI32(TOTAL_OFFSET, total);
        return this;
    }

    public int kind()
    {
        return getU8(KIND_OFFSET);
    }

    /** CHUNK: the tag of the state it is part of; ASK: the tag its offset refers to (0: none). */
    public int snapshot()
    {
        return (getU8(KIND_OFFSET + 1) << 16) | getU16(KIND_OFFSET + 2);
    }

    public long cut()
    {
        return getI64(CUT_OFFSET);
    }

    /** ASK: the transfer's nonce; CHUNK: the state's length. */
    public int transfer()
    {
        return getI32(TOTAL_OFFSET);
    }

    /** ASK: the first byte wanted; CHUNK: where its data goes in the state. */
    public int stateOffset()
    {
        return getI32(STATE_OFFSET);
    }

    public int total()
    {
        return getI32(TOTAL_OFFSET);
    }

    /** @return the absolute buffer index of the first data byte. */
    public int dataOffset()
    {
        return offset + HEADER_LENGTH;
    }

    public int dataLength()
    {
        return packetSize() - HEADER_LENGTH;
    }

    public ByteBuffer buffer()
    {
        return buffer;
    }

    @Override
    protected Invalid validateBody(final int bodyLength)
    {
        final int data = bodyLength - BODY_LENGTH;
        final int kind = kind();
        if (kind > CAPTURING || cut() < 0 || (kind == CHUNK) == (snapshot() == 0) && kind != ASK)
        {
            // A chunk names its snapshot; a refusal or a capturing notice names none.
            return Invalid.BAD_FIELD;
        }
        return switch (kind)
        {
            case ASK -> data != 0 ? Invalid.SIZE_MISMATCH : stateOffset() < 0 || total() == 0 ? Invalid.BAD_FIELD : null;
            // A chunk lies inside its state; only an empty state comes as a chunk without data.
            case CHUNK -> total() < 0 || stateOffset() < 0 || (data == 0 && total() != 0) || (long)stateOffset() + data > total() ?
                Invalid.BAD_FIELD : null;
            case CAPTURING -> data != 0 ? Invalid.SIZE_MISMATCH : stateOffset() != 0 || total() != 0 ? Invalid.BAD_FIELD : null;
            default -> stateOffset() != 0 || total() != 0 ? Invalid.BAD_FIELD : null;
        };
    }

    @Override
    public String toString()
    {
        if (!wrapped())
        {
            return "State{unwrapped}";
        }
        final String[] kinds = {"ASK", "CHUNK", "REFUSED", "CAPTURING"};
        return describe("State").append(", kind=").append(kind() <= CAPTURING ? kinds[kind()] : "?" + kind())
            .append(", snapshot=").append(snapshot()).append(", cut=").append(cut())
            .append(", offset=").append(stateOffset()).append(", total=").append(total()).append(", data=").append(dataLength())
            .append('}').toString();
    }
}
