package org.lightwire.romiop.protocol;

/**
 * ROMIOP packet types, codes as in the paper's Figure 3 ({@code typedef octet PacketType}).
 * MsgOrder (7) is the paper's own addition (section 3.3); ViewChange (8) and OrderAck (9) are
 * ours, for views agreed by a majority; State (10) carries a member's state to a joiner.
 */
public enum PacketType
{
    REQUEST(0),
    REPLY(1),
    ACK(2),
    NAK(3),
    KEEP_ALIVE(4),
    CANCEL(5),
    MEMBER_CHANGE(6),
    MSG_ORDER(7),
    VIEW_CHANGE(8),
    ORDER_ACK(9),
    STATE(10);

    private static final PacketType[] BY_CODE = values();

    private final int code;

    PacketType(final int code)
    {
        this.code = code;
    }

    public int code()
    {
        return code;
    }

    /** @return the type for {@code code}, or null when the code is unknown. */
    public static PacketType fromCode(final int code)
    {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
