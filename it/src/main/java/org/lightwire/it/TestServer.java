package org.lightwire.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.lightwire.it.servant.EchoServant;
import org.lightwire.it.servant.PairsServant;
import org.lightwire.it.servant.ServerProbeServant;
import org.lightwire.it.servant.TtcpServant;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;
import org.omg.PortableServer.Servant;

/**
 * A server JVM for the integration tests: serves one {@code lwtest::echo}, {@code lwtest::ttcp},
 * {@code lwtest::pairs} and {@code lwtest::server_probe} object (the last reports the JVM's
 * threads and memory and its Lightwire lanes), announces their IORs on standard output and runs until it is
 * killed or its standard input reaches end of file (so that it never outlives the test that
 * started it, even one killed with -9).
 *
 * <p>Arguments: any number of {@code -p key=value}, each an ORB property added to
 * {@link Orbs#baseProperties()}.
 *
 * <p>On its standard input it answers {@code stats} ({@link StdinCommands}, {@link ProcessHarness#request})
 * with its threads, heap and direct memory, the echo servant's completed calls and its Lightwire
 * listeners' counters, as {@code key=value} pairs.
 *
 * <p>Output protocol, one line each, read by {@link ProcessHarness}:
 * <pre>
 * LW-IOR echo IOR:...
 * LW-IOR ttcp IOR:...
 * LW-IOR pairs IOR:...
 * LW-IOR probe IOR:...
 * LW-JAVA 17.0.15
 * LW-READY
 * </pre>
 */
public final class TestServer
{
    /** Start of a line announcing an object: the prefix, the object's name, its IOR. */
    public static final String IOR_LINE_PREFIX = "LW-IOR ";
    /** Start of the line giving the server JVM's {@code java.version}. */
    public static final String JAVA_LINE_PREFIX = "LW-JAVA ";
    /** The line that says every object is announced and the server accepts requests. */
    public static final String READY_LINE = "LW-READY";
    /**
     * Not an ORB property, though passed as one: how long the ttcp servant's one-way sleeps before
     * it counts a buffer, in microseconds (default 0), to make a slow receiver.
     */
    public static final String ONEWAY_DELAY_US = "lwtest.ttcp.oneway_delay_us";

    private TestServer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Map<String, String> props = parseProperties(args);
        final ORB orb = Orbs.init(props);
        final POA rootPoa = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
        rootPoa.the_POAManager().activate();

        final Map<String, Servant> servants = new LinkedHashMap<>();
        final EchoServant echo = new EchoServant();
        servants.put("echo", echo);
        servants.put("ttcp", new TtcpServant(TimeUnit.MICROSECONDS.toNanos(Long.parseLong(props.getOrDefault(ONEWAY_DELAY_US, "0")))));
        servants.put("pairs", new PairsServant());
        servants.put("probe", new ServerProbeServant(lightwireListener(orb)));

        final PrintStream out = System.out;
        for (final Map.Entry<String, Servant> e : servants.entrySet())
        {
            final org.omg.CORBA.Object ref = rootPoa.servant_to_reference(e.getValue());
            final String ior = orb.object_to_string(ref);
            // corbaloc:<protocol>:host:port/<name> resolves on this server too.
            ((org.jacorb.orb.ORB)orb).addObjectKey(e.getKey(), ior);
            out.println(IOR_LINE_PREFIX + e.getKey() + " " + ior);
        }
        out.println(JAVA_LINE_PREFIX + System.getProperty("java.version"));
        out.println(READY_LINE);
        out.flush();

        StdinCommands.serve(command ->
        {
            if ("shutdown".equals(command))
            {
                // The ORB shuts down as a servant's shutdown() would; the process then ends with orb.run().
                new Thread(() -> orb.shutdown(false), "shutdown").start();
                return "shutdown=1";
            }
            return "stats".equals(command) ? StdinCommands.format(stats(orb, echo)) : "unknown=1";
        });
        orb.run();
    }

    private static Map<String, Long> stats(final ORB orb, final EchoServant echo)
    {
        final Map<String, Long> m = StdinCommands.jvmFigures();
        m.put("echo_calls", echo.calls_received());
        final org.lightwire.etf.LightwireFactories lw = org.lightwire.etf.LightwireFactories.of(orb);
        if (lw != null)
        {
            m.putAll(lw.serverCounters());
        }
        return m;
    }

    /** @return the ORB's Lightwire listener, or null when it serves no Lightwire. */
    private static org.lightwire.etf.LightwireListener lightwireListener(final ORB orb)
    {
        final org.lightwire.etf.LightwireFactories f = org.lightwire.etf.LightwireFactories.of(orb);
        return f == null || f.listeners().isEmpty() ? null : f.listeners().get(0);
    }

    /** Halts this JVM when its standard input reaches end of file (the harness is gone or closed it). */
    static void watchStandardInput()
    {
        final Thread stdinWatcher = new Thread(() -> exitOnEndOfInput(System.in), "stdin-watcher");
        stdinWatcher.setDaemon(true);
        stdinWatcher.start();
    }

    static Map<String, String> parseProperties(final String[] args)
    {
        final Map<String, String> props = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            if (!"-p".equals(arg) || i + 1 >= args.length)
            {
                throw new IllegalArgumentException(
                    "unexpected argument '" + arg + "': usage is TestServer [-p key=value]...");
            }
            final String pair = args[++i];
            final int eq = pair.indexOf('=');
            if (eq <= 0)
            {
                throw new IllegalArgumentException(
                    "property '" + pair + "' is not of the form key=value");
            }
            props.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return props;
    }

    private static void exitOnEndOfInput(final InputStream in)
    {
        final byte[] sink = new byte[256];
        try
        {
            while (in.read(sink) >= 0)
            {
                // The harness never writes; anything that arrives is ignored.
            }
        }
        catch (final IOException e)
        {
            // A broken pipe means the parent is gone, as end of file does.
        }
        // halt, not exit: the parent is gone, and an orderly ORB shutdown could block on peers.
        Runtime.getRuntime().halt(0);
    }
}
