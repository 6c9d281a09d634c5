package org.lightwire.transport.link.udp;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;

/**
 * The socket of a {@link UdpServerEndpoint} and the one thread that reads it, feeding every
 * datagram to a {@link ServerDemultiplexer}: the only place the server's socket appears. Chosen
 * by {@link UdpLinkConfig#serverIo()}.
 */
interface ServerFrontEnd extends ServerDemultiplexer.FrontEnd
{
    /** Longest wait of each step of {@link #close}. */
    long CLOSE_TIMEOUT_MS = 2000;

    /**
     * Binds the socket and starts the receive thread (a daemon whose name starts with
     * {@code lightwire-udp-server}).
     *
     * @throws BindException the address could not be bound; see {@link #bindFailure}.
     */
    void start(InetSocketAddress address, ServerDemultiplexer demultiplexer) throws IOException;

    /** @return the bound address. */
    InetSocketAddress localAddress();

    /** @return true on Netty's native epoll transport. */
    boolean usesNativeTransport();

    /**
     * Runs {@code lastTask} on the receive thread (inline when called there), then closes the
     * socket and ends the receive thread. Returns when the socket is closed, waiting at most
     * about {@link #CLOSE_TIMEOUT_MS} per step. Called once.
     */
    void close(Runnable lastTask);

    /** @return the exception {@link #start} throws when {@code address} cannot be bound. */
    static BindException bindFailure(final InetSocketAddress address, final Throwable cause)
    {
        final BindException ex = new BindException("could not bind the Lightwire UDP server to " + address + ": " + cause);
        ex.initCause(cause);
        return ex;
    }
}
