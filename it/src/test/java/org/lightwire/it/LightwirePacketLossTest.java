package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.lightwire.etf.LightwireConfig;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.idl.lwtest.ttcpHelper;
import org.omg.CORBA.ORB;

/**
 * Real kernel packet loss: the server runs in its own network namespace behind a veth pair, and
 * iptables inside that namespace drops 5% of the Lightwire UDP datagrams at random in each
 * direction ({@code -m statistic --mode random --probability 0.05}). Addresses are 10.200.x.y,
 * only on the veth pair this test makes, in a /24 no address or route of the host uses
 * ({@link HostNetworks#freeSubnet}); the namespace, and with it the pair and the rules, is
 * deleted afterwards whatever happened (by a shutdown hook if the JVM is stopped first), and
 * one a killed run left behind is deleted before. Needs root, {@code ip} and {@code iptables}; skipped
 * with the reason otherwise.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LightwirePacketLossTest
{
    private static final long SEED = 0x10_55L;
    private static final int ECHO_CALLS = 10_000;
    private static final String DROP_PROBABILITY = "0.05";

    private final String namespace = "lwloss" + ProcessHandle.current().pid();
    private final String hostVeth = "lwl" + (ProcessHandle.current().pid() % 100000) + "a";
    private final String serverVeth = "lwl" + (ProcessHandle.current().pid() % 100000) + "b";
    private final Thread cleaner = new Thread(this::deleteNamespace, "lossy-namespace-cleaner");
    private String subnet;
    private String serverAddress;
    private boolean namespaceMade;
    private int port;
    private ProcessHarness server;
    private ORB orb;
    private LightwireFactories lightwire;
    private echo echo;
    private ttcp ttcp;

    @BeforeAll
    void makeLossyNamespaceAndStartServer() throws Exception
    {
        Shell.assumeRootNetworking("a network namespace and iptables rules");
        port = 20_000 + (int)(ProcessHandle.current().pid() % 20_000);
        HostNetworks.removeStale();
        subnet = HostNetworks.freeSubnet("10.200");
        serverAddress = subnet + ".2";
        try
        {
            namespaceMade = true;
            Runtime.getRuntime().addShutdownHook(cleaner);
            must("ip", "netns", "add", namespace);
            must("ip", "link", "add", hostVeth, "type", "veth", "peer", "name", serverVeth);
            must("ip", "link", "set", serverVeth, "netns", namespace);
            must("ip", "addr", "add", subnet + ".1/24", "dev", hostVeth);
            must("ip", "link", "set", hostVeth, "up");
            inNamespace("ip", "addr", "add", serverAddress + "/24", "dev", serverVeth);
            inNamespace("ip", "link", "set", serverVeth, "up");
            inNamespace("ip", "link", "set", "lo", "up");
            final String p = Integer.toString(port);
            inNamespace("iptables", "-A", "INPUT", "-p", "udp", "--dport", p, "-m", "statistic", "--mode", "random",
                "--probability", DROP_PROBABILITY, "-j", "DROP");
            inNamespace("iptables", "-A", "OUTPUT", "-p", "udp", "--sport", p, "-m", "statistic", "--mode", "random",
                "--probability", DROP_PROBABILITY, "-j", "DROP");
            server = ProcessHarness.startTestServerUnder(List.of("ip", "netns", "exec", namespace),
                Orbs.lightwire(Map.of(Orbs.LISTEN_ADDRESS, serverAddress, "OAPort", p)));
            // Bounds that only stop a hang; loss is recovered by retransmission long before.
            orb = Orbs.init(Orbs.lightwire(Map.of(LightwireConfig.PEER_TIMEOUT_MS, "30000")));
            lightwire = LightwireFactories.of(orb);
            echo = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
            ttcp = ttcpHelper.narrow(orb.string_to_object(server.ior("ttcp")));
        }
        catch (final Exception | Error e)
        {
            cleanUp();
            throw e;
        }
    }

    @AfterAll
    void cleanUp()
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
            if (namespaceMade)
            {
                deleteNamespace();
                Runtime.getRuntime().removeShutdownHook(cleaner);
                namespaceMade = false;
            }
        }
    }

    private void deleteNamespace()
    {
        // Deleting the namespace deletes its end of the veth pair (and so the pair) and its
        // iptables rules; the host's own rules are never touched.
        HostNetworks.deleteNamespace(namespace);
        run(List.of("ip", "link", "del", hostVeth));
    }

    @Test
    void tenThousandEchoesSurviveFivePercentLossEachWayExactlyOnce()
    {
        final long transportCallsBefore = lightwire.callsStarted();
        final long before = echo.calls_received();
        final Random random = new Random(SEED);
        for (int i = 0; i < ECHO_CALLS; i++)
        {
            // The workload's 1 MiB strings are left to the ttcp test: here the calls are many and small.
            final String sent = i == 2 ? "" : Workloads.variedString(i, random);
            final String received = echo.echoString(sent);
            final int call = i;
            assertTrue(sent.equals(received), () -> "echo call " + call + " (seed " + SEED + ") came back altered");
        }
        assertEquals(before + ECHO_CALLS, echo.calls_received(), "a call was executed twice or not at all");
        assertEquals(ECHO_CALLS + 2, lightwire.callsStarted() - transportCallsBefore);
        assertEquals(0, lightwire.callsFailed());
    }

    @Test
    void exactlyOnceTtcpOfElevenMebibytesSurvivesFivePercentLossEachWay()
    {
        ttcp.reset();
        final Workloads.TtcpRun run = Workloads.sendTtcp(ttcp, true);
        Workloads.assertStats(ttcp.stats(), run.calls, run.bytes, 0, 0, run.checksum);
        assertEquals(0, lightwire.callsFailed());
    }

    /**
     * Call numbers are 8 bits: a server that lost 128 to 255 one-ways in a row would take the
     * next call for an old duplicate and never answer it. Every datagram of 1,000 bytes or more
     * to the server is dropped (the one-ways of 2,000 characters; set-up, acknowledgements and
     * small calls pass) while 200 one-ways go out on one caller thread. The 65th one-way on a
     * transport connection goes exactly-once (LightwireClientConnection.ONEWAYS_PER_CONFIRMATION)
     * and is retransmitted until the server has it; the next window's confirmation waits for it
     * (OnewayWindow), so the sender stops there, 128 one-ways lost, until the drop ends. Then the
     * sender goes on and the next two-way call is answered. Without the confirmations the call is
     * dropped as a duplicate until the peer timeout (checked by disabling them).
     */
    @Test
    void aServerThatLostTwoHundredOnewaysInARowAnswersTheNextCall() throws Exception
    {
        assertEquals("before", echo.echoString("before"));
        final long confirmedBefore = lightwire.onewaysConfirmed();
        final long waitsBefore = lightwire.onewayWindowWaits();
        final String p = Integer.toString(port);
        final String[] rule = {"-p", "udp", "--dport", p, "-m", "length", "--length", "1000:65535", "-j", "DROP"};
        inNamespace(concat(new String[] {"iptables", "-I", "INPUT", "1"}, rule));
        final Thread sender;
        try
        {
            final char[] buffer = org.lightwire.it.servant.TtcpPattern.create(0, 2000);
            sender = new Thread(() ->
            {
                for (int i = 0; i < 200; i++)
                {
                    ttcp.receive_at_most_once(buffer);
                }
            }, "oneway-sender");
            sender.start();
            // The sender is held at the second window's confirmation: the first is being retransmitted.
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (lightwire.onewayWindowWaits() == waitsBefore && System.nanoTime() < deadlineNs)
            {
                Thread.sleep(5);
            }
            assertEquals(waitsBefore + 1, lightwire.onewayWindowWaits(), "the sender did not wait for the unanswered confirmation");
            assertTrue(sender.isAlive(), "the sender went on while its first confirmation was unanswered");
        }
        finally
        {
            inNamespace(concat(new String[] {"iptables", "-D", "INPUT"}, rule));
        }
        sender.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(sender.isAlive(), "the sender still waits after the drop ended");
        assertEquals("after", echo.echoString("after"));
        // 200 one-ways in windows of at most 64: 3 or more went exactly-once (more when the pool
        // spread them over more connections).
        final long confirmed = lightwire.onewaysConfirmed() - confirmedBefore;
        assertTrue(confirmed >= 3 && confirmed <= 200, "one-ways sent exactly-once: " + confirmed);
        assertEquals(0, lightwire.callsFailed());
    }

    private static String[] concat(final String[] a, final String[] b)
    {
        final String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private void inNamespace(final String... command) throws IOException, InterruptedException
    {
        final List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        full.addAll(List.of(command));
        must(full.toArray(new String[0]));
    }

    private static void must(final String... command) throws IOException, InterruptedException
    {
        Shell.must(command);
    }

    private static int run(final List<String> command)
    {
        return Shell.run(command);
    }
}
