package org.lightwire.transport.engine;

import org.lightwire.transport.protocol.SequenceSpace;

/**
 * The filter module (paper, section 3): classifies a received data packet against the expected
 * call and packet sequence numbers with 8-bit sequence-space arithmetic. Pure and stateless; the
 * engine keeps the expectations and decides what a class means in its state.
 */
public final class Filter
{
    private Filter()
    {
    }

    /**
     * @param currentCall the call the receiver is in, or last finished.
     * @param expectedPacket the next packet sequence number expected of the current call.
     * @param currentCallDone true when the current call's message was received whole (or given
     *                        up): any further packet of it is a duplicate.
     * @param call the call sequence number of the received packet.
     * @param packet the packet sequence number of the received packet.
     */
    public static PacketClass classify(
        final int currentCall,
        final int expectedPacket,
        final boolean currentCallDone,
        final int call,
        final int packet)
    {
        final int callDistance = SequenceSpace.distance(currentCall, call);
        if (callDistance > 0)
        {
            return packet == 0 ? PacketClass.NEW_CALL : PacketClass.NEW_CALL_START_MISSING;
        }
        if (callDistance < 0 || currentCallDone)
        {
            return PacketClass.DUPLICATE;
        }
        final int packetDistance = SequenceSpace.distance(expectedPacket, packet);
        if (packetDistance == 0)
        {
            return PacketClass.IN_SEQUENCE;
        }
        return packetDistance < 0 ? PacketClass.DUPLICATE : PacketClass.OUT_OF_SEQUENCE;
    }

    /** @return how many calls lie strictly between the current call and {@code call} (case vi). */
    public static int callsSkipped(final int currentCall, final int call)
    {
        return Math.max(0, SequenceSpace.distance(currentCall, call) - 1);
    }
}
