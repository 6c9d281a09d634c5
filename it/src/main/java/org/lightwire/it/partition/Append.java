package org.lightwire.it.partition;

/**
 * One append a workload client made: the entry it appended ({@code client}, {@code seq}; never
 * appended twice), when the call started and ended ({@code System.nanoTime()} of the test JVM),
 * and how it ended: acknowledged with the log's length, or failed.
 *
 * @param failure null when acknowledged.
 */
public record Append(int client, int seq, long startNs, long endNs, long length, CallFailure failure)
{
    /** @return true when the group acknowledged the append (a consolidated reply came). */
    public boolean acked()
    {
        return failure == null;
    }

    /** @return the entry as the execution logs name it. */
    public long entry()
    {
        return Entries.of(client, seq);
    }
}
