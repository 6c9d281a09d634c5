package org.lightwire.transport.link.memory;

import java.nio.ByteBuffer;

import org.lightwire.transport.protocol.MessageType;

/**
 * The two kinds of packet that faults are configured for separately: data (PARTIAL and
 * COMPLETE) and control (CALL_ACK, NACK, RECLAIM, RECLAIM_ACK), after the paper's split of
 * Table 1 into message-carrying and control types.
 *
 * <p>The kind is read from the first byte alone, so that a test can inject short or malformed
 * packets: an empty packet or one whose type code is unknown counts as data and is still carried.
 */
public enum PacketKind
{
    DATA,
    CONTROL;

    /**
     * @param packet the packet from its position to its limit; neither is changed.
     * @return CONTROL when the first byte is a control type code, otherwise DATA.
     */
    public static PacketKind of(final ByteBuffer packet)
    {
        if (!packet.hasRemaining())
        {
            return DATA;
        }
        return ofTypeCode(packet.get(packet.position()) & 0xFF);
    }

    static PacketKind of(final byte[] packet)
    {
        return packet.length < 1 ? DATA : ofTypeCode(packet[0] & 0xFF);
    }

    private static PacketKind ofTypeCode(final int typeCode)
    {
        final MessageType type = MessageType.fromCode(typeCode);
        return type != null && type.isControl() ? CONTROL : DATA;
    }
}
