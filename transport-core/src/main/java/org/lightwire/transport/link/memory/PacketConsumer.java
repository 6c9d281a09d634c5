package org.lightwire.transport.link.memory;

import java.nio.ByteBuffer;

/**
 * Receives the packets a {@link SimulatedNetwork} delivers, typically by handing them to the
 * engine of the endpoint {@code to}.
 */
@FunctionalInterface
public interface PacketConsumer
{
    /**
     * @param to the endpoint the packet arrives at.
     * @param packet a heap buffer over this delivery's own copy of the packet, from position 0 to
     *               its length; the consumer may keep or modify it.
     * @param nowNs the virtual time the driver passed to the delivering call.
     */
    void onPacket(Side to, ByteBuffer packet, long nowNs);
}
