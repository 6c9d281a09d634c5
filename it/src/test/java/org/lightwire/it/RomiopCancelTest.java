package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lightwire.it.servant.TtcpPattern;
import org.lightwire.it.idl.lwtest.replica_probe;
import org.lightwire.it.idl.lwtest.replica_probeHelper;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.omg.CORBA.ORB;

/**
 * A call that times out at the client is cancelled in the group: the sequencer (here batching for
 * a whole second, as the paper's order interval) receives the Cancel before it orders the request,
 * so no replica ever executes it. The next call is the first the replica runs. The same for a
 * request in pieces: every piece is cancelled, and none is delivered.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RomiopCancelTest
{
    @ParameterizedTest(name = "request in pieces: {0}")
    @ValueSource(booleans = {false, true})
    void aCallThatTimesOutIsCancelledAndNeverExecuted(final boolean inPieces) throws Exception
    {
        final Map<String, String> common = RomiopGroupFixture.orbProperties("fanout");
        common.put("jacorb.lightwire.romiop.order_at_once_when_idle", "false");
        common.put("jacorb.lightwire.romiop.order_interval_ms", "1000");
        final ProcessHarness replica = RomiopGroupFixture.startReplica(common, "cancel", "239.255.8.20:5000",
            RomiopGroupFixture.memberList("fanout", 1), 1, Map.of());
        final Map<String, String> impatient = new java.util.HashMap<>(common);
        impatient.put("jacorb.lightwire.romiop.consolidation.timeout_ms", "200");
        final ORB impatientOrb = Orbs.init(impatient);
        final ORB patientOrb = Orbs.init(common);
        final ORB probeOrb = Orbs.init(Map.of());
        try
        {
            final replica_probe probe = replica_probeHelper.narrow(probeOrb.string_to_object(replica.ior("probe")));
            final replicated_log hurried = replicated_logHelper.narrow(impatientOrb.string_to_object(replica.ior("group")));
            // 200,000 chars: a GIOP request of about 200,100 bytes, 4 pieces of 65,000-byte packets.
            final org.omg.CORBA.TIMEOUT timeout = assertThrows(org.omg.CORBA.TIMEOUT.class,
                () ->
                {
                    if (inPieces)
                    {
                        hurried.append_checked(1, 1, TtcpPattern.create(1, 200_000));
                    }
                    else
                    {
                        hurried.append(1, 1);
                    }
                });
            assertEquals(0x4C570020, timeout.minor);
            assertTrue(timeout.getMessage().contains("no member replied within 200 ms"), timeout.getMessage());

            // Ordered after the cancelled one would have been: it finds an empty log.
            final replicated_log group = replicated_logHelper.narrow(patientOrb.string_to_object(replica.ior("group")));
            assertEquals(1, group.append(2, 2), "the cancelled call never ran");
            assertEquals(1, probe.executed(), probe.counters());
            final String counters = probe.counters();
            assertTrue(counters.contains("requestsCancelled=" + (inPieces ? 4 : 1) + ","), counters);
            assertTrue(counters.contains("fragments=0,"), "no piece was delivered: " + counters);
        }
        finally
        {
            impatientOrb.shutdown(false);
            patientOrb.shutdown(false);
            probeOrb.shutdown(false);
            replica.close();
        }
    }
}
