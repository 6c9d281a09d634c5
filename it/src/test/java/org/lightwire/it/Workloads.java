package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Random;

import org.lightwire.it.idl.lwtest.TtcpStats;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.servant.TtcpPattern;

/** The workloads the Lightwire integration tests share: the same strings and buffers as IIOP's baseline. */
final class Workloads
{
    static final int ONE_MIB = 1 << 20;
    static final int KIB = 1024;
    /** Bound on waiting for oneway requests to be dispatched; not a performance claim. */
    static final long ONEWAY_DRAIN_LIMIT_MS = 30_000;

    private Workloads()
    {
    }

    /**
     * The i-th string of the echo workload: fixed edge cases first (empty, one char, 1 MiB,
     * Latin-1, CJK, outside the BMP), then pseudo-random strings, every 100th of them long.
     */
    static String variedString(final int i, final Random random)
    {
        switch (i)
        {
            case 0:
                return "";
            case 1:
                return "x";
            case 2:
                return "a".repeat(ONE_MIB);
            case 3:
                return "Grüße aus Köln, ça va? ½ ÿ";
            case 4:
                return "日本語のテキスト、中文文本";
            case 5:
                return "outside the BMP: \uD83D\uDE00 \uD834\uDD1E";
            case 6:
                return randomString(ONE_MIB / 3, random);
            default:
                final int length = i % 100 == 50 ? 16_384 + random.nextInt(49_152) : random.nextInt(257);
                return randomString(length, random);
        }
    }

    static String randomString(final int length, final Random random)
    {
        final StringBuilder sb = new StringBuilder(length);
        for (int k = 0; k < length; k++)
        {
            switch (random.nextInt(8))
            {
                case 0:
                    sb.append((char)(0xA0 + random.nextInt(0x60)));
                    break;
                case 1:
                    sb.append((char)(0x391 + random.nextInt(0x19)));
                    break;
                case 2:
                    sb.append((char)(0x4E00 + random.nextInt(0x500)));
                    break;
                default:
                    sb.append((char)(0x20 + random.nextInt(0x5F)));
                    break;
            }
        }
        return sb.toString();
    }

    /** Result of sending the ttcp workload. */
    static final class TtcpRun
    {
        long calls;
        long bytes;
        long checksum;
    }

    /**
     * Sends 1 MiB in buffers of each size from 1 KiB to 1 MiB (powers of two): 11 MiB in 2047
     * calls, every buffer self-describing (sequence number and pattern).
     */
    static TtcpRun sendTtcp(final ttcp ttcp, final boolean exactlyOnce)
    {
        final TtcpRun run = new TtcpRun();
        int seq = 0;
        for (int size = KIB; size <= ONE_MIB; size *= 2)
        {
            for (int n = 0; n < ONE_MIB / size; n++)
            {
                final char[] buffer = TtcpPattern.create(seq++, size);
                run.checksum += TtcpPattern.crc32(buffer);
                run.calls++;
                run.bytes += size;
                if (exactlyOnce)
                {
                    ttcp.receive_exactly_once(buffer);
                }
                else
                {
                    ttcp.receive_at_most_once(buffer);
                }
            }
        }
        return run;
    }

    /**
     * Waits until the server counted {@code calls} buffers or the count stops growing for a second.
     * While one-ways fill the server's POA queue ({@code jacorb.poa.queue_max}), JacORB refuses the
     * {@code stats()} call with TRANSIENT ("resource limit reached"): that means "ask again".
     */
    static TtcpStats awaitOneways(final ttcp ttcp, final long calls) throws InterruptedException
    {
        final long deadlineMs = System.currentTimeMillis() + ONEWAY_DRAIN_LIMIT_MS;
        TtcpStats stats = stats(ttcp, deadlineMs);
        long lastChangeMs = System.currentTimeMillis();
        long last = stats.calls;
        while (stats.calls < calls && System.currentTimeMillis() < deadlineMs && System.currentTimeMillis() - lastChangeMs < 1000)
        {
            Thread.sleep(20);
            stats = stats(ttcp, deadlineMs);
            if (stats.calls != last)
            {
                last = stats.calls;
                lastChangeMs = System.currentTimeMillis();
            }
        }
        return stats;
    }

    /** @return the server's stats, asked again while its POA queue is full, until {@code deadlineMs}. */
    private static TtcpStats stats(final ttcp ttcp, final long deadlineMs) throws InterruptedException
    {
        while (true)
        {
            try
            {
                return ttcp.stats();
            }
            catch (final org.omg.CORBA.TRANSIENT e)
            {
                if (System.currentTimeMillis() > deadlineMs)
                {
                    throw e;
                }
                Thread.sleep(5);
            }
        }
    }

    static void assertStats(final TtcpStats stats, final long calls, final long bytes, final long corrupt, final long duplicates,
        final long checksum)
    {
        assertEquals(calls, stats.calls, "calls");
        assertEquals(bytes, stats.bytes, "bytes");
        assertEquals(corrupt, stats.corrupt, "corrupt buffers");
        assertEquals(duplicates, stats.duplicates, "duplicate buffers");
        assertEquals(checksum, stats.checksum, "checksum of distinct buffers");
    }

    /** @return a port number free on loopback for both TCP and UDP right now. */
    static int freePort() throws IOException
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            try (ServerSocket tcp = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                final int port = tcp.getLocalPort();
                try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)))
                {
                    return port;
                }
                catch (final IOException busy)
                {
                    // Taken on UDP: try another.
                }
            }
        }
        throw new IOException("no port free on both TCP and UDP after 50 attempts");
    }
}
