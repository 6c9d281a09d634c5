package org.lightwire.transport.link.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.transport.link.memory.PacketKind.CONTROL;
import static org.lightwire.transport.link.memory.PacketKind.DATA;

import org.junit.jupiter.api.Test;

class FaultsTest
{
    @Test
    void noneHasNoFaultOfAnyKind()
    {
        for (final PacketKind kind : PacketKind.values())
        {
            assertEquals(0.0, Faults.NONE.dropRate(kind));
            assertEquals(0.0, Faults.NONE.duplicateRate(kind));
            assertEquals(0.0, Faults.NONE.reorderRate(kind));
            assertEquals(0L, Faults.NONE.minDelayNs(kind));
            assertEquals(0L, Faults.NONE.maxDelayNs(kind));
        }
        assertEquals(0L, Faults.NONE.maxDelayNs());
        assertTrue(Faults.NONE.preservesOrder());
        assertEquals(Faults.NONE, Faults.builder().build());
    }

    @Test
    void perKindSettersChangeOnlyTheirKind()
    {
        final Faults faults = Faults.builder()
            .dropRate(CONTROL, 0.25)
            .duplicateRate(DATA, 0.5)
            .reorderRate(CONTROL, 0.75)
            .delayNs(DATA, 10, 20)
            .build();

        assertEquals(0.0, faults.dropRate(DATA));
        assertEquals(0.25, faults.dropRate(CONTROL));
        assertEquals(0.5, faults.duplicateRate(DATA));
        assertEquals(0.0, faults.duplicateRate(CONTROL));
        assertEquals(0.0, faults.reorderRate(DATA));
        assertEquals(0.75, faults.reorderRate(CONTROL));
        assertEquals(10L, faults.minDelayNs(DATA));
        assertEquals(20L, faults.maxDelayNs(DATA));
        assertEquals(0L, faults.minDelayNs(CONTROL));
        assertEquals(0L, faults.maxDelayNs(CONTROL));
        assertEquals(20L, faults.maxDelayNs());
    }

    @Test
    void settersWithoutKindSetBothKinds()
    {
        final Faults faults = Faults.builder().dropRate(0.1).duplicateRate(0.2).reorderRate(0.3).delayNs(5, 7).build();
        for (final PacketKind kind : PacketKind.values())
        {
            assertEquals(0.1, faults.dropRate(kind));
            assertEquals(0.2, faults.duplicateRate(kind));
            assertEquals(0.3, faults.reorderRate(kind));
            assertEquals(5L, faults.minDelayNs(kind));
            assertEquals(7L, faults.maxDelayNs(kind));
        }
    }

    @Test
    void toBuilderCopiesAndBuiltValuesAreImmutable()
    {
        final Faults original = Faults.builder().dropRate(DATA, 0.5).delayNs(CONTROL, 1, 2).build();
        final Faults.Builder builder = original.toBuilder();
        assertEquals(original, builder.build());
        assertEquals(original.hashCode(), builder.build().hashCode());

        final Faults changed = builder.dropRate(DATA, 0.75).build();
        assertEquals(0.5, original.dropRate(DATA));
        assertEquals(0.75, changed.dropRate(DATA));
        assertNotEquals(original, changed);
        assertEquals(1L, changed.minDelayNs(CONTROL));
    }

    @Test
    void toStringShowsEveryField()
    {
        final Faults faults = Faults.builder().dropRate(DATA, 0.5).duplicateRate(CONTROL, 0.25).reorderRate(DATA, 1.0)
            .delayNs(CONTROL, 3, 9).build();
        assertEquals(
            "Faults{DATA{drop=0.5, duplicate=0.0, reorder=1.0, delayNs=0..0}, " +
            "CONTROL{drop=0.0, duplicate=0.25, reorder=0.0, delayNs=3..9}}",
            faults.toString());
    }

    @Test
    void ratesAtTheEndsOfTheRangeAreAccepted()
    {
        final Faults faults = Faults.builder().dropRate(0.0).duplicateRate(1.0).reorderRate(1.0)
            .delayNs(0, Faults.MAX_DELAY_NS).build();
        assertEquals(1.0, faults.duplicateRate(DATA));
        assertEquals(Faults.MAX_DELAY_NS, faults.maxDelayNs(CONTROL));
    }

    @Test
    void rateOutsideZeroToOneIsRejectedNamingFieldKindAndRange()
    {
        assertMessage("dropRate for DATA packets is -0.1; allowed range is [0.0, 1.0]",
            () -> Faults.builder().dropRate(DATA, -0.1));
        assertMessage("dropRate for DATA packets is 1.5; allowed range is [0.0, 1.0]",
            () -> Faults.builder().dropRate(1.5));
        assertMessage("duplicateRate for CONTROL packets is 2.0; allowed range is [0.0, 1.0]",
            () -> Faults.builder().duplicateRate(CONTROL, 2.0));
        assertMessage("reorderRate for DATA packets is NaN; allowed range is [0.0, 1.0]",
            () -> Faults.builder().reorderRate(Double.NaN));
        assertMessage("reorderRate for CONTROL packets is -Infinity; allowed range is [0.0, 1.0]",
            () -> Faults.builder().reorderRate(CONTROL, Double.NEGATIVE_INFINITY));
    }

    @Test
    void badDelayRangeIsRejectedNamingFieldAndRange()
    {
        assertMessage("minDelayNs for DATA packets is -1; allowed range is [0, 3600000000000]",
            () -> Faults.builder().delayNs(-1, 5));
        assertMessage("maxDelayNs for CONTROL packets is -2; allowed range is [0, 3600000000000]",
            () -> Faults.builder().delayNs(CONTROL, 0, -2));
        assertMessage("maxDelayNs for DATA packets is 3600000000001; allowed range is [0, 3600000000000]",
            () -> Faults.builder().delayNs(DATA, 0, Faults.MAX_DELAY_NS + 1));
        assertMessage(
            "minDelayNs for CONTROL packets (5) exceeds maxDelayNs (3); allowed: 0 <= minDelayNs <= maxDelayNs <= 3600000000000",
            () -> Faults.builder().delayNs(CONTROL, 5, 3));
    }

    @Test
    void rejectedValueLeavesTheBuilderUnchanged()
    {
        final Faults.Builder builder = Faults.builder().delayNs(DATA, 1, 2);
        assertThrows(IllegalArgumentException.class, () -> builder.delayNs(DATA, 9, 3));
        assertEquals(1L, builder.build().minDelayNs(DATA));
        assertEquals(2L, builder.build().maxDelayNs(DATA));
    }

    @Test
    void preservesOrderOnlyWithoutReorderAndWithOneDelayForEveryPacket()
    {
        assertTrue(Faults.builder().delayNs(7, 7).dropRate(0.5).duplicateRate(0.5).build().preservesOrder());
        assertFalse(Faults.builder().reorderRate(CONTROL, 0.01).build().preservesOrder());
        assertFalse(Faults.builder().delayNs(DATA, 0, 1).build().preservesOrder());
        // Each kind has a fixed delay, but control would overtake data.
        assertFalse(Faults.builder().delayNs(DATA, 5, 5).delayNs(CONTROL, 1, 1).build().preservesOrder());
    }

    private static void assertMessage(final String expected, final Runnable call)
    {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, call::run).getMessage());
    }
}
