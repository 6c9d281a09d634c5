package org.lightwire.transport.link.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The server front-end on a Netty event loop ({@link UdpLinkConfig.ServerIo#NETTY}): epoll when
 * {@link Epoll#isAvailable()} and {@code nativeTransport} is set, NIO otherwise. The event loop
 * is the receive thread; sends from other threads are queued to it by Netty.
 *
 * <p>Per datagram received Netty allocates a {@link DatagramPacket} and the sender's address;
 * per datagram sent, a {@link DatagramPacket} around a pooled buffer.
 */
final class NettyServerFrontEnd implements ServerFrontEnd
{
    private final UdpLinkConfig config;
    private final boolean nativeTransport;
    private final EventLoopGroup group;
    private final ByteBuffer scratch;
    private ServerDemultiplexer demultiplexer;
    private volatile Channel channel;

    NettyServerFrontEnd(final UdpLinkConfig config)
    {
        this.config = config;
        nativeTransport = config.nativeTransport() && Epoll.isAvailable();
        final DefaultThreadFactory threads = new DefaultThreadFactory("lightwire-udp-server", true);
        group = nativeTransport ? new EpollEventLoopGroup(1, threads) : new NioEventLoopGroup(1, threads);
        scratch = ByteBuffer.allocateDirect(ServerDemultiplexer.datagramBufferBytes(config));
    }

    @Override
    public void start(final InetSocketAddress address, final ServerDemultiplexer demultiplexer) throws IOException
    {
        this.demultiplexer = demultiplexer;
        final Bootstrap bootstrap = new Bootstrap()
            .group(group)
            .channel(nativeTransport ? EpollDatagramChannel.class : NioDatagramChannel.class)
            .option(ChannelOption.SO_RCVBUF, config.socketReceiveBufferBytes())
            .option(ChannelOption.SO_SNDBUF, config.socketSendBufferBytes())
            // Netty's datagram default is a fixed 2048-byte buffer, which would silently
            // truncate larger packets; one spare byte makes an oversize datagram detectable.
            .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(ServerDemultiplexer.datagramBufferBytes(config)))
            .handler(new InboundHandler());
        if (config.reusePort())
        {
            if (nativeTransport)
            {
                bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
            }
            else
            {
                bootstrap.option(NioChannelOption.of(StandardSocketOptions.SO_REUSEPORT), true);
            }
        }

        final ChannelFuture bound = bootstrap.bind(address).awaitUninterruptibly();
        if (!bound.isSuccess())
        {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(CLOSE_TIMEOUT_MS);
            throw ServerFrontEnd.bindFailure(address, bound.cause());
        }
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return (InetSocketAddress)channel.localAddress();
    }

    @Override
    public boolean usesNativeTransport()
    {
        return nativeTransport;
    }

    /**
     * Copies prefix, header and payload into one pooled direct buffer, and that buffer goes to
     * Netty. The copy is deliberate: Netty's write completes asynchronously (it is queued when
     * called off the event loop, or when the socket buffer is full), while the caller reuses its
     * buffers at once. Wrapping them in a composite would let epoll gather them with sendmsg,
     * but Netty could then read them after this method returned.
     */
    @Override
    public boolean send(final long connectionId, final ByteBuffer header, final ByteBuffer payload, final InetSocketAddress to)
    {
        final Channel ch = channel;
        final int payloadBytes = payload == null ? 0 : payload.remaining();
        ByteBuf datagram = ch.alloc().directBuffer(UdpPrefixFlyweight.HEADER_LENGTH + header.remaining() + payloadBytes);
        try
        {
            datagram.writeLong(connectionId); // CARD64 big-endian: ByteBuf.writeLong is big-endian
            final int headerPosition = header.position();
            datagram.writeBytes(header);
            header.position(headerPosition);
            if (payload != null)
            {
                final int payloadPosition = payload.position();
                datagram.writeBytes(payload);
                payload.position(payloadPosition);
            }
            ch.writeAndFlush(new DatagramPacket(datagram, to), ch.voidPromise());
            datagram = null;
        }
        finally
        {
            if (datagram != null)
            {
                datagram.release();
            }
        }
        return true;
    }

    @Override
    public void runOnReceiveThread(final Runnable task)
    {
        final EventLoop loop = channel.eventLoop();
        if (loop.inEventLoop())
        {
            task.run();
            return;
        }
        try
        {
            loop.execute(task);
        }
        catch (final RejectedExecutionException ex)
        {
            // The event loop is shutting down; the endpoint's close has dropped every connection.
        }
    }

    @Override
    public void close(final Runnable lastTask)
    {
        final Channel ch = channel;
        final EventLoop loop = ch.eventLoop();
        if (loop.inEventLoop())
        {
            lastTask.run();
            ch.close();
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            return;
        }
        try
        {
            loop.submit(lastTask).awaitUninterruptibly(CLOSE_TIMEOUT_MS);
        }
        catch (final RejectedExecutionException ex)
        {
            // Already shut down.
        }
        ch.close().awaitUninterruptibly(CLOSE_TIMEOUT_MS);
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(CLOSE_TIMEOUT_MS);
    }

    /** @return the datagram as a ByteBuffer from position to limit, without a copy when possible. */
    private ByteBuffer nioView(final ByteBuf content)
    {
        final int length = content.readableBytes();
        if (content.nioBufferCount() == 1)
        {
            return content.internalNioBuffer(content.readerIndex(), length);
        }
        scratch.clear().limit(Math.min(length, scratch.capacity()));
        content.getBytes(content.readerIndex(), scratch);
        return scratch.flip();
    }

    @Override
    public String toString()
    {
        return "NettyServerFrontEnd{localAddress=" + (channel != null ? channel.localAddress() : null) +
            ", nativeTransport=" + nativeTransport + '}';
    }

    /** Runs on the event loop. */
    private final class InboundHandler extends ChannelInboundHandlerAdapter
    {
        @Override
        public void handlerAdded(final ChannelHandlerContext ctx)
        {
            channel = ctx.channel();
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            if (!(msg instanceof DatagramPacket))
            {
                ReferenceCountUtil.release(msg);
                return;
            }
            final DatagramPacket packet = (DatagramPacket)msg;
            try
            {
                demultiplexer.onDatagram(nioView(packet.content()), packet.sender(), System.nanoTime());
            }
            finally
            {
                packet.release();
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            demultiplexer.onIoError(cause);
        }
    }
}
