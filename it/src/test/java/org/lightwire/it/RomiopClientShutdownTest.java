package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.lightwire.romiop.RomiopFactories;
import org.omg.CORBA.ORB;

/**
 * A client ORB that shuts down leaves nothing of its group behind: its connection closes, and with
 * the last connection the group's link (sockets, selector) and its driver thread are closed. An
 * application that makes and shuts down ORBs in a loop must not collect a thread per ORB.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RomiopClientShutdownTest
{
    private static long driverThreads(final String group)
    {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals("romiop-client-" + group)).count();
    }

    @Test
    void aClientOrbThatShutsDownClosesItsGroupAndItsDriverThread() throws Exception
    {
        final Map<String, String> props = RomiopGroupFixture.orbProperties("fanout");
        final ProcessHarness replica = RomiopGroupFixture.startReplica(props, "shutdown", "239.255.8.21:5000",
            RomiopGroupFixture.memberList("fanout", 1), 1, Map.of());
        try
        {
            for (int round = 1; round <= 3; round++)
            {
                final ORB orb = Orbs.init(props);
                final replicated_log group = replicated_logHelper.narrow(orb.string_to_object(replica.ior("group")));
                assertEquals(round, group.append(1, round), "each round's call runs once, after the rounds before");
                final RomiopFactories factories = RomiopFactories.of(orb);
                assertEquals(1, factories.openClientGroups());
                assertEquals(1, driverThreads("shutdown"), "this ORB's group is driven by one thread");
                orb.shutdown(true);
                orb.destroy();
                assertEquals(0, factories.openClientGroups(), factories.clientCounters());
                assertTrue(factories.clientCounters().contains("groupsClosed=1"), factories.clientCounters());
                final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (driverThreads("shutdown") > 0 && System.nanoTime() - end < 0)
                {
                    Thread.sleep(10);
                }
                assertEquals(0, driverThreads("shutdown"), "the driver thread ends with its group (round " + round + ")");
            }
        }
        finally
        {
            replica.close();
        }
    }
}
