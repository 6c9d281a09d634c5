package org.lightwire.it;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.idl.lwtest.ttcpHelper;
import org.lightwire.it.servant.TtcpPattern;
import org.omg.CORBA.ORB;

/**
 * The main job (issue 3, part 3): an echo/ttcp server JVM and this client JVM on loopback,
 * Lightwire chosen by JacORB properties alone, the null echo and a ttcp transfer measured over
 * Lightwire and over IIOP in the same run, interleaved. A demonstration, not a benchmark: the
 * bench module measures with JMH.
 *
 * <p>Arguments: {@code [echoCalls [ttcpMegabytes]]}, default 10000 and 10.
 */
public final class MainJob
{
    private static final int TTCP_BUFFER_CHARS = 64 * 1024;

    private MainJob()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int echoCalls = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        final int ttcpMegabytes = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        System.out.println("# The properties that put JacORB on Lightwire (add them to jacorb.properties):");
        Orbs.lightwire().forEach((k, v) -> System.out.println(k + "=" + v));
        System.out.println();
        try (ProcessHarness server = ProcessHarness.start(TestServer.class, List.of(), propertyArgs(Orbs.lightwire()), Duration.ofSeconds(60)))
        {
            final ORB lwOrb = Orbs.init(Orbs.lightwire());
            final ORB iiopOrb = Orbs.init(Map.of());
            try
            {
                final echo lwEcho = echoHelper.narrow(lwOrb.string_to_object(server.ior("echo")));
                final echo iiopEcho = echoHelper.narrow(iiopOrb.string_to_object(server.ior("echo")));
                final ttcp lwTtcp = ttcpHelper.narrow(lwOrb.string_to_object(server.ior("ttcp")));
                final ttcp iiopTtcp = ttcpHelper.narrow(iiopOrb.string_to_object(server.ior("ttcp")));
                final long lwCallsBefore = LightwireFactories.of(lwOrb).callsStarted();

                warmUp(lwEcho, iiopEcho, lwTtcp, iiopTtcp);
                final long[] lw = new long[echoCalls];
                final long[] iiop = new long[echoCalls];
                final int block = 500;
                for (int start = 0; start < echoCalls; start += block)
                {
                    final int end = Math.min(echoCalls, start + block);
                    nullEchoes(lwEcho, lw, start, end);
                    nullEchoes(iiopEcho, iiop, start, end);
                }
                Arrays.sort(lw);
                Arrays.sort(iiop);
                final double lwTtcpMbps = ttcpMbps(lwTtcp, ttcpMegabytes);
                final double iiopTtcpMbps = ttcpMbps(iiopTtcp, ttcpMegabytes);

                System.out.printf("%-34s %12s %12s %8s%n", "measurement", "Lightwire", "IIOP", "ratio");
                row("null echo median (us)", us(lw[lw.length / 2]), us(iiop[iiop.length / 2]));
                row("null echo p99 (us)", us(lw[(int)(lw.length * 0.99)]), us(iiop[(int)(iiop.length * 0.99)]));
                row("ttcp exactly-once 64 KiB (Mbit/s)", lwTtcpMbps, iiopTtcpMbps);
                System.out.printf("%n%d null echoes and %d MB ttcp each way; %d Lightwire transport calls; server on Java %s%n",
                    echoCalls, ttcpMegabytes, LightwireFactories.of(lwOrb).callsStarted() - lwCallsBefore, server.childJavaVersion());
            }
            finally
            {
                lwOrb.shutdown(true);
                lwOrb.destroy();
                iiopOrb.shutdown(true);
                iiopOrb.destroy();
            }
        }
        // JacORB leaves non-daemon threads behind.
        System.exit(0);
    }

    private static List<String> propertyArgs(final Map<String, String> props)
    {
        final java.util.ArrayList<String> args = new java.util.ArrayList<>();
        props.forEach((k, v) ->
        {
            args.add("-p");
            args.add(k + "=" + v);
        });
        return args;
    }

    /**
     * Both transports in turns for {@code -Dmainjob.warmupSeconds} (default 15 s): measured before
     * both JVMs' JITs settle, the comparison is of the compilers, and the transport with more code
     * of its own on the path (Lightwire) pays more of it (docs/notes/etf-latency.md, section 10).
     */
    private static void warmUp(final echo lw, final echo iiop, final ttcp lwTtcp, final ttcp iiopTtcp)
    {
        final long seconds = Long.getLong("mainjob.warmupSeconds", 15);
        System.out.printf("# warming up both transports for %d s (-Dmainjob.warmupSeconds)%n", seconds);
        final long endNs = System.nanoTime() + seconds * 1_000_000_000L;
        do
        {
            for (int i = 0; i < 500; i++)
            {
                lw.echoString("");
                iiop.echoString("");
            }
            ttcpMbps(lwTtcp, 1);
            ttcpMbps(iiopTtcp, 1);
        }
        while (System.nanoTime() - endNs < 0);
    }

    private static void nullEchoes(final echo e, final long[] samples, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            final long t0 = System.nanoTime();
            e.echoString("");
            samples[i] = System.nanoTime() - t0;
        }
    }

    private static double ttcpMbps(final ttcp t, final int megabytes)
    {
        t.reset();
        final int buffers = (int)((long)megabytes * 1_000_000 / TTCP_BUFFER_CHARS) + 1;
        final char[][] data = new char[buffers][];
        for (int i = 0; i < buffers; i++)
        {
            data[i] = TtcpPattern.create(i, TTCP_BUFFER_CHARS);
        }
        final long t0 = System.nanoTime();
        for (final char[] buffer : data)
        {
            t.receive_exactly_once(buffer);
        }
        final long elapsedNs = System.nanoTime() - t0;
        if (t.stats().calls != buffers || t.stats().corrupt != 0 || t.stats().duplicates != 0)
        {
            throw new IllegalStateException("ttcp check failed: " + t.stats().calls + " of " + buffers);
        }
        return (double)buffers * TTCP_BUFFER_CHARS * 8 / (elapsedNs / 1e9) / 1e6;
    }

    private static double us(final long ns)
    {
        return ns / 1000.0;
    }

    private static void row(final String name, final double lw, final double iiop)
    {
        System.out.printf("%-34s %12.1f %12.1f %8.2f%n", name, lw, iiop, lw / iiop);
    }
}
