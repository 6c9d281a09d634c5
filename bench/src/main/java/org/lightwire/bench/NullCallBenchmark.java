package org.lightwire.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.udp.NettyUdpClientLink;
import org.lightwire.transport.link.udp.UdpClientLink;
import org.lightwire.transport.link.udp.UdpLinkConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A null call between two processes on loopback, by client path: Lightwire with the caller
 * blocked in one plain receive ({@code lightwire}, the default), the caller waiting in a
 * selector ({@code lightwire-select}), Lightwire over a Netty event loop that
 * hands each packet to the caller ({@code lightwire-netty}, the hand-off the paper warns
 * against), and a raw UDP ping-pong of the same datagram size ({@code raw}, the floor).
 *
 * <p>JMH runs the three one after another; {@link LoopbackDemo} interleaves them for the ratio.
 * Run with {@code -prof gc} to see the allocation per call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class NullCallBenchmark
{
    @Param({"lightwire", "lightwire-select", "lightwire-netty", "raw"})
    public String path;

    private ServerProcess server;
    private ClientConnection connection;
    private RawUdpClient raw;
    private final ByteBuffer empty = ByteBuffer.allocateDirect(0);

    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        server = new ServerProcess(List.of("-Xmx256m"));
        final InetSocketAddress lightwire = new InetSocketAddress("127.0.0.1", server.lightwirePort());
        switch (path)
        {
            case "lightwire":
                connection = connection(UdpClientLink.connectBlocking(lightwire, UdpLinkConfig.defaults()));
                break;
            case "lightwire-select":
                connection = connection(UdpClientLink.connect(lightwire, UdpLinkConfig.defaults()));
                break;
            case "lightwire-netty":
                connection = connection(NettyUdpClientLink.connect(lightwire, UdpLinkConfig.defaults()));
                break;
            default:
                raw = new RawUdpClient(new InetSocketAddress("127.0.0.1", server.rawPort()), RawUdpClient.NULL_CALL_DATAGRAM_BYTES);
                break;
        }
    }

    private static ClientConnection connection(final Link link)
    {
        return new ClientConnection(link, EngineConfig.defaults(), "bench server", 1 << 20);
    }

    @Benchmark
    public int nullCall() throws IOException
    {
        if (raw != null)
        {
            return raw.pingPong();
        }
        return connection.call(empty.clear(), 10_000_000_000L).remaining();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        if (connection != null)
        {
            connection.close();
        }
        if (raw != null)
        {
            raw.close();
        }
        server.close();
    }
}
