package org.lightwire.transport.link.udp;

import org.lightwire.transport.link.Link;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.Consumer;

/**
 * The client end of one Lightwire connection over UDP: a JDK {@link DatagramChannel} connected
 * to the server and read by the calling thread itself, with no hand-off thread on the call path
 * (the paper's point about thread switches, section 4; {@link NettyUdpClientLink} exists to
 * measure the alternative).
 *
 * <p>{@link #connect} runs the set-up exchange ({@link SetupFlyweight}); every later datagram
 * carries the negotiated connection id in its {@link UdpPrefixFlyweight prefix}. A connection
 * carries one call at a time; open several links for concurrent calls.
 *
 * <p>{@link #receive} first tries a non-blocking read, then busy-polls for up to
 * {@code receiveSpinNs}, then parks in a {@link Selector}. In steady state neither send nor
 * receive allocates: gather arrays, the receive buffer and the selector callback are
 * preallocated, and {@link Selector#select(Consumer, long)} does not fill a selected-key set.
 * Receive copies each packet once, from the internal buffer into the caller's.
 */
public final class UdpClientLink extends AbstractUdpClientLink
{
    private static final Consumer<SelectionKey> IGNORE_KEY = key -> { };
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final Selector selector;
    private final ByteBuffer receiveBuffer;
    /** After {@link #connectBlocking}: waits are one blocking receive, with no selector. */
    private boolean blockingWaits;
    private boolean channelBlocking;

    private UdpClientLink(final DatagramChannel channel, final InetSocketAddress serverAddress, final UdpLinkConfig config)
        throws IOException
    {
        super(channel, serverAddress, config);
        receiveBuffer = ByteBuffer.allocateDirect(receiveBufferBytes(config));
        selector = Selector.open();
        try
        {
            channel.register(selector, SelectionKey.OP_READ);
        }
        catch (final IOException | RuntimeException ex)
        {
            selector.close();
            throw ex;
        }
    }

    /**
     * Opens a connection to a Lightwire UDP server: sends CONNECT (with a nonce from
     * {@link java.security.SecureRandom}) and retransmits it at doubling intervals until the
     * ACCEPT echoing that nonce arrives.
     *
     * @param server the server's resolved address.
     * @param config the client's settings.
     * @return the open link.
     * @throws java.net.ConnectException nobody listens at {@code server} (ICMP port unreachable),
     *     or no ACCEPT arrived within {@code connectTimeoutNs}; the message names the address.
     */
    public static UdpClientLink connect(final InetSocketAddress server, final UdpLinkConfig config) throws IOException
    {
        final DatagramChannel channel = openChannel(server, config);
        UdpClientLink link = null;
        try
        {
            link = new UdpClientLink(channel, server, config);
            link.performSetup();
            return link;
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            if (link != null)
            {
                link.close();
            }
            else
            {
                channel.close();
            }
            throw ex;
        }
    }

    /**
     * Opens a connection like {@link #connect}, then gives up the selector: a wait for a packet
     * is then a single blocking receive, as cheap as a raw UDP ping-pong's, but it has no
     * timeout. {@link #receive} takes only 0 (a poll) and {@link Link#FOREVER}; the driver
     * enforces its deadlines from another thread and ends a wait by closing the link
     * ({@link #timedReceive()} is false).
     */
    public static UdpClientLink connectBlocking(final InetSocketAddress server, final UdpLinkConfig config) throws IOException
    {
        final UdpClientLink link = connect(server, config);
        try
        {
            // A channel registered with a selector cannot block; closing the selector deregisters it.
            link.selector.close();
            link.blockingWaits = true;
            link.setChannelBlocking(true);
            return link;
        }
        catch (final IOException | RuntimeException ex)
        {
            link.close();
            throw ex;
        }
    }

    @Override
    public boolean timedReceive()
    {
        return !blockingWaits;
    }

    private void setChannelBlocking(final boolean blocking) throws IOException
    {
        if (channelBlocking != blocking)
        {
            channel.configureBlocking(blocking);
            channelBlocking = blocking;
        }
    }

    private ByteBuffer pollBlocking(final long timeoutNs) throws IOException
    {
        if (timeoutNs == 0)
        {
            setChannelBlocking(false);
            return receiveOnce() ? receiveBuffer : null;
        }
        if (timeoutNs != Link.FOREVER)
        {
            throw new IllegalArgumentException("this link waits without a timeout (connectBlocking): receive takes 0 or " +
                "Link.FOREVER, not " + timeoutNs + " ns; its driver must enforce deadlines by closing it");
        }
        setChannelBlocking(true);
        receiveBuffer.clear();
        channel.receive(receiveBuffer);
        receiveBuffer.flip();
        return receiveBuffer;
    }

    @Override
    protected ByteBuffer pollDatagram(final long timeoutNs) throws IOException
    {
        if (blockingWaits)
        {
            return pollBlocking(timeoutNs);
        }
        // A caller that will wait goes straight to the selector, which returns at once if a
        // datagram is queued: on the null-call path a first non-blocking receive would almost
        // always find nothing and cost a system call.
        if ((timeoutNs == 0 || config.receiveSpinNs() > 0) && receiveOnce())
        {
            return receiveBuffer;
        }
        if (timeoutNs == 0)
        {
            return null;
        }

        final long startNs = System.nanoTime();
        final long deadlineNs = startNs + timeoutNs;
        final long spinDeadlineNs = startNs + Math.min(config.receiveSpinNs(), timeoutNs);
        while (spinDeadlineNs - System.nanoTime() > 0)
        {
            Thread.onSpinWait();
            if (receiveOnce())
            {
                return receiveBuffer;
            }
        }

        try
        {
            while (true)
            {
                final long remainingNs = deadlineNs - System.nanoTime();
                if (remainingNs <= 0)
                {
                    return null;
                }
                // select(.., 0) would wait forever: round up to at least one millisecond.
                selector.select(IGNORE_KEY, Math.max(1, (remainingNs + NANOS_PER_MILLI - 1) / NANOS_PER_MILLI));
                if (receiveOnce())
                {
                    return receiveBuffer;
                }
                if (Thread.currentThread().isInterrupted())
                {
                    throw new InterruptedIOException("interrupted while waiting for a packet from " + serverAddress);
                }
            }
        }
        catch (final ClosedSelectorException ex)
        {
            final AsynchronousCloseException closed = new AsynchronousCloseException();
            closed.initCause(ex);
            throw closed;
        }
    }

    private boolean receiveOnce() throws IOException
    {
        receiveBuffer.clear();
        // receive(), not read(): it tells an empty datagram (counted as malformed) from none.
        if (channel.receive(receiveBuffer) == null)
        {
            return false;
        }
        receiveBuffer.flip();
        return true;
    }

    /**
     * @return the connected, non-blocking datagram channel: readable when a datagram waits; null
     *     after {@link #connectBlocking}, whose channel blocks and cannot be selected.
     */
    @Override
    public java.nio.channels.SelectableChannel selectableChannel()
    {
        return blockingWaits ? null : channel;
    }

    @Override
    protected void releaseDatagram()
    {
    }

    @Override
    protected void closeResources() throws IOException
    {
        selector.close();
    }
}
