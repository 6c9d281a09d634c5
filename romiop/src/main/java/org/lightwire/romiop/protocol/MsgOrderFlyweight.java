package org.lightwire.romiop.protocol;

import java.nio.ByteOrder;

/**
 * ROMIOP MsgOrder (type 7), the paper's addition (section 3.3): the leader's decision on the
 * delivery order. "There is an identification of who sent the message and a list with a structure
 * ... that contains the identification of the message"; members deliver in the order of the list.
 *
 * <p>Beyond the paper: each entry has an order sequence number, {@code first_order_seq + index},
 * counting from 1 without gaps over the group's life. A member that receives entries past the next
 * number it expects knows it lost a MsgOrder and NAKs from that number. Because the list names
 * every request by (sender_id, packet_id) explicitly, the paper's tie rule (equal ids: the lesser
 * member first) is not needed on the wire; it is how the leader could sort one batch.
 *
 * <p>Also beyond the paper: a MsgOrder may carry requests. A client may send a small Request to
 * the sequencer alone (header flags bit 2); the sequencer then appends that Request, whole and
 * with the flag clear, after the entries of the MsgOrder that orders it, so the group receives
 * request and order in one datagram (Amoeba's "PB" method). {@code carried_count} says how many
 * Request packets follow the entries; each is delimited by its own {@code packet_size}, and each
 * is named by one of this order's entries.
 *
 * <p>Wire 1.1: {@code epoch} is the view the leader orders in (from 1); a member takes orders of
 * its own epoch only. {@code commit} is the highest order sequence number the leader knows a
 * majority of the configuration holds; a member delivers no further than that (docs/romiop.md,
 * "Commit before delivery").
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |               PacketHeader_1_0 (12 bytes, type 7)             |
 *  +---------------------------------------------------------------+
 *  |                   sender_id (leader)                          |
 *  +---------------------------------------------------------------+
 *  |                   packet_id (Lamport)                         |
 *  +---------------------------------------------------------------+
 *  |                   first_order_seq (unsigned long long)        |
 *  |                                                               |
 *  +-------------------------------+-------------------------------+
 *  |     entry_count (ushort)      |    carried_count (ushort)     |
 *  +-------------------------------+-------------------------------+
 *  |                   epoch (unsigned long)                       |
 *  +---------------------------------------------------------------+
 *  |                   commit (unsigned long long)                 |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |   entry_count x { request sender_id, request packet_id }      |
 *  +---------------------------------------------------------------+
 *  |   carried_count x Request packet (header included) ...        |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class MsgOrderFlyweight extends PacketFlyweight
{
    public static final int FIRST_ORDER_SEQ_OFFSET = 8;
    public static final int ENTRY_COUNT_OFFSET = 16;
    public static final int CARRIED_COUNT_OFFSET = 18;
    public static final int EPOCH_OFFSET = 20;
    public static final int COMMIT_OFFSET = 24;
    public static final int ENTRIES_OFFSET = 32;
    public static final int ENTRY_LENGTH = 8;
    public static final int HEADER_LENGTH = PacketHeader_1_0.HEADER_LENGTH + ENTRIES_OFFSET;

    /** Reads the headers of carried requests while validating. */
    private final PacketHeader_1_0 carriedHeader = new PacketHeader_1_0();

    @Override
    public PacketType packetType()
    {
        return PacketType.MSG_ORDER;
    }

    @Override
    protected int fixedBodyLength()
    {
        return ENTRIES_OFFSET;
    }

    public static int length(final int entryCount)
    {
        return HEADER_LENGTH + entryCount * ENTRY_LENGTH;
    }

    /** Writes the fixed part; fill the entries with {@link #entry}. */
    public MsgOrderFlyweight set(final ByteOrder order, final int senderId, final int packetId, final int epoch,
        final long firstOrderSeq, final int entryCount, final long commit)
    {
        init(order, true, length(entryCount), senderId, packetId);
        putI64(FIRST_ORDER_SEQ_OFFSET, firstOrderSeq);
        putU16(ENTRY_COUNT_OFFSET, entryCount);
        putU16(CARRIED_COUNT_OFFSET, 0);
        putI32(EPOCH_OFFSET, epoch);
        putI64(COMMIT_OFFSET, commit);
        return this;
    }

    /** @return the view the leader ordered in. */
    public int epoch()
    {
        return getI32(EPOCH_OFFSET);
    }

    /** @return the highest order sequence number the leader knew to be committed. */
    public long commit()
    {
        return getI64(COMMIT_OFFSET);
    }

    /** @return absolute index in the buffer where the next carried Request is, or is to be written. */
    public int end()
    {
        return offset + packetSize();
    }

    /**
     * Counts one Request the caller has written at {@link #end()} (after every entry is set): the
     * packet grows by its {@code packet_size}.
     */
    public MsgOrderFlyweight carried(final int requestPacketSize)
    {
        putU16(CARRIED_COUNT_OFFSET, carriedCount() + 1);
        header.packetSize(packetSize() + requestPacketSize);
        return this;
    }

    public int carriedCount()
    {
        return getU16(CARRIED_COUNT_OFFSET);
    }

    /** @return absolute index in the buffer of the first carried Request (they follow one another). */
    public int firstCarried()
    {
        return body(ENTRIES_OFFSET + entryCount() * ENTRY_LENGTH);
    }

    public MsgOrderFlyweight entry(final int index, final int requestSenderId, final int requestPacketId)
    {
        putI32(ENTRIES_OFFSET + index * ENTRY_LENGTH, requestSenderId);
        putI32(ENTRIES_OFFSET + index * ENTRY_LENGTH + 4, requestPacketId);
        return this;
    }

    public long firstOrderSeq()
    {
        return getI64(FIRST_ORDER_SEQ_OFFSET);
    }

    public int entryCount()
    {
        return getU16(ENTRY_COUNT_OFFSET);
    }

    public int entrySenderId(final int index)
    {
        return getI32(ENTRIES_OFFSET + index * ENTRY_LENGTH);
    }

    public int entryPacketId(final int index)
    {
        return getI32(ENTRIES_OFFSET + index * ENTRY_LENGTH + 4);
    }

    @Override
    protected Invalid validateBody(final int bodyLength)
    {
        final int entriesEnd = ENTRIES_OFFSET + entryCount() * ENTRY_LENGTH;
        if (bodyLength < entriesEnd || entryCount() == 0 || carriedCount() > entryCount())
        {
            return Invalid.BAD_COUNT;
        }
        // Each carried Request is delimited by its own packet_size; together they end the packet.
        int at = entriesEnd;
        for (int i = 0; i < carriedCount(); i++)
        {
            final int left = bodyLength - at;
            if (left < RequestFlyweight.HEADER_LENGTH)
            {
                return Invalid.BAD_COUNT;
            }
            carriedHeader.wrap(buffer, body(at));
            final long size = carriedHeader.packetSize();
            if (!carriedHeader.magicMatches() || carriedHeader.typeCode() != PacketType.REQUEST.code() ||
                size < RequestFlyweight.HEADER_LENGTH || size > left)
            {
                return Invalid.BAD_FIELD;
            }
            at += (int)size;
        }
        if (at != bodyLength)
        {
            return Invalid.BAD_COUNT;
        }
        return firstOrderSeq() < 1 || epoch() == 0 || commit() < 0 ? Invalid.BAD_FIELD : null;
    }

    @Override
    public String toString()
    {
        if (!wrapped())
        {
            return "MsgOrder{unwrapped}";
        }
        final StringBuilder sb = describe("MsgOrder").append(", epoch=").append(Integer.toUnsignedString(epoch()))
            .append(", commit=").append(commit()).append(", firstOrderSeq=").append(firstOrderSeq()).append(", entries=[");
        final int n = Math.min(entryCount(), (buffer.limit() - body(ENTRIES_OFFSET)) / ENTRY_LENGTH);
        for (int i = 0; i < n; i++)
        {
            sb.append(i == 0 ? "" : ", ").append(entrySenderId(i)).append(':').append(Integer.toUnsignedString(entryPacketId(i)));
        }
        sb.append(']');
        if (carriedCount() > 0)
        {
            sb.append(", carried=").append(carriedCount());
        }
        return sb.append('}').toString();
    }
}
