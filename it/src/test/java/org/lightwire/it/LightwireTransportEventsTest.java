package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jacorb.orb.giop.TransportListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.ORB;

/**
 * JacORB's transport events ({@link TransportListener}, added through its TransportManager) come
 * for calls over Lightwire as for calls over IIOP: one event a call, naming the profile the call
 * went to. (JacORB's TCP listener, {@code jacorb.net.tcp_listener}, is TCP's alone: see
 * docs/configuration.md, "JacORB's own keys".)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LightwireTransportEventsTest
{
    private static final int CALLS = 3;

    @Test
    void everyCallOverLightwireRaisesJacorbsTransportEventAsOverIiop() throws Exception
    {
        try (ProcessHarness server = ProcessHarness.startTestServer(Orbs.lightwire()))
        {
            assertEquals(List.of("IIOPProfile", "IIOPProfile", "IIOPProfile"), profilesSelected(new HashMap<>(), server.ior("echo")));
            assertEquals(List.of("LightwireProfile", "LightwireProfile", "LightwireProfile"), profilesSelected(Orbs.lightwire(), server.ior("echo")));
        }
    }

    /** @return the simple class name of each transport event's profile, for {@value #CALLS} calls. */
    private static List<String> profilesSelected(final Map<String, String> clientProperties, final String ior)
    {
        final ORB orb = Orbs.init(clientProperties);
        try
        {
            final List<String> profiles = new ArrayList<>();
            ((org.jacorb.orb.ORB)orb).getTransportManager().addTransportListener(event ->
            {
                synchronized (profiles)
                {
                    profiles.add(event.profile().getClass().getSimpleName());
                }
            });
            final echo e = echoHelper.narrow(orb.string_to_object(ior));
            for (int i = 0; i < CALLS; i++)
            {
                assertEquals("x" + i, e.echoString("x" + i));
            }
            synchronized (profiles)
            {
                return new ArrayList<>(profiles);
            }
        }
        finally
        {
            orb.shutdown(true);
            orb.destroy();
        }
    }
}
