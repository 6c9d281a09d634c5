package org.lightwire.transport.link.udp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A Lightwire UDP client link whose receive side is a Netty event loop: the loop reads each
 * datagram and hands it to the thread waiting in {@link #receive} through a small preallocated
 * single-producer single-consumer ring, waking it with {@link LockSupport#unpark}. This is the
 * thread hand-off the paper (section 4) found costly; the link exists so the bench can measure
 * it against {@link UdpClientLink}, which reads on the calling thread.
 *
 * <p>The protocol is the same as {@link UdpClientLink}'s (the shared code is in
 * {@code AbstractUdpClientLink}), and so is the send side: a gather write on the calling thread
 * straight to the JDK {@link DatagramChannel}, which Netty's {@link NioDatagramChannel} wraps.
 * Only the receive path differs, so a measured difference is the hand-off and nothing else.
 * Wrapping a JDK channel is why this link uses Netty's NIO transport, never epoll.
 *
 * <p>The ring holds {@value #HANDOFF_RING_SLOTS} datagrams; when it is full the event loop drops
 * the datagram and counts it in {@link #handoffDrops()}. Netty allocates a buffer and a
 * {@link DatagramPacket} per datagram; the ring itself allocates nothing.
 */
public final class NettyUdpClientLink extends AbstractUdpClientLink
{
    /** Capacity of the hand-off ring, a power of two. */
    public static final int HANDOFF_RING_SLOTS = 64;

    private static final long CLOSE_TIMEOUT_MS = 2000;

    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final NioDatagramChannel nettyChannel;
    private final HandoffRing ring = new HandoffRing(HANDOFF_RING_SLOTS);
    private final AtomicLong handoffDrops = new AtomicLong();

    private volatile Thread waiter;
    private volatile IOException pendingError;
    private ByteBuf current;

    private NettyUdpClientLink(
        final DatagramChannel channel,
        final InetSocketAddress serverAddress,
        final UdpLinkConfig config,
        final EventLoopGroup group,
        final boolean ownsGroup)
    {
        super(channel, serverAddress, config);
        this.group = group;
        this.ownsGroup = ownsGroup;
        nettyChannel = new NioDatagramChannel(channel);
        nettyChannel.config().setRecvByteBufAllocator(new FixedRecvByteBufAllocator(receiveBufferBytes(config)));
        nettyChannel.pipeline().addLast(new HandoffHandler());
    }

    /**
     * Opens a connection with its own one-thread Netty NIO event loop group, shut down by
     * {@link #close()}.
     *
     * @see UdpClientLink#connect(InetSocketAddress, UdpLinkConfig)
     */
    public static NettyUdpClientLink connect(final InetSocketAddress server, final UdpLinkConfig config) throws IOException
    {
        final EventLoopGroup group = new NioEventLoopGroup(1, new DefaultThreadFactory("lightwire-udp-client-rx", true));
        try
        {
            return connect(server, config, group, true);
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw ex;
        }
    }

    /**
     * Opens a connection whose receive side runs on {@code nioGroup}, which the caller owns
     * (several links may share it) and which {@link #close()} leaves running.
     *
     * @param nioGroup a Netty {@link NioEventLoopGroup}.
     * @see UdpClientLink#connect(InetSocketAddress, UdpLinkConfig)
     */
    public static NettyUdpClientLink connect(
        final InetSocketAddress server, final UdpLinkConfig config, final EventLoopGroup nioGroup) throws IOException
    {
        return connect(server, config, nioGroup, false);
    }

    private static NettyUdpClientLink connect(
        final InetSocketAddress server, final UdpLinkConfig config, final EventLoopGroup group, final boolean ownsGroup)
        throws IOException
    {
        if (!(group instanceof NioEventLoopGroup))
        {
            throw new IllegalArgumentException("NettyUdpClientLink needs a NioEventLoopGroup (it wraps a JDK " +
                "DatagramChannel), not a " + group.getClass().getName());
        }
        final DatagramChannel channel = openChannel(server, config);
        NettyUdpClientLink link = null;
        try
        {
            link = new NettyUdpClientLink(channel, server, config, group, ownsGroup);
            final ChannelFuture registered = group.register(link.nettyChannel).awaitUninterruptibly();
            if (!registered.isSuccess())
            {
                throw new IOException("could not register the client channel with the Netty event loop",
                    registered.cause());
            }
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

    @Override
    protected ByteBuffer pollDatagram(final long timeoutNs) throws IOException
    {
        ByteBuf datagram = ring.poll();
        if (datagram == null && timeoutNs > 0)
        {
            datagram = await(timeoutNs);
        }
        if (datagram == null)
        {
            throwPendingError();
            return null;
        }
        current = datagram;
        return datagram.internalNioBuffer(datagram.readerIndex(), datagram.readableBytes());
    }

    private ByteBuf await(final long timeoutNs) throws IOException
    {
        final long startNs = System.nanoTime();
        final long deadlineNs = startNs + timeoutNs;
        final long spinDeadlineNs = startNs + Math.min(config.receiveSpinNs(), timeoutNs);
        while (spinDeadlineNs - System.nanoTime() > 0)
        {
            Thread.onSpinWait();
            final ByteBuf datagram = ring.poll();
            if (datagram != null)
            {
                return datagram;
            }
        }

        // Publish the waiter before the last look at the ring: the event loop publishes the
        // datagram before it reads the waiter, so one of the two always sees the other.
        waiter = Thread.currentThread();
        try
        {
            while (true)
            {
                final ByteBuf datagram = ring.poll();
                if (datagram != null)
                {
                    return datagram;
                }
                throwPendingError();
                final long remainingNs = deadlineNs - System.nanoTime();
                if (remainingNs <= 0)
                {
                    return null;
                }
                LockSupport.parkNanos(this, remainingNs);
                if (Thread.currentThread().isInterrupted())
                {
                    throw new InterruptedIOException("interrupted while waiting for a packet from " + serverAddress);
                }
            }
        }
        finally
        {
            waiter = null;
        }
    }

    private void throwPendingError() throws IOException
    {
        final IOException error = pendingError;
        if (error != null)
        {
            pendingError = null;
            throw error;
        }
        if (isClosed() || !nettyChannel.isOpen())
        {
            throw new ClosedChannelException();
        }
    }

    @Override
    protected void releaseDatagram()
    {
        final ByteBuf datagram = current;
        if (datagram != null)
        {
            current = null;
            datagram.release();
        }
    }

    @Override
    protected void closeResources()
    {
        nettyChannel.close().awaitUninterruptibly(CLOSE_TIMEOUT_MS);
        if (ownsGroup)
        {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(CLOSE_TIMEOUT_MS);
        }
        // The channel is closed, so the event loop offers nothing more: drain what it left.
        ByteBuf datagram;
        while ((datagram = ring.poll()) != null)
        {
            datagram.release();
        }
        final Thread blocked = waiter;
        if (blocked != null)
        {
            LockSupport.unpark(blocked);
        }
    }

    /** @return datagrams the event loop dropped because the hand-off ring was full. */
    public long handoffDrops()
    {
        return handoffDrops.get();
    }

    private void wakeWaiter()
    {
        final Thread blocked = waiter;
        if (blocked != null)
        {
            LockSupport.unpark(blocked);
        }
    }

    /** Runs on the event loop: moves each datagram's buffer into the ring. */
    private final class HandoffHandler extends ChannelInboundHandlerAdapter
    {
        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            if (!(msg instanceof DatagramPacket))
            {
                ReferenceCountUtil.release(msg);
                return;
            }
            final ByteBuf content = ((DatagramPacket)msg).content();
            if (!ring.offer(content))
            {
                content.release();
                increment(handoffDrops);
                return;
            }
            // Ownership of the buffer has passed to the ring; the receiving thread releases it.
            wakeWaiter();
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            pendingError = cause instanceof IOException ? (IOException)cause :
                new IOException("Netty event loop failed reading from " + serverAddress, cause);
            wakeWaiter();
        }
    }

    /**
     * Single-producer (the event loop) single-consumer (the receiving thread) ring of buffers.
     * The producer's tail store is a full volatile write so that its later read of
     * {@code waiter} cannot move before it (see {@link #await}).
     */
    private static final class HandoffRing
    {
        private final ByteBuf[] slots;
        private final int mask;
        private final AtomicLong head = new AtomicLong();
        private final AtomicLong tail = new AtomicLong();

        HandoffRing(final int capacity)
        {
            if (Integer.bitCount(capacity) != 1)
            {
                throw new IllegalArgumentException("ring capacity " + capacity + " must be a power of two");
            }
            slots = new ByteBuf[capacity];
            mask = capacity - 1;
        }

        boolean offer(final ByteBuf buffer)
        {
            final long t = tail.get();
            if (t - head.get() == slots.length)
            {
                return false;
            }
            slots[(int)t & mask] = buffer;
            tail.set(t + 1);
            return true;
        }

        ByteBuf poll()
        {
            final long h = head.get();
            if (h == tail.get())
            {
                return null;
            }
            final int index = (int)h & mask;
            final ByteBuf buffer = slots[index];
            slots[index] = null;
            head.lazySet(h + 1);
            return buffer;
        }
    }
}
