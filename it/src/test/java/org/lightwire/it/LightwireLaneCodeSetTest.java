package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.LightwireConfig;
import org.lightwire.it.idl.lwtest.server_probe;
import org.lightwire.it.idl.lwtest.server_probeHelper;
import org.omg.CORBA.ORB;

/**
 * Code sets on shared lanes. JacORB negotiates the transmission code sets once per server
 * connection, from the first request that carries a CodeSets context; a lane is one JacORB
 * connection shared by many clients, so it must carry only clients whose code sets agree. Two
 * client JVMs with different native code sets (UTF-8 and ISO 8859-1; the server's is UTF-8, and
 * it accepts both, so each client transmits in its own) send a non-ASCII string to one server,
 * whose Lightwire requests would all fit on one lane ({@code reader_threads = 1}): each must be
 * decoded as sent, so the second code set gets a lane of its own.
 *
 * <p>What the server decoded is read back as the UTF-8 bytes of the string it received
 * ({@code echo::utf8Of}: no code set touches octets) and as its length; each must be exact for
 * both clients. The echoed string itself is exact only for the client whose native code set is the
 * server's: JacORB 3.9 encodes every reply in the server's native code set, whatever the
 * connection negotiated, so the ISO 8859-1 client reads UTF-8 bytes as Latin-1, over IIOP as well.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LightwireLaneCodeSetTest
{
    private static final String TEXT = "Grüße, señor: é à ü ß ñ ø";
    private static final String THREADS = "4";
    private static final String CALLS_PER_THREAD = "25";
    private static final int CALLS = 100;

    @Test
    void clientsOfTwoCodeSetsEachGetALaneThatDecodesTheirRequestsAsSent() throws Exception
    {
        try (ProcessHarness server = ProcessHarness.startTestServer(Orbs.lightwire(Map.of(LightwireConfig.SERVER_READER_THREADS, "1"))))
        {
            final ExecutorService starter = Executors.newFixedThreadPool(2);
            final ORB probeOrb = Orbs.init(Map.of());
            ProcessHarness utf8 = null;
            ProcessHarness latin1 = null;
            try
            {
                final String ior = server.ior("echo");
                // Both clients call at once, so their connections open and settle their lanes interleaved.
                final Future<ProcessHarness> a = starter.submit(() -> client(ior, "UTF8"));
                final Future<ProcessHarness> b = starter.submit(() -> client(ior, "ISO8859_1"));
                utf8 = a.get();
                latin1 = b.get();
                final String utf8Result = utf8.awaitAnnouncement("result", Duration.ofSeconds(10));
                final String latin1Result = latin1.awaitAnnouncement("result", Duration.ofSeconds(10));
                final server_probe probe = server_probeHelper.narrow(probeOrb.string_to_object(server.ior("probe")));
                final String keys = probe.lane_keys();
                System.out.println("UTF-8 client: " + utf8Result + "; ISO 8859-1 client: " + latin1Result + "; lanes " + probe.lane_count() +
                    " [" + keys + "] " + java.util.Arrays.toString(probe.lane_connections()) + "; " + probe.lane_counters());

                assertEquals("calls=" + CALLS + " exactBytes=" + CALLS + " exactLength=" + CALLS + " exactEcho=" + CALLS +
                    " failures=0 lightwireCalls=" + 3 * CALLS, utf8Result, "UTF-8 client");
                assertTrue(latin1Result.startsWith("calls=" + CALLS + " exactBytes=" + CALLS + " exactLength=" + CALLS + " exactEcho="),
                    "ISO 8859-1 client: " + latin1Result);
                assertTrue(latin1Result.endsWith(" failures=0 lightwireCalls=" + 3 * CALLS), "ISO 8859-1 client: " + latin1Result);
                assertEquals(2, probe.lane_count(), "one lane per code set: " + keys);
                assertTrue(keys.contains("char 0x05010001") && keys.contains("char 0x00010001"),
                    "a lane settled on UTF-8 and one on ISO 8859-1: " + keys);
                assertTrue(probe.lane_counters().contains("lanesClosed=0 "), probe.lane_counters());
            }
            finally
            {
                starter.shutdownNow();
                if (utf8 != null)
                {
                    utf8.close();
                }
                if (latin1 != null)
                {
                    latin1.close();
                }
                probeOrb.shutdown(true);
                probeOrb.destroy();
            }
        }
    }

    private static ProcessHarness client(final String ior, final String codeSet) throws Exception
    {
        return ProcessHarness.start(CodeSetClient.class, List.of(), List.of(ior, codeSet,
            java.util.HexFormat.of().formatHex(TEXT.getBytes(java.nio.charset.StandardCharsets.UTF_8)), THREADS, CALLS_PER_THREAD),
            Duration.ofSeconds(120));
    }
}
