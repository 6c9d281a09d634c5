package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lightwire.etf.LightwireConfig;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.server_probe;
import org.lightwire.it.idl.lwtest.server_probeHelper;
import org.omg.CORBA.ORB;

/**
 * Request ids of many clients on one lane: several client ORBs, each numbering its requests from
 * the same small ids, call one server whose Lightwire requests all share one JacORB connection
 * ({@code reader_threads = 1}), from several threads each and with overlapping slow calls, so
 * that the same client request id is in flight from several clients at once. Every reply must
 * reach its own caller: each call's string names its ORB, thread and call, and comes back
 * exactly; the server counts exactly the calls made; no reply went astray or unanswered.
 *
 * <p>Run with connections that have sockets of their own (the lane's thread reads them) and
 * without ({@code socket_per_connection = false}: the listener's thread hands each request over).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LightwireLaneRequestIdTest
{
    private static final int ORBS = 4;
    private static final int THREADS_PER_ORB = 4;
    private static final int CALLS_PER_THREAD = 150;

    @ParameterizedTest(name = "socket_per_connection = {0}")
    @ValueSource(strings = {"true", "false"})
    void interleavedRequestsOfManyClientsOnOneLaneEachReachTheirOwnCaller(final String socketPerConnection) throws Exception
    {
        try (ProcessHarness server = ProcessHarness.startTestServer(Orbs.lightwire(Map.of(LightwireConfig.SERVER_READER_THREADS, "1",
            LightwireConfig.SERVER_SOCKET_PER_CONNECTION, socketPerConnection))))
        {
            final ORB probeOrb = Orbs.init(Map.of());
            final List<ORB> orbs = new ArrayList<>();
            final ExecutorService pool = Executors.newFixedThreadPool(ORBS * THREADS_PER_ORB);
            try
            {
                final server_probe probe = server_probeHelper.narrow(probeOrb.string_to_object(server.ior("probe")));
                final List<Future<Integer>> results = new ArrayList<>();
                for (int o = 0; o < ORBS; o++)
                {
                    final ORB orb = Orbs.init(Orbs.lightwire());
                    orbs.add(orb);
                    final echo e = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
                    // One call alone first: JacORB 3.9 can lose the CodeSets context of an ORB
                    // connection whose first calls begin together (see CodeSetClient); such a
                    // client's connections would need a lane of their own.
                    assertEquals("first", e.echoString("first"));
                    for (int t = 0; t < THREADS_PER_ORB; t++)
                    {
                        final String caller = "orb " + o + " thread " + t + " call ";
                        results.add(pool.submit(() ->
                        {
                            int exact = 0;
                            for (int i = 0; i < CALLS_PER_THREAD; i++)
                            {
                                final String text = caller + i + " " + "x".repeat(i % 50);
                                // Every third call waits in the servant, so calls of all clients overlap on the lane.
                                final String back = i % 3 == 0 ? e.slowEcho(text, 2) : e.echoString(text);
                                if (text.equals(back))
                                {
                                    exact++;
                                }
                                else
                                {
                                    System.out.println("'" + text + "' came back as '" + back + "'");
                                }
                            }
                            return exact;
                        }));
                    }
                }
                int exact = 0;
                for (final Future<Integer> f : results)
                {
                    exact += f.get();
                }
                final int calls = ORBS * THREADS_PER_ORB * CALLS_PER_THREAD;
                assertEquals(calls, exact, "replies that came back exactly to their own caller");
                final echo e = echoHelper.narrow(probeOrb.string_to_object(server.ior("echo")));
                assertEquals(ORBS + calls, e.calls_received(), "calls the servant executed");
                long lightwireCalls = 0;
                for (final ORB orb : orbs)
                {
                    lightwireCalls += LightwireFactories.of(orb).callsStarted();
                }
                assertEquals(ORBS + calls, lightwireCalls, "every call went over Lightwire");
                final String counters = probe.lane_counters();
                System.out.println("lanes " + probe.lane_count() + ", connections " + java.util.Arrays.toString(probe.lane_connections()) +
                    ", keys [" + probe.lane_keys() + "]; " + counters);
                assertEquals(1, probe.lane_count(), "one lane carried every client: " + counters);
                assertTrue(probe.lane_connections()[0] >= ORBS, "transport connections on the lane");
                assertTrue(counters.contains(" requestsHandedOff=" + ("true".equals(socketPerConnection) ? "0 " : (ORBS + calls) + " ")),
                    "requests copied to the lane by another thread: " + counters);
                assertTrue(counters.contains(" messagesWithoutCall=0 ") && counters.contains(" orphanedCalls=0 ") &&
                    counters.contains(" protocolErrors=0 ") && counters.contains("lanesClosed=0 "), counters);
            }
            finally
            {
                pool.shutdownNow();
                for (final ORB orb : orbs)
                {
                    orb.shutdown(true);
                    orb.destroy();
                }
                probeOrb.shutdown(true);
                probeOrb.destroy();
            }
        }
    }
}
