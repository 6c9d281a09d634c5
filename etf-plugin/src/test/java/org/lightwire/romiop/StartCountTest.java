package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start count on disk: counted per group and member, locked while held, refused when unreadable. */
class StartCountTest
{
    @TempDir
    Path dir;

    @Test
    void eachStartCountsOneMoreAndTheCountIsOnDisk() throws IOException
    {
        for (long expected = 1; expected <= 3; expected++)
        {
            try (StartCount c = StartCount.next(dir, "bank", 2))
            {
                assertEquals(expected, c.number());
                assertEquals(expected + "\n", Files.readString(dir.resolve("bank-2.starts"), StandardCharsets.US_ASCII));
            }
        }
        assertFalse(Files.exists(dir.resolve("bank-2.starts.tmp")), "the temporary file was renamed");
    }

    @Test
    void groupsAndMembersCountApart() throws IOException
    {
        try (StartCount a = StartCount.next(dir, "bank", 1); StartCount b = StartCount.next(dir, "bank", 2);
            StartCount c = StartCount.next(dir, "shop", 1))
        {
            assertEquals(1, a.number());
            assertEquals(1, b.number());
            assertEquals(1, c.number());
        }
        try (StartCount again = StartCount.next(dir, "bank", 1))
        {
            assertEquals(2, again.number());
        }
    }

    @Test
    void aSecondProcessWithTheSameIdIsRefusedWhileTheFirstRuns() throws Exception
    {
        try (StartCount held = StartCount.next(dir, "bank", 3))
        {
            // Another JVM: a lock held by this one shows there as held (within one JVM, Java throws instead).
            final Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), StartCountProbe.class.getName(), dir.toString(), "bank", "3")
                .redirectErrorStream(true).start();
            final String out = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(1, other.waitFor(), out);
            assertTrue(out.contains("another process runs member 3 of group bank with jacorb.lightwire.romiop.start_count_dir"), out);
            assertTrue(out.contains("two replicas may not share an id"), out);
            assertEquals(1, held.number());
        }
        try (StartCount held = StartCount.next(dir, "bank", 3))
        {
            final IOException e = assertThrows(IOException.class, () -> StartCount.next(dir, "bank", 3), "another ORB of this JVM");
            assertTrue(e.getMessage().contains("two replicas may not share an id"), e.getMessage());
            assertEquals(2, held.number());
        }
        assertEquals("2\n", Files.readString(dir.resolve("bank-3.starts"), StandardCharsets.US_ASCII), "the refused starts counted nothing");
        try (StartCount next = StartCount.next(dir, "bank", 3))
        {
            assertEquals(3, next.number());
        }
    }

    @Test
    void aFileThatHoldsNoCountIsRefusedWithItsName() throws IOException
    {
        Files.writeString(dir.resolve("bank-4.starts"), "garbage\n");
        final IOException e = assertThrows(IOException.class, () -> StartCount.next(dir, "bank", 4));
        assertTrue(e.getMessage().contains("bank-4.starts holds \"garbage\", not a start count"), e.getMessage());
        Files.writeString(dir.resolve("bank-5.starts"), "0\n");
        assertThrows(IOException.class, () -> StartCount.next(dir, "bank", 5));
        assertEquals("garbage\n", Files.readString(dir.resolve("bank-4.starts")), "left as it was");
    }

    @Test
    void aMissingDirectoryIsRefusedNotCreated() throws IOException
    {
        final Path missing = dir.resolve("lost-volume");
        final IOException e = assertThrows(IOException.class, () -> StartCount.next(missing, "bank", 1));
        assertEquals("jacorb.lightwire.romiop.start_count_dir = " + missing + " is not a directory: create it on a local disk kept " +
            "for the replica's whole life", e.getMessage());
        assertFalse(Files.exists(missing), "not created: a lost directory would make a restart pass for a first start");
        final Path file = Files.writeString(dir.resolve("not-a-directory"), "x");
        assertThrows(IOException.class, () -> StartCount.next(file, "bank", 1));
    }

    /** A start that fails to open its lock file (here a directory in its place) leaves the id free in this JVM. */
    @Test
    void aFailedOpenLeavesTheIdFree() throws IOException
    {
        final Path obstacle = Files.createDirectory(dir.resolve("bank-1.lock"));
        assertThrows(IOException.class, () -> StartCount.next(dir, "bank", 1));
        Files.delete(obstacle);
        try (StartCount c = StartCount.next(dir, "bank", 1))
        {
            assertEquals(1, c.number());
        }
    }

    /**
     * A second ORB of the process refused for the same member must leave the first one's lock
     * held: closing a channel of its own on the lock file would drop it (POSIX locks belong to the
     * process), and another process could then start with the same id.
     */
    @Test
    void aSecondOrbOfTheProcessRefusedLeavesTheFirstOnesLock() throws Exception
    {
        try (StartCount held = StartCount.next(dir, "bank", 3))
        {
            final IOException e = assertThrows(IOException.class, () -> StartCount.next(dir, "bank", 3));
            assertTrue(e.getMessage().startsWith("another ORB of this process runs member 3 of group bank"), e.getMessage());
            final Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), StartCountProbe.class.getName(), dir.toString(), "bank", "3")
                .redirectErrorStream(true).start();
            final String out = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(1, other.waitFor(), "another process must be refused while the first replica runs: " + out);
            assertEquals(1, held.number());
        }
        try (StartCount again = StartCount.next(dir, "bank", 3))
        {
            assertEquals(2, again.number(), "released on close, and the refused starts counted nothing");
        }
    }

    @Test
    void aReplicaWithoutACountIsToldWhatItCostsAndTheSetting()
    {
        final String text = StartCount.unknownWarning("bank", 2);
        assertTrue(text.startsWith("ROMIOP group bank, member 2: no jacorb.lightwire.romiop.start_count_dir, so this replica cannot tell its " +
            "first start from a restart"), text);
        assertTrue(text.endsWith("set it to a local directory kept for the replica's life"), text);
    }

    /** A second process that tries to count a start of {@code args[2]} of group {@code args[1]} in {@code args[0]}: exit 0 counted, 1 refused. */
    static final class StartCountProbe
    {
        public static void main(final String[] args)
        {
            try (StartCount c = StartCount.next(Path.of(args[0]), args[1], Integer.parseInt(args[2])))
            {
                System.out.println("counted " + c.number());
                System.exit(0);
            }
            catch (final IOException e)
            {
                System.out.println(e.getMessage());
                System.exit(1);
            }
        }
    }
}
