package org.lightwire.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ORB benchmark end to end at a tiny size (a few seconds): a server JVM, both transports,
 * every scenario, the summary and the three charts written. It asserts what was produced, never a
 * timing: figures come from {@code scripts/bench-orb.sh}.
 */
class OrbBenchmarkSmokeTest
{
    @Test
    @Timeout(60)
    void writesTheSummaryAndTheThreeFigures(@TempDir final Path dir) throws Exception
    {
        final Summary s = new OrbBenchmark(new OrbBenchmark.Plan(1, 200, 200, 0, 64 * 1024, 2, new int[] {1024, 16 * 1024}, dir)).run();

        assertEquals(1, s.rows("null_echo").size());
        assertEquals(2, s.rows("oneway").size());
        assertEquals(2, s.rows("exactly_once").size());
        assertEquals(2, s.rows("struct_sequence").size());
        for (final Summary.Row r : s.rows("oneway"))
        {
            // The server's POA queue waits (OrbBenchmark.serverProperties): no one-way is refused.
            assertEquals(1.0, r.median("lightwire_delivered_fraction"), r.scenario + " " + r.size);
            assertEquals(1.0, r.median("iiop_delivered_fraction"), r.scenario + " " + r.size);
        }
        for (final Summary.Row r : s.rows("exactly_once"))
        {
            assertTrue(r.median("lightwire_mbps") > 0 && r.median("iiop_mbps") > 0, r.scenario + " " + r.size);
        }
        final String json = Files.readString(dir.resolve("summary.json"));
        assertTrue(json.contains("\"scenario\":\"null_echo\"") && json.contains("\"lightwire_median_us\"") && json.contains("\"ratio\""), json);
        assertTrue(json.contains("\"scenario\":\"oneway\",\"size_bytes\":16384"), json);
        for (final String png : new String[] {"fig10-oneway.png", "fig11-exactly-once.png", "fig12-struct-sequence.png"})
        {
            assertTrue(Files.size(dir.resolve(png)) > 1000, png);
        }
    }
}
