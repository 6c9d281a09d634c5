package org.lightwire.romiop;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A replica's start count, kept on disk ({@code jacorb.lightwire.romiop.start_count_dir}): which
 * start of member {@code member_id} of group {@code group} this process is, 1 the first. The
 * count is written (and synced) before the replica sends anything, so a process that says "first
 * start" never ran before with that directory; the replica holds a lock on the directory's entry
 * for its whole life, so a second replica with one id and one directory fails to start, in
 * another process or in the same one. The directory must exist (it is not created: a lost one
 * would make a restart pass for a first start). Files: {@code GROUP-ID.starts} (the count, in
 * decimal) and {@code GROUP-ID.lock}.
 */
final class StartCount implements AutoCloseable
{
    /** The lock files this JVM holds (real paths): a second ORB of the process must not open one. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final long number;
    private final Path lockFile;
    private final FileChannel lockChannel;
    private final FileLock lock;

    private StartCount(final long number, final Path lockFile, final FileChannel lockChannel, final FileLock lock)
    {
        this.number = number;
        this.lockFile = lockFile;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /**
     * Counts this start: reads the count (none: 0), writes it plus one durably, and keeps the lock.
     *
     * @throws IOException naming the file and the cause: the directory cannot be written, another
     *     process holds the lock, or the file holds no count.
     */
    static StartCount next(final Path dir, final String group, final int memberId) throws IOException
    {
        if (!Files.isDirectory(dir))
        {
            // Created here, a lost directory (a volume not mounted, a path mistyped) would make a
            // restart pass for a first start.
            throw new IOException(RomiopConfig.START_COUNT_DIR + " = " + dir + " is not a directory: create it on a local disk " +
                "kept for the replica's whole life");
        }
        final String name = group + "-" + memberId;
        final Path lockFile = dir.toRealPath().resolve(name + ".lock");
        if (!HELD.add(lockFile))
        {
            // Another ORB of this JVM. Opening and closing a second channel on the file would drop
            // the first one's lock (POSIX locks belong to the process): it is not touched.
            throw new IOException("another ORB of this process runs member " + memberId + " of group " + group + " with " +
                RomiopConfig.START_COUNT_DIR + " = " + dir + ": two replicas may not share an id");
        }
        FileChannel channel = null;
        boolean held = false;
        try
        {
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            final FileLock lock = channel.tryLock();
            if (lock == null)
            {
                throw new IOException("another process runs member " + memberId + " of group " + group + " with " +
                    RomiopConfig.START_COUNT_DIR + " = " + dir + " (it holds " + lockFile + "): two replicas may not share an id");
            }
            final Path countFile = lockFile.resolveSibling(name + ".starts");
            final long next = read(countFile) + 1;
            write(countFile, next);
            final StartCount count = new StartCount(next, lockFile, channel, lock);
            held = true;
            return count;
        }
        finally
        {
            if (!held)
            {
                // Opened or not, the id is free again in this JVM.
                HELD.remove(lockFile);
                if (channel != null)
                {
                    channel.close();
                }
            }
        }
    }

    private static long read(final Path countFile) throws IOException
    {
        if (!Files.exists(countFile))
        {
            return 0;
        }
        final String text = Files.readString(countFile, StandardCharsets.US_ASCII).trim();
        try
        {
            final long n = Long.parseLong(text);
            if (n >= 1 && n < Long.MAX_VALUE)
            {
                return n;
            }
        }
        catch (final NumberFormatException e)
        {
            // Reported below.
        }
        throw new IOException(countFile + " holds \"" + (text.length() > 40 ? text.substring(0, 40) + "..." : text) +
            "\", not a start count; remove it only when the whole group starts afresh (a replica that takes a restart for " +
            "its first start may count a forgotten acceptance as none)");
    }

    /** Writes a temporary file, syncs it, renames it over the count and syncs the directory. */
    private static void write(final Path countFile, final long n) throws IOException
    {
        final Path temporary = countFile.resolveSibling(countFile.getFileName() + ".tmp");
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE))
        {
            out.write(java.nio.ByteBuffer.wrap((n + "\n").getBytes(StandardCharsets.US_ASCII)));
            out.force(true);
        }
        try
        {
            Files.move(temporary, countFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final AtomicMoveNotSupportedException e)
        {
            throw new IOException(countFile.getParent() + " cannot replace a file atomically; give " + RomiopConfig.START_COUNT_DIR +
                " a directory on a local file system", e);
        }
        try (FileChannel directory = FileChannel.open(countFile.getParent(), StandardOpenOption.READ))
        {
            directory.force(true);
        }
    }

    /** @return what a replica without a start count logs at its start: what it costs, and the setting. */
    static String unknownWarning(final String group, final int memberId)
    {
        return "ROMIOP group " + group + ", member " + memberId + ": no " + RomiopConfig.START_COUNT_DIR + ", so this replica " +
            "cannot tell its first start from a restart: a group whose founding leader fails before the first order may wait " +
            "for good, and restarts of several members can break the order (docs/romiop.md, \"Failure model for restarts\"); " +
            "set it to a local directory kept for the replica's life";
    }

    /** @return which start this is: 1 the first. */
    long number()
    {
        return number;
    }

    /** Releases the lock (the count stays). */
    @Override
    public void close() throws IOException
    {
        try
        {
            lock.release();
        }
        finally
        {
            lockChannel.close();
            HELD.remove(lockFile);
        }
    }
}
