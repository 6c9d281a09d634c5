package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.memory.Faults;
import org.lightwire.transport.link.memory.MemoryLink;
import org.lightwire.transport.link.memory.SeedReporter;

/**
 * The drivers (caller-driven client connection, single-threaded link server) over a threaded
 * in-memory link with seeded loss, in real time. Exact outcomes only; no timing assertions.
 * Each test runs twice: the client waits with timed receives (it keeps its own timers), and
 * with untimed ones (the {@link DeadlineService} keeps them and ends waits by closing the link).
 */
@ExtendWith(SeedReporter.class)
class MemoryLinkChannelTest
{
    static final long MS = 1_000_000L;
    static final EngineConfig CONFIG = EngineConfig.builder()
        .maxPacketBytes(1500)
        .bufferPoolPackets(16)
        .ackDelayNs(2 * MS)
        .retransmitMinNs(2 * MS)
        .retransmitMaxNs(50 * MS)
        .retransmitInitialNs(5 * MS)
        .peerTimeoutNs(5_000 * MS)
        .build();

    /** Echo server that counts executions of each request by its first 4 bytes (the call number). */
    static final class Echo implements RequestHandler
    {
        final ConcurrentHashMap<Integer, AtomicInteger> executions = new ConcurrentHashMap<>();

        @Override
        public void onRequest(final ServerCall call)
        {
            final ByteBuffer request = call.request();
            if (request.remaining() >= 4)
            {
                executions.computeIfAbsent(request.getInt(request.position()), k -> new AtomicInteger()).incrementAndGet();
            }
            if (call.exactlyOnce())
            {
                final ByteBuffer copy = ByteBuffer.allocate(request.remaining()).put(request).flip();
                call.reply(copy);
            }
        }
    }

    /** The client end as a link without timed receive: it takes only 0 and FOREVER. */
    static Link clientEnd(final Link link, final boolean timed)
    {
        if (timed)
        {
            return link;
        }
        return new Link()
        {
            @Override
            public void send(final ByteBuffer header, final ByteBuffer payload) throws java.io.IOException
            {
                link.send(header, payload);
            }

            @Override
            public int receive(final ByteBuffer dst, final long timeoutNs) throws java.io.IOException
            {
                if (timeoutNs != 0 && timeoutNs != Link.FOREVER)
                {
                    throw new AssertionError("an untimed link was asked to wait " + timeoutNs + " ns");
                }
                return link.receive(dst, timeoutNs);
            }

            @Override
            public int maxPacketBytes()
            {
                return link.maxPacketBytes();
            }

            @Override
            public boolean preservesOrder()
            {
                return link.preservesOrder();
            }

            @Override
            public boolean timedReceive()
            {
                return false;
            }

            @Override
            public void close() throws java.io.IOException
            {
                link.close();
            }
        };
    }

    @ParameterizedTest(name = "timed receive {0}")
    @ValueSource(booleans = {true, false})
    void callsOverALossyLinkExecuteOnceAndEchoExactly(final boolean timed) throws Exception
    {
        final long seed = SeedReporter.register(42, "MemoryLink pair");
        final Faults lossy = Faults.builder().dropRate(0.1).duplicateRate(0.05).reorderRate(0.05).build();
        final MemoryLink.Pair pair = MemoryLink.pair(seed, lossy, lossy, 1500);
        final Echo echo = new Echo();
        try (LinkServerDriver server = new LinkServerDriver(pair.b(), CONFIG, echo, null, 1 << 20, "test").start();
             ClientConnection client = new ClientConnection(clientEnd(pair.a(), timed), CONFIG, "memory", 1 << 20))
        {
            assertTimeoutPreemptively(Duration.ofSeconds(120), () ->
            {
                final SplittableRandom random = new SplittableRandom(seed);
                for (int i = 0; i < 400; i++)
                {
                    final int length = random.nextInt(100) < 90 ? random.nextInt(4, 1200) : random.nextInt(4, 100_000);
                    final byte[] bytes = new byte[length];
                    random.nextBytes(bytes);
                    ByteBuffer.wrap(bytes).putInt(0, i);
                    if (i % 4 == 3)
                    {
                        client.send(ByteBuffer.wrap(bytes.clone()));
                        continue;
                    }
                    final ByteBuffer reply = client.call(ByteBuffer.wrap(bytes.clone()), 60_000 * MS);
                    final byte[] got = new byte[reply.remaining()];
                    reply.get(got);
                    assertArrayEquals(bytes, got, "reply to call " + i);
                }
            });
            for (int i = 0; i < 400; i++)
            {
                final AtomicInteger n = echo.executions.get(i);
                if (i % 4 != 3)
                {
                    assertEquals(1, n == null ? 0 : n.get(), "exactly-once call " + i);
                }
                else
                {
                    assertTrue(n == null || n.get() == 1, "one-way call " + i + " executed at most once");
                }
            }
            assertTrue(client.counters().retransmissions() + server.session().counters().retransmissions() > 0);
        }
    }

    @ParameterizedTest(name = "timed receive {0}")
    @ValueSource(booleans = {true, false})
    void deadServerFailsTheCallWithAZombieWithinThePeerTimeout(final boolean timed) throws Exception
    {
        final MemoryLink.Pair pair = MemoryLink.pair(7, Faults.NONE, Faults.NONE, 1500);
        final EngineConfig quick = CONFIG.toBuilder().retransmitMaxNs(20 * MS).peerTimeoutNs(200 * MS).build();
        pair.b().close();
        try (ClientConnection client = new ClientConnection(clientEnd(pair.a(), timed), quick, "nobody", 1 << 20))
        {
            final ConnectionFailedException e = assertThrows(ConnectionFailedException.class,
                () -> assertTimeoutPreemptively(Duration.ofSeconds(30), () -> client.call(ByteBuffer.wrap(new byte[10]), 60_000 * MS)));
            assertFalse(e instanceof CallTimeoutException);
            assertTrue(e.getMessage().contains("no packet from the server"), e.getMessage());
            assertTrue(e.getMessage().contains("peerTimeoutNs"), e.getMessage());
            assertFalse(client.isUsable());
            final ConnectionFailedException again = assertThrows(ConnectionFailedException.class, () -> client.call(ByteBuffer.wrap(new byte[1]), MS));
            assertTrue(again.getMessage().contains("failed earlier"), again.getMessage());
        }
    }

    @ParameterizedTest(name = "timed receive {0}")
    @ValueSource(booleans = {true, false})
    void slowServerHitsTheCallersTimeoutNotThePeerTimeout(final boolean timed) throws Exception
    {
        final MemoryLink.Pair pair = MemoryLink.pair(8, Faults.NONE, Faults.NONE, 1500);
        final RequestHandler never = call -> { };
        try (LinkServerDriver server = new LinkServerDriver(pair.b(), CONFIG, never, null, 1 << 20, "slow").start();
             ClientConnection client = new ClientConnection(clientEnd(pair.a(), timed), CONFIG, "slow", 1 << 20))
        {
            final CallTimeoutException e = assertThrows(CallTimeoutException.class,
                () -> assertTimeoutPreemptively(Duration.ofSeconds(30), () -> client.call(ByteBuffer.wrap(new byte[10]), 300 * MS)));
            assertTrue(e.getMessage().contains("the server is alive"), e.getMessage());
        }
    }
}
