package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpLinkConfig;

/**
 * A server whose application reads each connection on a thread of its own
 * ({@link RequestHandler#readsConnections()}): every connection gets a socket of its own on the
 * server's port, and its requests reach the application on the reading thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OwnSocketServerTest
{
    private static final long MS = 1_000_000L;

    /** Echoes, reads every connection on a thread named after it, and records where each request ran. */
    private static final class ReadingEcho implements RequestHandler
    {
        final List<String> requestThreads = new CopyOnWriteArrayList<>();
        final BlockingQueue<ConnectionReader> readers = new LinkedBlockingQueue<>();
        final ConcurrentHashMap<String, String> closed = new ConcurrentHashMap<>();
        final AtomicInteger readersEnded = new AtomicInteger();
        volatile boolean failOpen;

        @Override
        public void onRequest(final ServerCall call)
        {
            requestThreads.add(Thread.currentThread().getName());
            if (call.exactlyOnce())
            {
                call.reply(ByteBuffer.allocate(call.request().remaining()).put(call.request()).flip());
            }
        }

        @Override
        public boolean readsConnections()
        {
            return true;
        }

        @Override
        public void onConnectionOpened(final String connection, final ConnectionReader reader)
        {
            if (failOpen)
            {
                throw new IllegalStateException("the application takes no more connections");
            }
            readers.add(reader);
            final Thread t = new Thread(() ->
            {
                while (reader.readOnce())
                {
                    // Each datagram is handled inside readOnce, on this thread.
                }
                readersEnded.incrementAndGet();
            }, "reader-" + connection);
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void onConnectionClosed(final String connection, final String reason)
        {
            closed.put(connection, reason);
        }
    }

    private static UdpServer server(final RequestHandler handler, final UdpLinkConfig link) throws Exception
    {
        return new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), link, handler, null, 1 << 20,
            UdpServer.DEFAULT_IDLE_TIMEOUT_NS);
    }

    private static byte[] call(final UdpClient client, final InetSocketAddress address, final byte[] request) throws Exception
    {
        return client.call(address, ByteBuffer.wrap(request), 10_000 * MS, r ->
        {
            final byte[] b = new byte[r.remaining()];
            r.get(b);
            return b;
        });
    }

    @Test
    void requestsArriveOnTheConnectionsReaderAndNeverOnTheSharedSocket() throws Exception
    {
        final ReadingEcho app = new ReadingEcho();
        try (UdpServer server = server(app, UdpLinkConfig.defaults());
             UdpClient client = UdpClient.withDefaults())
        {
            final InetSocketAddress address = server.localAddress();
            final java.util.Random random = new java.util.Random(7);
            for (int i = 0; i < 200; i++)
            {
                // Up to 40 KiB: several packets per message at the default 8 KiB packet size.
                final byte[] request = new byte[i % 10 == 0 ? 40_000 : random.nextInt(100)];
                random.nextBytes(request);
                assertTrue(java.util.Arrays.equals(request, call(client, address, request)), "reply " + i);
            }
            assertEquals(1, server.endpoint().ownSocketsOpened());
            assertEquals(1, app.readers.size());
            final String readerThread = "reader-" + app.readers.peek().name();
            assertEquals(200, app.requestThreads.size());
            for (final String t : app.requestThreads)
            {
                assertEquals(readerThread, t);
            }
            assertEquals(0, server.endpoint().strayDatagrams());
            assertEquals(0, server.endpoint().malformed());
            assertEquals(0, server.endpoint().unknownId());
            // The 20 requests of several packets were put together where the socket read them,
            // but for the first packet of the first: a new connection holds no buffer for a
            // request that may never come, so that packet was read into the reader's own and
            // copied. The others, of one packet each, were handed over where they were read.
            final long firstPacket = EngineConfig.DEFAULT_MAX_PACKET_BYTES - org.lightwire.transport.protocol.HeaderFlyweight.HEADER_LENGTH;
            assertEquals(20 * 40_000L - firstPacket, server.sumSessions(ServerSession::requestBytesInPlace));
            assertEquals(firstPacket, server.sumSessions(ServerSession::requestBytesCopied));
        }
    }

    @Test
    void requestsOfAHundredPacketsAreReadInPlaceAndWhole() throws Exception
    {
        // Packets of 1 KiB: a 100 KB request is about 100 datagrams, read one after the other
        // into the request itself. (Datagrams that deliver nothing, such as retransmissions, are
        // AssemblyBufferTest's; the kernel-loss tests of the it module run them over sockets.)
        final ReadingEcho app = new ReadingEcho();
        final EngineConfig small = EngineConfig.defaults().toBuilder().maxPacketBytes(1024).build();
        final UdpLinkConfig smallLink = UdpLinkConfig.builder().maxPacketBytes(1024).build();
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), small, smallLink, app, null, 1 << 20,
                UdpServer.DEFAULT_IDLE_TIMEOUT_NS);
             UdpClient client = new UdpClient(small, smallLink, 1, 10_000 * MS, 1 << 20))
        {
            final java.util.Random random = new java.util.Random(13);
            final int packetPayload = 1024 - org.lightwire.transport.protocol.HeaderFlyweight.HEADER_LENGTH;
            long multiPacketBytes = 0;
            for (int i = 0; i < 30; i++)
            {
                final byte[] request = new byte[1 + random.nextInt(100_000)];
                random.nextBytes(request);
                assertTrue(java.util.Arrays.equals(request, call(client, server.localAddress(), request)), "reply " + i);
                multiPacketBytes += request.length > packetPayload ? request.length : 0;
            }
            // Only the very first packet, before the connection had a buffer, was copied.
            assertEquals(packetPayload, server.sumSessions(ServerSession::requestBytesCopied));
            assertEquals(multiPacketBytes - packetPayload, server.sumSessions(ServerSession::requestBytesInPlace));
        }
    }

    @Test
    void closingTheReaderEndsItsLoopAndTheClientReconnects() throws Exception
    {
        final ReadingEcho app = new ReadingEcho();
        try (UdpServer server = server(app, UdpLinkConfig.defaults());
             UdpClient client = UdpClient.withDefaults())
        {
            final InetSocketAddress address = server.localAddress();
            assertEquals(5, call(client, address, new byte[] {5})[0]);
            final ConnectionReader first = app.readers.take();
            first.close();
            awaitTrue(() -> app.readersEnded.get() == 1 && app.closed.containsKey(first.name()));
            // The pool's connection is dead on the server: the call fails or reconnects, and the
            // pool's next connection is served by a new reader.
            byte[] reply = null;
            for (int attempt = 0; attempt < 3 && reply == null; attempt++)
            {
                try
                {
                    reply = call(client, address, new byte[] {6});
                }
                catch (final ConnectionFailedException e)
                {
                    assertTrue(e.getMessage().contains("no longer knows connection id"), e.getMessage());
                }
            }
            assertEquals(6, reply[0]);
            assertEquals(2, server.endpoint().ownSocketsOpened());
            assertEquals(0, server.endpoint().strayDatagrams());
        }
    }

    @Test
    void aNewConnectFromTheSameClientAddressReplacesTheOldConnection() throws Exception
    {
        final ReadingEcho app = new ReadingEcho();
        final int port;
        try (ServerSocket probe = new ServerSocket(0))
        {
            // A port number free at the moment; both client links bind it in turn (UDP).
            port = probe.getLocalPort();
        }
        final UdpLinkConfig bound = UdpLinkConfig.builder().bindAddress(new InetSocketAddress("127.0.0.1", port)).build();
        try (UdpServer server = server(app, UdpLinkConfig.defaults()))
        {
            final InetSocketAddress address = server.localAddress();
            try (UdpClient first = new UdpClient(EngineConfig.defaults(), bound, 1, 10_000 * MS, 1 << 20))
            {
                assertEquals(1, call(first, address, new byte[] {1})[0]);
            }
            final ConnectionReader old = app.readers.take();
            try (UdpClient second = new UdpClient(EngineConfig.defaults(), bound, 1, 10_000 * MS, 1 << 20))
            {
                assertEquals(2, call(second, address, new byte[] {2})[0]);
            }
            awaitTrue(() -> app.closed.containsKey(old.name()));
            assertEquals(1, server.endpoint().connectionsReplaced());
            assertEquals(2, server.endpoint().ownSocketsOpened());
            assertEquals(2, app.requestThreads.size());
            assertEquals("reader-" + old.name(), app.requestThreads.get(0));
            assertEquals("reader-" + app.readers.take().name(), app.requestThreads.get(1));
        }
    }

    @Test
    void whenTheApplicationRefusesToReadTheSharedSocketServesTheConnection() throws Exception
    {
        final ReadingEcho app = new ReadingEcho();
        app.failOpen = true;
        try (UdpServer server = server(app, UdpLinkConfig.defaults());
             UdpClient client = UdpClient.withDefaults())
        {
            assertEquals(9, call(client, server.localAddress(), new byte[] {9})[0]);
            assertEquals(1, server.endpoint().ownSocketsOpened());
            assertEquals(List.of("lightwire-udp-server-blocking-" + server.localAddress().getPort()), app.requestThreads);
            assertEquals(0, server.endpoint().strayDatagrams());
        }
    }

    @Test
    void theNettyFrontEndGivesNoConnectionASocketOfItsOwn() throws Exception
    {
        final ReadingEcho app = new ReadingEcho();
        try (UdpServer server = server(app, UdpLinkConfig.builder().serverIo(UdpLinkConfig.ServerIo.NETTY).build());
             UdpClient client = UdpClient.withDefaults())
        {
            assertEquals(3, call(client, server.localAddress(), new byte[] {3})[0]);
            assertEquals(0, server.endpoint().ownSocketsOpened());
            assertEquals(0, app.readers.size());
            assertEquals(1, app.requestThreads.size());
            assertFalse(app.requestThreads.get(0).startsWith("reader-"), app.requestThreads.get(0));
        }
    }

    private static void awaitTrue(final java.util.function.BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("condition not met within 20 s");
            }
            Thread.sleep(5);
        }
    }
}
