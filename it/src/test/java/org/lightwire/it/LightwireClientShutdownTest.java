package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.ORB;

/**
 * A client ORB that shuts down leaves no transport connection behind: JacORB closes its
 * connections, and with the last one the Lightwire client closes its pools (their UDP sockets; the
 * JVM's one idle servicer thread stops serving them). An application that makes and shuts down
 * ORBs in a loop must not collect sockets, nor a thread per ORB and server.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LightwireClientShutdownTest
{
    private static final int CALLERS = 4;

    private static Set<Thread> idleServicers()
    {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith("lightwire-idle-"))
            .collect(Collectors.toSet());
    }

    @Test
    void aClientOrbThatShutsDownClosesItsTransportConnectionsAndTheirThreads() throws Exception
    {
        try (ProcessHarness server = ProcessHarness.startTestServer(Orbs.lightwire()))
        {
            final ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
            try
            {
                for (int round = 1; round <= 3; round++)
                {
                    final ORB orb = Orbs.init(Orbs.lightwire());
                    final echo e = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
                    final List<Future<String>> replies = new ArrayList<>();
                    for (int i = 0; i < CALLERS * 25; i++)
                    {
                        final String text = "round " + round + " call " + i;
                        replies.add(callers.submit(() -> e.echoString(text)));
                    }
                    for (int i = 0; i < replies.size(); i++)
                    {
                        assertEquals("round " + round + " call " + i, replies.get(i).get(60, TimeUnit.SECONDS));
                    }
                    final LightwireFactories factories = LightwireFactories.of(orb);
                    final int open = factories.openTransportConnections();
                    assertTrue(open >= 1 && open <= CALLERS, "one transport connection per concurrent call at most, got " + open);
                    // The JVM's one idle servicer serves every pool: no thread per ORB or server.
                    assertEquals(1, idleServicers().size(), "one idle servicer thread in the JVM: " + idleServicers());
                    assertEquals(0, factories.transportClientCloses());

                    orb.shutdown(true);
                    orb.destroy();
                    assertEquals(0, factories.openTransportConnections(), "round " + round);
                    assertEquals(1, factories.transportClientCloses(), "closed once, with the ORB's last connection");
                }
            }
            finally
            {
                callers.shutdownNow();
            }
        }
    }
}
