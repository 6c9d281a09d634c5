package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
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
    private static List<Thread> driverThreads(final String group)
    {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals("romiop-client-" + group)).toList();
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
                final List<Thread> threads = driverThreads("shutdown");
                assertEquals(1, threads.size(), "this ORB's group is driven by one thread");
                orb.shutdown(true);
                orb.destroy();
                assertEquals(0, factories.openClientGroups(), factories.clientCounters());
                assertTrue(factories.clientCounters().contains("groupsClosed=1"), factories.clientCounters());
                threads.get(0).join(TimeUnit.SECONDS.toMillis(10));
                assertFalse(threads.get(0).isAlive(), "the driver thread ends with its group (round " + round + ")");
                assertEquals(List.of(), driverThreads("shutdown"));
            }
        }
        finally
        {
            replica.close();
        }
    }
}
