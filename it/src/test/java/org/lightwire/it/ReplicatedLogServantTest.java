package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.lightwire.it.servant.ReplicatedLogServant;

/** The counts the benchmarks compare transports by: calls executed, and executed in order per client. */
class ReplicatedLogServantTest
{
    @Test
    void aCallIsInOrderWhenItsSeqIsAboveEveryEarlierSeqOfItsClient()
    {
        final ReplicatedLogServant log = new ReplicatedLogServant(16);
        final long before = System.nanoTime();
        for (final int seq : new int[] {1, 2, 5, 3, 6, 6})
        {
            log.append_data_oneway(7, seq, new char[3]);
        }
        log.append_oneway(8, 1);
        assertEquals(7, log.executed());
        assertEquals(5, log.inOrder(), "client 7: 1, 2, 5 and 6 in order, 3 and the repeated 6 not; client 8's first call");
        assertTrue(log.lastExecutionNs() - before >= 0);
        assertEquals(8, log.append_data(7, 9, new char[0]), "append_data returns the log's length");
    }

    @Test
    void aCheckedCallLogsWhetherItsDataWasIntact() throws Exception
    {
        final ReplicatedLogServant log = new ReplicatedLogServant(4);
        final char[] corrupt = org.lightwire.it.servant.TtcpPattern.create(6, 100);
        corrupt[99] ^= 1;

        assertEquals(1, log.append_checked(1, 5, org.lightwire.it.servant.TtcpPattern.create(5, 100)));
        assertEquals(2, log.append_checked(1, 6, corrupt));
        assertEquals(3, log.append_checked(1, 7, org.lightwire.it.servant.TtcpPattern.create(8, 100)), "another seq's data is not intact");

        final java.security.MessageDigest expected = java.security.MessageDigest.getInstance("SHA-256");
        expected.update("1:5:100:intact\n1:6:100:corrupt\n1:7:100:corrupt\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(java.util.HexFormat.of().formatHex(expected.digest()), log.digest());
        assertEquals("1:5:100:intact\n", ReplicatedLogServant.line(1, 5, ReplicatedLogServant.checkedLine(100, true)));
    }
}
