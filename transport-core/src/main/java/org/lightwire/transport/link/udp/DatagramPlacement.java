package org.lightwire.transport.link.udp;

import java.nio.ByteBuffer;

/**
 * Where a server connection's reader has the next datagram of the connection's own socket put
 * ({@link UdpServerConnection#receiveOnOwnSocket}): the receiving half of zero-copy
 * fragmentation, so that the payload of a request's next packet can land where the request is
 * being put together instead of being copied there.
 */
@FunctionalInterface
public interface DatagramPlacement
{
    /**
     * @param datagramBytes the longest datagram to read (one byte more than a connection
     *                      accepts, so that a longer one shows).
     * @param payloadOffset bytes of framing (the link's prefix and the engine's header) before a
     *                      packet's payload in a datagram.
     * @return a buffer with at least {@code datagramBytes} remaining; the datagram is read at
     *     its position and handed on from there.
     */
    ByteBuffer bufferFor(int datagramBytes, int payloadOffset);
}
