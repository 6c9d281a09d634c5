package org.lightwire.transport.channel;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The deterministic call mix shared by the two processes of {@link UdpTwoProcessTest}: sizes from
 * 8 bytes to 256 KiB (most under 1 KiB, a few percent large), exactly-once and one-way mixed.
 * Every request starts with its call index, so the server can check it whole.
 */
final class Workload
{
    static final long SEED = 0x5EED_2026L;

    private Workload()
    {
    }

    static boolean oneWay(final int index)
    {
        return new SplittableRandom(SEED ^ index).nextInt(10) < 3;
    }

    static byte[] request(final int index)
    {
        final byte[] bytes = bytes(index, 0x1111);
        ByteBuffer.wrap(bytes).putInt(0, index);
        return bytes;
    }

    static byte[] reply(final int index)
    {
        return bytes(index, 0x2222);
    }

    static boolean requestMatches(final int index, final ByteBuffer request)
    {
        final byte[] got = new byte[request.remaining()];
        request.duplicate().get(got);
        return Arrays.equals(got, request(index));
    }

    private static byte[] bytes(final int index, final long salt)
    {
        final SplittableRandom r = new SplittableRandom(SEED * 31 + index * 7919L + salt);
        final int kind = r.nextInt(100);
        final int length = kind < 2 ? r.nextInt(16 * 1024, 256 * 1024 + 1) : kind < 10 ? r.nextInt(1024, 16 * 1024) : r.nextInt(8, 1024);
        final byte[] bytes = new byte[length];
        r.nextBytes(bytes);
        return bytes;
    }
}
