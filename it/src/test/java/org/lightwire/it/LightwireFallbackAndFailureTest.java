package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.lightwire.etf.CorbaExceptions;
import org.lightwire.etf.LightwireConfig;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.ORB;
import org.omg.CORBA.SystemException;
import org.omg.CORBA.TRANSIENT;

/**
 * Interoperation with ORBs that lack the plug-in, and the failures a Lightwire client must turn
 * into CORBA exceptions: a server killed mid-call, a server that is not there, a bad property.
 */
class LightwireFallbackAndFailureTest
{
    /** Bound on any one wait here: a hang fails the test instead of stalling the build. */
    private static final long HANG_LIMIT_S = 60;

    @Test
    void clientWithoutThePluginReachesALightwireServerOverIiop() throws Exception
    {
        try (ProcessHarness server = ProcessHarness.startTestServer(Orbs.lightwire()))
        {
            final ORB orb = Orbs.init(Map.of());
            try
            {
                assertNull(LightwireFactories.of(orb));
                final echo e = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
                assertEquals("over iiop", e.echoString("over iiop"));
                assertEquals(1, e.calls_received());
            }
            finally
            {
                destroy(orb);
            }
        }
    }

    @Test
    void serverWithoutThePluginIsReachedOverIiopByALightwireClient() throws Exception
    {
        try (ProcessHarness server = ProcessHarness.startTestServer(Map.of()))
        {
            final ORB orb = Orbs.init(Orbs.lightwire());
            try
            {
                final LightwireFactories lightwire = LightwireFactories.of(orb);
                final echo e = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
                assertEquals("over iiop", e.echoString("over iiop"));
                assertEquals(1, e.calls_received());
                assertEquals(0, lightwire.callsStarted(), "an IIOP-only IOR must not be called over Lightwire");
            }
            finally
            {
                destroy(orb);
            }
        }
    }

    @Test
    void lightwireOnlyServerIsReachedWithTheCodeSetsOfItsOwnProfile() throws Exception
    {
        final Map<String, String> props = Orbs.lightwire(Map.of(Orbs.SERVER_LISTENERS, Integer.toString(org.lightwire.etf.LightwireProfile.TAG)));
        try (ProcessHarness server = ProcessHarness.startTestServer(props))
        {
            final ORB orb = Orbs.init(Orbs.lightwire());
            try
            {
                final echo e = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
                final String cjk = "日本語のテキスト \uD83D\uDE00 Grüße";
                assertEquals(cjk, e.echoString(cjk));
                assertEquals(1, LightwireFactories.of(orb).callsStarted());
            }
            finally
            {
                destroy(orb);
            }
        }
    }

    @Test
    void lightwirePortWithNobodyListeningGivesTransientAndJacorbFallsBackToTheIiopProfile() throws Exception
    {
        final int iiopPort = Workloads.freePort();
        final int deadPort = Workloads.freePort();
        try (ProcessHarness server = ProcessHarness.startTestServer(Orbs.lightwire(Map.of("OAPort", Integer.toString(iiopPort)))))
        {
            final ORB orb = Orbs.init(Orbs.lightwire(Map.of(LightwireConfig.CONNECT_TIMEOUT_MS, "300", LightwireConfig.SETUP_RETRY_MS, "50")));
            try
            {
                final LightwireFactories lightwire = LightwireFactories.of(orb);
                final TRANSIENT t = assertThrows(TRANSIENT.class,
                    () -> echoHelper.narrow(orb.string_to_object("corbaloc:lw:127.0.0.1:" + deadPort + "/echo")).echoString("nobody"));
                assertEquals(CorbaExceptions.MINOR_CONNECT_FAILED, t.minor, t.toString());
                assertTrue(t.getMessage().contains("127.0.0.1:" + deadPort), t.getMessage());
                // One object, two profiles: Lightwire (dead) first, IIOP second.
                final echo both = echoHelper.narrow(orb.string_to_object(
                    "corbaloc:lw:127.0.0.1:" + deadPort + ",iiop:127.0.0.1:" + iiopPort + "/echo"));
                assertEquals("fell back", both.echoString("fell back"));
                assertEquals(0, lightwire.callsStarted(), "no call can have gone over Lightwire");
            }
            finally
            {
                destroy(orb);
            }
        }
    }

    /**
     * kill -9 while a call is in the servant: the caller gets COMM_FAILURE (COMPLETED_MAYBE, the
     * Lightwire minor code) within the configured peer timeout, never a hang. A server restarted on
     * the same ports is a new incarnation: the same client ORB calls it at once, and nothing of the
     * old connection reaches it (it counts exactly the calls made to it).
     */
    @Test
    void killDashNineMidCallGivesCommFailureAndTheRestartedServerIsANewIncarnation() throws Exception
    {
        final int port = Workloads.freePort();
        final Map<String, String> serverProps = Orbs.lightwire(Map.of("OAPort", Integer.toString(port)));
        final Map<String, String> clientProps = Orbs.lightwire(Map.of(
            LightwireConfig.RETRANSMIT_MAX_MS, "200", LightwireConfig.PEER_TIMEOUT_MS, "2000"));
        final ORB orb = Orbs.init(clientProps);
        final ExecutorService caller = Executors.newSingleThreadExecutor();
        try
        {
            final ProcessHarness first = ProcessHarness.startTestServer(serverProps);
            final Future<SystemException> outcome;
            try
            {
                final echo e = echoHelper.narrow(orb.string_to_object(first.ior("echo")));
                assertEquals("warm", e.echoString("warm"));
                outcome = caller.submit(() ->
                {
                    try
                    {
                        e.slowEcho("never answered", 20_000);
                        return null;
                    }
                    catch (final SystemException ex)
                    {
                        return ex;
                    }
                });
                Thread.sleep(500);
                first.kill();
            }
            finally
            {
                first.close();
            }
            final SystemException failure = outcome.get(HANG_LIMIT_S, TimeUnit.SECONDS);
            assertNotNull(failure, "the call to a killed server returned normally");
            assertTrue(failure instanceof COMM_FAILURE, failure.toString());
            assertEquals(CorbaExceptions.MINOR_CONNECTION_FAILED, failure.minor, failure.toString());
            assertEquals(org.omg.CORBA.CompletionStatus.COMPLETED_MAYBE, failure.completed);
            assertTrue(failure.getMessage().contains("127.0.0.1:" + port), failure.getMessage());

            try (ProcessHarness second = ProcessHarness.startTestServer(serverProps))
            {
                final echo e2 = echoHelper.narrow(orb.string_to_object(second.ior("echo")));
                assertEquals("new incarnation", e2.echoString("new incarnation"));
                assertEquals(1, e2.calls_received(), "the restarted server saw a call of the old connection");
            }
        }
        finally
        {
            caller.shutdownNow();
            destroy(orb);
        }
    }

    @Test
    void badLightwirePropertyFailsOrbInitNamingThePropertyAndItsRange()
    {
        final Map<String, String> props = new HashMap<>(Orbs.lightwire());
        props.put(LightwireConfig.MAX_PACKET_BYTES, "70000");
        final RuntimeException e = assertThrows(RuntimeException.class, () -> destroy(Orbs.init(props)));
        final String text = messages(e);
        assertTrue(text.contains("jacorb.lightwire.max_packet_bytes = 70000 is outside the allowed range 64..65499"), text);
    }

    /**
     * JacORB's {@code bugjac563.BugJac563Test} calls back a client over its own connection
     * (bidirectional GIOP); a Lightwire connection carries calls one way only, so an ORB that asks
     * for both is refused at init, naming the initializer, instead of failing its first callback
     * with NO_PERMISSION. Either key form JacORB reads is recognised.
     */
    @Test
    void bidirectionalGiopIsRefusedAtOrbInit()
    {
        final Map<String, String> named = new HashMap<>(Orbs.lightwire());
        named.put("org.omg.PortableInterceptor.ORBInitializerClass.bidir_init", "org.jacorb.orb.giop.BiDirConnectionInitializer");
        String text = messages(assertThrows(RuntimeException.class, () -> destroy(Orbs.init(named))));
        assertTrue(text.contains("org.omg.PortableInterceptor.ORBInitializerClass.bidir_init installs org.jacorb.orb.giop.BiDirConnectionInitializer:" +
            " bidirectional GIOP is not supported over Lightwire"), text);

        final Map<String, String> inKey = new HashMap<>(Orbs.lightwire());
        inKey.put("org.omg.PortableInterceptor.ORBInitializerClass.org.jacorb.orb.giop.BiDirConnectionInitializer", "");
        text = messages(assertThrows(RuntimeException.class, () -> destroy(Orbs.init(inKey))));
        assertTrue(text.contains("bidirectional GIOP is not supported over Lightwire"), text);

        // Without Lightwire the same ORB starts.
        destroy(Orbs.init(Map.of("org.omg.PortableInterceptor.ORBInitializerClass.bidir_init", "org.jacorb.orb.giop.BiDirConnectionInitializer")));
    }

    @Test
    void aal5LinkSettingsAreCheckedAtOrbInit()
    {
        final Map<String, String> unknown = new HashMap<>(Orbs.lightwire());
        unknown.put(LightwireConfig.LINK, "atm");
        String text = messages(assertThrows(RuntimeException.class, () -> destroy(Orbs.init(unknown))));
        assertTrue(text.contains("jacorb.lightwire.link = atm is not a known link; the allowed values are udp and aal5"), text);

        final Map<String, String> noCircuit = new HashMap<>(Orbs.lightwire());
        noCircuit.put(LightwireConfig.LINK, "aal5");
        text = messages(assertThrows(RuntimeException.class, () -> destroy(Orbs.init(noCircuit))));
        assertTrue(text.contains("jacorb.lightwire.link = aal5") && text.contains("no circuit: give a PVC (circuit=itf.vpi.vci)"), text);

        final Map<String, String> badSdu = new HashMap<>(Orbs.lightwire());
        badSdu.put(LightwireConfig.LINK, "aal5");
        badSdu.put(LightwireConfig.AAL5_PREFIX + "circuit", "0.0.100");
        badSdu.put(LightwireConfig.AAL5_PREFIX + "qos.max_sdu", "70000");
        text = messages(assertThrows(RuntimeException.class, () -> destroy(Orbs.init(badSdu))));
        assertTrue(text.contains("jacorb.lightwire.aal5.qos.max_sdu"), text);
    }

    @Test
    void aServerOnAal5FailsAtStartWithTheKernelsReasonWhereThereIsNoAtm()
    {
        // This machine's kernel has no ATM (the qemu guest test has one): the listener's open of
        // the circuit fails, and the server's ORB says so instead of serving nothing.
        org.junit.jupiter.api.Assumptions.assumeFalse(java.nio.file.Files.exists(java.nio.file.Path.of("/proc/net/atm")),
            "skipped: this kernel has ATM support, so the circuit would open");
        final Map<String, String> props = new HashMap<>(Orbs.lightwire());
        props.put(LightwireConfig.LINK, "aal5");
        props.put(LightwireConfig.AAL5_PREFIX + "circuit", "0.0.100");
        final ORB server = Orbs.init(props);
        try
        {
            // JacORB starts the listeners when the root POA is first resolved.
            final String text = messages(assertThrows(RuntimeException.class, () -> server.resolve_initial_references("RootPOA")));
            assertTrue(text.contains("Lightwire: cannot serve AAL5 circuit pvc 0.0.100: this kernel has no ATM support"), text);
        }
        finally
        {
            destroy(server);
        }
    }

    private static String messages(final Throwable e)
    {
        final StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause())
        {
            sb.append(t).append(" | ");
        }
        return sb.toString();
    }

    private static void destroy(final ORB orb)
    {
        orb.shutdown(true);
        orb.destroy();
    }
}
