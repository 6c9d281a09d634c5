package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.LightwireConfig;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.TtcpStats;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.idl.lwtest.ttcpHelper;
import org.lightwire.it.servant.TtcpPattern;
import org.omg.CORBA.ORB;

/**
 * Many callers on ONE client ORB (so one Lightwire GIOP connection, whose JacORB reader drives
 * every in-flight call in one selector, InFlightCalls) against a server in a network namespace
 * that drops 5% of its port's datagrams each way (real kernel loss, {@link LossyNamespace}). The
 * calls mix small exactly-once ttcp buffers (self-describing: the server detects a duplicate),
 * echoes checked against what was sent, and slow echoes (a few ms of servant time) that keep the
 * reader waiting on long timers while other callers start calls: the calls started while it
 * sleeps need its wake-up, and under loss their retransmission timers are all that gets them
 * answered. Asserted exactly: every call returned (no exception, none timed out), each reply is
 * the one sent, the server executed each call once (ttcp: as many buffers as calls, no duplicate,
 * the checksum of all; echo: its count went up by the echoes made). The client's call timeout
 * (20 s) and JacORB's reply timeout (60 s) only turn a lost call into a failure instead of a
 * hang. Needs root, {@code ip} and {@code iptables}; skipped with the reason otherwise.
 */
class LightwireConcurrentCallersLossTest
{
    private static final int CALLERS = 16;
    private static final int CALLS_PER_CALLER = 400;
    private static final double LOSS = 0.05;
    private static final long SEED = 0x16_CA11L;

    private static volatile boolean callersStuck;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void sixteenCallersOnOneOrbUnderFivePercentLossEachCallExactlyOnce() throws Exception
    {
        Shell.assumeRootNetworking("a network namespace and iptables rules");
        final int port = 20_000 + (int)(ProcessHandle.current().pid() % 20_000);
        try (LossyNamespace ns = new LossyNamespace("10.203");
             ProcessHarness server = ProcessHarness.startTestServerUnder(ns.prefix(),
                 Orbs.lightwire(Map.of(Orbs.LISTEN_ADDRESS, ns.innerAddress(), "OAPort", Integer.toString(port)))))
        {
            // The transport's call timeout is enforced by the reader, so a call it never learns of
            // would wait for ever: JacORB's own reply timeout (60 s) turns that into a failure too.
            final ORB orb = Orbs.init(Orbs.lightwire(Map.of(LightwireConfig.PEER_TIMEOUT_MS, "30000",
                LightwireConfig.CLIENT_CALL_TIMEOUT_MS, "20000", "jacorb.connection.client.pending_reply_timeout", "60000")));
            try
            {
                run(orb, server, ns, port);
            }
            finally
            {
                // Stuck callers: do not wait for their calls.
                orb.shutdown(!callersStuck);
                if (!callersStuck)
                {
                    orb.destroy();
                }
            }
        }
    }

    private static void run(final ORB orb, final ProcessHarness server, final LossyNamespace ns, final int port) throws Exception
    {
        final LightwireFactories lightwire = LightwireFactories.of(orb);
        final echo echo = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
        final ttcp ttcp = ttcpHelper.narrow(orb.string_to_object(server.ior("ttcp")));
        // Without loss: the GIOP connection and its first transport connections are made.
        assertEquals("warm", echo.echoString("warm"));
        ttcp.reset();
        final long echoesBefore = echo.calls_received();
        final long failedBefore = lightwire.callsFailed();
        ns.drop(port, LOSS);

        final Queue<String> failures = new ConcurrentLinkedQueue<>();
        final AtomicLong ttcpOk = new AtomicLong();
        final AtomicLong ttcpBytes = new AtomicLong();
        final AtomicLong ttcpChecksum = new AtomicLong();
        final AtomicLong echoOk = new AtomicLong();
        // Reported, not asserted: a lost wake-up shows as a delay (up to the reader's earliest timer), not as a lost call.
        final AtomicLong maxCallNs = new AtomicLong();
        final AtomicLong callsOver100Ms = new AtomicLong();
        final CyclicBarrier start = new CyclicBarrier(CALLERS);
        final List<Thread> callers = new ArrayList<>();
        final long startNs = System.nanoTime();
        for (int t = 0; t < CALLERS; t++)
        {
            final int caller = t;
            final Thread thread = new Thread(() ->
            {
                final Random random = new Random(SEED + caller);
                try
                {
                    start.await();
                }
                catch (final Exception e)
                {
                    failures.add("caller " + caller + " did not start: " + e);
                    return;
                }
                for (int i = 0; i < CALLS_PER_CALLER; i++)
                {
                    final int kind = (caller + i) % 4;
                    final long callStartNs = System.nanoTime();
                    try
                    {
                        if (kind == 0)
                        {
                            // One to three packets: 100 to 20,000 chars.
                            final int length = i % 20 == 0 ? 20_000 : 100 + random.nextInt(1_900);
                            final char[] buffer = TtcpPattern.create(caller * CALLS_PER_CALLER + i, length);
                            ttcp.receive_exactly_once(buffer);
                            ttcpOk.incrementAndGet();
                            ttcpBytes.addAndGet(length);
                            ttcpChecksum.addAndGet(TtcpPattern.crc32(buffer));
                        }
                        else
                        {
                            final String sent = caller + "/" + i + "/" + Workloads.randomString(random.nextInt(200), random);
                            final String received = kind == 3 ? echo.slowEcho(sent, 1 + random.nextInt(20)) : echo.echoString(sent);
                            if (!sent.equals(received))
                            {
                                failures.add("caller " + caller + " call " + i + ": the reply is not what was sent");
                            }
                            echoOk.incrementAndGet();
                        }
                    }
                    catch (final RuntimeException e)
                    {
                        failures.add("caller " + caller + " call " + i + " (kind " + kind + "): " + e);
                    }
                    final long tookNs = System.nanoTime() - callStartNs;
                    maxCallNs.accumulateAndGet(tookNs, Math::max);
                    if (tookNs > TimeUnit.MILLISECONDS.toNanos(100))
                    {
                        callsOver100Ms.incrementAndGet();
                    }
                }
            }, "caller-" + t);
            callers.add(thread);
            thread.start();
        }
        // Every call ends within the reply timeout (60 s): a caller still busy after this is stuck.
        final long joinDeadlineNs = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        final List<String> stuck = new ArrayList<>();
        for (final Thread thread : callers)
        {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinDeadlineNs - System.nanoTime())));
            if (thread.isAlive())
            {
                stuck.add(thread.getName());
            }
        }
        if (!stuck.isEmpty())
        {
            callersStuck = true;
        }
        assertTrue(stuck.isEmpty(), "callers still waiting for a reply after 3 minutes (reply timeout 60 s): " + stuck);
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        final long dropped = dropped(ns.counters());
        ns.drop(port, 0);
        System.out.printf("%d callers x %d calls on one ORB, %.0f%% loss each way: %d ms, %d datagrams dropped, %d transport calls "
            + "sent again, %d failed; slowest call %d ms, %d over 100 ms%n", CALLERS, CALLS_PER_CALLER, LOSS * 100, elapsedMs, dropped,
            lightwire.callsSentAgain(), lightwire.callsFailed() - failedBefore, TimeUnit.NANOSECONDS.toMillis(maxCallNs.get()),
            callsOver100Ms.get());

        assertTrue(failures.isEmpty(), failures.size() + " calls failed, first: " + failures.stream().limit(5).toList());
        assertEquals((long)CALLERS * CALLS_PER_CALLER, ttcpOk.get() + echoOk.get());
        final TtcpStats stats = ttcp.stats();
        Workloads.assertStats(stats, ttcpOk.get(), ttcpBytes.get(), 0, 0, ttcpChecksum.get());
        assertEquals(echoOk.get(), echo.calls_received() - echoesBefore, "echo calls executed by the server (once each)");
        assertEquals(0, lightwire.callsFailed() - failedBefore, "transport calls failed");
        assertTrue(dropped > 0, "no datagram was dropped: the loss rules did not apply");
    }

    /** @return the packets the namespace's DROP rules counted. */
    private static long dropped(final String counters)
    {
        long sum = 0;
        final Matcher m = Pattern.compile("(?m)^\\s*(\\d+)\\s+\\d+\\s+DROP").matcher(counters);
        while (m.find())
        {
            sum += Long.parseLong(m.group(1));
        }
        return sum;
    }
}
