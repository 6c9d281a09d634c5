package org.lightwire.it.partition;

/**
 * An execution log's entry, {@code (client, seq)} of one {@code replicated_log.append}, packed in
 * a long: the client in the high half, the seq in the low half.
 */
public final class Entries
{
    private Entries()
    {
    }

    public static long of(final int client, final int seq)
    {
        return (long)client << 32 | (seq & 0xFFFF_FFFFL);
    }

    public static int client(final long entry)
    {
        return (int)(entry >>> 32);
    }

    public static int seq(final long entry)
    {
        return (int)entry;
    }

    /** @return {@code client:seq}, as the servant's log line has it. */
    public static String text(final long entry)
    {
        return client(entry) + ":" + seq(entry);
    }
}
