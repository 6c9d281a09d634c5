package org.lightwire.it;

import java.util.Map;
import java.util.Properties;

import org.omg.CORBA.ORB;

/**
 * The ORB properties every test ORB, client or server, starts from, so that an IIOP baseline and
 * a Lightwire run differ only in the properties a test adds.
 */
public final class Orbs
{
    /** Makes {@code ORB.init} build a JacORB ORB: the JDK has shipped no ORB since Java 11. */
    public static final String ORB_CLASS = "org.omg.CORBA.ORBClass";
    /** Likewise for {@code ORB.init()} without arguments. */
    public static final String ORB_SINGLETON_CLASS = "org.omg.CORBA.ORBSingletonClass";
    /**
     * JacORB's listen address for IIOP. Every test server listens on loopback only, never on a
     * routable interface.
     */
    public static final String LISTEN_ADDRESS = "OAIAddr";
    /**
     * JacORB's native code set for {@code char} and {@code string}. Left unset, JacORB takes the
     * JVM's default encoding: ASCII on Java 17 under {@code LANG=C} (non-ASCII strings then fail),
     * UTF-8 under a UTF-8 locale and on every locale from Java 18 on. Fixing it makes the tests
     * mean the same on every JDK and machine.
     */
    public static final String NATIVE_CHAR_CODESET = "jacorb.native_char_codeset";

    /** Loopback address the test servers listen on. */
    public static final String LOOPBACK = "127.0.0.1";

    /** Both transports, IIOP's factory first as the issue asks (JacORB's IIOP stays the default). */
    public static final String TRANSPORT_FACTORIES = "jacorb.transport.factories";
    public static final String SERVER_LISTENERS = "jacorb.transport.server.listeners";
    public static final String CLIENT_SELECTOR = "jacorb.transport.client.selector";

    private Orbs()
    {
    }

    /** @return a fresh copy of the properties common to every test ORB. */
    public static Properties baseProperties()
    {
        final Properties props = new Properties();
        props.setProperty(ORB_CLASS, "org.jacorb.orb.ORB");
        props.setProperty(ORB_SINGLETON_CLASS, "org.jacorb.orb.ORBSingleton");
        props.setProperty(LISTEN_ADDRESS, LOOPBACK);
        props.setProperty(NATIVE_CHAR_CODESET, "UTF8");
        return props;
    }

    /**
     * @return the properties that make an ORB speak Lightwire as well as IIOP: the factory, a
     * Lightwire listener beside the IIOP one (Lightwire's profile first in IORs), and the selector
     * that prefers Lightwire. These are what a user puts in {@code jacorb.properties}.
     */
    public static Map<String, String> lightwire()
    {
        final Map<String, String> props = new java.util.LinkedHashMap<>();
        props.put(TRANSPORT_FACTORIES, "org.jacorb.orb.iiop.IIOPFactories,org.lightwire.etf.LightwireFactories");
        props.put(SERVER_LISTENERS, org.lightwire.etf.LightwireProfile.TAG + ",0");
        props.put(CLIENT_SELECTOR, "org.lightwire.etf.LightwireProfileSelector");
        return props;
    }

    /** @return {@link #lightwire()} with {@code more} added or replacing. */
    public static Map<String, String> lightwire(final Map<String, String> more)
    {
        final Map<String, String> props = lightwire();
        props.putAll(more);
        return props;
    }

    /**
     * @param overrides properties that replace or add to {@link #baseProperties()}
     * @return a new ORB; the caller shuts it down and destroys it
     */
    public static ORB init(final Map<String, String> overrides)
    {
        final Properties props = baseProperties();
        props.putAll(overrides);
        return ORB.init(new String[0], props);
    }
}
