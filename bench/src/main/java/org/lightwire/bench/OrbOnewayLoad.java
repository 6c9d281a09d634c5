package org.lightwire.bench;

import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.Orbs;
import org.lightwire.it.ProcessHarness;
import org.lightwire.it.idl.lwtest.TtcpStats;
import org.lightwire.it.idl.lwtest.ttcp;
import org.lightwire.it.idl.lwtest.ttcpHelper;
import org.lightwire.it.servant.TtcpPattern;
import org.omg.CORBA.ORB;

/**
 * A steady stream of one-way ttcp calls of one size over one transport, for a while, to the
 * bench's server (its POA queue waits, as in {@link OrbBenchmark}): what the server received of
 * what was sent, and at what rate. Made to watch with {@code scripts/thread-cpu.sh} while it runs,
 * one transport at a time (docs/notes/etf-latency.md, section 15); it compares nothing itself.
 *
 * <p>Arguments: {@code lightwire|iiop size seconds [rounds]} (default 3 rounds).
 */
public final class OrbOnewayLoad
{
    private OrbOnewayLoad()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length < 3 || !List.of(OrbBenchmark.LIGHTWIRE, OrbBenchmark.IIOP).contains(args[0]))
        {
            throw new IllegalArgumentException("usage: OrbOnewayLoad lightwire|iiop size seconds [rounds]");
        }
        final boolean lightwire = OrbBenchmark.LIGHTWIRE.equals(args[0]);
        final int size = Integer.parseInt(args[1]);
        final long ns = Long.parseLong(args[2]) * 1_000_000_000L;
        final int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        try (ProcessHarness server = ProcessHarness.start(org.lightwire.it.TestServer.class, List.of("-Xmx512m"),
            OrbBenchmark.propertyArgs(OrbBenchmark.serverProperties()), ProcessHarness.DEFAULT_READY_TIMEOUT))
        {
            final ORB orb = Orbs.init(lightwire ? Orbs.lightwire() : Map.of());
            try
            {
                final ttcp t = ttcpHelper.narrow(orb.string_to_object(server.ior("ttcp")));
                final LightwireFactories lw = LightwireFactories.of(orb);
                // IIOP's ORB has no plug-in, and no confirmations.
                final LongSupplier confirmations = lw == null ? () -> 0 : lw::onewaysConfirmed;
                final LongSupplier waited = lw == null ? () -> 0 : lw::onewayWindowWaits;
                final char[] data = TtcpPattern.create(0, size);
                for (int round = 1; round <= rounds; round++)
                {
                    // The previous round's one-ways still queued at the server would count in this one.
                    OrbBenchmark.quietStats(t, 200_000_000L, "one-way load");
                    t.reset();
                    final long confirmationsBefore = confirmations.getAsLong();
                    final long waitsBefore = waited.getAsLong();
                    final long t0 = System.nanoTime();
                    long calls = 0;
                    while (System.nanoTime() - t0 < ns)
                    {
                        t.receive_at_most_once(data);
                        calls++;
                    }
                    final long sentNs = System.nanoTime() - t0;
                    final TtcpStats s = OrbBenchmark.quietStats(t, 200_000_000L, "one-way load");
                    System.out.printf("%s %d B, round %d: sent %d one-ways (%.0f Mbit/s offered); the server counted %d (%.4f), " +
                        "%.0f Mbit/s to its last; %d confirmations, %d waited%n",
                        args[0], size, round, calls, calls * size * 8e3 / sentNs, s.calls, (double)s.calls / calls,
                        s.bytes * 8e3 / Math.max(1, s.last_call_ns - t0),
                        confirmations.getAsLong() - confirmationsBefore, waited.getAsLong() - waitsBefore);
                }
            }
            finally
            {
                orb.shutdown(false);
                orb.destroy();
            }
        }
        // JacORB leaves non-daemon threads behind.
        System.exit(0);
    }
}
