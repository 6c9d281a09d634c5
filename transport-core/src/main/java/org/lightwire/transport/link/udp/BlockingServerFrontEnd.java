package org.lightwire.transport.link.udp;

import org.lightwire.transport.protocol.MessageType;

import org.lightwire.transport.protocol.HeaderFlyweight;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The server front-end on a JDK {@link DatagramChannel} in blocking mode
 * ({@link UdpLinkConfig.ServerIo#BLOCKING}): one receive thread (a daemon) sleeps in
 * {@link DatagramChannel#receive} and hands each datagram to the demultiplexer, so a request
 * costs the kernel one receive and its reply one send, as a raw UDP echo does. A Netty event
 * loop also asks epoll whether the socket is readable and reads until the socket is empty: two
 * system calls more per datagram when one datagram comes at a time (the paper's point about
 * the cost of the path a null call takes, section 4).
 *
 * <p>Any thread sends with {@link DatagramChannel#send}, which is thread-safe: prefix, header and
 * payload are copied into a direct buffer of the sending thread's own, so the send neither
 * allocates nor waits for another thread.
 *
 * <p>A task for the receive thread ({@link #runOnReceiveThread}) is queued, and an empty
 * datagram sent from the socket to itself wakes the thread up; it runs the queue after every
 * datagram. The wake-up is recognised by its sender (the socket's own address) and length
 * (0), and is neither counted nor given to the demultiplexer.
 */
final class BlockingServerFrontEnd implements ServerFrontEnd
{
    /** Datagrams taken at once while a multi-packet message arrives (control packets go first). */
    private static final int BATCH_DATAGRAMS = 8;

    private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

    private final UdpLinkConfig config;
    private final ThreadLocal<ByteBuffer> sendBuffers;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private DatagramChannel channel;
    private InetSocketAddress localAddress;
    private InetSocketAddress wakeUpAddress;
    private ServerDemultiplexer demultiplexer;
    private Thread thread;
    private volatile boolean stopping;

    BlockingServerFrontEnd(final UdpLinkConfig config)
    {
        this.config = config;
        final int sendBufferBytes = UdpPrefixFlyweight.HEADER_LENGTH + config.maxPacketBytes();
        sendBuffers = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(sendBufferBytes));
    }

    @Override
    public void start(final InetSocketAddress address, final ServerDemultiplexer demultiplexer) throws IOException
    {
        this.demultiplexer = demultiplexer;
        final DatagramChannel ch = address.getAddress() instanceof Inet4Address ?
            DatagramChannel.open(StandardProtocolFamily.INET) : DatagramChannel.open();
        try
        {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, config.socketReceiveBufferBytes());
            ch.setOption(StandardSocketOptions.SO_SNDBUF, config.socketSendBufferBytes());
            if (config.reusePort())
            {
                ch.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            }
            ch.bind(address);
            localAddress = (InetSocketAddress)ch.getLocalAddress();
            wakeUpAddress = wakeUpAddress(localAddress);
        }
        catch (final IOException ex)
        {
            ch.close();
            throw ServerFrontEnd.bindFailure(address, ex);
        }
        catch (final RuntimeException ex)
        {
            ch.close();
            throw ex;
        }
        channel = ch;
        thread = new Thread(this::receiveLoop, "lightwire-udp-server-blocking-" + localAddress.getPort());
        thread.setDaemon(true);
        thread.start();
    }

    /** @return where a datagram to this socket goes, and so the sender of one from it. */
    private static InetSocketAddress wakeUpAddress(final InetSocketAddress local) throws IOException
    {
        if (!local.getAddress().isAnyLocalAddress())
        {
            return local;
        }
        // A socket bound to the wildcard address also receives on loopback. IPv4 loopback, as a
        // dual-stack socket takes it too and IPv6 loopback may be disabled.
        return new InetSocketAddress(InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1}), local.getPort());
    }

    private void receiveLoop()
    {
        final int bytes = ServerDemultiplexer.datagramBufferBytes(config);
        final ByteBuffer[] slots = new ByteBuffer[BATCH_DATAGRAMS];
        final InetSocketAddress[] senders = new InetSocketAddress[BATCH_DATAGRAMS];
        final boolean[] control = new boolean[BATCH_DATAGRAMS];
        for (int i = 0; i < BATCH_DATAGRAMS; i++)
        {
            slots[i] = ByteBuffer.allocateDirect(bytes);
        }
        while (!stopping)
        {
            int count;
            try
            {
                count = receiveBatch(slots, senders);
            }
            catch (final ClosedChannelException ex)
            {
                if (!stopping)
                {
                    // Interrupted or closed under us: the socket is gone, and with it the endpoint.
                    demultiplexer.onIoError(ex);
                }
                break;
            }
            catch (final IOException ex)
            {
                demultiplexer.onIoError(ex);
                continue;
            }
            final long nowNs = System.nanoTime();
            try
            {
                // Control first (A1): CALL_ACK, NACK, RECLAIM and RECLAIM_ACK read in the same
                // batch as data go to the engines before it.
                // Classified before any is delivered: delivery moves a buffer's position.
                for (int i = 0; i < count; i++)
                {
                    control[i] = isControl(slots[i]);
                }
                for (int pass = 0; pass < 2; pass++)
                {
                    for (int i = 0; i < count; i++)
                    {
                        if (control[i] == (pass == 0))
                        {
                            deliver(slots[i], senders[i], nowNs);
                        }
                    }
                }
                runTasks();
            }
            catch (final RuntimeException | Error ex)
            {
                // As on a Netty event loop: what the handler throws past the demultiplexer is
                // reported, and the loop goes on.
                demultiplexer.onIoError(ex);
            }
        }
    }

    /**
     * Blocks for one datagram; when it is a PARTIAL packet (a multi-packet message is arriving,
     * so more are probably queued) also takes what else is queued, without blocking, so that
     * control packets among them can go first. A one-packet request costs no extra system call.
     *
     * @return how many slots were filled, each flipped for reading.
     */
    private int receiveBatch(final ByteBuffer[] slots, final InetSocketAddress[] senders) throws IOException
    {
        slots[0].clear();
        senders[0] = (InetSocketAddress)channel.receive(slots[0]);
        slots[0].flip();
        if (!isPartial(slots[0]))
        {
            return 1;
        }
        int count = 1;
        channel.configureBlocking(false);
        try
        {
            while (count < slots.length)
            {
                slots[count].clear();
                final InetSocketAddress sender = (InetSocketAddress)channel.receive(slots[count]);
                if (sender == null)
                {
                    break;
                }
                slots[count].flip();
                senders[count] = sender;
                count++;
            }
        }
        finally
        {
            channel.configureBlocking(true);
        }
        return count;
    }

    private void deliver(final ByteBuffer datagram, final InetSocketAddress sender, final long nowNs)
    {
        if (datagram.hasRemaining() || !sender.equals(wakeUpAddress))
        {
            demultiplexer.onDatagram(datagram, sender, nowNs);
        }
    }

    /** @return the omniTransport type code of a connection's datagram, or -1 for set-up and short ones. */
    private static int typeCode(final ByteBuffer datagram)
    {
        final int base = datagram.position();
        if (datagram.remaining() < UdpPrefixFlyweight.HEADER_LENGTH + HeaderFlyweight.HEADER_LENGTH ||
            datagram.getLong(base) == UdpPrefixFlyweight.SETUP_CONNECTION_ID)
        {
            return -1;
        }
        return datagram.get(base + UdpPrefixFlyweight.HEADER_LENGTH + HeaderFlyweight.TYPE_OFFSET) & 0xFF;
    }

    private static boolean isPartial(final ByteBuffer datagram)
    {
        return typeCode(datagram) == MessageType.PARTIAL.code();
    }

    private static boolean isControl(final ByteBuffer datagram)
    {
        final MessageType type = MessageType.fromCode(typeCode(datagram));
        return type != null && type.isControl();
    }

    private void runTasks()
    {
        Runnable task;
        while ((task = tasks.poll()) != null)
        {
            task.run();
        }
    }

    @Override
    public DatagramChannel openConnectedSocket(final InetSocketAddress remote) throws IOException
    {
        if (!config.reusePort())
        {
            throw new IOException("the endpoint's socket was bound without SO_REUSEPORT (UdpLinkConfig.reusePort), " +
                "so no other socket can share its port");
        }
        final DatagramChannel ch = localAddress.getAddress() instanceof Inet4Address ?
            DatagramChannel.open(StandardProtocolFamily.INET) : DatagramChannel.open();
        try
        {
            ch.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, config.socketReceiveBufferBytes());
            ch.setOption(StandardSocketOptions.SO_SNDBUF, config.socketSendBufferBytes());
            ch.bind(localAddress);
            ch.connect(remote);
            return ch;
        }
        catch (final IOException | RuntimeException ex)
        {
            ch.close();
            throw ex;
        }
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return localAddress;
    }

    @Override
    public boolean usesNativeTransport()
    {
        return false;
    }

    @Override
    public boolean send(final long connectionId, final ByteBuffer header, final ByteBuffer payload, final InetSocketAddress to)
    {
        return send(connectionId, header, payload, to, null);
    }

    @Override
    public boolean send(final long connectionId, final ByteBuffer header, final ByteBuffer payload, final InetSocketAddress to,
        final DatagramChannel connected)
    {
        final ByteBuffer datagram = sendBuffers.get();
        final int headerBytes = header.remaining();
        final int payloadBytes = payload == null ? 0 : payload.remaining();
        datagram.clear();
        BigEndian.putCard64(datagram, UdpPrefixFlyweight.CONNECTION_ID_OFFSET, connectionId);
        datagram.put(UdpPrefixFlyweight.HEADER_LENGTH, header, header.position(), headerBytes);
        if (payload != null)
        {
            datagram.put(UdpPrefixFlyweight.HEADER_LENGTH + headerBytes, payload, payload.position(), payloadBytes);
        }
        datagram.limit(UdpPrefixFlyweight.HEADER_LENGTH + headerBytes + payloadBytes);
        if (connected != null && writeConnected(connected, datagram))
        {
            return true;
        }
        return sendToSocket(datagram, to);
    }

    /** @return false when the connection's socket is closed (the datagram then goes on the shared socket). */
    private boolean writeConnected(final DatagramChannel connected, final ByteBuffer datagram)
    {
        final boolean interrupted = Thread.interrupted();
        try
        {
            connected.write(datagram);
            return true;
        }
        catch (final ClosedChannelException ex)
        {
            datagram.rewind();
            return false;
        }
        catch (final IOException ex)
        {
            // An ICMP error reported on the connected socket (the client's port is closed):
            // the datagram is lost, as it would be on the shared socket.
            demultiplexer.onIoError(ex);
            return true;
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean sendToSocket(final ByteBuffer datagram, final InetSocketAddress to)
    {
        // A thread interrupted in a blocking operation of an InterruptibleChannel closes the
        // channel, and here that would end the endpoint for every client: a pending interrupt of
        // the sending thread (a worker, say) is put aside for the send and restored after it.
        final boolean interrupted = Thread.interrupted();
        try
        {
            channel.send(datagram, to);
            return true;
        }
        catch (final ClosedChannelException ex)
        {
            if (!stopping)
            {
                demultiplexer.onIoError(ex);
            }
            return false;
        }
        catch (final IOException ex)
        {
            demultiplexer.onIoError(ex);
            return false;
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void runOnReceiveThread(final Runnable task)
    {
        if (Thread.currentThread() == thread)
        {
            task.run();
            return;
        }
        tasks.add(task);
        wakeUp();
    }

    private void wakeUp()
    {
        sendToSocket(EMPTY.duplicate(), wakeUpAddress);
    }

    @Override
    public void close(final Runnable lastTask)
    {
        if (Thread.currentThread() == thread)
        {
            stopping = true;
            lastTask.run();
            closeChannel();
            return;
        }
        tasks.add(lastTask);
        stopping = true;
        wakeUp();
        join();
        // Closing the channel wakes a receive the wake-up did not reach (AsynchronousCloseException).
        closeChannel();
        join();
        if (!thread.isAlive())
        {
            // The thread ended before it ran the last tasks (or never got them): run them here.
            runTasks();
        }
    }

    private void join()
    {
        try
        {
            thread.join(CLOSE_TIMEOUT_MS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void closeChannel()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ex)
        {
            demultiplexer.onIoError(ex);
        }
    }

    @Override
    public String toString()
    {
        return "BlockingServerFrontEnd{localAddress=" + localAddress +
            ", thread=" + (thread != null ? thread.getName() : null) +
            ", stopping=" + stopping +
            ", queuedTasks=" + tasks.size() + '}';
    }
}
