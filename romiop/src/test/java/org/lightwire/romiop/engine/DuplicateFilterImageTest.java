package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The duplicate filter's image, which a state transfer carries: what one member finished, another takes in. */
class DuplicateFilterImageTest
{
    private static ByteBuffer image(final DuplicateFilter f)
    {
        final ByteBuffer b = ByteBuffer.allocate(f.imageBytes());
        f.writeImage(b);
        assertEquals(0, b.remaining(), "imageBytes is exact");
        return b.flip();
    }

    @Test
    void everyRequestFinishedThereIsFinishedHereWatermarksIncluded()
    {
        final DuplicateFilter there = new DuplicateFilter(4, 16, new GroupCounters());
        for (int id = 1; id <= 7; id++)
        {
            there.finish(100, id * 10);
        }
        there.finish(200, 5);
        // Window 4: ids 10..30 are below client 100's watermark (30), 40..70 held above it.
        final DuplicateFilter here = new DuplicateFilter(4, 16, new GroupCounters());
        here.finish(200, 9);
        here.mergeImage(image(there));
        for (final int id : new int[] {1, 10, 25, 30, 40, 70})
        {
            assertTrue(here.isFinished(100, id), "client 100, id " + id);
        }
        assertFalse(here.isFinished(100, 45));
        assertFalse(here.isFinished(100, 71));
        assertTrue(here.isFinished(200, 5));
        assertTrue(here.isFinished(200, 9), "what it finished itself stays finished");
        assertFalse(here.isFinished(300, 1));
        assertEquals(6, here.size(), "4 ids of client 100 above its watermark, 2 of client 200");
    }

    @Test
    void aMalformedImageIsRefusedWithItsReason()
    {
        final DuplicateFilter f = new DuplicateFilter(4, 16, new GroupCounters());
        assertEquals("a duplicate filter image of 5 clients in 4 bytes",
            assertThrows(IllegalArgumentException.class, () -> f.mergeImage(ByteBuffer.allocate(8).putInt(5).putInt(0).flip())).getMessage());
        assertEquals("client 7: watermark -1, 0 ids in 0 bytes", assertThrows(IllegalArgumentException.class,
            () -> f.mergeImage(ByteBuffer.allocate(20).putInt(1).putInt(7).putLong(-1).putInt(0).flip())).getMessage());
        assertEquals("a duplicate filter image cut short", assertThrows(IllegalArgumentException.class,
            () -> f.mergeImage(ByteBuffer.allocate(36).putInt(2).putInt(7).putLong(0).putInt(4).putInt(1).putInt(2).putInt(3).putInt(4).flip()))
            .getMessage(), "two clients announced, the first one's ids take the second one's bytes");
    }
}
