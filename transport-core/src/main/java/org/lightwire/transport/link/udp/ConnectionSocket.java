package org.lightwire.transport.link.udp;

import java.io.IOException;
import java.nio.channels.DatagramChannel;

/**
 * A server connection's socket of its own: bound to the endpoint's port beside the endpoint's
 * socket (both with SO_REUSEPORT) and connected to the client's address, so that the kernel
 * delivers the client's datagrams to it rather than to the shared socket. It is read by the
 * application thread that serves the connection ({@link UdpServerConnection#receiveOnOwnSocket}),
 * so a request reaches that thread with no hand-off from the endpoint's receive thread.
 */
final class ConnectionSocket
{
    final DatagramChannel channel;

    ConnectionSocket(final DatagramChannel channel)
    {
        this.channel = channel;
    }

    /** Closes the channel; a thread blocked reading it returns with AsynchronousCloseException. */
    void close()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ex)
        {
            // Closing a datagram socket has nothing to flush; there is nothing to report.
        }
    }
}
