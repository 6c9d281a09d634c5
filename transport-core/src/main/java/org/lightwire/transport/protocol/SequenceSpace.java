package org.lightwire.transport.protocol;

/**
 * The "standard sequence space operations" the paper (section 3) applies to the 8-bit call and
 * packet sequence numbers: values are compared modulo 256, so that 0 follows 255.
 *
 * <p>A value is "after" another when it is 1 to 127 steps ahead of it and "before" it when it is
 * 1 to 128 steps behind; this is why no more than 127 packets of one message may be
 * unacknowledged at once (see {@code EngineConfig#bufferPoolPackets}).
 */
public final class SequenceSpace
{
    /** Number of distinct sequence numbers. */
    public static final int SIZE = 256;
    /** Largest forward distance that still counts as "ahead". */
    public static final int MAX_AHEAD = 127;

    private SequenceSpace()
    {
    }

    /** @return {@code seq + n} in sequence space. */
    public static int add(final int seq, final int n)
    {
        return (seq + n) & 0xFF;
    }

    /** @return {@code seq + 1} in sequence space. */
    public static int next(final int seq)
    {
        return (seq + 1) & 0xFF;
    }

    /**
     * @return the signed distance from {@code from} to {@code to}: 0 when equal, 1 to 127 when
     * {@code to} is ahead, -128 to -1 when it is behind.
     */
    public static int distance(final int from, final int to)
    {
        return (byte)(to - from);
    }

    /** @return true when {@code a} is strictly ahead of {@code b}. */
    public static boolean isAfter(final int a, final int b)
    {
        return distance(b, a) > 0;
    }

    /** @return true when {@code a} is strictly behind {@code b}. */
    public static boolean isBefore(final int a, final int b)
    {
        return distance(b, a) < 0;
    }
}
