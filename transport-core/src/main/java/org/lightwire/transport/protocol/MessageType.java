package org.lightwire.transport.protocol;

/**
 * The on-wire message types of omniTransport (paper, Table 1, the rows of "on-wire" scope).
 *
 * <p>The numeric codes are fixed by {@code docs/protocol.md}; they never change. Code 0 is
 * reserved so that an all-zero datagram is never mistaken for a packet.
 */
public enum MessageType
{
    /** A packet of a message that is not its last. */
    PARTIAL(1, false),
    /** The last packet of a message (request or reply). */
    COMPLETE(2, false),
    /** Client to server: the reply of the named call was received whole (the ack timer fired). */
    CALL_ACK(3, true),
    /** Request retransmission of the named call from the named packet sequence number on. */
    NACK(4, true),
    /** Ask the receiver to acknowledge at once every packet of the named call it holds. */
    RECLAIM(5, true),
    /** Every packet of the named call before the named packet sequence number was received. */
    RECLAIM_ACK(6, true);

    private static final MessageType[] BY_CODE = new MessageType[256];

    static
    {
        for (final MessageType type : values())
        {
            BY_CODE[type.code] = type;
        }
    }

    private final int code;
    private final boolean control;

    MessageType(final int code, final boolean control)
    {
        this.code = code;
        this.control = control;
    }

    /** @return the CARD8 code that goes on the wire. */
    public int code()
    {
        return code;
    }

    /** @return true for the control types that are handled before data (A1's priority queue). */
    public boolean isControl()
    {
        return control;
    }

    /** @return true for PARTIAL and COMPLETE, the types that carry a message's bytes. */
    public boolean isData()
    {
        return !control;
    }

    /**
     * @param code a CARD8 from the wire, 0 to 255.
     * @return the type, or null when the code is not one of Table 1's on-wire types.
     */
    public static MessageType fromCode(final int code)
    {
        return (code & 0xFF) == code ? BY_CODE[code] : null;
    }
}
