package org.lightwire.romiop.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;

/** Test helper: when an engine resends something nobody ACKs. */
final class Backoff
{
    /** What {@link #resendTimesMs} gives with a 20 ms retransmission timeout over 3 s: 20 ms, doubling up to 640 ms. */
    static final List<Long> DOUBLING_FROM_20_MS = List.of(20L, 60L, 140L, 300L, 620L, 1260L, 1900L, 2540L);

    private Backoff()
    {
    }

    /**
     * Fires {@code onTimer} every millisecond from 0 to 3 s.
     *
     * @param sent packets the engine has sent so far.
     * @return the times, in ms, at which it sent something.
     */
    static List<Long> resendTimesMs(final LongConsumer onTimer, final IntSupplier sent)
    {
        final long ms = 1_000_000L;
        final List<Long> at = new ArrayList<>();
        for (long now = 0; now <= 3000 * ms; now += ms)
        {
            final int before = sent.getAsInt();
            onTimer.accept(now);
            if (sent.getAsInt() > before)
            {
                at.add(now / ms);
            }
        }
        return at;
    }
}
