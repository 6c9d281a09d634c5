package org.lightwire.it.partition;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What one replica process executed, read over its IIOP probe: its entries in execution order,
 * and the digest and count the replica reported.
 *
 * @param member      the member id.
 * @param incarnation 1 for the process the group was founded with, 2 for its first restart, ...
 * @param fromStart   true when this process ran from the group's start, or took the group's state
 *                    when it joined: its log is a prefix of the group's sequence (a restarted one
 *                    without a state holds a stretch of it).
 * @param last        true for a read of a live replica after the run; false for one taken
 *                    before a kill (a prefix of what the process executed).
 * @param entries     {@link Entries} in execution order.
 * @param digest      the replica's own digest of its log, or "" when it gave none.
 * @param executed    the replica's count of executed calls.
 * @param counters    the plug-in's counters, for the report.
 */
public record ReplicaLog(int member, int incarnation, boolean fromStart, boolean last, long[] entries, String digest, long executed,
    String counters)
{
    /** @return e.g. "replica 3" or "replica 1 (incarnation 2)", with "before its kill" for a snapshot. */
    public String name()
    {
        return "replica " + member + (incarnation > 1 ? " (incarnation " + incarnation + ")" : "") + (last ? "" : " before its kill");
    }

    /** @return the SHA-256 of the entries as the servant digests them ({@code client:seq\n} each), in hex. */
    public String computedDigest()
    {
        try
        {
            final MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (final long e : entries)
            {
                d.update((Entries.text(e) + "\n").getBytes(StandardCharsets.US_ASCII));
            }
            return HexFormat.of().formatHex(d.digest());
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
