package org.lightwire.it;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.ORB;

/**
 * The goal of the ATM kernel test (issue 5, part 3b): a JacORB client calling a JacORB server
 * ({@link TestServer}, another JVM) over Lightwire on an AAL5 PVC, in the qemu guest that
 * {@code atm-jni/src/test/qemu/guest-tests.sh} runs; not a surefire test, as this machine's
 * kernel has no ATM.
 *
 * <p>Usage: {@code GuestAal5Echo <echo IOR> <null calls> [-p key=value]...}, the properties
 * selecting the link ({@code jacorb.lightwire.link=aal5}, {@code jacorb.lightwire.aal5.itf}).
 * Checks every reply, that every call went over Lightwire (the plug-in's own call count, so a
 * silent fallback to IIOP fails) and the servant's count; prints {@code GUEST-RTT} (emulated,
 * a sanity figure only) and exits 0 only when every check passed.
 */
public final class GuestAal5Echo
{
    private static final List<String> FAILURES = new ArrayList<>();

    private GuestAal5Echo()
    {
    }

    static void check(final boolean ok, final String what)
    {
        System.out.println((ok ? "PASS " : "FAIL ") + what);
        if (!ok)
        {
            FAILURES.add(what);
        }
    }

    public static void main(final String[] args) throws Exception
    {
        final String ior = args[0];
        final int calls = Integer.parseInt(args[1]);
        final String[] rest = new String[args.length - 2];
        System.arraycopy(args, 2, rest, 0, rest.length);
        final Map<String, String> props = new LinkedHashMap<>(Orbs.lightwire());
        props.putAll(TestServer.parseProperties(rest));
        final ORB orb = Orbs.init(props);
        try
        {
            run(orb, ior, calls);
        }
        catch (final RuntimeException e)
        {
            e.printStackTrace(System.out);
            check(false, "no exception: " + e);
        }
        finally
        {
            orb.shutdown(false);
        }
        System.out.println(FAILURES.isEmpty() ? "PASS: JacORB over Lightwire/AAL5" : "FAIL: " + FAILURES);
        System.exit(FAILURES.isEmpty() ? 0 : 1);
    }

    private static void run(final ORB orb, final String ior, final int calls)
    {
        final LightwireFactories lightwire = LightwireFactories.of(orb);
        check(lightwire != null, "the client ORB has the Lightwire factories");
        final echo target = echoHelper.narrow(orb.string_to_object(ior));
        final long servedBefore = target.calls_received();
        final long startedBefore = lightwire.callsStarted();
        check(startedBefore >= 1, "the first call (calls_received) went over Lightwire: " + startedBefore + " transport call(s)");
        final int warmup = Math.min(200, calls);
        for (int i = 0; i < warmup; i++)
        {
            target.echoString("");
        }
        final long startNs = System.nanoTime();
        int wrong = 0;
        for (int i = 0; i < calls; i++)
        {
            if (!target.echoString("").isEmpty())
            {
                wrong++;
            }
        }
        final long elapsedNs = System.nanoTime() - startNs;
        check(wrong == 0, "every null echo returned the empty string (" + wrong + " did not)");
        System.out.printf("GUEST-RTT JacORB null echo over Lightwire/AAL5 (atmtcp, qemu TCG): %.1f us average over %d calls%n",
            elapsedNs / 1000.0 / calls, calls);

        final StringBuilder big = new StringBuilder(100_000);
        for (int i = 0; big.length() < 100_000; i++)
        {
            big.append(Integer.toString(i, 36)).append(' ');
        }
        final String text = big.toString();
        check(text.equals(target.echoString(text)), "echo of a " + text.length() + "-character string (13 SDUs each way) byte for byte");

        final long served = target.calls_received() - servedBefore;
        final long expected = warmup + calls + 1L;
        check(served == expected, "the servant served " + served + " echo calls (want " + expected + ")");
        final long started = lightwire.callsStarted() - startedBefore;
        check(started == expected + 1, "the Lightwire plug-in started " + started + " transport calls since the first" +
            " (want " + (expected + 1) + ": every echo and the last calls_received, none over IIOP)");
        check(lightwire.callsFailed() == 0, "no call failed in the transport (" + lightwire.callsFailed() + ")");
    }
}
