package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The estimator's arithmetic, exact to the nanosecond: RFC 6298's, and its fresh start after an outlier. */
class RttEstimatorTest
{
    private static final long US = 1_000L;

    private static List<Long> state(final RttEstimator r)
    {
        return List.of(r.srttNs(), r.rttvarNs(), r.rtoNs());
    }

    @Test
    void followsRfc6298WithinTheBounds()
    {
        final RttEstimator r = new RttEstimator(100 * US, 1_000_000 * US, 200_000 * US);
        assertEquals(200_000 * US, r.rtoNs(), "no sample yet: the initial timeout");
        r.onSample(800 * US);
        assertEquals(List.of(800 * US, 400 * US, 2_400 * US), state(r), "first sample: srtt R, rttvar R/2, rto R + 4 R/2");
        r.onSample(400 * US);
        // rttvar = 3/4 400 + 1/4 |800 - 400| = 400; srtt = 7/8 800 + 1/8 400 = 750.
        assertEquals(List.of(750 * US, 400 * US, 2_350 * US), state(r));
        r.backOff();
        assertEquals(4_700 * US, r.rtoNs());
        r.resetBackoff();
        assertEquals(2_350 * US, r.rtoNs());
    }

    /**
     * A cold JVM's first probe took 4.3 ms on a path whose round trip is 60-300 us (measured: the
     * loss sweep's client, one probe a second): RFC 6298 held the timeout at 13 ms falling to 3.4 ms
     * over the next 18 samples, and each lost packet in that time cost as much. A sample under a
     * quarter of srtt starts afresh, when it is a probe's (no other answer can have caused it).
     */
    @Test
    void aProbesSampleUnderAQuarterOfTheSmoothedRoundTripStartsAfresh()
    {
        final RttEstimator r = new RttEstimator(1_000 * US, 1_000_000 * US, 200_000 * US);
        r.onSample(4_342 * US, true);
        assertEquals(13_026 * US, r.rtoNs());
        r.onSample(1_086 * US, true);
        assertEquals(List.of(3_935_000L, 2_442_250L, 13_704_000L), state(r), "1,086 us is not under a quarter of 4,342 us");
        r.onSample(173 * US, true);
        assertEquals(List.of(173 * US, 86_500L, 1_000 * US), state(r), "fresh: srtt 173 us, rttvar 86.5 us, rto at its 1 ms floor");
        assertEquals(3, r.samples());
    }

    /** A reclaim's answer is matched by its call alone (it may be a duplicate of an earlier one): RFC 6298's rules only. */
    @Test
    void anAmbiguousSampleNeverStartsAfresh()
    {
        final RttEstimator r = new RttEstimator(1_000 * US, 1_000_000 * US, 200_000 * US);
        r.onSample(4_000 * US, false);
        r.onSample(5 * US, false);
        // srtt = 7/8 4,000 + 1/8 5 us (>> 3 of the ns), rttvar = 3/4 2,000 + 1/4 3,995 us.
        assertEquals(List.of(3_500_625L, 2_498_750L, 3_500_625L + 4 * 2_498_750L), state(r));
    }
}
