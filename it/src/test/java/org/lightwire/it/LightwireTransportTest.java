package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.Pair;
import org.lightwire.it.idl.lwtest.TtcpStats;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.pairs;
import org.lightwire.it.idl.lwtest.pairsHelper;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.idl.lwtest.ttcpHelper;
import org.omg.CORBA.ORB;

/**
 * The IIOP baseline's workload over Lightwire: a {@link TestServer} JVM with both listeners, a
 * client ORB in this JVM with the plug-in and the Lightwire-preferring selector. Every test also
 * checks, through the client's transport counters, that its calls really went over Lightwire.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LightwireTransportTest
{
    private static final long SEED = 0x1_16E_3141L;
    private static final int ECHO_CALLS = 10_000;

    private int port;
    private ProcessHarness server;
    private ORB orb;
    private LightwireFactories lightwire;
    private echo echo;
    private ttcp ttcp;
    private pairs pairs;

    @BeforeAll
    void startServerAndClient() throws Exception
    {
        port = Workloads.freePort();
        // OAPort fixes the IIOP port; the Lightwire listener takes the same number on UDP.
        server = ProcessHarness.startTestServer(Orbs.lightwire(Map.of("OAPort", Integer.toString(port))));
        orb = Orbs.init(Orbs.lightwire());
        lightwire = LightwireFactories.of(orb);
        assertNotNull(lightwire, "the client ORB has no Lightwire factories");
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
    void tenThousandEchoesOfVariedStringsComeBackExactly()
    {
        final long transportCallsBefore = lightwire.callsStarted();
        final long callsBefore = echo.calls_received();
        final Random random = new Random(SEED);
        for (int i = 0; i < ECHO_CALLS; i++)
        {
            final String sent = Workloads.variedString(i, random);
            final String received = echo.echoString(sent);
            final int call = i;
            assertTrue(sent.equals(received), () -> "echo call " + call + " (seed " + SEED + "): sent " + sent.length() +
                " chars, received " + (received == null ? "null" : received.length() + " chars that differ"));
        }
        assertEquals(callsBefore + ECHO_CALLS, echo.calls_received());
        // Every call, and the two calls_received, was one Lightwire transport call.
        assertEquals(ECHO_CALLS + 2, lightwire.callsStarted() - transportCallsBefore);
        assertEquals(0, lightwire.callsFailed());
    }

    @Test
    void exactlyOnceTtcpOfElevenMebibytesInSizesFrom1KiBTo1MiBIsExecutedExactlyOnce()
    {
        ttcp.reset();
        final long transportCallsBefore = lightwire.callsStarted();
        final long directBefore = lightwire.directRequests();
        final Workloads.TtcpRun run = Workloads.sendTtcp(ttcp, true);
        Workloads.assertStats(ttcp.stats(), run.calls, run.bytes, 0, 0, run.checksum);
        assertEquals(run.calls + 1, lightwire.callsStarted() - transportCallsBefore);
        // The buffers of 8 KiB to 1 MiB (128 + 64 + ... + 1 calls) were written by JacORB into
        // their transport connection's direct buffer; the smaller ones, in arrays.
        assertEquals(255, lightwire.directRequests() - directBefore);
        assertEquals(0, lightwire.directRequestBuffersRefused());
    }

    @Test
    void onewayTtcpOfElevenMebibytesIsExecutedAtMostOnceAndIntact() throws InterruptedException
    {
        ttcp.reset();
        final long onewaysBefore = lightwire.onewaysSent();
        final Workloads.TtcpRun run = Workloads.sendTtcp(ttcp, false);
        assertEquals(run.calls, lightwire.onewaysSent() - onewaysBefore, "every oneway went over Lightwire, at-most-once");
        final TtcpStats stats = Workloads.awaitOneways(ttcp, run.calls);
        System.out.println("oneway ttcp over Lightwire: " + stats.calls + " of " + run.calls + " buffers executed, " + stats.bytes + " bytes");
        // At-most-once: a lost datagram loses its call, but nothing arrives twice or altered.
        assertTrue(stats.calls <= run.calls, "more calls executed than sent");
        assertTrue(stats.calls > 0, "no oneway arrived at all");
        assertEquals(0, stats.duplicates, "duplicate buffers");
        assertEquals(0, stats.corrupt, "corrupt buffers");
        assertTrue(stats.bytes <= run.bytes);
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
            assertEquals(in.a, output[i].b, "pair " + i);
            assertEquals(in.b, output[i].a, "pair " + i);
        }
        assertEquals(sum, pairs.sumOfDifferences(input));
        assertEquals(0, pairs.reverseAndSwap(new Pair[0]).length);
    }

    /**
     * 16 threads over one ORB connection: 4 make slow calls (the servant sleeps 3 s), 12 make
     * fast calls meanwhile. Every fast call must complete before the first slow one returns
     * (they do not queue behind it), and every reply must be its caller's own.
     */
    @Test
    void sixteenThreadsCallAtOnceAndFastCallsPassSlowOnes() throws Exception
    {
        final int slowThreads = 4;
        final int fastThreads = 12;
        final int fastCallsEach = 50;
        final long callsBefore = echo.calls_received();
        final ExecutorService pool = Executors.newFixedThreadPool(slowThreads + fastThreads);
        final CountDownLatch slowStarted = new CountDownLatch(slowThreads);
        final AtomicInteger slowReturned = new AtomicInteger();
        final AtomicInteger fastAfterSlowReturned = new AtomicInteger();
        try
        {
            final List<Future<String>> slow = new ArrayList<>();
            for (int t = 0; t < slowThreads; t++)
            {
                final String mesg = "slow-" + t;
                slow.add(pool.submit(() ->
                {
                    slowStarted.countDown();
                    final String reply = echo.slowEcho(mesg, 3000);
                    slowReturned.incrementAndGet();
                    return reply;
                }));
            }
            slowStarted.await(30, TimeUnit.SECONDS);
            // Let the slow requests reach the servant before the fast ones start.
            Thread.sleep(200);
            final List<Future<Integer>> fast = new ArrayList<>();
            for (int t = 0; t < fastThreads; t++)
            {
                final int thread = t;
                fast.add(pool.submit(() ->
                {
                    for (int i = 0; i < fastCallsEach; i++)
                    {
                        final String mesg = "fast-" + thread + "-" + i;
                        assertEquals(mesg, echo.echoString(mesg));
                        if (slowReturned.get() > 0)
                        {
                            fastAfterSlowReturned.incrementAndGet();
                        }
                    }
                    return fastCallsEach;
                }));
            }
            for (final Future<Integer> f : fast)
            {
                assertEquals(fastCallsEach, f.get(60, TimeUnit.SECONDS));
            }
            for (int t = 0; t < slowThreads; t++)
            {
                assertEquals("slow-" + t, slow.get(t).get(60, TimeUnit.SECONDS));
            }
        }
        finally
        {
            pool.shutdownNow();
        }
        assertEquals(0, fastAfterSlowReturned.get(), "fast calls waited for slow ones");
        assertEquals(callsBefore + slowThreads + fastThreads * fastCallsEach, echo.calls_received());
    }

    @Test
    void corbalocWithLightwireProtocolResolvesOnTheIiopPortNumber()
    {
        final echo byCorbaloc = echoHelper.narrow(orb.string_to_object("corbaloc:lw:127.0.0.1:" + port + "/echo"));
        final long before = lightwire.callsStarted();
        assertEquals("via corbaloc", byCorbaloc.echoString("via corbaloc"));
        assertTrue(lightwire.callsStarted() > before, "the corbaloc call did not go over Lightwire");
        final echo byIiop = echoHelper.narrow(orb.string_to_object("corbaloc:iiop:127.0.0.1:" + port + "/echo"));
        assertEquals("via iiop", byIiop.echoString("via iiop"));
    }
}
