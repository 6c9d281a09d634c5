package org.lightwire.bench;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

import org.lightwire.transport.channel.ServerCall;
import org.lightwire.transport.channel.UdpServer;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpLinkConfig;

/**
 * The server process of the demo and the benchmarks: a Lightwire echo server over UDP and, on
 * the next port, a raw UDP echo (the floor). Every exactly-once request gets an empty reply (a null echo, or the
 * paper's ttcp {@code receive_exactly_once}), except the one-byte request {@code 'C'}, answered
 * with the one-way bytes and calls received so far (two longs), so that a throughput run can
 * ask how much arrived. Prints {@code READY <port>} when both listen, then serves until
 * killed or until its standard input closes.
 *
 * <p>System property {@value #SERVER_IO_PROPERTY} ({@code BLOCKING} or {@code NETTY}) picks the
 * Lightwire server's front-end; unset, the link's default.
 */
public final class BenchServer
{
    /** Names the {@link UdpLinkConfig.ServerIo} of the Lightwire server. */
    public static final String SERVER_IO_PROPERTY = "lightwire.bench.serverIo";

    private BenchServer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        final AtomicLong oneWayBytes = new AtomicLong();
        final AtomicLong oneWayCalls = new AtomicLong();
        final String serverIo = System.getProperty(SERVER_IO_PROPERTY);
        final UdpLinkConfig linkConfig = serverIo == null ? UdpLinkConfig.defaults() :
            UdpLinkConfig.builder().serverIo(UdpLinkConfig.ServerIo.valueOf(serverIo)).build();
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", port), EngineConfig.defaults(), linkConfig,
                call -> serve(call, oneWayBytes, oneWayCalls), null, UdpServer.DEFAULT_MAX_MESSAGE_BYTES,
                UdpServer.DEFAULT_IDLE_TIMEOUT_NS);
             RawUdpEcho raw = new RawUdpEcho(new InetSocketAddress("127.0.0.1", server.localAddress().getPort() + 1)))
        {
            System.out.println("READY " + server.localAddress().getPort() + " " + raw.localAddress().getPort());
            System.out.flush();
            // Serve until the parent closes our standard input (or kills us).
            while (System.in.read() >= 0)
            {
                // Nothing to read: the parent sends nothing.
            }
        }
    }

    private static void serve(final ServerCall call, final AtomicLong oneWayBytes, final AtomicLong oneWayCalls)
    {
        final ByteBuffer request = call.request();
        if (!call.exactlyOnce())
        {
            oneWayBytes.addAndGet(request.remaining());
            oneWayCalls.incrementAndGet();
            return;
        }
        if (request.remaining() == 1 && request.get(request.position()) == 'C')
        {
            final ByteBuffer counts = ByteBuffer.allocate(16).putLong(oneWayBytes.get()).putLong(oneWayCalls.get()).flip();
            call.reply(counts);
            return;
        }
        // As the paper's ttcp receive_exactly_once and a null echo: an empty reply.
        call.reply(ByteBuffer.allocate(0));
    }
}
