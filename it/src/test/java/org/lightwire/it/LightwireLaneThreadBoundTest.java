package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.LightwireConfig;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.server_probe;
import org.lightwire.it.idl.lwtest.server_probeHelper;
import org.omg.CORBA.ORB;

/**
 * No thread per transport connection: a client that opens 4,096 Lightwire transport connections
 * (each one completed set-up exchange, some carrying a call) costs the server at most
 * {@code jacorb.lightwire.server.reader_threads} of JacORB's server reader threads, which it
 * shares with IIOP ({@code jacorb.connection.server.max_receptor_threads}, 1000): a new IIOP client
 * and a new Lightwire client both still get through. Before lanes, each transport connection held
 * one of those threads, and 1,100 connections locked every new client out.
 *
 * <p>The bound asserted: the server JVM's live threads with the 4,096 connections open are at most
 * its threads before them (after an IIOP and a Lightwire client called it) plus
 * {@code reader_threads} (the lanes) plus {@value #SLACK_THREADS} (JacORB's request processors
 * and timers, which grow with concurrent calls, not with connections). The figures are printed:
 * threads, heap in use after a full GC, and the JVM's direct buffer memory, before and with the
 * connections open.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class LightwireLaneThreadBoundTest
{
    private static final int CONNECTIONS = 4096;
    /** One connection in this many carries one call. */
    private static final int CALL_EVERY = 16;
    private static final int READER_THREADS = LightwireConfig.DEFAULT_SERVER_READER_THREADS;
    private static final int SLACK_THREADS = 4;

    @Test
    void fourThousandOpenTransportConnectionsCostTheServerItsLanesOnlyAndNewClientsStillGetThrough() throws Exception
    {
        final int port = Workloads.freePort();
        final Map<String, String> serverProps = Orbs.lightwire(Map.of("OAPort", Integer.toString(port),
            LightwireConfig.SERVER_MAX_CONNECTIONS, "8192", LightwireConfig.SERVER_MAX_CONNECTIONS_PER_ADDRESS, "8192"));
        try (ProcessHarness server = ProcessHarness.startTestServer(serverProps))
        {
            final ORB iiopOrb = Orbs.init(Map.of());
            final ORB lwOrb = Orbs.init(Orbs.lightwire());
            try
            {
                final server_probe probe = server_probeHelper.narrow(iiopOrb.string_to_object(server.ior("probe")));
                final echo iiopEcho = echoHelper.narrow(iiopOrb.string_to_object(server.ior("echo")));
                final echo lwEcho = echoHelper.narrow(lwOrb.string_to_object(server.ior("echo")));
                for (int i = 0; i < 100; i++)
                {
                    assertEquals("warm " + i, iiopEcho.echoString("warm " + i));
                    assertEquals("warm " + i, lwEcho.echoString("warm " + i));
                }
                final int threadsBefore = probe.thread_count();
                final long heapBefore = probe.heap_used_after_gc();
                final long directBefore = probe.direct_memory_used();
                final int lanesBefore = probe.lane_count();

                final long startNs = System.nanoTime();
                try (ProcessHarness hog = ProcessHarness.start(ConnectionHog.class, List.of("-Xmx512m"),
                    List.of(Orbs.LOOPBACK, Integer.toString(port), Integer.toString(CONNECTIONS), Integer.toString(CALL_EVERY), "8"),
                    Duration.ofSeconds(300)))
                {
                    final String opened = hog.awaitAnnouncement("opened", Duration.ofSeconds(10));
                    final long openMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
                    final int calls = CONNECTIONS / CALL_EVERY;
                    assertEquals(CONNECTIONS + " calls=" + calls + " ok=" + calls + " failed=0", opened,
                        "every connection opened, every call answered; hog output:\n" + hog.outputTail());

                    final int transportConnections = probe.transport_connections();
                    final int threadsWith = probe.thread_count();
                    final long heapWith = probe.heap_used_after_gc();
                    final long directWith = probe.direct_memory_used();
                    final int lanes = probe.lane_count();
                    final int[] perLane = probe.lane_connections();
                    System.out.printf("server with %d open transport connections (opened in %d ms): %d threads (%d before), "
                            + "heap after GC %.1f MiB (%.1f before), direct buffers %.1f MiB (%.1f before); %d lanes (%d before), "
                            + "connections per lane %s, keys [%s]; %s%n",
                        transportConnections, openMs, threadsWith, threadsBefore, mib(heapWith), mib(heapBefore), mib(directWith),
                        mib(directBefore), lanes, lanesBefore, Arrays.toString(perLane), probe.lane_keys(), probe.lane_counters());
                    assertTrue(transportConnections >= CONNECTIONS, "the server holds the connections: " + transportConnections);
                    assertTrue(lanes <= READER_THREADS, "lanes: " + lanes + " " + Arrays.toString(perLane));
                    assertTrue(threadsWith <= threadsBefore + READER_THREADS + SLACK_THREADS,
                        "threads with " + CONNECTIONS + " connections: " + threadsWith + ", before: " + threadsBefore);

                    // New clients, with every transport connection still open.
                    final ORB freshIiop = Orbs.init(Map.of());
                    final ORB freshLw = Orbs.init(Orbs.lightwire());
                    try
                    {
                        final echo e1 = echoHelper.narrow(freshIiop.string_to_object(server.ior("echo")));
                        final echo e2 = echoHelper.narrow(freshLw.string_to_object(server.ior("echo")));
                        for (int i = 0; i < 50; i++)
                        {
                            assertEquals("new iiop " + i, e1.echoString("new iiop " + i));
                            assertEquals("new lightwire " + i, e2.echoString("new lightwire " + i));
                        }
                        assertEquals(50, LightwireFactories.of(freshLw).callsStarted(), "the new Lightwire client's calls went over Lightwire");
                    }
                    finally
                    {
                        destroy(freshIiop);
                        destroy(freshLw);
                    }
                    assertTrue(probe.thread_count() <= threadsBefore + READER_THREADS + SLACK_THREADS + 2,
                        "threads after the new clients: " + probe.thread_count());
                }
            }
            finally
            {
                destroy(lwOrb);
                destroy(iiopOrb);
            }
        }
    }

    private static double mib(final long bytes)
    {
        return bytes / (1024.0 * 1024.0);
    }

    private static void destroy(final ORB orb)
    {
        orb.shutdown(true);
        orb.destroy();
    }
}
