package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.lightwire.it.idl.lwtest.Pair;
import org.lightwire.it.idl.lwtest.TtcpStats;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.pairs;
import org.lightwire.it.idl.lwtest.pairsHelper;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.idl.lwtest.ttcpHelper;
import org.lightwire.it.servant.TtcpPattern;
import org.omg.CORBA.ORB;

/**
 * The IIOP baseline: a {@link TestServer} in its own JVM and a client ORB in this one, both plain
 * JacORB 3.9 over TCP on loopback. Every Lightwire transport test runs the same workload and must
 * get the same exact outcomes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IiopBaselineTest
{
    /** Seed of every pseudo-random choice in this class; a failure message repeats it. */
    private static final long SEED = 0x11_0B_A5E1L;
    private static final int ECHO_CALLS = 1000;
    private static final int ONE_MIB = 1 << 20;
    private static final int TTCP_BUFFERS = 64;
    private static final int TTCP_BUFFER_CHARS = 64 * 1024;
    /** Bound on waiting for oneway requests to be dispatched; not a performance claim. */
    private static final long ONEWAY_DRAIN_LIMIT_MS = 30_000;

    private ProcessHarness server;
    private ORB orb;
    private echo echo;
    private ttcp ttcp;
    private pairs pairs;

    @BeforeAll
    void startServerAndClient() throws IOException
    {
        server = ProcessHarness.startTestServer(Map.of());
        orb = Orbs.init(Map.of());
        echo = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
        ttcp = ttcpHelper.narrow(orb.string_to_object(server.ior("ttcp")));
        pairs = pairsHelper.narrow(orb.string_to_object(server.ior("pairs")));
    }

    @AfterAll
    void stopClientAndServer()
    {
        try
        {
            if (orb != null)
            {
                orb.shutdown(true);
                orb.destroy();
            }
        }
        finally
        {
            if (server != null)
            {
                server.close();
            }
        }
    }

    @Test
    void serverRunsOnTheSameJavaAsTheTest()
    {
        // A JDK 25 run must test a JDK 25 server, not whatever java is first on the PATH.
        assertEquals(System.getProperty("java.version"), server.childJavaVersion());
    }

    @Test
    void thousandEchoesOfVariedStringsComeBackExactly()
    {
        final long callsBefore = echo.calls_received();
        final Random random = new Random(SEED);
        for (int i = 0; i < ECHO_CALLS; i++)
        {
            final String sent = variedString(i, random);
            final String received = echo.echoString(sent);
            final int call = i;
            assertTrue(sent.equals(received), () -> "echo call " + call + " (seed " + SEED
                + "): sent " + sent.length() + " chars, received "
                + (received == null ? "null" : received.length() + " chars that differ"));
        }
        assertEquals(callsBefore + ECHO_CALLS, echo.calls_received());
    }

    @Test
    void exactlyOnceTtcpDeliversEveryBufferOnceAndIntact()
    {
        ttcp.reset();
        long checksum = 0;
        for (int seq = 0; seq < TTCP_BUFFERS; seq++)
        {
            final char[] buffer = TtcpPattern.create(seq, TTCP_BUFFER_CHARS);
            checksum += TtcpPattern.crc32(buffer);
            ttcp.receive_exactly_once(buffer);
        }
        assertStats(ttcp.stats(), TTCP_BUFFERS, (long)TTCP_BUFFERS * TTCP_BUFFER_CHARS, 0, 0, checksum);
        assertEquals(TTCP_BUFFERS, ttcp.calls_received());
        assertEquals((long)TTCP_BUFFERS * TTCP_BUFFER_CHARS, ttcp.bytes_received());
    }

    @Test
    void onewayTtcpOverTcpDeliversEveryBufferOnceAndIntact() throws InterruptedException
    {
        ttcp.reset();
        long checksum = 0;
        for (int seq = 0; seq < TTCP_BUFFERS; seq++)
        {
            final char[] buffer = TtcpPattern.create(seq, TTCP_BUFFER_CHARS);
            checksum += TtcpPattern.crc32(buffer);
            ttcp.receive_at_most_once(buffer);
        }
        // Oneways return once sent; the server may still be dispatching them on its pool.
        final TtcpStats stats = awaitCalls(TTCP_BUFFERS);
        assertStats(stats, TTCP_BUFFERS, (long)TTCP_BUFFERS * TTCP_BUFFER_CHARS, 0, 0, checksum);
    }

    @Test
    void serverCountsCorruptAndDuplicateBuffers()
    {
        ttcp.reset();
        final char[] good = TtcpPattern.create(7, 1000);
        final char[] corrupt = TtcpPattern.create(8, 1000);
        corrupt[500] = corrupt[500] == 'z' ? 'y' : 'z';
        ttcp.receive_exactly_once(good);
        ttcp.receive_exactly_once(good);
        ttcp.receive_exactly_once(corrupt);
        assertStats(ttcp.stats(), 3, 3000, 1, 1, TtcpPattern.crc32(good));
    }

    @Test
    void sequenceOfStructsIsMarshalledBothWays()
    {
        final Random random = new Random(SEED);
        final Pair[] input = new Pair[10_000];
        long sum = 0;
        for (int i = 0; i < input.length; i++)
        {
            input[i] = new Pair(random.nextInt(), random.nextInt());
            sum += (long)input[i].a - input[i].b;
        }
        final Pair[] output = pairs.reverseAndSwap(input);
        assertEquals(input.length, output.length);
        for (int i = 0; i < input.length; i++)
        {
            final Pair in = input[input.length - 1 - i];
            assertEquals(in.a, output[i].b, "pair " + i + ", seed " + SEED);
            assertEquals(in.b, output[i].a, "pair " + i + ", seed " + SEED);
        }
        assertEquals(sum, pairs.sumOfDifferences(input));
        assertEquals(0, pairs.reverseAndSwap(new Pair[0]).length);
    }

    @Test
    void concurrentSlowCallsEachGetTheirOwnReply() throws Exception
    {
        final int threads = 8;
        final long callsBefore = echo.calls_received();
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try
        {
            final List<Callable<String>> calls = new ArrayList<>();
            for (int i = 0; i < threads; i++)
            {
                final String mesg = "caller-" + i;
                calls.add(() -> echo.slowEcho(mesg, 200));
            }
            final List<Future<String>> replies = pool.invokeAll(calls, 60, TimeUnit.SECONDS);
            for (int i = 0; i < threads; i++)
            {
                assertEquals("caller-" + i, replies.get(i).get());
            }
        }
        finally
        {
            pool.shutdownNow();
        }
        assertEquals(callsBefore + threads, echo.calls_received());
    }

    private TtcpStats awaitCalls(final long calls) throws InterruptedException
    {
        final long deadlineMs = System.currentTimeMillis() + ONEWAY_DRAIN_LIMIT_MS;
        TtcpStats stats = ttcp.stats();
        while (stats.calls < calls && System.currentTimeMillis() < deadlineMs)
        {
            Thread.sleep(10);
            stats = ttcp.stats();
        }
        return stats;
    }

    private static void assertStats(
        final TtcpStats stats,
        final long calls,
        final long bytes,
        final long corrupt,
        final long duplicates,
        final long checksum)
    {
        assertEquals(calls, stats.calls, "calls");
        assertEquals(bytes, stats.bytes, "bytes");
        assertEquals(corrupt, stats.corrupt, "corrupt buffers");
        assertEquals(duplicates, stats.duplicates, "duplicate buffers");
        assertEquals(checksum, stats.checksum, "checksum of distinct buffers");
    }

    /**
     * The i-th string of the echo workload: fixed edge cases first (empty, one char, 1 MiB, Latin-1,
     * CJK, a character outside the BMP), then pseudo-random strings, every 100th of them long.
     */
    private static String variedString(final int i, final Random random)
    {
        switch (i)
        {
            case 0:
                return "";
            case 1:
                return "x";
            case 2:
                return "a".repeat(ONE_MIB);
            case 3:
                return "Grüße aus Köln, ça va? ½ ÿ";
            case 4:
                return "日本語のテキスト、中文文本";
            case 5:
                return "outside the BMP: \uD83D\uDE00 \uD834\uDD1E";
            default:
                final int length = i % 100 == 50 ? 16_384 + random.nextInt(49_152) : random.nextInt(257);
                return randomString(length, random);
        }
    }

    private static String randomString(final int length, final Random random)
    {
        final StringBuilder sb = new StringBuilder(length);
        for (int k = 0; k < length; k++)
        {
            switch (random.nextInt(8))
            {
                case 0:
                    sb.append((char)(0xA0 + random.nextInt(0x60)));   // Latin-1 supplement
                    break;
                case 1:
                    sb.append((char)(0x391 + random.nextInt(0x19)));  // Greek capitals
                    break;
                case 2:
                    sb.append((char)(0x4E00 + random.nextInt(0x500))); // CJK ideographs
                    break;
                default:
                    sb.append((char)(0x20 + random.nextInt(0x5F)));   // printable ASCII
                    break;
            }
        }
        return sb.toString();
    }
}
