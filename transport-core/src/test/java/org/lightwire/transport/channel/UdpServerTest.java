package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpLinkConfig;

/** The UDP server driver over real loopback sockets: idle reaping, restarts, worker-thread replies. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpServerTest
{
    static final long MS = 1_000_000L;
    static final RequestHandler ECHO = call ->
    {
        if (call.exactlyOnce())
        {
            call.reply(ByteBuffer.allocate(call.request().remaining()).put(call.request()).flip());
        }
    };

    private static UdpServer server(final int port, final RequestHandler handler, final ExecutorService executor, final long idleTimeoutNs)
        throws Exception
    {
        return new UdpServer(new InetSocketAddress("127.0.0.1", port), EngineConfig.defaults(), UdpLinkConfig.defaults(),
            handler, executor, 1 << 20, idleTimeoutNs);
    }

    private static byte call(final UdpClient client, final InetSocketAddress address, final byte value) throws Exception
    {
        return client.call(address, ByteBuffer.wrap(new byte[] {value}), 10_000 * MS, r -> r.get());
    }

    @Test
    void aConnectionTheServerClosedAsIdleIsReplacedForTheNextCall() throws Exception
    {
        // 300 ms: under the second the ACCEPT announces, so the client does not know it and
        // meets the closed connection; the REJECT says IDLE and the call goes again on a new one.
        final java.util.concurrent.atomic.AtomicInteger executed = new java.util.concurrent.atomic.AtomicInteger();
        final RequestHandler counting = call ->
        {
            executed.incrementAndGet();
            ECHO.onRequest(call);
        };
        try (UdpServer server = server(0, counting, null, 300 * MS);
             UdpClient client = UdpClient.withDefaults())
        {
            final InetSocketAddress address = server.localAddress();
            assertEquals(7, call(client, address, (byte)7));
            assertEquals(1, server.connections());
            awaitNoConnections(server);
            assertEquals(1, server.idleClosed());
            assertEquals(8, call(client, address, (byte)8), "the call went again on a new connection");
            assertEquals(1, client.callsSentAgain());
            assertEquals(2, executed.get(), "each call executed once");
            assertEquals(1, server.endpoint().rejectsSent());
        }
    }

    @Test
    void aClientStopsUsingAConnectionBeforeTheIdleTimeoutItsServerAnnounced() throws Exception
    {
        try (UdpServer server = server(0, ECHO, null, 2_000 * MS);
             UdpClient client = UdpClient.withDefaults())
        {
            final InetSocketAddress address = server.localAddress();
            assertEquals(7, call(client, address, (byte)7));
            // Past half the announced two seconds: the pool gives the connection up itself.
            Thread.sleep(1_100);
            assertEquals(8, call(client, address, (byte)8));
            assertEquals(0, client.callsSentAgain());
            assertEquals(0, server.endpoint().rejectsSent(), "no call met a connection the server had closed");
            assertEquals(2, server.endpoint().connectionsAccepted());
        }
    }

    private static void awaitNoConnections(final UdpServer server) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (server.connections() > 0 && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(10);
        }
        assertEquals(0, server.connections());
    }

    @Test
    void aClientWithSmallerPacketsGetsRepliesInItsPacketSize() throws Exception
    {
        final UdpLinkConfig big = UdpLinkConfig.builder().maxPacketBytes(65_000).build();
        final UdpLinkConfig small = UdpLinkConfig.builder().maxPacketBytes(1_000).build();
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults().toBuilder().maxPacketBytes(65_000).build(),
                big, ECHO, null, 1 << 20, UdpServer.DEFAULT_IDLE_TIMEOUT_NS);
             UdpClient client = new UdpClient(EngineConfig.defaults().toBuilder().maxPacketBytes(1_000).build(), small, 4, 10_000 * MS, 1 << 20))
        {
            final byte[] request = new byte[100_000];
            new java.util.Random(3).nextBytes(request);
            final byte[] reply = client.call(server.localAddress(), ByteBuffer.wrap(request), 10_000 * MS, r ->
            {
                final byte[] b = new byte[r.remaining()];
                r.get(b);
                return b;
            });
            org.junit.jupiter.api.Assertions.assertArrayEquals(request, reply);
            // 100,000 bytes in packets of at most 1,000 bytes, header included: at least 101 packets.
            assertTrue(server.sum(c -> c.packetsSent()) >= 101, "reply packets: " + server.sum(c -> c.packetsSent()));
        }
    }

    @Test
    void aClientUsesItsLoopbackPacketSizeToALoopbackServer() throws Exception
    {
        final UdpLinkConfig server64k = UdpLinkConfig.builder().maxPacketBytes(65_499).build();
        final UdpLinkConfig client = UdpLinkConfig.builder().loopbackMaxPacketBytes(65_499).build();
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), server64k, ECHO, null,
                1 << 21, UdpServer.DEFAULT_IDLE_TIMEOUT_NS);
             UdpClient c = new UdpClient(EngineConfig.defaults(), client, 4, 10_000 * MS, 1 << 21))
        {
            final byte[] request = new byte[1 << 20];
            new java.util.Random(5).nextBytes(request);
            final byte[] reply = c.call(server.localAddress(), ByteBuffer.wrap(request), 10_000 * MS, r ->
            {
                final byte[] b = new byte[r.remaining()];
                r.get(b);
                return b;
            });
            org.junit.jupiter.api.Assertions.assertArrayEquals(request, reply);
            // 1 MiB in packets of up to 65,499 bytes, a 16-byte header each: 17 packets, where
            // the 8,192-byte default would take 129 (more if any were retransmitted).
            final long packets = server.sum(cc -> cc.packetsReceived());
            assertTrue(packets >= 17 && packets < 40, "request packets: " + packets);
            assertEquals(17, server.sum(cc -> cc.packetsSent()) - server.sum(cc -> cc.retransmissions()) -
                server.sum(cc -> cc.callAcksSent()) - server.sum(cc -> cc.reclaimsSent()) - server.sum(cc -> cc.reclaimAcksSent()) -
                server.sum(cc -> cc.nacksSent()), "reply data packets");
        }
    }

    /**
     * A server restarted on the same port: the old one told the client it closed the connection,
     * the pool reads that before the next call (the connection sat idle), and the call goes to the
     * new incarnation on a new connection, instead of failing on the old one: executed there once.
     * (A server that dies without telling: UdpLinkSystemTest.aNewServerIncarnationResetsTheOldClient.)
     */
    @Test
    void restartedServerIsANewIncarnationTheOldConnectionNeverReaches() throws Exception
    {
        final int port;
        // A long ack delay keeps the idle pool from sending call 1's CALL_ACK while no server
        // listens: its ICMP answer would also end the connection, and this test is about the notice.
        final UdpClient client = new UdpClient(EngineConfig.defaults().toBuilder().ackDelayNs(TimeUnit.SECONDS.toNanos(30)).build(),
            UdpLinkConfig.defaults(), UdpClient.DEFAULT_MAX_CONNECTIONS, TimeUnit.SECONDS.toNanos(30), UdpServer.DEFAULT_MAX_MESSAGE_BYTES);
        final InetSocketAddress address;
        final int[] executed = new int[1];
        final RequestHandler counting = call ->
        {
            executed[0]++;
            ECHO.onRequest(call);
        };
        try (UdpServer first = server(0, counting, null, UdpServer.DEFAULT_IDLE_TIMEOUT_NS))
        {
            address = first.localAddress();
            port = address.getPort();
            assertEquals(1, call(client, address, (byte)1));
            assertEquals(1, client.openConnections());
        }
        try (UdpServer second = server(port, counting, null, UdpServer.DEFAULT_IDLE_TIMEOUT_NS))
        {
            executed[0] = 0;
            assertEquals(2, call(client, address, (byte)2));
            assertEquals(1, executed[0], "call 2 executed once, by the new incarnation");
            assertEquals(1, client.openConnections(), "the old connection was dropped, a new one opened");
            assertEquals(3, call(client, address, (byte)3));
            assertEquals(2, executed[0]);
        }
        finally
        {
            client.close();
        }
    }

    @Test
    void oneThreadCompletesSeveralCallsByPollingTheirSelectableChannels() throws Exception
    {
        final ExecutorService workers = Executors.newFixedThreadPool(4);
        // Selectable channels need the selecting kind of wait (blocking channels cannot be selected).
        final UdpLinkConfig selecting = UdpLinkConfig.builder().clientWaits(UdpLinkConfig.ClientWaits.SELECT).build();
        try (UdpServer server = server(0, ECHO, workers, UdpServer.DEFAULT_IDLE_TIMEOUT_NS);
             UdpClient client = new UdpClient(EngineConfig.defaults(), selecting, 8, 10_000 * MS, 1 << 20);
             java.nio.channels.Selector selector = java.nio.channels.Selector.open())
        {
            final ConnectionPool pool = client.pool(server.localAddress());
            final java.util.Map<java.nio.channels.SelectableChannel, ClientConnection> inFlight = new java.util.HashMap<>();
            final java.util.Map<ClientConnection, Integer> sent = new java.util.HashMap<>();
            for (int i = 0; i < 3; i++)
            {
                final ClientConnection c = pool.acquire();
                // More than the buffer pool holds: pollReply must also pump the rest of the request.
                final byte[] request = new byte[1_000_000];
                java.util.Arrays.fill(request, (byte)i);
                c.startCall(ByteBuffer.wrap(request));
                c.selectableChannel().register(selector, java.nio.channels.SelectionKey.OP_READ);
                inFlight.put(c.selectableChannel(), c);
                sent.put(c, i);
            }
            while (!inFlight.isEmpty())
            {
                selector.select(10);
                for (final java.util.Iterator<java.nio.channels.SelectableChannel> it = inFlight.keySet().iterator(); it.hasNext(); )
                {
                    final ClientConnection c = inFlight.get(it.next());
                    final ByteBuffer reply = c.pollReply(10_000 * MS);
                    if (reply != null)
                    {
                        assertEquals(1_000_000, reply.remaining());
                        assertEquals((byte)(int)sent.get(c), reply.get(999_999), "each reply on its own connection");
                        it.remove();
                        c.selectableChannel().keyFor(selector).cancel();
                        pool.release(c);
                    }
                }
            }
        }
        finally
        {
            workers.shutdownNow();
        }
    }

    @Test
    void workerThreadRepliesReachTheirCallers() throws Exception
    {
        final ExecutorService workers = Executors.newFixedThreadPool(4);
        try (UdpServer server = server(0, ECHO, workers, UdpServer.DEFAULT_IDLE_TIMEOUT_NS);
             UdpClient client = UdpClient.withDefaults())
        {
            for (int i = 0; i < 200; i++)
            {
                assertEquals((byte)i, call(client, server.localAddress(), (byte)i));
            }
        }
        finally
        {
            workers.shutdownNow();
        }
    }
}
