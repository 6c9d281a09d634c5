package org.lightwire.it;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.lightwire.etf.LightwireFactories;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.ORB;

/**
 * A client JVM with a native code set of its own ({@code jacorb.native_char_codeset}) that calls
 * a server's {@code echo} over Lightwire from several threads at once, and reports what the
 * server decoded: {@code utf8Of} returns the UTF-8 bytes of the string the server received (no
 * code set touches octets), {@code charCount} its length, {@code echoString} the string itself
 * (exact only when the client's native code set is the server's: JacORB 3.9 encodes replies in
 * the server's native code set, whatever the connection negotiated).
 *
 * <p>The first call is made alone: JacORB 3.9 sends the CodeSets context on the first request of
 * an ORB connection, but calls that begin together can lose it (the first thread's send resets
 * the connection's "negotiated" flag while it connects, and the second thread's request marks it
 * again before the first one is written), and a connection that never carried the context is
 * decoded with the server's native code sets, over IIOP as over Lightwire.
 *
 * <p>Arguments: {@code ior nativeCodeSet textAsUtf8Hex threads callsPerThread} (the text in hex,
 * so that no locale touches it on the command line). Announces
 * {@code LW-IOR result calls=<n> exactBytes=<n> exactLength=<n> exactEcho=<n> failures=<n> lightwireCalls=<n>}
 * and stays (its transport connections open) until its standard input reaches end of file.
 */
public final class CodeSetClient
{
    private CodeSetClient()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String ior = args[0];
        final String codeSet = args[1];
        final String text = new String(java.util.HexFormat.of().parseHex(args[2]), StandardCharsets.UTF_8);
        final int threads = Integer.parseInt(args[3]);
        final int callsPerThread = Integer.parseInt(args[4]);
        final ORB orb = Orbs.init(Orbs.lightwire(Map.of(Orbs.NATIVE_CHAR_CODESET, codeSet)));
        final echo e = echoHelper.narrow(orb.string_to_object(ior));
        final byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        final AtomicInteger exactBytes = new AtomicInteger();
        final AtomicInteger exactLength = new AtomicInteger();
        final AtomicInteger exactEcho = new AtomicInteger();
        final AtomicInteger failures = new AtomicInteger();
        if (!Arrays.equals(utf8, e.utf8Of(text)))
        {
            System.out.println("failure: the first call's string was decoded otherwise");
        }
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        final List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            done.add(pool.submit(() ->
            {
                for (int i = 0; i < callsPerThread; i++)
                {
                    try
                    {
                        if (Arrays.equals(utf8, e.utf8Of(text)))
                        {
                            exactBytes.incrementAndGet();
                        }
                        // A short sleep keeps calls overlapping, so the client opens several transport connections.
                        if (e.charCount(text, 2) == text.length())
                        {
                            exactLength.incrementAndGet();
                        }
                        if (text.equals(e.echoString(text)))
                        {
                            exactEcho.incrementAndGet();
                        }
                    }
                    catch (final RuntimeException ex)
                    {
                        failures.incrementAndGet();
                        System.out.println("failure: " + ex);
                    }
                }
            }));
        }
        for (final Future<?> f : done)
        {
            f.get();
        }
        pool.shutdown();
        System.out.println(TestServer.IOR_LINE_PREFIX + "result calls=" + threads * callsPerThread + " exactBytes=" + exactBytes +
            " exactLength=" + exactLength + " exactEcho=" + exactEcho + " failures=" + failures + " lightwireCalls=" +
            (LightwireFactories.of(orb).callsStarted() - 1));
        System.out.println(TestServer.READY_LINE);
        System.out.flush();
        TestServer.watchStandardInput();
        Thread.sleep(Long.MAX_VALUE);
    }
}
