package org.lightwire.transport.link.udp;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LongObjectTableTest
{
    @Test
    void capacityIsAtLeastTwiceTheEntries()
    {
        assertEquals(8192, new LongObjectTable<String>(4096).capacity());
        assertEquals(8, new LongObjectTable<String>(3).capacity());
        assertEquals(4, new LongObjectTable<String>(1).capacity());
    }

    @Test
    void keyZeroIsReserved()
    {
        final LongObjectTable<String> table = new LongObjectTable<>(4);
        assertThrows(IllegalArgumentException.class, () -> table.put(0, "x"));
        assertNull(table.get(0));
        assertNull(table.remove(0));
    }

    @Test
    void behavesLikeAHashMapUnderRandomOperations()
    {
        final long seed = new Random().nextLong();
        final Random random = new Random(seed);
        final LongObjectTable<Long> table = new LongObjectTable<>(64);
        final Map<Long, Long> model = new HashMap<>();
        // Few distinct keys with small values so that probe chains collide and wrap.
        for (int op = 0; op < 200_000; op++)
        {
            final long key = 1 + random.nextInt(100);
            if (random.nextBoolean() && model.size() < 64)
            {
                table.put(key, key * 3);
                model.put(key, key * 3);
            }
            else
            {
                assertEquals(model.remove(key), table.remove(key), "seed " + seed);
            }
            assertEquals(model.size(), table.size(), "seed " + seed);
            final long probe = 1 + random.nextInt(100);
            assertEquals(model.get(probe), table.get(probe), "seed " + seed);
        }
        final List<Long> values = new ArrayList<>();
        table.forEach(values::add);
        assertEquals(model.size(), values.size(), "seed " + seed);
        table.clear();
        assertEquals(0, table.size());
    }
}
