package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.LightwireConfig;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.ORB;

/**
 * A server closes transport connections that have been idle for its idle timeout. A JacORB
 * client that calls again afterwards must be served on a new connection, not fail on the closed
 * one (it used to get COMM_FAILURE): the server announced its timeout when the connection opened,
 * and the client gave the connection up after half of it.
 */
@Timeout(60)
class LightwireIdleReplacementTest
{
    @Test
    void aCallAfterTheServerClosedTheIdleConnectionGoesOnANewOne() throws Exception
    {
        try (ProcessHarness server = ProcessHarness.startTestServer(Orbs.lightwire(Map.of(LightwireConfig.SERVER_IDLE_TIMEOUT_MS, "1000"))))
        {
            final ORB orb = Orbs.init(Orbs.lightwire());
            try
            {
                final LightwireFactories lightwire = LightwireFactories.of(orb);
                final echo e = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
                assertEquals("first", e.echoString("first"));
                // Past the server's one-second idle timeout and its timer's one-second tick.
                awaitIdleClose(server);
                for (int i = 0; i < 20; i++)
                {
                    assertEquals("after " + i, e.echoString("after " + i));
                }
                assertEquals(0, lightwire.callsFailed(), "no call failed on the closed connection");
                assertEquals(21, e.calls_received(), "every call executed once");
                assertTrue(lightwire.callsStarted() >= 22, "every call went over Lightwire: " + lightwire.callsStarted());
            }
            finally
            {
                orb.shutdown(true);
                orb.destroy();
            }
        }
    }

    private static void awaitIdleClose(final ProcessHarness server) throws Exception
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (StdinCommands.parse(server.request("stats", Duration.ofSeconds(20))).getOrDefault("idle_closed", 0L) == 0)
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("the server closed no idle connection within 20 s");
            }
            Thread.sleep(100);
        }
    }
}
