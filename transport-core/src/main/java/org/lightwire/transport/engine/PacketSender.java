package org.lightwire.transport.engine;

import java.nio.ByteBuffer;

/**
 * The narrow output of a protocol engine: one packet, as header and payload, to the network.
 *
 * <p>The engine calls this synchronously and reuses the header buffer as soon as the call
 * returns; the payload stays owned by the engine (it may be retransmitted). An implementation
 * that hits a hard network error reports it to its driver, which then calls
 * {@code onHardError} on the engine; it never throws into the engine.
 */
@FunctionalInterface
public interface PacketSender
{
    /**
     * @param header the 8-byte header, from position to limit.
     * @param payload the payload from position to limit, or null for control packets.
     */
    void sendPacket(ByteBuffer header, ByteBuffer payload);
}
