package org.lightwire.transport.link.udp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.lightwire.transport.link.Link;
import org.lightwire.transport.protocol.MessageType;
import org.lightwire.transport.link.udp.UdpTestSupport.ClientKind;
import org.lightwire.transport.link.udp.UdpTestSupport.ServerKind;

import java.io.IOException;
import java.net.ConnectException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.transport.link.udp.UdpTestSupport.LOOPBACK;
import static org.lightwire.transport.link.udp.UdpTestSupport.WAIT_NS;
import static org.lightwire.transport.link.udp.UdpTestSupport.anyLoopbackPort;
import static org.lightwire.transport.link.udp.UdpTestSupport.awaitTrue;
import static org.lightwire.transport.link.udp.UdpTestSupport.concat;
import static org.lightwire.transport.link.udp.UdpTestSupport.dataDatagram;
import static org.lightwire.transport.link.udp.UdpTestSupport.header;
import static org.lightwire.transport.link.udp.UdpTestSupport.parseSetup;
import static org.lightwire.transport.link.udp.UdpTestSupport.payload;
import static org.lightwire.transport.link.udp.UdpTestSupport.receive;
import static org.lightwire.transport.link.udp.UdpTestSupport.receiveRaw;
import static org.lightwire.transport.link.udp.UdpTestSupport.sendRaw;
import static org.lightwire.transport.link.udp.UdpTestSupport.rejectDatagram;
import static org.lightwire.transport.link.udp.UdpTestSupport.setupDatagram;

/**
 * System tests: real UDP sockets on the loopback interface, the server on each front-end (a
 * blocking channel, Netty epoll when available, Netty NIO), both client links. Timeouts only keep a broken build from hanging.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpLinkSystemTest
{
    static Stream<Arguments> serversAndClients()
    {
        final List<Arguments> arguments = new ArrayList<>();
        for (final ServerKind serverKind : ServerKind.available())
        {
            for (final ClientKind kind : ClientKind.values())
            {
                arguments.add(Arguments.of(serverKind, kind));
            }
        }
        return arguments.stream();
    }

    static Stream<ServerKind> servers()
    {
        return ServerKind.available().stream();
    }

    private static UdpLinkConfig config(final ServerKind serverKind)
    {
        return serverKind.config();
    }

    @ParameterizedTest(name = "{0} server, {1} client")
    @MethodSource("serversAndClients")
    void connectsAndCarriesPacketsBothWaysByteForByte(final ServerKind serverKind, final ClientKind kind) throws Exception
    {
        final RecordingHandler handler = new RecordingHandler();
        try (UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), config(serverKind), handler);
            AbstractUdpClientLink client = kind.connect(server.localAddress(), config(serverKind)))
        {
            assertEquals(serverKind == ServerKind.EPOLL, server.usesNativeTransport());
            assertEquals(serverKind.serverIo, server.serverIo());
            final UdpServerConnection connection = handler.nextConnect();
            assertNotEquals(0, client.connectionId());
            assertEquals(client.connectionId(), connection.connectionId());
            assertEquals(client.localAddress().getPort(), connection.remoteAddress().getPort());
            assertEquals(8192, client.maxPacketBytes());
            assertFalse(client.preservesOrder());
            assertEquals(client.setupRetries() == 0, client.setupRttNs() >= 0, client.toString());

            final ByteBuffer header = header(MessageType.COMPLETE, 1000, 5, 0);
            final ByteBuffer payload = payload(1000, 1);
            client.send(header, payload);
            assertEquals(0, header.position());
            assertEquals(0, payload.position());
            final RecordingHandler.Received request = handler.nextPacket();
            assertSame(connection, request.connection());
            assertArrayEquals(concat(header, payload), request.packet());
            assertTrue(request.thread().startsWith("lightwire-udp-server"), request.thread());

            // From this thread, not the event loop: the worker-thread reply path.
            final int fullPayload = 8192 - org.lightwire.transport.protocol.HeaderFlyweight.HEADER_LENGTH;
            final ByteBuffer replyHeader = header(MessageType.COMPLETE, fullPayload, 5, 0);
            final ByteBuffer replyPayload = payload(fullPayload, 2);
            assertTrue(connection.send(replyHeader, replyPayload));
            assertArrayEquals(concat(replyHeader, replyPayload), receive(client));

            final ByteBuffer ack = header(MessageType.CALL_ACK, 0, 5, 0);
            client.send(ack, null);
            assertArrayEquals(concat(ack, null), handler.nextPacket().packet());
            assertTrue(connection.send(ack, null));
            assertArrayEquals(concat(ack, null), receive(client));

            assertEquals(Link.TIMEOUT, client.receive(ByteBuffer.allocate(8192), 0));
            assertEquals(0, client.malformed());
            assertEquals(0, client.unknownId());
            assertEquals(2, server.packetsDelivered());
            assertEquals(0, server.malformed() + server.unknownId() + server.wrongAddress() + server.handlerErrors(), server.toString());
            assertEquals(1, server.openConnections());
        }
    }

    @ParameterizedTest(name = "{0} server, {1} client")
    @MethodSource("serversAndClients")
    void twoClientsGetDistinctIdsAndOnlyTheirOwnPackets(final ServerKind serverKind, final ClientKind kind) throws Exception
    {
        final RecordingHandler handler = new RecordingHandler();
        try (UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), config(serverKind), handler);
            AbstractUdpClientLink a = kind.connect(server.localAddress(), config(serverKind));
            AbstractUdpClientLink b = kind.connect(server.localAddress(), config(serverKind)))
        {
            assertNotEquals(a.connectionId(), b.connectionId());
            final Map<Long, UdpServerConnection> byId = new HashMap<>();
            for (int i = 0; i < 2; i++)
            {
                final UdpServerConnection connection = handler.nextConnect();
                byId.put(connection.connectionId(), connection);
            }
            assertEquals(Map.of(a.connectionId(), a.connectionId(), b.connectionId(), b.connectionId()).keySet(), byId.keySet());

            final List<String> sentByA = new ArrayList<>();
            final List<String> sentByB = new ArrayList<>();
            for (int i = 0; i < 7; i++)
            {
                if (i < 5)
                {
                    sentByA.add(sendTagged(a, 100 + i));
                }
                sentByB.add(sendTagged(b, 200 + i));
            }
            final List<String> receivedFromA = new ArrayList<>();
            final List<String> receivedFromB = new ArrayList<>();
            for (int i = 0; i < 12; i++)
            {
                final RecordingHandler.Received received = handler.nextPacket();
                (received.connection().connectionId() == a.connectionId() ? receivedFromA : receivedFromB)
                    .add(Arrays.toString(received.packet()));
            }
            assertEquals(sorted(sentByA), sorted(receivedFromA));
            assertEquals(sorted(sentByB), sorted(receivedFromB));

            final List<String> sentToA = new ArrayList<>();
            final List<String> sentToB = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                sentToA.add(replyTagged(byId.get(a.connectionId()), 300 + i));
                sentToB.add(replyTagged(byId.get(b.connectionId()), 400 + i));
            }
            final List<String> atA = new ArrayList<>();
            final List<String> atB = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                atA.add(Arrays.toString(receive(a)));
                atB.add(Arrays.toString(receive(b)));
            }
            assertEquals(sorted(sentToA), sorted(atA));
            assertEquals(sorted(sentToB), sorted(atB));

            assertEquals(12, server.packetsDelivered());
            assertEquals(2, server.connectionsAccepted());
            assertEquals(0, server.unknownId() + server.wrongAddress() + server.malformed());
            assertEquals(0, a.unknownId() + b.unknownId() + a.malformed() + b.malformed());
        }
    }

    private static String sendTagged(final AbstractUdpClientLink link, final int tag) throws Exception
    {
        final ByteBuffer header = header(MessageType.COMPLETE, 64, tag & 0xFF, 0);
        final ByteBuffer payload = payload(64, tag);
        link.send(header, payload);
        return Arrays.toString(concat(header, payload));
    }

    private static String replyTagged(final UdpServerConnection connection, final int tag)
    {
        final ByteBuffer header = header(MessageType.COMPLETE, 32, tag & 0xFF, 1);
        final ByteBuffer payload = payload(32, tag);
        assertTrue(connection.send(header, payload));
        return Arrays.toString(concat(header, payload));
    }

    private static byte[] cookieConnect(final DatagramSocket raw, final InetSocketAddress server, final long nonce) throws IOException
    {
        return UdpTestSupport.cookieConnect(raw, server, nonce, 1000);
    }

    private static List<String> sorted(final List<String> list)
    {
        final List<String> copy = new ArrayList<>(list);
        copy.sort(null);
        return copy;
    }

    @ParameterizedTest(name = "{0} server")
    @MethodSource("servers")
    void duplicateConnectWithTheSameNonceGetsTheSameAccept(final ServerKind serverKind) throws Exception
    {
        final RecordingHandler handler = new RecordingHandler();
        try (UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), config(serverKind), handler);
            DatagramSocket raw = new DatagramSocket(0, LOOPBACK))
        {
            final byte[] connect = cookieConnect(raw, server.localAddress(), 0x5151L);
            sendRaw(raw, server.localAddress(), connect);
            final SetupFlyweight first = parseSetup(receiveRaw(raw));
            sendRaw(raw, server.localAddress(), connect);
            final SetupFlyweight second = parseSetup(receiveRaw(raw));

            assertEquals(SetupFlyweight.Kind.ACCEPT, first.kind());
            assertEquals(0x5151L, first.nonce());
            assertEquals(8192, first.maxPacketBytes());
            assertNotEquals(0, first.connectionId());
            assertEquals(first.toString(), second.toString());
            assertEquals(1, server.connectionsAccepted());
            assertEquals(1, server.duplicateConnects());
            final UdpServerConnection connection = handler.nextConnect();
            assertEquals(first.connectionId(), connection.connectionId());
            assertEquals(1000, connection.maxPacketBytes());

            sendRaw(raw, server.localAddress(), cookieConnect(raw, server.localAddress(), 0x5152L));
            final SetupFlyweight other = parseSetup(receiveRaw(raw));
            assertEquals(0x5152L, other.nonce());
            assertNotEquals(first.connectionId(), other.connectionId());
            assertEquals(2, server.connectionsAccepted());
            assertEquals(2, server.openConnections());
        }
    }

    @ParameterizedTest(name = "{0} server, {1} client")
    @MethodSource("serversAndClients")
    void aNewServerIncarnationResetsTheOldClient(final ServerKind serverKind, final ClientKind kind) throws Exception
    {
        final RecordingHandler oldHandler = new RecordingHandler();
        final UdpServerEndpoint oldServer = UdpServerEndpoint.bind(anyLoopbackPort(), config(serverKind), oldHandler);
        final InetSocketAddress address = oldServer.localAddress();
        try (AbstractUdpClientLink client = kind.connect(address, config(serverKind)))
        {
            // It dies without telling its clients (a clean close tells them: aClosingServerTellsItsClients).
            oldServer.closeSilently();
            assertEquals(1, oldHandler.closes.size());
            assertTrue(oldHandler.closes.peek().endsWith("the server endpoint was closed"), oldHandler.closes.peek());

            final RecordingHandler newHandler = new RecordingHandler();
            try (UdpServerEndpoint newServer = UdpServerEndpoint.bind(address, config(serverKind), newHandler))
            {
                client.send(header(MessageType.COMPLETE, 0, 1, 0), null);
                final PeerResetException ex = assertThrows(
                    PeerResetException.class, () -> client.receive(ByteBuffer.allocate(8192), WAIT_NS));
                assertEquals("server at " + address + " no longer knows connection id " +
                    UdpPrefixFlyweight.formatId(client.connectionId()) +
                    ": the server does not know the connection: it restarted, or closed the connection long ago; " +
                    "open a new connection", ex.getMessage());
                assertEquals(org.lightwire.transport.protocol.CloseCause.UNKNOWN, ex.closeCause());
                assertEquals(client.connectionId(), ex.connectionId());
                assertEquals(1, newServer.unknownId());
                assertEquals(1, newServer.rejectsSent());
                assertTrue(newHandler.packets.isEmpty());
                assertTrue(newHandler.connects.isEmpty());
                assertThrows(PeerResetException.class, () -> client.send(header(MessageType.COMPLETE, 0, 2, 0), null));
            }
        }
    }

    @ParameterizedTest(name = "{0} server, {1} client")
    @MethodSource("serversAndClients")
    void aClosingServerTellsItsClients(final ServerKind serverKind, final ClientKind kind) throws Exception
    {
        final UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), config(serverKind), new RecordingHandler());
        final InetSocketAddress address = server.localAddress();
        try (AbstractUdpClientLink client = kind.connect(address, config(serverKind)))
        {
            server.close();
            // Nothing sent since the set-up: the client reads the server's notice.
            final PeerResetException ex = assertThrows(
                PeerResetException.class, () -> client.receive(ByteBuffer.allocate(8192), WAIT_NS));
            assertEquals(org.lightwire.transport.protocol.CloseCause.SERVER_CLOSED, ex.closeCause());
            assertEquals(client.connectionId(), ex.connectionId());
            assertEquals(1, server.rejectsSent());
            assertThrows(PeerResetException.class, () -> client.send(header(MessageType.COMPLETE, 0, 1, 0), null));
        }
    }

    @ParameterizedTest(name = "{0} server, {1} client")
    @MethodSource("serversAndClients")
    void aConnectionClosedByTheServerIsRejected(final ServerKind serverKind, final ClientKind kind) throws Exception
    {
        final RecordingHandler handler = new RecordingHandler();
        try (UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), config(serverKind), handler);
            AbstractUdpClientLink client = kind.connect(server.localAddress(), config(serverKind)))
        {
            final UdpServerConnection connection = handler.nextConnect();
            connection.close();
            assertFalse(connection.send(header(MessageType.COMPLETE, 0, 1, 0), null));
            awaitTrue(() -> server.openConnections() == 0, server);
            assertEquals(UdpPrefixFlyweight.formatId(connection.connectionId()) + ": closed by the server application",
                handler.closes.poll(RecordingHandler.WAIT_S, TimeUnit.SECONDS));
            final String closeThread = handler.closeThreads.poll();
            assertTrue(closeThread.startsWith("lightwire-udp-server"), "onClose ran on " + closeThread);

            client.send(header(MessageType.COMPLETE, 0, 1, 0), null);
            final PeerResetException reset = assertThrows(PeerResetException.class, () -> client.receive(ByteBuffer.allocate(8192), WAIT_NS));
            assertEquals(org.lightwire.transport.protocol.CloseCause.SERVER_CLOSED, reset.closeCause(), "the REJECT says why");
            assertEquals(1, server.connectionsClosed());
            assertEquals(0, server.packetsDelivered());
        }
    }

    @ParameterizedTest(name = "{0} server")
    @MethodSource("servers")
    void anInterruptedSendingThreadNeitherFailsNorClosesTheEndpoint(final ServerKind serverKind) throws Exception
    {
        final RecordingHandler handler = new RecordingHandler();
        try (UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), config(serverKind), handler);
            AbstractUdpClientLink client = ClientKind.DIRECT.connect(server.localAddress(), config(serverKind)))
        {
            final UdpServerConnection connection = handler.nextConnect();
            final ByteBuffer header = header(MessageType.COMPLETE, 0, 1, 0);
            Thread.currentThread().interrupt();
            try
            {
                assertTrue(connection.send(header, null));
            }
            finally
            {
                assertTrue(Thread.interrupted(), "the interrupt must be kept for the caller");
            }
            assertArrayEquals(concat(header, null), receive(client));

            client.send(header, null);
            handler.nextPacket();
            assertEquals(0, server.ioErrors(), server.toString());
        }
    }

    @ParameterizedTest(name = "{0} server")
    @MethodSource("servers")
    void junkDatagramsAreDroppedAndCountedWithoutCallbacks(final ServerKind serverKind) throws Exception
    {
        final long seed = new Random().nextLong();
        final RecordingHandler handler = new RecordingHandler();
        final UdpLinkConfig config = config(serverKind);
        try (UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), config, handler);
            AbstractUdpClientLink client = ClientKind.DIRECT.connect(server.localAddress(), config);
            DatagramSocket raw = new DatagramSocket(0, LOOPBACK))
        {
            final long id = client.connectionId();
            final InetSocketAddress to = server.localAddress();
            // Every CONNECT (retransmissions included) gets its RETRY or ACCEPT; let those counts settle.
            awaitTrue(() -> server.datagramsReceived() == client.datagramsSent() &&
                server.datagramsSent() == client.datagramsSent(), server);
            final long received0 = server.datagramsReceived();
            final long sent0 = server.datagramsSent();

            int malformed = 0;
            int unknown = 0;
            final List<Long> rejectedIds = new ArrayList<>();
            final byte[] validPacket = concat(header(MessageType.COMPLETE, 8, 1, 0), payload(8, 1));

            sendRaw(raw, to, new byte[0]);
            sendRaw(raw, to, new byte[5]);
            sendRaw(raw, to, dataDatagram(id, new byte[4]));
            sendRaw(raw, to, dataDatagram(id, new byte[8193]));
            sendRaw(raw, to, Arrays.copyOf(setupDatagram(SetupFlyweight.Kind.CONNECT, 1000, 9, 0), 18));
            sendRaw(raw, to, setupDatagram(SetupFlyweight.Kind.ACCEPT, 1000, 9, 10));
            final byte[] connectV3 = setupDatagram(SetupFlyweight.Kind.CONNECT, 1000, 9, 0);
            connectV3[UdpPrefixFlyweight.HEADER_LENGTH + SetupFlyweight.VERSION_OFFSET] = 3;
            sendRaw(raw, to, connectV3);
            malformed += 7;

            sendRaw(raw, to, dataDatagram(id, validPacket));
            final int wrongAddress = 1;

            sendRaw(raw, to, dataDatagram(0x1234L, validPacket));
            unknown++;
            rejectedIds.add(0x1234L);

            final Random random = new Random(seed);
            final int randomDatagrams = 20;
            for (int i = 0; i < randomDatagrams; i++)
            {
                final byte[] datagram = new byte[random.nextInt(40)];
                random.nextBytes(datagram);
                sendRaw(raw, to, datagram);
                final ByteBuffer buffer = ByteBuffer.wrap(datagram);
                final long prefix = datagram.length >= 8 ? new UdpPrefixFlyweight().wrap(buffer, 0).connectionId() : 0;
                if (datagram.length < UdpPrefixFlyweight.HEADER_LENGTH + org.lightwire.transport.protocol.HeaderFlyweight.HEADER_LENGTH ||
                    prefix == 0 || prefix == id)
                {
                    malformed++; // prefix 0 or our id with random bytes: a malformed set-up body or short
                }
                else
                {
                    unknown++;
                    rejectedIds.add(prefix);
                }
            }
            final int total = 7 + wrongAddress + 1 + randomDatagrams;

            awaitTrue(() -> server.datagramsReceived() == received0 + total, server);
            final String why = "seed " + seed + ", " + server;
            assertEquals(malformed, server.malformed(), why);
            assertEquals(unknown, server.unknownId(), why);
            assertEquals(wrongAddress, server.wrongAddress(), why);
            assertEquals(unknown, server.rejectsSent(), why);
            assertEquals(0, server.rejectsSuppressed(), why);
            assertEquals(0, server.packetsDelivered(), why);
            assertEquals(1, server.connectionsAccepted(), why);
            assertEquals(0, server.handlerErrors(), why);
            assertEquals(sent0 + unknown, server.datagramsSent(), why);
            assertTrue(handler.packets.isEmpty(), why);
            assertEquals(1, handler.connects.size(), why);

            // Compared as sorted lists: loopback can reorder two datagrams when the sending thread
            // moves to another core between them (each core has its own receive backlog).
            final List<Long> rejectsReceived = new ArrayList<>();
            for (int i = 0; i < rejectedIds.size(); i++)
            {
                final SetupFlyweight reject = parseSetup(receiveRaw(raw));
                assertEquals(SetupFlyweight.Kind.REJECT, reject.kind(), why);
                assertEquals(org.lightwire.transport.protocol.CloseCause.UNKNOWN, reject.reason(), why);
                rejectsReceived.add(reject.connectionId());
            }
            rejectedIds.sort(null);
            rejectsReceived.sort(null);
            assertEquals(rejectedIds, rejectsReceived, why);

            // The endpoint still works for the real client.
            client.send(header(MessageType.COMPLETE, 0, 1, 0), null);
            handler.nextPacket();
        }
    }

    @ParameterizedTest(name = "{0} server")
    @MethodSource("servers")
    void aThrowingHandlerIsCountedAndTheEndpointGoesOn(final ServerKind serverKind) throws Exception
    {
        final RecordingHandler handler = new RecordingHandler()
        {
            private int calls;

            @Override
            public void onPacket(final UdpServerConnection connection, final ByteBuffer packet, final long nowNs)
            {
                super.onPacket(connection, packet, nowNs);
                if (++calls == 1)
                {
                    throw new IllegalStateException("handler bug");
                }
            }
        };
        try (UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), config(serverKind), handler);
            AbstractUdpClientLink client = ClientKind.DIRECT.connect(server.localAddress(), config(serverKind)))
        {
            client.send(header(MessageType.COMPLETE, 0, 1, 0), null);
            client.send(header(MessageType.COMPLETE, 0, 2, 0), null);
            handler.nextPacket();
            handler.nextPacket();
            awaitTrue(() -> server.handlerErrors() == 1, server);
            assertEquals(2, server.packetsDelivered());
        }
    }

    @ParameterizedTest(name = "{0} client")
    @EnumSource(ClientKind.class)
    void clientDropsAndCountsWhatIsNotItsPacket(final ClientKind kind) throws Exception
    {
        final ExecutorService executor = Executors.newSingleThreadExecutor();
        try (DatagramSocket fakeServer = new DatagramSocket(0, LOOPBACK))
        {
            final InetSocketAddress serverAddress = (InetSocketAddress)fakeServer.getLocalSocketAddress();
            final UdpLinkConfig config = UdpLinkConfig.builder().maxPacketBytes(1000).build();
            final Future<AbstractUdpClientLink> connecting = executor.submit(() -> kind.connect(serverAddress, config));

            final java.net.DatagramPacket first = new java.net.DatagramPacket(new byte[100], 100);
            fakeServer.setSoTimeout(10_000);
            fakeServer.receive(first);
            final InetSocketAddress clientAddress = (InetSocketAddress)first.getSocketAddress();
            final SetupFlyweight connect = parseSetup(Arrays.copyOf(first.getData(), first.getLength()));
            assertEquals(SetupFlyweight.Kind.CONNECT, connect.kind());
            assertEquals(1000, connect.maxPacketBytes());
            final long nonce = connect.nonce();
            final long id = 77;

            sendRaw(fakeServer, clientAddress, setupDatagram(SetupFlyweight.Kind.ACCEPT, 900, nonce + 1, id));
            sendRaw(fakeServer, clientAddress, rejectDatagram(55, org.lightwire.transport.protocol.CloseCause.UNKNOWN));
            sendRaw(fakeServer, clientAddress, new byte[3]);
            sendRaw(fakeServer, clientAddress, setupDatagram(SetupFlyweight.Kind.ACCEPT, 900, nonce, id));

            try (AbstractUdpClientLink client = connecting.get(20, TimeUnit.SECONDS))
            {
                assertEquals(id, client.connectionId());
                assertEquals(900, client.maxPacketBytes());

                sendRaw(fakeServer, clientAddress, setupDatagram(SetupFlyweight.Kind.ACCEPT, 900, nonce, id));
                sendRaw(fakeServer, clientAddress, rejectDatagram(id + 1, org.lightwire.transport.protocol.CloseCause.UNKNOWN));
                sendRaw(fakeServer, clientAddress, dataDatagram(id + 1, new byte[16]));
                sendRaw(fakeServer, clientAddress, dataDatagram(id, new byte[4]));
                sendRaw(fakeServer, clientAddress, dataDatagram(id, new byte[901]));
                sendRaw(fakeServer, clientAddress, new byte[0]);
                sendRaw(fakeServer, clientAddress, dataDatagram(0, new byte[5]));
                sendRaw(fakeServer, clientAddress, setupDatagram(SetupFlyweight.Kind.CONNECT, 900, nonce, 0));
                final byte[] packet = concat(header(MessageType.COMPLETE, 884, 3, 0), payload(884, 3));
                sendRaw(fakeServer, clientAddress, dataDatagram(id, packet));

                assertArrayEquals(packet, receive(client));
                final String why = client.toString();
                assertEquals(13, client.datagramsReceived(), why);
                assertEquals(2, client.strayAccepts(), why);
                assertEquals(3, client.unknownId(), why);
                assertEquals(6, client.malformed(), why);

                sendRaw(fakeServer, clientAddress, rejectDatagram(id, org.lightwire.transport.protocol.CloseCause.PEER_SILENT));
                final PeerResetException ex = assertThrows(
                    PeerResetException.class, () -> client.receive(ByteBuffer.allocate(900), WAIT_NS));
                assertTrue(ex.getMessage().contains(serverAddress.toString()), ex.getMessage());
                assertTrue(ex.getMessage().contains("0x000000000000004d"), ex.getMessage());
                assertEquals(org.lightwire.transport.protocol.CloseCause.PEER_SILENT, ex.closeCause());
            }
        }
        finally
        {
            executor.shutdownNow();
        }
    }

    @ParameterizedTest(name = "{0} client")
    @EnumSource(ClientKind.class)
    void anAcceptToARetransmittedConnectGivesNoRtt(final ClientKind kind) throws Exception
    {
        final ExecutorService executor = Executors.newSingleThreadExecutor();
        try (DatagramSocket fakeServer = new DatagramSocket(0, LOOPBACK))
        {
            final InetSocketAddress serverAddress = (InetSocketAddress)fakeServer.getLocalSocketAddress();
            final UdpLinkConfig config = UdpLinkConfig.builder().setupRetryNs(TimeUnit.MILLISECONDS.toNanos(20)).build();
            final Future<AbstractUdpClientLink> connecting = executor.submit(() -> kind.connect(serverAddress, config));

            final java.net.DatagramPacket datagram = new java.net.DatagramPacket(new byte[100], 100);
            fakeServer.setSoTimeout(10_000);
            fakeServer.receive(datagram);
            final long nonce = parseSetup(Arrays.copyOf(datagram.getData(), datagram.getLength())).nonce();
            fakeServer.receive(datagram);
            assertEquals(nonce, parseSetup(Arrays.copyOf(datagram.getData(), datagram.getLength())).nonce());
            sendRaw(fakeServer, (InetSocketAddress)datagram.getSocketAddress(),
                setupDatagram(SetupFlyweight.Kind.ACCEPT, 8192, nonce, 99));

            try (AbstractUdpClientLink client = connecting.get(20, TimeUnit.SECONDS))
            {
                assertEquals(99, client.connectionId());
                assertEquals(-1, client.setupRttNs());
                assertTrue(client.setupRetries() >= 1, client.toString());
            }
        }
        finally
        {
            executor.shutdownNow();
        }
    }

    @ParameterizedTest(name = "{0} client")
    @EnumSource(ClientKind.class)
    void connectWhereNothingListensFailsNamingTheAddress(final ClientKind kind) throws Exception
    {
        final InetSocketAddress nobody;
        try (DatagramSocket socket = new DatagramSocket(0, LOOPBACK))
        {
            nobody = (InetSocketAddress)socket.getLocalSocketAddress();
        }
        final UdpLinkConfig config = UdpLinkConfig.builder().connectTimeoutNs(TimeUnit.SECONDS.toNanos(3)).build();
        final ConnectException ex = assertThrows(ConnectException.class, () -> kind.connect(nobody, config));
        assertTrue(ex.getMessage().contains(nobody.toString()), ex.getMessage());
        // On Linux loopback the ICMP port unreachable arrives: the failure is immediate and says so.
        assertTrue(ex.getMessage().startsWith("nobody listens at " + nobody) ||
            ex.getMessage().contains("connectTimeoutNs"), ex.getMessage());
    }

    @ParameterizedTest(name = "{0} client")
    @EnumSource(ClientKind.class)
    void connectToASilentServerTimesOutNamingTheSetting(final ClientKind kind) throws Exception
    {
        try (DatagramSocket silent = new DatagramSocket(0, LOOPBACK))
        {
            final InetSocketAddress address = (InetSocketAddress)silent.getLocalSocketAddress();
            final UdpLinkConfig config = UdpLinkConfig.builder()
                .connectTimeoutNs(TimeUnit.MILLISECONDS.toNanos(300))
                .setupRetryNs(TimeUnit.MILLISECONDS.toNanos(50))
                .build();
            final ConnectException ex = assertThrows(ConnectException.class, () -> kind.connect(address, config));
            assertTrue(ex.getMessage().startsWith("no ACCEPT from the Lightwire UDP server at " + address), ex.getMessage());
            assertTrue(ex.getMessage().contains("raise connectTimeoutNs (now 300000000 ns)"), ex.getMessage());
            assertNull(ex.getCause());
        }
    }

    @ParameterizedTest(name = "{0} server")
    @MethodSource("servers")
    void aFullTableLeavesConnectUnanswered(final ServerKind serverKind) throws Exception
    {
        final UdpLinkConfig config = config(serverKind).toBuilder()
            .maxConnections(1)
            .connectTimeoutNs(TimeUnit.MILLISECONDS.toNanos(300))
            .setupRetryNs(TimeUnit.MILLISECONDS.toNanos(100))
            .build();
        try (UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), config, new RecordingHandler());
            AbstractUdpClientLink first = ClientKind.DIRECT.connect(server.localAddress(), config))
        {
            assertThrows(ConnectException.class, () -> ClientKind.DIRECT.connect(server.localAddress(), config));
            assertTrue(server.connectionsRefused() >= 1, server.toString());
            assertEquals(1, server.openConnections());
            assertNotEquals(0, first.connectionId());
        }
    }

    @ParameterizedTest(name = "{0} server")
    @EnumSource(ServerKind.class)
    void reusePortLetsTwoEndpointsShareAPort(final ServerKind serverKind) throws Exception
    {
        final UdpLinkConfig config = config(serverKind).toBuilder().reusePort(true).build();
        try (UdpServerEndpoint first = UdpServerEndpoint.bind(anyLoopbackPort(), config, new RecordingHandler());
            UdpServerEndpoint second = UdpServerEndpoint.bind(first.localAddress(), config, new RecordingHandler()))
        {
            assertEquals(first.localAddress(), second.localAddress());
        }
    }

    @ParameterizedTest(name = "{0} server")
    @MethodSource("servers")
    void bindingATakenPortFailsNamingTheAddress(final ServerKind serverKind) throws Exception
    {
        try (UdpServerEndpoint first = UdpServerEndpoint.bind(anyLoopbackPort(), config(serverKind), new RecordingHandler()))
        {
            final java.net.BindException ex = assertThrows(java.net.BindException.class,
                () -> UdpServerEndpoint.bind(first.localAddress(), config(serverKind), new RecordingHandler()));
            assertTrue(ex.getMessage().startsWith("could not bind the Lightwire UDP server to " + first.localAddress()),
                ex.getMessage());
        }
    }

    @Test
    void misuseIsReportedWithWhatToDo() throws Exception
    {
        try (UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), UdpLinkConfig.defaults(), new RecordingHandler()))
        {
            final UdpClientLink client = UdpClientLink.connect(server.localAddress(), UdpLinkConfig.defaults());
            final IllegalArgumentException small = assertThrows(
                IllegalArgumentException.class, () -> client.receive(ByteBuffer.allocate(100), 0));
            assertEquals("dst has 100 bytes remaining; receive needs maxPacketBytes() = 8192", small.getMessage());
            final IllegalArgumentException big = assertThrows(
                IllegalArgumentException.class, () -> client.send(header(MessageType.COMPLETE, 8177, 1, 0), payload(8177, 1)));
            assertTrue(big.getMessage().startsWith("packet of 8193 bytes exceeds maxPacketBytes() = 8192"), big.getMessage());
            client.close();
            assertThrows(java.nio.channels.ClosedChannelException.class, () -> client.receive(ByteBuffer.allocate(8192), 0));
        }
    }

    @Test
    void closeReturnsAndUnblocksAWaitingReceive() throws Exception
    {
        final ExecutorService executor = Executors.newSingleThreadExecutor();
        try (UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), UdpLinkConfig.defaults(), new RecordingHandler()))
        {
            for (final ClientKind kind : ClientKind.values())
            {
                final AbstractUdpClientLink client = kind.connect(server.localAddress(), UdpLinkConfig.defaults());
                final Future<Integer> waiting = executor.submit(() -> client.receive(ByteBuffer.allocate(8192), WAIT_NS * 6));
                Thread.sleep(50);
                client.close();
                final java.util.concurrent.ExecutionException ex = assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> waiting.get(20, TimeUnit.SECONDS));
                assertTrue(ex.getCause() instanceof java.io.IOException, kind + ": " + ex.getCause());
            }
        }
        finally
        {
            executor.shutdownNow();
        }
    }
}
