package org.lightwire.transport.engine;

/**
 * The filter module (paper, section 3): classifies a received data packet against the expected
 * call and packet numbers. Pure and stateless; the engine keeps the expectations and decides what
 * a class means in its state.
 *
 * <p>The numbers are the header's wide ones (a CARD48 call number, a CARD32 packet number), which
 * never wrap within a connection's life. A packet of an earlier call is therefore always a
 * duplicate, however late it comes: the paper's 8-bit numbers, compared modulo 256, took a packet
 * 128 or more calls old for one of a call ahead.
 */
public final class Filter
{
    private Filter()
    {
    }

    /**
     * @param currentCall the call the receiver is in, or last finished.
     * @param expectedPacket the next packet number expected of the current call.
     * @param currentCallDone true when the current call's message was received whole (or given
     *                        up): any further packet of it is a duplicate.
     * @param call the call number of the received packet.
     * @param packet the packet number of the received packet.
     */
    public static PacketClass classify(
        final long currentCall,
        final int expectedPacket,
        final boolean currentCallDone,
        final long call,
        final int packet)
    {
        if (call > currentCall)
        {
            return packet == 0 ? PacketClass.NEW_CALL : PacketClass.NEW_CALL_START_MISSING;
        }
        if (call < currentCall || currentCallDone || packet < expectedPacket)
        {
            return PacketClass.DUPLICATE;
        }
        return packet == expectedPacket ? PacketClass.IN_SEQUENCE : PacketClass.OUT_OF_SEQUENCE;
    }
}
