package org.lightwire.etf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import org.jacorb.config.ConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.lightwire.atm.Aal5Config;
import org.lightwire.atm.AtmLibrary;
import org.lightwire.atm.TrafficClass;
import org.omg.CORBA.INITIALIZE;
import org.omg.CORBA.ORB;
import org.omg.GIOP.Version;
import org.omg.PortableServer.POAHelper;

/**
 * {@code jacorb.lightwire.link=aal5}: its properties checked at start, the link chosen per
 * profile with a clear error when the ORB's link and the server's profile differ, and a server
 * on a kernel without ATM failing at start with the reason. The calls themselves go over real
 * AAL5 in the qemu guest (atm-jni/src/test/qemu, {@code GuestAal5Echo}).
 */
class Aal5LinkSelectionTest
{
    private ORB orb;

    @AfterEach
    void destroy()
    {
        if (orb != null)
        {
            orb.shutdown(false);
            orb.destroy();
        }
    }

    private LightwireConfig config(final String... keyValues) throws ConfigurationException
    {
        final Properties p = new Properties();
        p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        for (int i = 0; i < keyValues.length; i += 2)
        {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        orb = ORB.init(new String[0], p);
        return LightwireConfig.from(((org.jacorb.orb.ORB)orb).getConfiguration());
    }

    private static LightwireProfile profile(final int[] aal5Pvc)
    {
        final LightwireProfile p = new LightwireProfile(new LightwireAddress("127.0.0.1", aal5Pvc == null ? 4000 : 0), new byte[0],
            new Version((byte)1, (byte)2));
        if (aal5Pvc != null)
        {
            p.getComponents().addComponent(Aal5Component.encode(aal5Pvc[0], aal5Pvc[1]));
        }
        return p;
    }

    @Test
    void udpIsTheDefaultLink() throws Exception
    {
        final LightwireConfig c = config();
        assertEquals(false, c.aal5());
        assertNull(c.aal5Server());
    }

    @Test
    void anUnknownLinkNamesBoth()
    {
        final ConfigurationException e = assertThrows(ConfigurationException.class, () -> config("jacorb.lightwire.link", "atm"));
        assertEquals("jacorb.lightwire.link = atm is not a known link; the allowed values are udp and aal5", e.getMessage());
    }

    @Test
    void aServerCircuitAndItsQosAreReadAtStart() throws Exception
    {
        final LightwireConfig c = config("jacorb.lightwire.link", "aal5", "jacorb.lightwire.aal5.circuit", "1.0.100",
            "jacorb.lightwire.aal5.qos.class", "cbr", "jacorb.lightwire.aal5.qos.pcr", "10000",
            "jacorb.lightwire.aal5.qos.max_sdu", "16384");
        final Aal5Config server = c.aal5Server();
        assertEquals("pvc 1.0.100", server.circuit());
        assertEquals(TrafficClass.CBR, server.txQos().trafficClass());
        assertEquals(10_000, server.rxQos().pcrCellsPerSecond());
        assertEquals(16_384, server.maxPacketBytes());
    }

    @Test
    void aClientOpensTheProfilesVpiVciOnItsOwnInterface() throws Exception
    {
        final LightwireConfig c = config("jacorb.lightwire.link", "aal5", "jacorb.lightwire.aal5.itf", "3",
            "jacorb.lightwire.aal5.qos.rx.max_sdu", "65535");
        assertNull(c.aal5Server(), "a client-only ORB has no circuit of its own");
        final Aal5Config client = c.aal5Client(2, 200);
        assertEquals("pvc 3.2.200", client.circuit());
        assertEquals(8192, client.txQos().maxSduBytes());
        assertEquals(65535, client.rxQos().maxSduBytes());
        final ConfigurationException e = assertThrows(ConfigurationException.class, () -> c.aal5Client(0, 5));
        assertEquals("the server's profile names no valid PVC: PVC VCI 5 is outside 32..65535 (VCIs below 32 are reserved" +
            " for signalling and OAM)", e.getMessage());
    }

    @Test
    void aBadQosFailsAtStartEvenWithoutACircuit()
    {
        final ConfigurationException e = assertThrows(ConfigurationException.class,
            () -> config("jacorb.lightwire.link", "aal5", "jacorb.lightwire.aal5.qos.max_sdu", "70000"));
        assertTrue(e.getMessage().startsWith("jacorb.lightwire.aal5.qos.max_sdu"), e.getMessage());
    }

    @Test
    void svcAddressesAreRefusedWithWhatToDoInstead()
    {
        final ConfigurationException e = assertThrows(ConfigurationException.class, () -> config("jacorb.lightwire.link", "aal5",
            "jacorb.lightwire.aal5.address", "47.0005.80ffe1000000f21a2c9b.0020481a2c9b.00"));
        assertEquals("jacorb.lightwire.aal5.address is set, but the JacORB plug-in carries only PVCs so far (no SVC signalling):" +
            " remove it and give the server's PVC as jacorb.lightwire.aal5.circuit=itf.vpi.vci", e.getMessage());
    }

    @Test
    void aUdpClientRefusesAnAal5ProfileSayingWhichPropertyToSet() throws Exception
    {
        final ClientRuntime runtime = new ClientRuntime(config());
        final IOException e = assertThrows(IOException.class, () -> runtime.pool(profile(new int[] {0, 100})));
        assertEquals("the server publishes an AAL5 PVC (vpi.vci 0.100), and this ORB's link is udp: set jacorb.lightwire.link=aal5" +
            " and jacorb.lightwire.aal5.itf to reach it over ATM", e.getMessage());
    }

    @Test
    void anAal5ClientRefusesAUdpProfile() throws Exception
    {
        final ClientRuntime runtime = new ClientRuntime(config("jacorb.lightwire.link", "aal5"));
        final IOException e = assertThrows(IOException.class, () -> runtime.pool(profile(null)));
        assertEquals("the server publishes no AAL5 PVC, and this ORB's link is aal5: its profile is for UDP (127.0.0.1:4000);" +
            " set jacorb.lightwire.link=udp to reach it", e.getMessage());
    }

    @Test
    void profilesOfDifferentPvcsDiffer()
    {
        assertEquals(profile(new int[] {0, 100}), profile(new int[] {0, 100}));
        assertEquals(profile(new int[] {0, 100}).hashCode(), profile(new int[] {0, 100}).hashCode());
        assertNotEquals(profile(new int[] {0, 100}), profile(new int[] {0, 101}));
    }

    @Test
    void anAal5ServerOnAKernelWithoutAtmFailsAtStartSayingSo()
    {
        assumeTrue(AtmLibrary.isAvailable(), AtmLibrary.unavailableReason());
        assumeFalse(Files.exists(Path.of("/proc/net/atm")), "this kernel has ATM");
        final Properties p = new Properties();
        p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        p.setProperty("OAIAddr", "127.0.0.1");
        p.setProperty("jacorb.transport.factories", "org.jacorb.orb.iiop.IIOPFactories,org.lightwire.etf.LightwireFactories");
        p.setProperty("jacorb.transport.server.listeners", LightwireProfile.TAG + ",0");
        p.setProperty("jacorb.lightwire.link", "aal5");
        p.setProperty("jacorb.lightwire.aal5.circuit", "1.0.100");
        orb = ORB.init(new String[0], p);
        final INITIALIZE e = assertThrows(INITIALIZE.class, () -> POAHelper.narrow(orb.resolve_initial_references("RootPOA")));
        assertTrue(e.getMessage().startsWith("Lightwire: cannot serve AAL5 pvc 1.0.100: this kernel has no ATM support"), e.getMessage());
    }
}
