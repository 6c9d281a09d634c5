package org.lightwire.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.lightwire.romiop.RomiopFactories;
import org.omg.CORBA.ORB;

/**
 * A client JVM of a ROMIOP group: after {@link TestServer#READY_LINE} it waits for a go file (so
 * that several clients start together), then makes {@code calls} calls on the group's
 * {@code lwtest::replicated_log}, seq 0, 1, 2, ...: every {@code onewayEvery}-th call
 * ({@code seq % onewayEvery == onewayEvery - 1}) is a oneway {@code append_oneway}, the others
 * two-way {@code append}. It checks that each two-way reply (the log length after the
 * append) is larger than the previous one: this client's calls run in its order.
 *
 * <p>Arguments: {@code groupIor clientTag calls onewayEvery goFile [-p key=value]...}. Announces
 * {@code LW-IOR result twoway=N oneway=N replies=N failures=N nonIncreasing=N firstFailure=... elapsedMs=N counters=...}.
 */
public final class RomiopClient
{
    private RomiopClient()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String ior = args[0];
        final int tag = Integer.parseInt(args[1]);
        final int calls = Integer.parseInt(args[2]);
        final int onewayEvery = Integer.parseInt(args[3]);
        final Path go = Path.of(args[4]);
        final Map<String, String> props = TestServer.parseProperties(java.util.Arrays.copyOfRange(args, 5, args.length));
        final ORB orb = Orbs.init(props);
        final replicated_log log = replicated_logHelper.unchecked_narrow(orb.string_to_object(ior));
        System.out.println(TestServer.READY_LINE);
        System.out.flush();
        TestServer.watchStandardInput();
        while (!Files.exists(go))
        {
            Thread.sleep(5);
        }
        final long startNs = System.nanoTime();
        long twoway = 0;
        long oneway = 0;
        long replies = 0;
        long failures = 0;
        long nonIncreasing = 0;
        long last = 0;
        String firstFailure = "none";
        for (int seq = 0; seq < calls; seq++)
        {
            try
            {
                if (seq % onewayEvery == onewayEvery - 1)
                {
                    oneway++;
                    log.append_oneway(tag, seq);
                }
                else
                {
                    twoway++;
                    final long length = log.append(tag, seq);
                    replies++;
                    if (length <= last)
                    {
                        nonIncreasing++;
                    }
                    last = length;
                }
            }
            catch (final RuntimeException e)
            {
                failures++;
                if (failures == 1)
                {
                    firstFailure = (e + " at seq " + seq).replace(' ', '_');
                }
            }
        }
        System.out.println(TestServer.IOR_LINE_PREFIX + "result twoway=" + twoway + " oneway=" + oneway + " replies=" + replies +
            " failures=" + failures + " nonIncreasing=" + nonIncreasing + " firstFailure=" + firstFailure + " elapsedMs=" +
            (System.nanoTime() - startNs) / 1_000_000 + " counters=" +
            RomiopFactories.of(orb).clientCounters().replace(' ', '_'));
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
