package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.MARSHAL;
import org.omg.CORBA.ORB;

/**
 * A server configured for GIOP 1.0 ({@code jacorb.giop_minor_version=0}) publishes its Lightwire
 * profile at 1.0, as its IIOP profile: a client then speaks 1.0 to it over either transport, and a
 * wchar call (GIOP 1.0 has none) fails with the same MARSHAL. JacORB's own regression test
 * {@code bugjac512.BugJac512Giop1_0ServerTest} asks the same of IIOP.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LightwireGiopVersionTest
{
    @Test
    void aGiop10ServerIsCalledInGiop10OverLightwireAsOverIiop() throws Exception
    {
        final Map<String, String> server = new HashMap<>(Orbs.lightwire());
        server.put("jacorb.giop_minor_version", "0");
        try (ProcessHarness harness = ProcessHarness.startTestServer(server))
        {
            final MARSHAL overIiop = callBoth(Map.of(), harness.ior("echo"), false);
            final MARSHAL overLightwire = callBoth(Orbs.lightwire(), harness.ior("echo"), true);
            assertEquals(overIiop.minor, overLightwire.minor, "minor code: " + overIiop.getMessage() + " / " + overLightwire.getMessage());
            assertEquals(overIiop.completed.value(), overLightwire.completed.value(), "completion status");
        }
    }

    @Test
    void aGiop12ServerTakesWcharOverLightwire() throws Exception
    {
        try (ProcessHarness harness = ProcessHarness.startTestServer(Orbs.lightwire()))
        {
            final ORB orb = Orbs.init(Orbs.lightwire());
            try
            {
                final echo e = echoHelper.narrow(orb.string_to_object(harness.ior("echo")));
                assertEquals('\u00e9', e.bounceWchar('\u00e9'));
                assertEquals(1, LightwireFactories.of(orb).callsStarted(), "the call went over Lightwire");
            }
            finally
            {
                orb.shutdown(true);
                orb.destroy();
            }
        }
    }

    /**
     * A plain call succeeds, then a wchar call fails.
     *
     * @return the wchar call's MARSHAL.
     */
    private static MARSHAL callBoth(final Map<String, String> clientProperties, final String ior, final boolean lightwire)
    {
        final ORB orb = Orbs.init(clientProperties);
        try
        {
            final echo e = echoHelper.narrow(orb.string_to_object(ior));
            assertEquals("plain", e.echoString("plain"));
            if (lightwire)
            {
                assertEquals(1, LightwireFactories.of(orb).callsStarted(), "the plain call went over Lightwire");
            }
            return assertThrows(MARSHAL.class, () -> e.bounceWchar('a'), "wchar in GIOP 1.0");
        }
        finally
        {
            orb.shutdown(true);
            orb.destroy();
        }
    }
}
