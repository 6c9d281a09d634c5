package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Properties;

import org.jacorb.orb.ParsedIOR;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.ORB;

/**
 * The group address's string form (the corbaloc syntax), its validation, and a profile's trip
 * through a real JacORB ORB: corbaloc URL to IOR, IOR string back to an equal profile.
 */
class RomiopAddressTest
{
    private static ORB orb;

    @BeforeAll
    static void startOrb()
    {
        final Properties p = new Properties();
        p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        p.setProperty("jacorb.transport.factories", "org.jacorb.orb.iiop.IIOPFactories," + RomiopFactories.class.getName());
        orb = ORB.init(new String[0], p);
    }

    @AfterAll
    static void stopOrb()
    {
        orb.shutdown(false);
        orb.destroy();
    }

    @Test
    void multicastGroupWithMemberIdsRoundTrips() throws Exception
    {
        final RomiopAddress a = new RomiopAddress();
        assertNull(a.parseError("bank@239.255.0.1:5000+1+2+3"));
        assertEquals("bank", a.group());
        assertEquals(new InetSocketAddress("239.255.0.1", 5000), a.multicast());
        assertArrayEquals(new int[] {1, 2, 3}, a.memberIds());
        assertEquals(1, a.leaderId());
        assertNull(a.members().get(1).resolve());
        assertEquals("bank@239.255.0.1:5000+1+2+3", a.toString());
    }

    @Test
    void fanoutGroupCarriesMemberAddresses() throws Exception
    {
        final RomiopAddress a = new RomiopAddress();
        assertNull(a.parseError("g-1.x@0.0.0.0:0+7@10.0.0.1:5101+3@[::1]:5102"));
        assertNull(a.multicast());
        assertArrayEquals(new int[] {7, 3}, a.memberIds());
        assertEquals(7, a.leaderId());
        assertEquals(new InetSocketAddress("10.0.0.1", 5101), a.members().get(0).resolve());
        assertEquals("g-1.x@0.0.0.0:0+7@10.0.0.1:5101+3@[::1]:5102", a.toString());
    }

    @Test
    void badAddressesSayWhatIsWrong()
    {
        assertTrue(new RomiopAddress().parseError("239.255.0.1:5000+1").contains("group@mcast-host:port"));
        assertTrue(new RomiopAddress().parseError("1bank@239.255.0.1:5000+1").contains("must start with a letter"));
        assertTrue(new RomiopAddress().parseError("bank@239.255.0.1:5000").contains("lists no members"));
        assertTrue(new RomiopAddress().parseError("bank@239.255.0.1:5000+1+1").contains("listed twice"));
        assertTrue(new RomiopAddress().parseError("bank@239.255.0.1:5000+70000").contains("outside 1..65535"));
        assertTrue(new RomiopAddress().parseError("bank@239.255.0.1:5000+2@host").contains("member 2"));
        assertTrue(new RomiopAddress().parseError("bank@239.255.0.1+1").contains("mcast-host:port"));
        assertFalse(new RomiopAddress().fromString("bank@239.255.0.1:5000+x"));
    }

    @Test
    void corbalocMakesAGroupProfileThatSurvivesTheIor()
    {
        final org.omg.CORBA.Object o = orb.string_to_object("corbaloc:romiop:1.2@bank@239.255.0.1:5000+1+2+3/my%20key");
        final String ior = orb.object_to_string(o);
        final ParsedIOR parsed = new ParsedIOR((org.jacorb.orb.ORB)orb, ior);
        final RomiopProfile p = (RomiopProfile)parsed.getEffectiveProfile();
        assertEquals("romiop:1.2@bank@239.255.0.1:5000+1+2+3", p.toString());
        assertArrayEquals("my key".getBytes(java.nio.charset.StandardCharsets.US_ASCII), p.get_object_key());
        final RomiopProfile without = (RomiopProfile)new ParsedIOR((org.jacorb.orb.ORB)orb,
            orb.object_to_string(orb.string_to_object("corbaloc:romiop:bank@239.255.0.1:5000+1+2+3/other"))).getEffectiveProfile();
        assertEquals(p, without, "profiles of one group are equal whatever their keys: one connection per group");
        assertNotEquals(p, new ParsedIOR((org.jacorb.orb.ORB)orb,
            orb.object_to_string(orb.string_to_object("corbaloc:romiop:bank@239.255.0.1:5000+1+2/k"))).getEffectiveProfile());
    }

    @Test
    void aBadCorbalocAddressIsBadParamNamingTheForm()
    {
        // JacORB logs the factory's exception and throws a BAD_PARAM of its own to the caller.
        assertThrows(BAD_PARAM.class, () -> orb.string_to_object("corbaloc:romiop:bank@239.255.0.1:5000/key"));
        final RomiopFactories f = RomiopFactories.of(orb);
        final BAD_PARAM e = assertThrows(BAD_PARAM.class, () -> f.decode_corbaloc("romiop:bank@239.255.0.1:5000/key"));
        assertTrue(e.getMessage().contains("lists no members") && e.getMessage().contains("romiop:1.2@group@239.255.0.1:5000+1+2+3"),
            e.getMessage());
        assertEquals(RomiopExceptions.MINOR_BAD_ADDRESS, e.minor);
        assertNull(f.decode_corbaloc("iiop:1.2@host:1234"), "a foreign address is left to the other factories");
        assertThrows(BAD_PARAM.class, () -> orb.string_to_object("corbaloc:romiop:1.7@bank@239.255.0.1:5000+1/key"));
    }
}
