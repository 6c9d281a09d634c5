package org.lightwire.it.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

/**
 * The nemesis's checker against histories whose faults are known: each check fails on its own
 * fault, names it, and leaves the other checks alone.
 */
class HistoryCheckerTest
{
    private static final long S = TimeUnit.SECONDS.toNanos(1);
    /** The fault runs from 10 s to 20 s; appends every 100 ms from 0 to 30 s, client 1's seq = tenths of a second. */
    private static final long FAULT = 10 * S;
    private static final long HEAL = 20 * S;
    private static final int APPENDS = 300;
    private static final CallFailure NO_QUORUM = new CallFailure("TRANSIENT", CallFailure.NO_QUORUM_MINOR, "MAYBE",
        "Server-side Exception: ROMIOP group partition: NO_QUORUM: 2 of 5 members replied within 10000 ms; quorum 3 not reached");
    private static final CallFailure TIMEOUT = new CallFailure("TIMEOUT", 0x4C570020, "MAYBE",
        "Server-side Exception: ROMIOP group partition: TIMEOUT: no member replied within 10000 ms");

    private final HistoryChecker checker = new HistoryChecker(10 * S);

    private static List<Append> appends()
    {
        final List<Append> a = new ArrayList<>();
        for (int seq = 0; seq < APPENDS; seq++)
        {
            a.add(new Append(1, seq, seq * S / 10, seq * S / 10 + S / 20, seq + 1, null));
        }
        return a;
    }

    private static long[] entries(final long from, final long to)
    {
        return LongStream.range(from, to).map(seq -> Entries.of(1, (int)seq)).toArray();
    }

    private static ReplicaLog log(final int member, final long[] entries)
    {
        return replicaLog(member, 1, true, entries);
    }

    private static ReplicaLog replicaLog(final int member, final int incarnation, final boolean last, final long[] entries)
    {
        final ReplicaLog draft = new ReplicaLog(member, incarnation, incarnation == 1, last, entries, "", entries.length, "");
        return new ReplicaLog(member, incarnation, incarnation == 1, last, entries, draft.computedDigest(), entries.length, "counters");
    }

    private static List<ReplicaLog> fiveIdentical()
    {
        final List<ReplicaLog> logs = new ArrayList<>();
        for (int id = 1; id <= 5; id++)
        {
            logs.add(log(id, entries(0, APPENDS)));
        }
        return logs;
    }

    private Verdict check(final List<Append> appends, final List<ReplicaLog> logs)
    {
        return checker.check(new History(appends, logs, Map.of(), FAULT, HEAL, true, "42 packets dropped"));
    }

    private static Verdict.Check named(final Verdict v, final String name)
    {
        return v.checks().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    private static void onlyFailed(final Verdict v, final String... names)
    {
        assertEquals(List.of(names), v.failedChecks(), v.report());
    }

    @Test
    void fiveIdenticalLogsWithEveryAppendPass()
    {
        final Verdict v = check(appends(), fiveIdentical());
        assertTrue(v.passed(), v.report());
        assertEquals("PARTITION partition/majority: PASS acked=300 lost=0 diverged_at=none double=0 stalled=0.05s errors=none",
            v.line("partition/majority"));
    }

    @Test
    void aDivergenceIsNamedByItsIndexAndBothEntries()
    {
        final List<ReplicaLog> logs = fiveIdentical();
        final long[] other = entries(0, APPENDS);
        other[120] = Entries.of(1, 121);
        other[121] = Entries.of(1, 120);
        logs.set(2, log(3, other));
        final Verdict v = check(appends(), logs);
        onlyFailed(v, "identical");
        assertEquals("PARTITION x: FAIL acked=300 lost=0 diverged_at=120 double=0 stalled=0.05s errors=none failed=identical", v.line("x"));
        assertTrue(named(v, "identical").findings().contains(
            "replica 3 diverges at its index 120 (sequence index 120): it executed 1:121 where replica 1 executed 1:120"), v.report());
    }

    @Test
    void aShortPrefixDoesNotBecomeTheReference()
    {
        // Replica 2 stopped early; 1 and 3..5 diverge later. The reference is the majority's log.
        final List<ReplicaLog> logs = fiveIdentical();
        logs.set(1, log(2, entries(0, 50)));
        final long[] minority = entries(0, APPENDS);
        minority[200] = Entries.of(2, 7);
        logs.set(0, log(1, minority));
        final Verdict v = check(appends(), logs);
        assertTrue(named(v, "identical").findings().get(0).startsWith("reference: replica 3, 300 entries"), v.report());
        assertTrue(named(v, "identical").findings().contains("replica 2 ends at sequence index 50 of 300 (250 behind)"), v.report());
        assertEquals("200", v.divergedAt());
        assertFalse(named(v, "liveness").passed(), "replica 2 executed nothing after the heal");
    }

    @Test
    void anAcknowledgedAppendMissingFromTheSequenceIsLost()
    {
        final List<ReplicaLog> logs = new ArrayList<>();
        final long[] without = LongStream.range(0, APPENDS).filter(seq -> seq != 150).map(seq -> Entries.of(1, (int)seq)).toArray();
        for (int id = 1; id <= 5; id++)
        {
            logs.add(log(id, without));
        }
        // The replies after the lost one say what the logs say.
        final List<Append> appends = new ArrayList<>();
        for (final Append a : appends())
        {
            appends.add(a.seq() > 150 ? new Append(1, a.seq(), a.startNs(), a.endNs(), a.seq(), null) : a);
        }
        final Verdict v = check(appends, logs);
        onlyFailed(v, "lost");
        assertEquals("PARTITION x: FAIL acked=300 lost=1 diverged_at=none double=0 stalled=0.05s errors=none failed=lost", v.line("x"));
        assertEquals("1 acknowledged appends are not in the sequence (replica 1), first 1:150", named(v, "lost").findings().get(0));
    }

    @Test
    void aReplicaThatSkipsAcknowledgedAppendsIsCountedWhateverItsDigest()
    {
        // Removed and rejoined: replica 2 jumps from 100 to 180, then goes on with the others.
        final List<ReplicaLog> logs = fiveIdentical();
        logs.set(1, log(2, LongStream.concat(LongStream.range(0, 100), LongStream.range(180, APPENDS)).map(seq -> Entries.of(1, (int)seq)).toArray()));
        final Verdict v = check(appends(), logs);
        assertEquals("PARTITION x: FAIL acked=300 lost=80 diverged_at=100 double=0 stalled=0.05s errors=none failed=identical,lost", v.line("x"));
        assertTrue(named(v, "lost").findings().contains(
            "replica 2 skipped 80 acknowledged appends within its stretch, first 1:100 at sequence index 100, last at 179"), v.report());
        // Entry by entry its log departs where the jump is.
        assertTrue(named(v, "identical").findings().contains(
            "replica 2 diverges at its index 100 (sequence index 100): it executed 1:180 where replica 1 executed 1:100"), v.report());
    }

    @Test
    void aReplyThatIsNotTheEntrysPlaceInTheSequenceFailsReplies()
    {
        // Three replicas that had departed from the sequence agreed on 1:150's reply.
        final List<Append> appends = new ArrayList<>(appends());
        final Append a = appends.get(150);
        appends.set(150, new Append(1, 150, a.startNs(), a.endNs(), 140, null));
        final Verdict v = check(appends, fiveIdentical());
        onlyFailed(v, "replies");
        assertEquals("PARTITION x: FAIL acked=300 lost=0 diverged_at=none double=0 stalled=0.05s errors=none failed=replies", v.line("x"));
        assertEquals(List.of("1 acknowledged appends got a reply that is not their place in the sequence, first 1:150 was acknowledged " +
            "with length 140, but it is at sequence index 150"), named(v, "replies").findings());
    }

    @Test
    void anEntryExecutedTwiceIsADoubleExecution()
    {
        final List<ReplicaLog> logs = fiveIdentical();
        for (int i = 0; i < 5; i++)
        {
            final long[] e = LongStream.concat(LongStream.range(0, APPENDS), LongStream.of(299)).map(seq -> Entries.of(1, (int)seq)).toArray();
            logs.set(i, log(i + 1, e));
        }
        final Verdict v = check(appends(), logs);
        onlyFailed(v, "double");
        assertEquals("PARTITION x: FAIL acked=300 lost=0 diverged_at=none double=5 stalled=0.05s errors=none failed=double", v.line("x"));
        assertTrue(named(v, "double").findings().contains("replica 1 executed 1 entries again, first 1:299 at its indexes 299 and 300"), v.report());
    }

    @Test
    void noAcknowledgementWithinTheBoundAfterTheHealFailsLiveness()
    {
        // Every append from the fault's start to 12 s after the heal fails; appends go on to 40 s.
        final List<Append> appends = new ArrayList<>();
        for (int seq = 0; seq < 400; seq++)
        {
            final long start = seq * S / 10;
            final boolean down = start >= FAULT && start + S / 20 < HEAL + 12 * S;
            appends.add(new Append(1, seq, start, start + S / 20, seq + 1, down ? NO_QUORUM : null));
        }
        final List<ReplicaLog> logs = new ArrayList<>();
        final long[] e = appends.stream().filter(Append::acked).mapToLong(Append::entry).toArray();
        for (int id = 1; id <= 5; id++)
        {
            logs.add(log(id, e));
        }
        // Each acknowledged append's reply is its place in the logs.
        final List<Append> replied = new ArrayList<>();
        int place = 0;
        for (final Append a : appends)
        {
            replied.add(a.acked() ? new Append(1, a.seq(), a.startNs(), a.endNs(), ++place, null) : a);
        }
        final Verdict v = check(replied, logs);
        onlyFailed(v, "liveness");
        assertEquals(12 * S + S / 20, v.stalledNs(), v.report());
        assertEquals("PARTITION x: FAIL acked=180 lost=0 diverged_at=none double=0 stalled=12.05s errors=TRANSIENT/0x4C570021/NO_QUORUM:220 " +
            "failed=liveness", v.line("x"));
    }

    @Test
    void noAcknowledgementAfterTheHealAtAllIsAStallForGood()
    {
        final List<Append> appends = new ArrayList<>();
        for (final Append a : appends())
        {
            appends.add(a.startNs() < FAULT ? a : new Append(1, a.seq(), a.startNs(), a.endNs(), 0, NO_QUORUM));
        }
        final List<ReplicaLog> logs = new ArrayList<>();
        for (int id = 1; id <= 5; id++)
        {
            logs.add(log(id, entries(0, 100)));
        }
        final Verdict v = check(appends, logs);
        onlyFailed(v, "liveness");
        assertEquals(-1, v.stalledNs());
        assertEquals("PARTITION x: FAIL acked=100 lost=0 diverged_at=none double=0 stalled=never errors=TRANSIENT/0x4C570021/NO_QUORUM:200 " +
            "failed=liveness", v.line("x"));
        assertTrue(named(v, "liveness").findings().contains("replica 3 executed none of the appends made after the heal (100 entries in all)"),
            v.report());
    }

    @Test
    void aCallInFlightAtTheHealIsNoRecovery()
    {
        // One call spans the heal and is acknowledged just after it; every append made after the heal fails.
        final List<Append> appends = new ArrayList<>();
        for (final Append a : appends())
        {
            if (a.startNs() < 19 * S)
            {
                appends.add(a);
            }
        }
        appends.add(new Append(1, 190, 19 * S, HEAL + S / 100, 191, null));
        appends.add(new Append(1, 191, HEAL + S / 100, HEAL + 10 * S, 0, NO_QUORUM));
        final List<ReplicaLog> logs = new ArrayList<>();
        for (int id = 1; id <= 5; id++)
        {
            logs.add(log(id, entries(0, 191)));
        }
        final Verdict v = check(appends, logs);
        onlyFailed(v, "liveness");
        assertEquals("PARTITION x: FAIL acked=191 lost=0 diverged_at=none double=0 stalled=never errors=TRANSIENT/0x4C570021/NO_QUORUM:1 " +
            "failed=liveness", v.line("x"));
        assertTrue(named(v, "liveness").findings().contains("client 1: first append after the heal made 0.01s after it, none acknowledged"),
            v.report());
    }

    @Test
    void aReplicaThatNeverDeliversAgainFailsLiveness()
    {
        final List<ReplicaLog> logs = fiveIdentical();
        logs.set(4, log(5, entries(0, 199)));
        final Verdict v = check(appends(), logs);
        assertEquals("PARTITION x: FAIL acked=300 lost=0 diverged_at=none double=0 stalled=0.05s errors=none failed=identical,liveness",
            v.line("x"));
        assertTrue(named(v, "liveness").findings().contains("replica 5 executed none of the appends made after the heal (199 entries in all)"),
            v.report());
    }

    @Test
    void onlyNoQuorumIsTheTargetBehaviourUnderAFault()
    {
        final List<Append> appends = appends();
        final List<Append> failed = new ArrayList<>(appends);
        // 1:300 and 1:301 fail with NO_QUORUM during the fault, 1:302 with a consolidation TIMEOUT.
        failed.add(new Append(1, 300, 12 * S, 22 * S, 0, NO_QUORUM));
        failed.add(new Append(1, 301, 13 * S, 19 * S, 0, NO_QUORUM));
        final Verdict allowed = check(failed, fiveIdentical());
        assertTrue(allowed.passed(), allowed.report());
        assertEquals(Map.of("TRANSIENT/0x4C570021/NO_QUORUM", 2), allowed.errors());

        failed.add(new Append(1, 302, 14 * S, 24 * S, 0, TIMEOUT));
        final Verdict v = check(failed, fiveIdentical());
        assertEquals("PARTITION oneway/atomic: FAIL acked=300 lost=0 diverged_at=none double=0 stalled=0.05s " +
            "errors=TRANSIENT/0x4C570021/NO_QUORUM:2,TIMEOUT/0x4C570020/TIMEOUT:1 failed=errors", v.line("oneway/atomic"));
        assertTrue(named(v, "errors").findings().get(0).equals("failed appends: 0 before the fault, 1 during it, 2 after the last heal"),
            v.report());
    }

    @Test
    void aRestartedReplicaHoldsAStretchOfTheSequence()
    {
        final List<ReplicaLog> logs = fiveIdentical();
        // Killed at 90, restarted, joined at 205: a snapshot taken before the kill, and its new log.
        logs.set(0, replicaLog(1, 2, true, entries(205, APPENDS)));
        logs.add(replicaLog(1, 1, false, entries(0, 85)));
        final Verdict v = check(appends(), logs);
        assertTrue(v.passed(), v.report());
        assertTrue(named(v, "identical").findings().contains(
            "replica 1 (incarnation 2) holds sequence indexes 205 to 299 (it started afresh without the group's state)"), v.report());
    }

    @Test
    void aRestartedReplicaThatOrdersAloneDivergesFromItsStart()
    {
        final List<ReplicaLog> logs = fiveIdentical();
        logs.set(0, replicaLog(1, 2, true, new long[] {Entries.of(2, 5000), Entries.of(2, 5001)}));
        final Verdict v = check(appends(), logs);
        assertEquals("PARTITION x: FAIL acked=300 lost=0 diverged_at=start double=0 stalled=0.05s errors=none failed=identical,liveness",
            v.line("x"));
        assertTrue(named(v, "identical").findings().contains("replica 1 (incarnation 2) begins with 2:5000, which replica 2 never executed"),
            v.report());
    }

    @Test
    void aLogBeforeAKillThatDepartsFromTheSequenceIsADivergence()
    {
        final List<ReplicaLog> logs = fiveIdentical();
        final long[] e = entries(0, 100);
        e[99] = Entries.of(2, 99);
        logs.add(replicaLog(1, 1, false, e));
        logs.set(0, replicaLog(1, 2, true, entries(150, APPENDS)));
        final Verdict v = check(appends(), logs);
        assertEquals("PARTITION x: FAIL acked=300 lost=0 diverged_at=99 double=0 stalled=0.05s errors=none failed=identical", v.line("x"));
        assertTrue(named(v, "identical").findings().contains(
            "replica 1 before its kill diverges at its index 99 (sequence index 99): it executed 2:99 where replica 2 executed 1:99"), v.report());
    }

    @Test
    void aFaultThatDroppedNothingProvesNothing()
    {
        final Verdict v = checker.check(new History(appends(), fiveIdentical(), Map.of(), FAULT, HEAL, false, "0 packets dropped"));
        onlyFailed(v, "fault");
        assertEquals(List.of("0 packets dropped"), named(v, "fault").findings());
        assertEquals("PARTITION x: FAIL acked=300 lost=0 diverged_at=none double=0 stalled=0.05s errors=none failed=fault", v.line("x"));
    }

    @Test
    void aReplicaThatCouldNotBeReadOrWhoseDigestDoesNotMatchItsLogFails()
    {
        final List<ReplicaLog> logs = fiveIdentical();
        logs.remove(4);
        final ReplicaLog l = logs.get(3);
        logs.set(3, new ReplicaLog(4, 1, true, true, l.entries(), "00" + l.digest().substring(2), l.executed(), ""));
        final Verdict v = checker.check(new History(appends(), logs, Map.of(5, "org.omg.CORBA.TIMEOUT"), FAULT, HEAL, true, "dropped"));
        assertEquals("PARTITION x: FAIL acked=300 lost=0 diverged_at=none double=0 stalled=0.05s errors=none " +
            "failed=identical,liveness,collected", v.line("x"), v.report());
        assertTrue(named(v, "collected").findings().contains("replica 5 could not be read: org.omg.CORBA.TIMEOUT"), v.report());
        assertTrue(named(v, "collected").findings().contains("replica 4: 300 entries read, 300 executed, its digest is not that of the entries read"),
            v.report());
    }

    @Test
    void failuresAreKindedByTypeMinorAndOutcome()
    {
        assertEquals("TRANSIENT/0x4C570021/NO_QUORUM", NO_QUORUM.kind());
        assertTrue(NO_QUORUM.isNoQuorum());
        assertFalse(TIMEOUT.isNoQuorum());
        assertTrue(NO_QUORUM.isTarget());
        assertTrue(new CallFailure("TRANSIENT", CallFailure.UNAVAILABLE_MINOR, "NO", "ROMIOP: group partition is unavailable").isTarget());
        assertFalse(TIMEOUT.isTarget());
        assertEquals("COMM_FAILURE/0x00000000/-", new CallFailure("COMM_FAILURE", 0, "NO", "connection closed").kind());
    }
}
