package org.lightwire.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.ConnectionPool;
import org.lightwire.transport.channel.UdpClient;
import org.lightwire.transport.engine.ConnectionCounters;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.NettyUdpClientLink;
import org.lightwire.transport.link.udp.UdpClientLink;
import org.lightwire.transport.link.udp.UdpLinkConfig;

/**
 * The transport-level demo and latency comparison: a server JVM ({@link BenchServer}) and this
 * client JVM on loopback. It measures, interleaved in blocks (A B B A ...), a null call over
 * Lightwire/UDP and a raw UDP ping-pong of the same datagram size over the same kind of socket,
 * and prints medians, p99s and their ratio; then the throughput of 10 MB sent one-way and
 * exactly-once in calls of 1 KiB to 64 KiB.
 *
 * <p>Arguments: {@code [rounds] [callsPerBlock] [megabytes]} (defaults 20, 1000, 10). The system
 * property {@value BenchServer#SERVER_IO_PROPERTY} is passed on to the server JVM.
 */
public final class LoopbackDemo
{
    private static final long MS = 1_000_000L;

    private LoopbackDemo()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        final int block = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        final int megabytes = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        System.out.printf("Lightwire loopback demo on %d cores, %s %s%n", Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.vm.name"), System.getProperty("java.version"));
        final String serverIo = System.getProperty(BenchServer.SERVER_IO_PROPERTY);
        final List<String> serverJvmArgs = serverIo == null ? List.of("-Xmx512m") :
            List.of("-Xmx512m", "-D" + BenchServer.SERVER_IO_PROPERTY + "=" + serverIo);
        System.out.printf("server I/O: %s%n", serverIo == null ? "the link default" : serverIo);
        try (ServerProcess server = new ServerProcess(serverJvmArgs);
             UdpClient client = UdpClient.withDefaults();
             RawUdpClient raw = new RawUdpClient(new InetSocketAddress("127.0.0.1", server.rawPort()), RawUdpClient.NULL_CALL_DATAGRAM_BYTES))
        {
            final InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.lightwirePort());
            System.out.printf("server pid %d: Lightwire/UDP on port %d, raw UDP echo on port %d%n", server.pid(), server.lightwirePort(), server.rawPort());
            final ConnectionPool pool = client.pool(address);
            final ClientConnection connection = pool.acquire();
            // The same call with the hand-off the paper warns against: a Netty event loop reads
            // the socket and passes each packet to the waiting caller.
            final ClientConnection handoff = new ClientConnection(NettyUdpClientLink.connect(address, UdpLinkConfig.defaults()),
                EngineConfig.defaults(), "bench server (Netty hand-off)", 1 << 20);
            // The caller blocks in one plain receive, with no selector; timers run on the
            // deadline service's thread (UdpClientLink.connectBlocking).
            final ClientConnection blocking = new ClientConnection(UdpClientLink.connectBlocking(address, UdpLinkConfig.defaults()),
                EngineConfig.defaults(), "bench server (blocking receive)", 1 << 20);
            try
            {
                final Histogram lightwire = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
                final Histogram netty = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
                final Histogram plain = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
                final Histogram floor = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
                final ByteBuffer empty = ByteBuffer.allocateDirect(0);
                // Warm-up: let the JIT compile every path before anything is recorded.
                for (int i = 0; i < 20_000; i++)
                {
                    connection.call(empty.clear(), TimeUnit.SECONDS.toNanos(10));
                    handoff.call(empty.clear(), TimeUnit.SECONDS.toNanos(10));
                    blocking.call(empty.clear(), TimeUnit.SECONDS.toNanos(10));
                    raw.pingPong();
                }
                for (int round = 0; round < rounds; round++)
                {
                    // Rotate the order so that no path always follows the same one.
                    for (int k = 0; k < 4; k++)
                    {
                        switch ((round + k) % 4)
                        {
                            case 0:
                                nullCalls(connection, empty, block, lightwire);
                                break;
                            case 1:
                                pingPongs(raw, block, floor);
                                break;
                            case 2:
                                nullCalls(blocking, empty, block, plain);
                                break;
                            default:
                                nullCalls(handoff, empty, block, netty);
                                break;
                        }
                    }
                }
                System.out.println();
                System.out.printf("null call, %d rounds of %d calls per path, interleaved:%n", rounds, block);
                report("Lightwire/UDP, caller selects", lightwire);
                report("Lightwire/UDP, caller blocks", plain);
                report("Lightwire/UDP, Netty hand-off", netty);
                report("raw UDP ping-pong (floor)", floor);
                ratio("caller selects", lightwire, floor);
                ratio("caller blocks", plain, floor);
                ratio("Netty hand-off", netty, floor);
                System.out.println();
                System.out.printf("throughput, %d MB per run:%n", megabytes);
                for (final int size : new int[] {1024, 4096, 16 * 1024, 64 * 1024})
                {
                    oneWay(connection, size, megabytes);
                    exactlyOnce(connection, size, megabytes);
                }
                final ConnectionCounters c = connection.counters();
                System.out.println();
                System.out.printf("client connection: %d calls, %d packets sent, %d received, %d retransmissions, %d NACKs sent, srtt %.1f us%n",
                    c.calls(), c.packetsSent(), c.packetsReceived(), c.retransmissions(), c.nacksSent(), c.srttNs() / 1e3);
            }
            finally
            {
                handoff.close();
                blocking.close();
                pool.release(connection);
            }
        }
    }

    private static void nullCalls(final ClientConnection connection, final ByteBuffer empty, final int n, final Histogram h) throws IOException
    {
        for (int i = 0; i < n; i++)
        {
            final long start = System.nanoTime();
            connection.call(empty.clear(), TimeUnit.SECONDS.toNanos(10));
            h.recordValue(System.nanoTime() - start);
        }
    }

    private static void pingPongs(final RawUdpClient raw, final int n, final Histogram h) throws IOException
    {
        for (int i = 0; i < n; i++)
        {
            final long start = System.nanoTime();
            raw.pingPong();
            h.recordValue(System.nanoTime() - start);
        }
    }

    private static void ratio(final String name, final Histogram h, final Histogram floor)
    {
        System.out.printf(Locale.ROOT, "  ratio to raw, %-16s median %.3f   p99 %.3f%n", name + ":",
            (double)h.getValueAtPercentile(50) / floor.getValueAtPercentile(50),
            (double)h.getValueAtPercentile(99) / floor.getValueAtPercentile(99));
    }

    private static void report(final String name, final Histogram h)
    {
        System.out.printf(Locale.ROOT, "  %-31s median %7.1f us   p99 %7.1f us   mean %7.1f us   (n=%d)%n", name,
            h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getMean() / 1e3, h.getTotalCount());
    }

    private static long[] serverCounts(final ClientConnection connection) throws IOException
    {
        final ByteBuffer reply = connection.call(ByteBuffer.wrap(new byte[] {'C'}), TimeUnit.SECONDS.toNanos(30));
        return new long[] {reply.getLong(), reply.getLong()};
    }

    private static void oneWay(final ClientConnection connection, final int size, final int megabytes) throws IOException
    {
        final long total = megabytes * 1024L * 1024L;
        final int calls = (int)(total / size);
        final ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        final long[] before = serverCounts(connection);
        final long start = System.nanoTime();
        for (int i = 0; i < calls; i++)
        {
            connection.send(buffer.clear());
        }
        final long[] after = serverCounts(connection);
        final long elapsed = System.nanoTime() - start;
        final long delivered = after[0] - before[0];
        System.out.printf(Locale.ROOT, "  one-way      %6d B x %5d: %8.1f Mbit/s sent, %5.1f%% delivered (at most once)%n",
            size, calls, calls * (double)size * 8e3 / elapsed, 100.0 * delivered / ((double)calls * size));
    }

    private static void exactlyOnce(final ClientConnection connection, final int size, final int megabytes) throws IOException
    {
        final long total = megabytes * 1024L * 1024L;
        final int calls = (int)(total / size);
        final ByteBuffer buffer = ByteBuffer.allocateDirect(size);
        final long start = System.nanoTime();
        for (int i = 0; i < calls; i++)
        {
            connection.call(buffer.clear(), TimeUnit.SECONDS.toNanos(30));
        }
        final long elapsed = System.nanoTime() - start;
        System.out.printf(Locale.ROOT, "  exactly-once %6d B x %5d: %8.1f Mbit/s (each call waits for its empty reply)%n",
            size, calls, calls * (double)size * 8e3 / elapsed);
    }
}
