package org.lightwire.transport.engine;

/**
 * The context the filter adds to a received data packet before the engine sees it (paper,
 * section 3, item 2): where it stands against the expected call and packet sequence numbers.
 */
public enum PacketClass
{
    /** The packet the engine expects next. */
    IN_SEQUENCE,
    /** Already received: a packet of an earlier call, or before the expected one of this call. */
    DUPLICATE,
    /** Of the current call but ahead of the expected packet: something was lost (SEQ). */
    OUT_OF_SEQUENCE,
    /** The first packet (packet sequence 0) of a call after the current one. */
    NEW_CALL,
    /** A later packet of a call after the current one: that call's first packet was lost. */
    NEW_CALL_START_MISSING
}
