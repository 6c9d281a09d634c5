package org.lightwire.transport.link.udp;

import java.nio.ByteBuffer;

/**
 * The server application's side of a {@link UdpServerEndpoint}: every method is called on the
 * endpoint's receive thread (its own thread, or its Netty event loop; see
 * {@link UdpLinkConfig#serverIo()}), one at a time, and must not block. An exception thrown from
 * a method is caught and counted ({@link UdpServerEndpoint#handlerErrors()}), never propagated.
 */
public interface ServerPacketHandler
{
    /**
     * A client opened a connection; called before the ACCEPT is sent. Closing {@code connection}
     * here refuses it (no ACCEPT is sent).
     */
    default void onConnect(final UdpServerConnection connection)
    {
    }

    /**
     * A packet of {@code connection} arrived.
     *
     * @param connection the connection the datagram's prefix named, from its client's address.
     * @param packet the omniTransport packet (header and payload, prefix stripped) from the
     *     buffer's position to its limit; the position need not be 0. The buffer belongs to the
     *     endpoint and is valid only during this call: copy what must outlive it.
     * @param nowNs {@link System#nanoTime()} when the datagram was taken from the socket.
     */
    void onPacket(UdpServerConnection connection, ByteBuffer packet, long nowNs);

    /**
     * {@code connection} was closed, by {@link UdpServerConnection#close()} or because the
     * endpoint closed; later datagrams with its id are answered with REJECT.
     *
     * @param reason why, for logs.
     */
    default void onClose(final UdpServerConnection connection, final String reason)
    {
    }

    /**
     * @return how long the application keeps a connection with nothing in progress before it
     *     closes it (with {@code CloseCause.IDLE}), announced to each client in its ACCEPT so
     *     that it stops using a connection before then; 0 (the default) when it never does.
     */
    default long idleTimeoutNs()
    {
        return 0;
    }
}
