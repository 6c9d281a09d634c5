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
}
