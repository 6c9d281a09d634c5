package org.lightwire.it;

import java.io.PrintStream;
import java.util.Map;

import org.lightwire.it.servant.ReplicaProbeServant;
import org.lightwire.it.servant.ReplicatedLogServant;
import org.omg.CORBA.ORB;
import org.omg.PortableGroup.GOA;
import org.omg.PortableGroup.GOAHelper;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * A member of a JacORB MIOP group (the benchmarks' comparison for ROMIOP oneways): a
 * {@link ReplicatedLogServant} associated with the group of {@code lightwire.miop.url} (a
 * {@code corbaloc:miop:} URL) through JacORB's GOA, and a probe over IIOP that reports what
 * arrived and in which order. MIOP is unreliable and unordered: the probe counts, nothing is
 * repaired. Prints the probe's IOR and the ready line as {@link TestServer} does.
 */
public final class MiopReplica
{
    /** The group's {@code corbaloc:miop:1.0@1.0-<domain>-<id>/<address>:<port>} URL. */
    public static final String URL = "lightwire.miop.url";

    private MiopReplica()
    {
    }

    /** @return the ORB properties of a MIOP group member or client (JacORB's MIOP factories and selector). */
    public static Map<String, String> orbProperties()
    {
        return Map.of(Orbs.TRANSPORT_FACTORIES, "org.jacorb.orb.iiop.IIOPFactories,org.jacorb.orb.miop.MIOPFactories",
            "jacorb.transport.client.selector", "org.jacorb.orb.miop.MIOPProfileSelector");
    }

    public static void main(final String[] args) throws Exception
    {
        final Map<String, String> props = TestServer.parseProperties(args);
        final ORB orb = Orbs.init(props);
        final POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
        root.the_POAManager().activate();
        final ReplicatedLogServant log = new ReplicatedLogServant(1 << 20);
        final byte[] oid = root.activate_object(log);
        final GOA goa = GOAHelper.narrow(root);
        goa.associate_reference_with_id(orb.string_to_object(props.get(URL)), oid);
        final org.omg.CORBA.Object probe = root.servant_to_reference(new ReplicaProbeServant(log, () -> "MIOP member", () -> new int[0],
            () -> Runtime.getRuntime().halt(0)));
        final PrintStream out = System.out;
        out.println(TestServer.IOR_LINE_PREFIX + "probe " + orb.object_to_string(probe));
        out.println(TestServer.JAVA_LINE_PREFIX + System.getProperty("java.version"));
        out.println(TestServer.READY_LINE);
        out.flush();
        TestServer.watchStandardInput();
        orb.run();
    }
}
