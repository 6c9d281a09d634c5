package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.CorbaExceptions;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.etf.LightwireProfile;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.ORB;
import org.omg.CORBA.SystemException;

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

    /** A server with {@code serverProperties} over IIOP, and one over Lightwire alone; {@code [0]} IIOP's outcome, {@code [1]} Lightwire's. */
    private static Outcome[] echoOnBoth(final Map<String, String> serverProperties) throws Exception
    {
        final Map<String, String> lightwireOnly = Orbs.lightwire(serverProperties);
        lightwireOnly.put(Orbs.SERVER_LISTENERS, Integer.toString(LightwireProfile.TAG));
        try (ProcessHarness iiop = ProcessHarness.startTestServer(new HashMap<>(serverProperties));
            ProcessHarness lightwire = ProcessHarness.startTestServer(lightwireOnly))
        {
            return new Outcome[] {echo(Map.of(), iiop.ior("echo"), false), echo(Orbs.lightwire(), lightwire.ior("echo"), true)};
        }
    }

    private static Outcome echo(final Map<String, String> clientProperties, final String ior, final boolean lightwire)
    {
        final ORB orb = Orbs.init(clientProperties);
        try
        {
            final echo e = echoHelper.narrow(orb.string_to_object(ior));
            try
            {
                assertEquals("x", e.echoString("x"));
                return Outcome.OK;
            }
            catch (final SystemException x)
            {
                return new Outcome(x.getClass(), x.minor, x.completed.value(), x.getMessage());
            }
            finally
            {
                if (lightwire)
                {
                    assertEquals(1, LightwireFactories.of(orb).callsStarted(), "the call went over Lightwire");
                }
            }
        }
        finally
        {
            orb.shutdown(true);
            orb.destroy();
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
}
