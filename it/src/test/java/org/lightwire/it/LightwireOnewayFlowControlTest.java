package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.LightwireConfig;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.TtcpStats;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.idl.lwtest.ttcpHelper;
import org.omg.CORBA.ORB;

/**
 * One-ways are flow-controlled (OnewayWindow): a client that sends them faster than its server
 * runs them waits for the server instead of overrunning its socket buffer. The server here is
 * slow on purpose (each one-way sleeps 100 µs), its socket buffers are small (256 KiB), and its
 * POA's reader waits for queue room ({@code jacorb.poa.queue_wait=on}, as IIOP's reader then
 * leaves TCP to hold the sender back): with the client's window at 128 KiB every one-way of the
 * 11 MiB ttcp arrives, though at-most-once would allow losses. Sent with no window (every 65th
 * one-way on a transport connection confirmed, as before), this run loses calls.
 */
class LightwireOnewayFlowControlTest
{
    private static final int WINDOW_BYTES = 128 * 1024;

    @Test
    @Timeout(180)
    void aSlowServerReceivesEveryOnewayOfAnElevenMebibyteTtcp() throws Exception
    {
        try (ProcessHarness server = ProcessHarness.startTestServer(Orbs.lightwire(Map.of(
            "jacorb.poa.queue_wait", "on",
            LightwireConfig.SOCKET_BUFFER_BYTES, Integer.toString(256 * 1024),
            TestServer.ONEWAY_DELAY_US, "100"))))
        {
            final ORB orb = Orbs.init(Orbs.lightwire(Map.of(LightwireConfig.CLIENT_ONEWAY_WINDOW_BYTES, Integer.toString(WINDOW_BYTES))));
            try
            {
                final LightwireFactories lightwire = LightwireFactories.of(orb);
                assertNotNull(lightwire, "the client ORB has no Lightwire factories");
                final ttcp ttcp = ttcpHelper.narrow(orb.string_to_object(server.ior("ttcp")));
                ttcp.reset();
                final long sentBefore = lightwire.onewaysSent();
                final Workloads.TtcpRun run = Workloads.sendTtcp(ttcp, false);
                assertEquals(run.calls, lightwire.onewaysSent() - sentBefore, "every one-way went over Lightwire");
                final TtcpStats stats = Workloads.awaitOneways(ttcp, run.calls);
                System.out.println("one-way ttcp to a slow server: " + stats.calls + " of " + run.calls + " buffers executed; " +
                    lightwire.onewaysConfirmed() + " sent exactly-once to confirm a window, " + lightwire.onewayWindowWaits() +
                    " of them waited for the window before");
                Workloads.assertStats(stats, run.calls, run.bytes, 0, 0, run.checksum);
                // The 1 MiB buffers alone are 16 windows, each sent exactly-once: a window was confirmed far more often.
                assertTrue(lightwire.onewaysConfirmed() >= 16, "confirmations: " + lightwire.onewaysConfirmed());
                // The client was ahead of this server and waited for it.
                assertTrue(lightwire.onewayWindowWaits() > 0, "no confirmation waited for the window before");
                assertEquals(0, lightwire.callsFailed());
            }
            finally
            {
                orb.shutdown(true);
                orb.destroy();
            }
        }
    }
}
