package org.lightwire.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.lightwire.etf.LightwireConfig;
import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.ORB;

/**
 * Issue 5's goal, run inside the qemu guest by {@code atm-jni/src/test/qemu/guest-tests.sh}: a
 * JacORB echo server JVM and this client ORB, both with {@code jacorb.lightwire.link=aal5}, the
 * server on one end of an atmtcp PVC pair and the client on the other. Echoes strings of 0 to
 * 100,000 characters byte for byte, then times null echoes (emulated: a sanity figure only).
 * Not a JUnit test: it needs an ATM kernel, which only the guest has.
 *
 * <p>Arguments: {@code serverPvc clientPvc calls}, e.g. {@code 1.0.101 0.0.101 200}. Prints
 * {@code PASS: JacORB over AAL5} and exits 0, or prints what failed and exits 1.
 */
public final class GuestOrbEcho
{
    private GuestOrbEcho()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String serverPvc = args[0];
        final String clientPvc = args[1];
        final int calls = Integer.parseInt(args[2]);
        final List<String> failures = new ArrayList<>();
        final List<String> serverArgs = new ArrayList<>();
        Orbs.lightwire(Map.of(LightwireConfig.LINK, "aal5", LightwireConfig.AAL5_PREFIX + "circuit", serverPvc)).forEach((k, v) ->
        {
            serverArgs.add("-p");
            serverArgs.add(k + "=" + v);
        });
        // JVMs start slowly under TCG: give the server minutes, not the default seconds.
        try (ProcessHarness server = ProcessHarness.start(TestServer.class, List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), serverArgs,
            Duration.ofMinutes(5)))
        {
            final ORB orb = Orbs.init(Orbs.lightwire(Map.of(LightwireConfig.LINK, "aal5", LightwireConfig.AAL5_PREFIX + "circuit", clientPvc)));
            try
            {
                final echo e = echoHelper.narrow(orb.string_to_object(server.ior("echo")));
                int exact = 0;
                final int[] sizes = {0, 1, 11, 100, 8_000, 8_200, 30_000, 100_000};
                for (final int size : sizes)
                {
                    final char[] text = new char[size];
                    for (int i = 0; i < size; i++)
                    {
                        text[i] = (char)('a' + (i * 7 + size) % 26);
                    }
                    final String m = new String(text);
                    if (m.equals(e.echoString(m)))
                    {
                        exact++;
                    }
                }
                check(failures, exact == sizes.length, "echo of " + Arrays.toString(sizes) + " characters exact: " + exact + " of " + sizes.length);
                final long startNs = System.nanoTime();
                for (int i = 0; i < calls; i++)
                {
                    e.echoString("");
                }
                final long elapsedNs = System.nanoTime() - startNs;
                System.out.printf("GUEST-ORB-RTT JacORB null echo over Lightwire/AAL5 (atmtcp, qemu TCG): %.1f us average over %d calls%n",
                    elapsedNs / 1000.0 / calls, calls);
                final LightwireFactories lightwire = LightwireFactories.of(orb);
                check(failures, lightwire.callsStarted() == sizes.length + calls,
                    "every call went over Lightwire: " + lightwire.callsStarted() + " transport calls for " + (sizes.length + calls) + " echoes");
                check(failures, e.calls_received() == sizes.length + calls, "the servant counted every echo exactly once");
            }
            finally
            {
                orb.shutdown(false);
            }
        }
        System.out.println(failures.isEmpty() ? "PASS: JacORB over AAL5" : "FAIL: JacORB over AAL5: " + failures);
        System.exit(failures.isEmpty() ? 0 : 1);
    }

    private static void check(final List<String> failures, final boolean ok, final String what)
    {
        System.out.println((ok ? "PASS " : "FAIL ") + what);
        if (!ok)
        {
            failures.add(what);
        }
    }
}
