package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.it.idl.lwtest.replica_probe;
import org.lightwire.it.idl.lwtest.replica_probeHelper;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.lightwire.it.servant.ReplicatedLogServant;
import org.lightwire.it.servant.TtcpPattern;
import org.lightwire.romiop.RomiopConfig;
import org.lightwire.romiop.RomiopExceptions;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.ORB;

/**
 * Requests larger than one ROMIOP packet, through real JacORB ORBs: three replica JVMs over UDP
 * multicast on loopback, and a client ORB in this JVM that sends each request in pieces. Every
 * replica must execute every request once, whole and in order: the test computes the digest of
 * the execution log it expects (each line says whether the data matched ttcp's pattern) and
 * compares every replica's with it.
 */
class RomiopLargeRequestTest
{
    private static final int REPLICAS = 3;
    private static final int CLIENT = 5;
    /** 0 pieces (one packet), 2, 16, 47 and 77 (more than the client's window of 64 requests). */
    private static final int[] SIZES = {1_000, 100_000, 1_000_000, 3_000_000, 5_000_000};
    private static final int ONEWAY_SIZE = 200_000;
    private static final int[] REPLY_SIZES = {100_000, 1_000_000, 5_000_000};

    @Test
    @Timeout(180)
    void requestsLargerThanAPacketArriveWholeAndInOrderOnEveryReplica() throws Exception
    {
        final ThreadLocalRandom r = ThreadLocalRandom.current();
        final String groupAddress = "239.255." + r.nextInt(1, 255) + "." + r.nextInt(1, 255) + ":" + r.nextInt(20000, 40000);
        final String members = RomiopGroupFixture.memberList("multicast", REPLICAS);
        final List<ProcessHarness> replicas = new ArrayList<>();
        final Map<String, String> props = new java.util.HashMap<>(RomiopGroupFixture.orbProperties("multicast"));
        props.put(RomiopConfig.MAX_REQUEST_BYTES, Integer.toString(8 << 20));
        final ORB orb = Orbs.init(props);
        try
        {
            for (int id = 1; id <= REPLICAS; id++)
            {
                replicas.add(RomiopGroupFixture.startReplica(props, "itbig", groupAddress, members, id, Map.of()));
            }
            final replicated_log group = replicated_logHelper.narrow(orb.string_to_object(replicas.get(0).ior("group")));
            final MessageDigest expected = MessageDigest.getInstance("SHA-256");
            int seq = 0;
            for (final int size : SIZES)
            {
                seq++;
                final long start = System.nanoTime();
                assertEquals(seq, group.append_checked(CLIENT, seq, TtcpPattern.create(seq, size)), "the log's length after call " + seq);
                System.out.printf("a request of %d chars to %d replicas in %.1f ms%n", size, REPLICAS, (System.nanoTime() - start) / 1e6);
                expected.update(ReplicatedLogServant.line(CLIENT, seq, ReplicatedLogServant.checkedLine(size, true))
                    .getBytes(StandardCharsets.US_ASCII));
            }
            seq++;
            group.append_data_oneway(CLIENT, seq, TtcpPattern.create(seq, ONEWAY_SIZE));
            expected.update(ReplicatedLogServant.line(CLIENT, seq, ":" + ONEWAY_SIZE).getBytes(StandardCharsets.US_ASCII));
            seq++;
            assertEquals(seq, group.append_checked(CLIENT, seq, TtcpPattern.create(seq, 10)), "after the one-way, in order");
            expected.update(ReplicatedLogServant.line(CLIENT, seq, ReplicatedLogServant.checkedLine(10, true))
                .getBytes(StandardCharsets.US_ASCII));

            // Replies in pieces: 100,028, 1,000,028 and 5,000,028 bytes of GIOP reply, 2, 16 and 77 pieces of 64,948 bytes.
            for (final int size : REPLY_SIZES)
            {
                seq++;
                final long start = System.nanoTime();
                assertArrayEquals(TtcpPattern.create(seq, size), group.append_and_return(CLIENT, seq, size), "the reply to call " + seq);
                System.out.printf("a reply of %d chars from %d replicas in %.1f ms%n", size, REPLICAS, (System.nanoTime() - start) / 1e6);
                expected.update(ReplicatedLogServant.line(CLIENT, seq, "").getBytes(StandardCharsets.US_ASCII));
            }

            // Longer than max_request_bytes: refused before anything is sent, the group goes on.
            final int last = seq;
            final COMM_FAILURE tooLong = assertThrows(COMM_FAILURE.class, () -> group.append_checked(CLIENT, last + 1, new char[9 << 20]));
            assertEquals(RomiopExceptions.MINOR_SEND_FAILED, tooLong.minor);
            assertTrue(tooLong.getMessage().contains("is larger than jacorb.lightwire.romiop.max_request_bytes = 8388608"), tooLong.getMessage());

            final String digest = HexFormat.of().formatHex(expected.digest());
            for (int i = 0; i < REPLICAS; i++)
            {
                final replica_probe p = replica_probeHelper.narrow(orb.string_to_object(replicas.get(i).ior("probe")));
                final String what = "replica " + (i + 1) + ": " + p.counters();
                assertEquals(seq, p.executed(), what);
                assertEquals(digest, p.digest(), "every request whole, once, in order; " + what);
                // 100,000 and 200,000 bytes: 2 and 4 pieces; 1, 3, 5 MB: 16, 47, 77.
                assertTrue(p.counters().contains("fragmentedRequests=5,"), what);
                assertTrue(p.counters().contains("replyFragmentsSent=95,"), what);
                // A window of 1 MiB is 16 pieces: at least 77 - 16 of the last reply's pieces waited for ACKs.
                assertTrue(RomiopGroupFixture.counter(what, "replyFragmentsHeld") >= 61, what);
                System.out.println("replica " + (i + 1) + ": " + Stream.of("replyRetransmits", "replyFragmentsHeld", "requestNaksSent", "duplicateRequests")
                    .map(name -> name + "=" + RomiopGroupFixture.counter(what, name)).toList());
                assertTrue(p.counters().contains("invalidFragments=0, duplicateFragments=0, fragmentsTooLong=0, partialRequestsEvicted=0, partialRequests=0"), what);
            }
        }
        finally
        {
            replicas.forEach(ProcessHarness::close);
            orb.shutdown(false);
            orb.destroy();
        }
    }
}
