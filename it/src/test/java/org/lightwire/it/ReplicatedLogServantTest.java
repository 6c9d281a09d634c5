package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.lightwire.it.servant.ReplicatedLogServant;
import org.lightwire.romiop.ft.InvalidState;
import org.lightwire.romiop.ft.NoStateAvailable;

/**
 * The counts the benchmarks compare transports by: calls executed, and executed in order per
 * client; and the log's state (LightwireFT::Checkpointable), which a joining replica takes.
 */
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

    @Test
    void aLogThatTookAnothersStateHasItsEntriesDigestAndLength() throws Exception
    {
        final ReplicatedLogServant donor = new ReplicatedLogServant(16);
        donor.append(1, 0);
        donor.append_data(2, 5, new char[7]);
        donor.append_checked(1, 1, org.lightwire.it.servant.TtcpPattern.create(1, 10));
        final byte[] state = donor.get_state();
        assertEquals("1:0\n2:5:7\n1:1:10:intact\n", new String(state, StandardCharsets.US_ASCII));

        final ReplicatedLogServant joiner = new ReplicatedLogServant(16);
        joiner.append(9, 9);
        joiner.set_state(state);
        assertEquals(3, joiner.installed());
        assertEquals(3, joiner.executed());
        assertEquals(donor.digest(), joiner.digest());
        assertArrayEquals(new int[] {0, 5, 1}, joiner.executionSeqs());
        assertArrayEquals(new int[] {1, 2, 1}, joiner.executionClients());
        assertEquals(donor.inOrder(), joiner.inOrder());
        assertEquals(donor.append(1, 2), joiner.append(1, 2), "the same reply to the next call");
        assertEquals(donor.digest(), joiner.digest());
        assertArrayEquals(donor.get_state(), joiner.get_state());
    }

    @Test
    void anEmptyStateEmptiesTheLog() throws Exception
    {
        final ReplicatedLogServant log = new ReplicatedLogServant(4);
        log.append(1, 1);
        log.set_state(new byte[0]);
        assertEquals(0, log.executed());
        assertEquals(new ReplicatedLogServant(4).digest(), log.digest());
        assertArrayEquals(new byte[0], log.get_state());
    }

    @Test
    void aStateThatIsNoLogIsRefusedAndTheLogKept() throws Exception
    {
        final ReplicatedLogServant log = new ReplicatedLogServant(4);
        log.append(1, 1);
        final String digest = log.digest();
        for (final String bad : new String[] {"1:2", "1:2\nx\n", "1:2\n\n", "99999999999:1\n", "1:2::\n"})
        {
            final InvalidState e = assertThrows(InvalidState.class, () -> log.set_state(bad.getBytes(StandardCharsets.US_ASCII)), bad);
            assertTrue(e.getMessage().contains("not a log line at byte"), e.getMessage());
        }
        assertEquals(1, log.executed());
        assertEquals(digest, log.digest());
        assertEquals(0, log.installed());
    }

    @Test
    void aLogLongerThanItKeepsHasNoStateToGive() throws Exception
    {
        final ReplicatedLogServant log = new ReplicatedLogServant(4, 8);
        log.append(1, 100);
        assertArrayEquals("1:100\n".getBytes(StandardCharsets.US_ASCII), log.get_state(), "6 bytes of 8");
        log.append(1, 1);
        assertThrows(NoStateAvailable.class, log::get_state, "10 bytes of 8");
        log.set_state("2:3\n".getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals("2:3\n".getBytes(StandardCharsets.US_ASCII), log.get_state(), "a state taken is kept again");
    }
}
