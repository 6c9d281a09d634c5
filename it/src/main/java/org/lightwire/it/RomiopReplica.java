package org.lightwire.it;

import java.io.PrintStream;
import java.util.Map;

import org.lightwire.it.servant.ReplicaProbeServant;
import org.lightwire.it.servant.ReplicatedLogServant;
import org.lightwire.romiop.RomiopFactories;
import org.lightwire.romiop.RomiopListener;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.IdAssignmentPolicyValue;
import org.omg.PortableServer.LifespanPolicyValue;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * A replica JVM of a ROMIOP group: serves a {@code lwtest::checkpointable_log} under a fixed object
 * key, so that every replica serves the same key (a PERSISTENT, USER_ID POA named
 * {@value #POA_NAME}, object id {@value #OBJECT_ID}, and the same {@code jacorb.implname} on every
 * replica), and a {@code lwtest::replica_probe} over IIOP. The group carries the log's state to a
 * replica that joins past executed requests; with {@value #CHECKPOINTABLE}{@code =false} the
 * log is served as a plain {@code lwtest::replicated_log}, which has no state to give or take.
 *
 * <p>Arguments: {@code -p key=value}..., ORB properties added to {@link Orbs#baseProperties()}
 * (the group's properties among them). Announces {@code group} (the group reference: ROMIOP
 * profile only, see {@link RomiopFactories#groupReference}) and {@code probe}, then
 * {@link TestServer#READY_LINE}; exits when its standard input ends.
 */
public final class RomiopReplica
{
    public static final String POA_NAME = "romiop-group";
    public static final String OBJECT_ID = "log";
    /** Test knob (not an ORB property): false serves the log without {@code LightwireFT::Checkpointable}. */
    public static final String CHECKPOINTABLE = "lightwire.test.checkpointable";
    /** Execution entries kept for the order comparison. */
    private static final int MAX_ENTRIES = 1 << 20;

    private RomiopReplica()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Map<String, String> props = TestServer.parseProperties(args);
        final ORB orb = Orbs.init(props);
        final POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
        root.the_POAManager().activate();
        final POA groupPoa = root.create_POA(POA_NAME, root.the_POAManager(), new org.omg.CORBA.Policy[] {
            root.create_lifespan_policy(LifespanPolicyValue.PERSISTENT),
            root.create_id_assignment_policy(IdAssignmentPolicyValue.USER_ID)});
        final ReplicatedLogServant log = new ReplicatedLogServant(MAX_ENTRIES);
        // Test knobs of the consolidation tests (not ORB properties: JacORB ignores them).
        log.misbehave(Long.parseLong(props.getOrDefault("lightwire.test.reply_offset", "0")),
            Long.parseLong(props.getOrDefault("lightwire.test.reply_delay_ms", "0")),
            Long.parseLong(props.getOrDefault("lightwire.test.oneway_delay_ms", "0")));
        final byte[] oid = OBJECT_ID.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        final boolean checkpointable = Boolean.parseBoolean(props.getOrDefault(CHECKPOINTABLE, "true"));
        groupPoa.activate_object_with_id(oid, checkpointable ? log : new org.lightwire.it.idl.lwtest.replicated_logPOATie(log));
        final org.omg.CORBA.Object group = RomiopFactories.groupReference(orb, groupPoa.id_to_reference(oid));

        final RomiopListener listener = RomiopFactories.of(orb).listener();
        final int[] senders = new int[MAX_ENTRIES];
        final int[] deliveredCount = {0};
        listener.setDeliveryObserver((orderSeq, senderId, packetId, requestId) ->
        {
            synchronized (senders)
            {
                if (deliveredCount[0] < senders.length)
                {
                    senders[deliveredCount[0]++] = senderId;
                }
            }
        });
        final ReplicaProbeServant probe = new ReplicaProbeServant(log, listener::counters, () ->
        {
            synchronized (senders)
            {
                return java.util.Arrays.copyOf(senders, deliveredCount[0]);
            }
        }, () ->
        {
            // An orderly shutdown: the listener announces this member's leaving to the group.
            orb.shutdown(true);
            Runtime.getRuntime().halt(0);
        });
        final org.omg.CORBA.Object probeRef = root.servant_to_reference(probe);

        final PrintStream out = System.out;
        out.println(TestServer.IOR_LINE_PREFIX + "group " + orb.object_to_string(group));
        out.println(TestServer.IOR_LINE_PREFIX + "probe " + orb.object_to_string(probeRef));
        // A servant of its own over IIOP alone: the single-server baseline of the benchmarks
        // (calling the group's servant directly would make this replica's log, and so its
        // replies, differ from the others').
        final org.omg.CORBA.Object solo = root.servant_to_reference(new ReplicatedLogServant(MAX_ENTRIES));
        out.println(TestServer.IOR_LINE_PREFIX + "direct " + orb.object_to_string(solo));
        out.println(TestServer.JAVA_LINE_PREFIX + System.getProperty("java.version"));
        out.println(TestServer.READY_LINE);
        out.flush();
        TestServer.watchStandardInput();
        orb.run();
    }
}
