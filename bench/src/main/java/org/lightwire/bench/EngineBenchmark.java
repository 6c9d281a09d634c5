package org.lightwire.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.lightwire.transport.engine.BufferReleaser;
import org.lightwire.transport.engine.ClientEngine;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.engine.MessageHandler;
import org.lightwire.transport.engine.ServerEngine;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The protocol's own cost, without I/O: a client and a server engine joined by direct calls, one
 * null call per operation (request, server upcall, reply, client upcall). With {@code -prof gc}
 * it shows whether the engines allocate per call.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EngineBenchmark
{
    private ClientEngine client;
    private ServerEngine server;
    private final ByteBuffer request = ByteBuffer.allocateDirect(0);
    private final ByteBuffer reply = ByteBuffer.allocateDirect(0);
    private final ByteBuffer toServer = ByteBuffer.allocateDirect(64);
    private final ByteBuffer toClient = ByteBuffer.allocateDirect(64);
    private long nowNs;
    private int replies;

    @Setup
    public void setUp()
    {
        // No round-trip probes: each direction here holds only the last packet sent.
        final EngineConfig config = EngineConfig.builder().rttProbeIntervalNs(0).build();
        client = new ClientEngine(config, (h, p) -> copy(toServer, h, p), new MessageHandler()
        {
            @Override
            public void onMessageData(final ByteBuffer payload, final boolean end, final boolean exactlyOnce)
            {
                replies++;
            }

            @Override
            public void onMessageAborted(final String reason)
            {
            }
        }, BufferReleaser.NONE);
        server = new ServerEngine(config, (h, p) -> copy(toClient, h, p), new MessageHandler()
        {
            @Override
            public void onMessageData(final ByteBuffer payload, final boolean end, final boolean exactlyOnce)
            {
            }

            @Override
            public void onMessageAborted(final String reason)
            {
            }
        }, BufferReleaser.NONE);
    }

    private static void copy(final ByteBuffer to, final ByteBuffer header, final ByteBuffer payload)
    {
        to.clear();
        to.put(header);
        if (payload != null)
        {
            to.put(payload);
        }
        to.flip();
    }

    @Benchmark
    public int nullCall()
    {
        nowNs += 10_000;
        client.send(request.clear(), true, true, nowNs);
        server.onPacket(toServer, nowNs);
        server.send(reply.clear(), true, nowNs);
        client.onPacket(toClient, nowNs);
        return replies;
    }
}
