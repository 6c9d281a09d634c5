package org.lightwire.it.attack;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.lightwire.it.Orbs;
import org.lightwire.it.StdinCommands;
import org.lightwire.it.TestServer;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.omg.CORBA.ORB;

/**
 * The client that calls all the time while {@link AttackSuite} attacks its server: a JacORB ORB
 * in a JVM of its own, {@code threads} callers each echoing strings that name them and their
 * call, checking every reply byte for byte, counting replies that match and calls that failed
 * (any exception, or a reply that is not the string sent).
 *
 * <p>Arguments: {@code <echo reference> <threads>}. Commands on standard input: {@code stats};
 * {@code pause} (callers finish their call and wait; answers once all are idle, so the server's
 * count of completed echoes can be compared with this one's); {@code resume}.
 */
public final class LiveClient
{
    private final echo target;
    private final AtomicLong ok = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicBoolean paused = new AtomicBoolean();
    private final AtomicLong busy = new AtomicLong();
    private volatile String lastFailure = "none";

    private LiveClient(final echo target)
    {
        this.target = target;
    }

    public static void main(final String[] args) throws Exception
    {
        final ORB orb = Orbs.init(Orbs.lightwire());
        final echo target = echoHelper.narrow(orb.string_to_object(args[0]));
        final LiveClient client = new LiveClient(target);
        // One call before READY: the server is reachable and the path works.
        if (!"ready".equals(target.echoString("ready")))
        {
            throw new IllegalStateException("the first echo came back altered");
        }
        final int threads = Integer.parseInt(args[1]);
        final List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            final int id = t;
            final Thread caller = new Thread(() -> client.call(id), "live-caller-" + t);
            caller.setDaemon(true);
            callers.add(caller);
            caller.start();
        }
        StdinCommands.serve(client::command);
        System.out.println(TestServer.READY_LINE);
        System.out.flush();
        Thread.currentThread().join();
    }

    private void call(final int id)
    {
        long n = 0;
        while (true)
        {
            if (paused.get())
            {
                Thread.onSpinWait();
                try
                {
                    Thread.sleep(1);
                }
                catch (final InterruptedException e)
                {
                    return;
                }
                continue;
            }
            busy.incrementAndGet();
            try
            {
                final String sent = "caller " + id + " call " + n++;
                final String got = target.echoString(sent);
                if (sent.equals(got))
                {
                    ok.incrementAndGet();
                }
                else
                {
                    failed.incrementAndGet();
                    lastFailure = "altered_reply";
                }
            }
            catch (final RuntimeException e)
            {
                failed.incrementAndGet();
                lastFailure = e.getClass().getSimpleName();
            }
            finally
            {
                busy.decrementAndGet();
            }
        }
    }

    private String command(final String command)
    {
        switch (command)
        {
            case "pause":
                paused.set(true);
                while (busy.get() > 0)
                {
                    Thread.onSpinWait();
                }
                return stats();
            case "resume":
                paused.set(false);
                return stats();
            default:
                return stats();
        }
    }

    private String stats()
    {
        final Map<String, Long> m = new LinkedHashMap<>();
        m.put("ok", ok.get());
        m.put("failed", failed.get());
        return StdinCommands.format(m) + " last_failure=" + lastFailure;
    }
}
