package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.CorbaExceptions;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.etf.LightwireProfile;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.idl.lwtest.ttcpHelper;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.NO_MEMORY;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.ORB;
import org.omg.CORBA.SystemException;
import org.omg.CORBA.TRANSIENT;

/**
 * The same failure seen through IIOP and through Lightwire, side by side: a server reached over
 * IIOP alone, and the same server configured the same way reached over Lightwire alone (it
 * listens only on Lightwire's profile tag, so no call falls back to IIOP). The exception class is
 * IIOP's; the minor code and completion status are Lightwire's own where it knows more (the table
 * in docs/configuration.md, "Errors").
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LightwireErrorParityTest
{
    /** What a call ended with: an exception's class, minor code and completion, or "ok". */
    private record Outcome(Class<?> type, int minor, int completed, String message)
    {
        static final Outcome OK = new Outcome(null, 0, -1, "ok");

        @Override
        public String toString()
        {
            return type == null ? "ok" : type.getSimpleName() + " minor 0x" + Integer.toHexString(minor) + " completed " + completed + ": " + message;
        }
    }

    /** A call made on a server's "echo" and "ttcp" objects. */
    private interface Call
    {
        void make(echo e, ttcp t);
    }

    /** A server with {@code serverProperties} over IIOP, and one over Lightwire alone; {@code [0]} IIOP's outcome, {@code [1]} Lightwire's. */
    private static Outcome[] echoOnBoth(final Map<String, String> serverProperties) throws Exception
    {
        return onBoth(List.of(), serverProperties, (e, t) -> assertEquals("x", e.echoString("x")));
    }

    /** As {@link #echoOnBoth}, the servers' JVMs started with {@code jvmArgs}, making {@code call}. */
    private static Outcome[] onBoth(final List<String> jvmArgs, final Map<String, String> serverProperties, final Call call) throws Exception
    {
        return onBoth(jvmArgs, serverProperties, Map.of(), call);
    }

    /** As above, each client ORB given {@code clientProperties} too. */
    private static Outcome[] onBoth(final List<String> jvmArgs, final Map<String, String> serverProperties,
        final Map<String, String> clientProperties, final Call call) throws Exception
    {
        final Map<String, String> lightwireOnly = Orbs.lightwire(serverProperties);
        lightwireOnly.put(Orbs.SERVER_LISTENERS, Integer.toString(LightwireProfile.TAG));
        final Outcome[] outcomes = new Outcome[2];
        for (int k = 0; k < 2; k++)
        {
            final boolean lightwire = k == 1;
            final List<String> args = new ArrayList<>();
            (lightwire ? lightwireOnly : serverProperties).forEach((key, value) ->
            {
                args.add("-p");
                args.add(key + "=" + value);
            });
            try (ProcessHarness server = ProcessHarness.start(TestServer.class, jvmArgs, args, ProcessHarness.DEFAULT_READY_TIMEOUT))
            {
                final ORB orb = Orbs.init(lightwire ? Orbs.lightwire(clientProperties) : clientProperties);
                try
                {
                    final echo e = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
                    final ttcp t = ttcpHelper.narrow(orb.string_to_object(server.ior("ttcp")));
                    outcomes[k] = outcomeOf(() -> call.make(e, t));
                    if (lightwire)
                    {
                        assertTrue(LightwireFactories.of(orb).callsStarted() >= 1, "the call went over Lightwire");
                    }
                }
                finally
                {
                    orb.shutdown(true);
                    orb.destroy();
                }
            }
        }
        return outcomes;
    }

    private static Outcome outcomeOf(final Runnable call)
    {
        try
        {
            call.run();
            return Outcome.OK;
        }
        catch (final SystemException x)
        {
            return new Outcome(x.getClass(), x.minor, x.completed.value(), x.getMessage());
        }
    }

    /**
     * JacORB's {@code bug878.Bug878MaxServerConnectionsFailTest}: a server that takes no server
     * connection at all. IIOP closes the TCP connection it accepted (COMM_FAILURE, no minor code,
     * COMPLETED_MAYBE); Lightwire's server answers that its ORB refused the connection
     * (COMM_FAILURE, COMPLETED_NO: nothing reached the servant), naming the key.
     */
    @Test
    void aServerOrbThatTakesNoConnectionFailsTheCallWithCommFailure() throws Exception
    {
        final Outcome[] o = echoOnBoth(Map.of("jacorb.connection.max_server_connections", "0"));
        assertEquals(COMM_FAILURE.class, o[0].type(), "over IIOP: " + o[0]);
        assertEquals(COMM_FAILURE.class, o[1].type(), "over Lightwire: " + o[1]);
        assertEquals(CorbaExceptions.MINOR_SERVER_CONNECTIONS, o[1].minor(), o[1].toString());
        assertEquals(CompletionStatus._COMPLETED_NO, o[1].completed(), o[1].toString());
        assertTrue(o[1].message().contains("jacorb.connection.max_server_connections"), o[1].toString());
    }

    /** JacORB's {@code bug878.Bug878MaxServerConnectionsPassTest}: one server connection is enough for a client. */
    @Test
    void aServerOrbThatTakesOneConnectionServesTheCall() throws Exception
    {
        final Outcome[] o = echoOnBoth(Map.of("jacorb.connection.max_server_connections", "1"));
        assertEquals(Outcome.OK, o[0], "over IIOP");
        assertEquals(Outcome.OK, o[1], "over Lightwire");
    }

    /**
     * JacORB's {@code bug619.Bug619Test}: a 40 MB request to a server with a 64 MB heap. Over IIOP
     * the servant's unmarshalling runs out of heap and JacORB answers NO_MEMORY, COMPLETED_NO.
     * Over Lightwire the request does not fit the server's request memory budget (by default half
     * the JVM's direct memory limit, which is the heap's size): NO_MEMORY, COMPLETED_NO, naming the
     * setting.
     */
    @Test
    void aRequestTooLargeForTheServersMemoryFailsWithNoMemory() throws Exception
    {
        final Outcome[] o = onBoth(List.of("-Xmx64m"), Map.of(), (e, t) -> t.receive_exactly_once(new char[40_000_000]));
        assertEquals(NO_MEMORY.class, o[0].type(), "over IIOP: " + o[0]);
        assertEquals(NO_MEMORY.class, o[1].type(), "over Lightwire: " + o[1]);
        assertEquals(CompletionStatus._COMPLETED_NO, o[0].completed(), o[0].toString());
        assertEquals(CompletionStatus._COMPLETED_NO, o[1].completed(), o[1].toString());
        assertEquals(CorbaExceptions.MINOR_REQUEST_MEMORY, o[1].minor(), o[1].toString());
        assertTrue(o[1].message().contains("jacorb.lightwire.server.request_memory_bytes"), o[1].toString());
    }

    /**
     * The same request to a server whose request memory budget holds it but whose heap does not:
     * the lane hands it to JacORB, whose unmarshalling runs out of heap as over IIOP: the same
     * NO_MEMORY, minor code and completion.
     */
    @Test
    void aRequestTheBudgetHoldsButTheHeapDoesNotFailsAsOverIiop() throws Exception
    {
        final Outcome[] o = onBoth(List.of("-Xmx64m", "-XX:MaxDirectMemorySize=512m"), Map.of(),
            (e, t) -> t.receive_exactly_once(new char[40_000_000]));
        assertEquals(NO_MEMORY.class, o[0].type(), "over IIOP: " + o[0]);
        assertEquals(o[0].type(), o[1].type(), "over Lightwire: " + o[1]);
        assertEquals(o[0].minor(), o[1].minor(), o[1].toString());
        assertEquals(o[0].completed(), o[1].completed(), o[1].toString());
    }

    /**
     * {@code jacorb.connection.client.pending_reply_timeout}, read by JacORB's GIOP layer whatever the
     * transport: a call the server takes 3 s to answer ends after 300 ms the same way over both.
     */
    @Test
    void jacorbsPendingReplyTimeoutEndsACallAsOverIiop() throws Exception
    {
        final Outcome[] o = onBoth(List.of(), Map.of(), Map.of("jacorb.connection.client.pending_reply_timeout", "300"),
            (e, t) -> e.slowEcho("slow", 3000));
        assertEquals(org.omg.CORBA.TIMEOUT.class, o[0].type(), "over IIOP: " + o[0]);
        assertEquals(o[0].type(), o[1].type(), "over Lightwire: " + o[1]);
        assertEquals(o[0].minor(), o[1].minor(), o[1].toString());
        assertEquals(o[0].completed(), o[1].completed(), o[1].toString());
    }

    /**
     * JacORB's {@code bugjac488.BugJac488Test}: a one-way with each sync scope, and a two-way, to a
     * server whose ORB shut down (and whose process ended) after an earlier one-way. Over IIOP the
     * server's shutdown closed the TCP connection, and the next call cannot reconnect: TRANSIENT,
     * COMPLETED_NO, except a SYNC_NONE one-way, which raises nothing. Over Lightwire the server
     * told each of its connections' clients it closed them (REJECT), the client's pool reads that
     * before the next call goes on the idle connection and drops it, and the call's set-up finds
     * nobody: the same.
     */
    @Test
    void callsToAServerWhoseOrbShutDownFailTransientAsOverIiop() throws Exception
    {
        final short[] scopes = {org.omg.Messaging.SYNC_NONE.value, org.omg.Messaging.SYNC_WITH_TRANSPORT.value,
            org.omg.Messaging.SYNC_WITH_SERVER.value, org.omg.Messaging.SYNC_WITH_TARGET.value};
        for (final short scope : scopes)
        {
            final Outcome[] iiop = afterShutdown(false, scope);
            final Outcome[] lightwire = afterShutdown(true, scope);
            final String what = "sync scope " + scope + ": IIOP one-way " + iiop[0] + ", two-way " + iiop[1] + "; Lightwire one-way " +
                lightwire[0] + ", two-way " + lightwire[1];
            final Class<?> oneway = scope == org.omg.Messaging.SYNC_NONE.value ? null : TRANSIENT.class;
            assertEquals(oneway, iiop[0].type(), what);
            assertEquals(oneway, lightwire[0].type(), what);
            assertEquals(TRANSIENT.class, iiop[1].type(), what);
            assertEquals(TRANSIENT.class, lightwire[1].type(), what);
            for (final Outcome o : lightwire)
            {
                if (o.type() != null)
                {
                    assertEquals(CorbaExceptions.MINOR_CONNECT_FAILED, o.minor(), what);
                    assertEquals(CompletionStatus._COMPLETED_NO, o.completed(), what);
                }
            }
        }
    }

    /** @return the one-way's outcome (with {@code scope}) and a two-way's, after the server's ORB shut down. */
    private static Outcome[] afterShutdown(final boolean lightwire, final short scope) throws Exception
    {
        final Map<String, String> server = lightwire ? Orbs.lightwire() : new HashMap<>();
        if (lightwire)
        {
            server.put(Orbs.SERVER_LISTENERS, Integer.toString(LightwireProfile.TAG));
        }
        try (ProcessHarness harness = ProcessHarness.startTestServer(server))
        {
            final ORB orb = Orbs.init(lightwire ? Orbs.lightwire() : Map.of());
            try
            {
                final echo e = echoHelper.narrow(orb.string_to_object(harness.ior("echo")));
                final org.omg.CORBA.Any any = orb.create_any();
                any.insert_short(scope);
                final ttcp t = ttcpHelper.narrow(orb.string_to_object(harness.ior("ttcp")).
                    _set_policy_override(new org.omg.CORBA.Policy[] {orb.create_policy(org.omg.Messaging.SYNC_SCOPE_POLICY_TYPE.value, any)},
                        org.omg.CORBA.SetOverrideType.ADD_OVERRIDE));
                e.echoString("before");
                t.receive_at_most_once(new char[8]);
                harness.request("shutdown", Duration.ofSeconds(10));
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (harness.isAlive())
                {
                    assertTrue(System.nanoTime() - deadline < 0, "the server's process did not end after its ORB shut down");
                    Thread.sleep(20);
                }
                // No wait for the idle servicer's sweep: the pool reads an idle connection before
                // the next call goes on it, and finds the server's notice there.
                return new Outcome[] {outcomeOf(() -> t.receive_at_most_once(new char[8])), outcomeOf(() -> e.echoString("after"))};
            }
            finally
            {
                orb.shutdown(true);
                orb.destroy();
            }
        }
    }
}
