package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ReportedLogTest
{
    private static final long A = HeldRequest.key(100, 1);
    private static final long B = HeldRequest.key(100, 2);
    private static final long C = HeldRequest.key(101, 1);

    @Test
    void theNewestEpochsEntryHoldsAnOrderNumberWhicheverReportCameFirst()
    {
        final ReportedLog newerFirst = new ReportedLog();
        newerFirst.entry(3, 4, 7, A);
        newerFirst.entry(2, 3, 7, B);
        assertEquals(A, newerFirst.keyAt(7));

        final ReportedLog olderFirst = new ReportedLog();
        olderFirst.entry(2, 3, 7, B);
        olderFirst.entry(3, 4, 7, A);
        assertEquals(A, olderFirst.keyAt(7));
        assertTrue(olderFirst.names(A, 6) && !olderFirst.names(B, 6) && !olderFirst.names(A, 7), "only entries past what was delivered count");

        // Epochs compare unsigned, as on the wire.
        final ReportedLog wrapped = new ReportedLog();
        wrapped.entry(2, 0x7FFF_FFFF, 7, B);
        wrapped.entry(3, 0x8000_0000, 7, A);
        assertEquals(A, wrapped.keyAt(7));
    }

    @Test
    void aReportIsWholeOnlyWithEveryEntryAnnouncedAndEveryAcceptedRequestHeld()
    {
        final ReportedLog log = new ReportedLog();
        log.entry(3, 1, 5, A);
        log.entry(3, 1, 7, C);
        final Set<Long> held = Set.of(A, C);
        assertFalse(log.complete(3, 3, 4, 5, held::contains), "three entries announced, two arrived");
        assertTrue(log.complete(3, 2, 4, 5, held::contains));
        assertFalse(log.complete(3, 2, 4, 6, held::contains), "accepted through 6: entry 6 lost");
        assertFalse(log.complete(3, 2, 4, 5, Set.of(C)::contains), "accepted 5, whose request was lost");
        assertTrue(log.complete(3, 2, 5, 5, Set.<Long>of()::contains), "nothing accepted past what it delivered");
        assertFalse(log.complete(4, 1, 0, 0, held::contains), "3's entries are not 4's");
    }

    @Test
    void aNewProposalForgetsWhoReportedNotWhatWasReported()
    {
        final ReportedLog log = new ReportedLog();
        log.entry(3, 1, 5, A);
        log.forgetReporters();
        assertFalse(log.complete(3, 1, 4, 5, Set.of(A)::contains), "3 reports again for the new proposal");
        assertEquals(A, log.keyAt(5));
        log.dropThrough(5);
        assertNull(log.keyAt(5));
    }
}
