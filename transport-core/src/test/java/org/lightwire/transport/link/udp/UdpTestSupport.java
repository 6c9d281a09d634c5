package org.lightwire.transport.link.udp;

import io.netty.channel.epoll.Epoll;
import org.lightwire.transport.protocol.HeaderFlyweight;
import org.lightwire.transport.protocol.MessageType;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Helpers shared by the UDP link tests. */
final class UdpTestSupport
{
    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    static final long WAIT_NS = TimeUnit.SECONDS.toNanos(10);

    private UdpTestSupport()
    {
    }

    /** The server front-ends under test. */
    enum ServerKind
    {
        /** Netty's epoll transport; only where {@link Epoll#isAvailable()}. */
        EPOLL(UdpLinkConfig.ServerIo.NETTY, true),
        NIO(UdpLinkConfig.ServerIo.NETTY, false),
        BLOCKING(UdpLinkConfig.ServerIo.BLOCKING, false);

        final UdpLinkConfig.ServerIo serverIo;
        final boolean nativeTransport;

        ServerKind(final UdpLinkConfig.ServerIo serverIo, final boolean nativeTransport)
        {
            this.serverIo = serverIo;
            this.nativeTransport = nativeTransport;
        }

        /** @return the defaults, with this front-end. */
        UdpLinkConfig config()
        {
            return UdpLinkConfig.builder().serverIo(serverIo).nativeTransport(nativeTransport).build();
        }

        /** @return the kinds this machine runs. */
        static List<ServerKind> available()
        {
            return Epoll.isAvailable() ? List.of(values()) : List.of(NIO, BLOCKING);
        }
    }

    /** The client implementations under test. */
    enum ClientKind
    {
        DIRECT
        {
            @Override
            AbstractUdpClientLink connect(final InetSocketAddress server, final UdpLinkConfig config) throws IOException
            {
                return UdpClientLink.connect(server, config);
            }
        },
        NETTY
        {
            @Override
            AbstractUdpClientLink connect(final InetSocketAddress server, final UdpLinkConfig config) throws IOException
            {
                return NettyUdpClientLink.connect(server, config);
            }
        };

        abstract AbstractUdpClientLink connect(InetSocketAddress server, UdpLinkConfig config) throws IOException;
    }

    static InetSocketAddress anyLoopbackPort()
    {
        return new InetSocketAddress(LOOPBACK, 0);
    }

    /** @return an 8-byte header for a packet of {@code payloadBytes}. */
    static ByteBuffer header(final MessageType type, final int payloadBytes, final int callSeq, final int packetSeq)
    {
        final ByteBuffer header = ByteBuffer.allocate(HeaderFlyweight.HEADER_LENGTH);
        new HeaderFlyweight().wrap(header, 0)
            .set(type, false, HeaderFlyweight.HEADER_LENGTH + payloadBytes, callSeq, packetSeq, false);
        return header;
    }

    static ByteBuffer payload(final int bytes, final int seed)
    {
        final ByteBuffer payload = ByteBuffer.allocateDirect(bytes);
        for (int i = 0; i < bytes; i++)
        {
            payload.put(i, (byte)(seed * 31 + i));
        }
        return payload;
    }

    /** @return header followed by payload, as the peer must see them. */
    static byte[] concat(final ByteBuffer header, final ByteBuffer payload)
    {
        final int payloadBytes = payload == null ? 0 : payload.remaining();
        final byte[] bytes = new byte[header.remaining() + payloadBytes];
        header.get(header.position(), bytes, 0, header.remaining());
        if (payload != null)
        {
            payload.get(payload.position(), bytes, header.remaining(), payloadBytes);
        }
        return bytes;
    }

    /** Receives one packet on {@code link}, failing the test if none arrives in 10 s. */
    static byte[] receive(final AbstractUdpClientLink link) throws IOException
    {
        final ByteBuffer dst = ByteBuffer.allocate(link.maxPacketBytes());
        final int length = link.receive(dst, WAIT_NS);
        if (length < 0)
        {
            throw new AssertionError("no packet within 10 s on " + link);
        }
        final byte[] bytes = new byte[length];
        dst.flip().get(bytes);
        return bytes;
    }

    static void awaitTrue(final BooleanSupplier condition, final Object description) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + WAIT_NS;
        while (!condition.getAsBoolean())
        {
            if (deadlineNs - System.nanoTime() <= 0)
            {
                throw new AssertionError("condition not met within 10 s: " + description);
            }
            Thread.sleep(1);
        }
    }

    static void sendRaw(final DatagramSocket socket, final InetSocketAddress to, final byte[] datagram) throws IOException
    {
        socket.send(new DatagramPacket(datagram, datagram.length, to));
    }

    static byte[] receiveRaw(final DatagramSocket socket) throws IOException
    {
        final byte[] buffer = new byte[70_000];
        final DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        socket.setSoTimeout((int)TimeUnit.NANOSECONDS.toMillis(WAIT_NS));
        socket.receive(packet);
        final byte[] datagram = new byte[packet.getLength()];
        System.arraycopy(buffer, 0, datagram, 0, datagram.length);
        return datagram;
    }

    /** @return a set-up datagram of a long kind (not REJECT): zero prefix and a body without cookie. */
    static byte[] setupDatagram(
        final SetupFlyweight.Kind kind, final int maxPacketBytes, final long nonce, final long connectionId)
    {
        return setupDatagram(kind, maxPacketBytes, nonce, connectionId, null,
            kind == SetupFlyweight.Kind.REFUSE ? org.lightwire.transport.protocol.CloseCause.SERVER_FULL : null);
    }

    /** @return a set-up datagram of a long kind with a cookie (or none) and a reason (or none). */
    static byte[] setupDatagram(final SetupFlyweight.Kind kind, final int maxPacketBytes, final long nonce, final long connectionId,
        final byte[] cookie, final org.lightwire.transport.protocol.CloseCause reason)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(SetupFlyweight.DATAGRAM_LENGTH);
        new SetupFlyweight().wrap(buffer, UdpPrefixFlyweight.HEADER_LENGTH).set(kind, maxPacketBytes, reason, 0, connectionId, nonce, cookie);
        return buffer.array();
    }

    /** Sends a first CONNECT from {@code raw} and returns the CONNECT that echoes the RETRY's cookie. */
    static byte[] cookieConnect(final DatagramSocket raw, final InetSocketAddress server, final long nonce, final int maxPacketBytes)
        throws IOException
    {
        sendRaw(raw, server, setupDatagram(SetupFlyweight.Kind.CONNECT, maxPacketBytes, nonce, 0));
        final SetupFlyweight retry = parseSetup(receiveRaw(raw));
        if (retry.kind() != SetupFlyweight.Kind.RETRY)
        {
            throw new AssertionError("a first CONNECT was answered with " + retry);
        }
        final byte[] cookie = new byte[SetupFlyweight.COOKIE_LENGTH];
        retry.cookie(cookie, 0);
        return setupDatagram(SetupFlyweight.Kind.CONNECT, maxPacketBytes, nonce, 0, cookie, null);
    }

    /** @return a REJECT datagram naming {@code connectionId} and {@code cause}. */
    static byte[] rejectDatagram(final long connectionId, final org.lightwire.transport.protocol.CloseCause cause)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(SetupFlyweight.REJECT_DATAGRAM_LENGTH);
        new SetupFlyweight().wrap(buffer, UdpPrefixFlyweight.HEADER_LENGTH).setReject(8192, cause, connectionId);
        return buffer.array();
    }

    /** @return a data datagram: prefix {@code id} and {@code packet}. */
    static byte[] dataDatagram(final long id, final byte[] packet)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(UdpPrefixFlyweight.HEADER_LENGTH + packet.length);
        new UdpPrefixFlyweight().wrap(buffer, 0).connectionId(id);
        buffer.put(UdpPrefixFlyweight.HEADER_LENGTH, packet);
        return buffer.array();
    }

    static SetupFlyweight parseSetup(final byte[] datagram)
    {
        final ByteBuffer buffer = ByteBuffer.wrap(datagram);
        if (datagram.length < SetupFlyweight.REJECT_DATAGRAM_LENGTH || !new UdpPrefixFlyweight().wrap(buffer, 0).isSetup())
        {
            throw new AssertionError("not a set-up datagram: " + datagram.length + " bytes");
        }
        final SetupFlyweight setup = new SetupFlyweight().wrap(buffer, UdpPrefixFlyweight.HEADER_LENGTH);
        final int bodyLength = datagram.length - UdpPrefixFlyweight.HEADER_LENGTH;
        if (setup.validate(bodyLength) != null)
        {
            throw new AssertionError("invalid set-up body " + setup + ": " + setup.validate(bodyLength));
        }
        return setup;
    }
}
