package org.lightwire.it.partition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.lightwire.it.Orbs;
import org.lightwire.it.idl.lwtest.replicated_log;
import org.lightwire.it.idl.lwtest.replicated_logHelper;
import org.lightwire.romiop.RomiopFactories;
import org.omg.CORBA.ORB;

/**
 * Clients appending unique entries to the group's {@code replicated_log}, one call after another,
 * each client with an ORB of its own in this JVM: client {@code c} appends {@code (c, 0)},
 * {@code (c, 1)}, ..., never an entry twice (a failed append is not tried again: the next call
 * appends the next seq). Every call is recorded as an {@link Append}: acknowledged, or failed with
 * its exception.
 *
 * <p>A failed call is followed by a short pause, so that a group refusing every call at once does
 * not fill the record with millions of failures. JacORB gives up on any reply after
 * {@value #CALL_LIMIT_MS} ms, beyond the consolidation timeout, so no call blocks for ever.
 */
public final class AppendWorkload implements AutoCloseable
{
    static final int CALL_LIMIT_MS = 30_000;
    private static final long PAUSE_AFTER_FAILURE_MS = 20;

    private final String groupIor;
    private final Map<String, String> clientProperties;
    private final List<Client> clients = new ArrayList<>();
    private final List<Append> appends = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong acked = new AtomicLong();
    private volatile boolean stopping;

    /**
     * @param clientProperties the client ORBs' properties: the ROMIOP factory, interface, address
     *                         and consolidation policy.
     */
    public AppendWorkload(final String groupIor, final Map<String, String> clientProperties, final int clients)
    {
        this.groupIor = groupIor;
        this.clientProperties = Map.copyOf(clientProperties);
        for (int tag = 1; tag <= clients; tag++)
        {
            this.clients.add(new Client(tag));
        }
    }

    private final class Client implements Runnable
    {
        final int tag;
        final Thread thread;
        volatile ORB orb;
        volatile String counters = "";

        Client(final int tag)
        {
            this.tag = tag;
            this.thread = new Thread(this, "append-client-" + tag);
            thread.setDaemon(true);
        }

        @Override
        public void run()
        {
            final Map<String, String> p = new java.util.HashMap<>(clientProperties);
            p.put("jacorb.connection.client.pending_reply_timeout", Integer.toString(CALL_LIMIT_MS));
            orb = Orbs.init(p);
            final replicated_log log = replicated_logHelper.unchecked_narrow(orb.string_to_object(groupIor));
            for (int seq = 0; !stopping; seq++)
            {
                final long startNs = System.nanoTime();
                CallFailure failure = null;
                long length = 0;
                try
                {
                    length = log.append(tag, seq);
                }
                catch (final org.omg.CORBA.SystemException e)
                {
                    failure = CallFailure.of(e);
                }
                catch (final RuntimeException e)
                {
                    failure = CallFailure.of(e);
                }
                appends.add(new Append(tag, seq, startNs, System.nanoTime(), length, failure));
                if (failure == null)
                {
                    acked.incrementAndGet();
                }
                else
                {
                    pause();
                }
            }
            counters = RomiopFactories.of(orb).clientCounters();
        }
    }

    private static void pause()
    {
        try
        {
            Thread.sleep(PAUSE_AFTER_FAILURE_MS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    public void start()
    {
        clients.forEach(c -> c.thread.start());
    }

    /** @return appends acknowledged so far. */
    public long acked()
    {
        return acked.get();
    }

    /**
     * Lets every client finish its call in progress and stop.
     *
     * @return the clients that were still in a call after {@code limit} (their ORBs are shut down).
     */
    public List<Integer> stop(final Duration limit) throws InterruptedException
    {
        stopping = true;
        final long end = System.nanoTime() + limit.toNanos();
        final List<Integer> stuck = new ArrayList<>();
        for (final Client c : clients)
        {
            c.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
            if (c.thread.isAlive())
            {
                stuck.add(c.tag);
            }
        }
        return stuck;
    }

    /** @return every append so far, in the order they ended. */
    public List<Append> appends()
    {
        synchronized (appends)
        {
            return List.copyOf(appends);
        }
    }

    /** @return each client's ROMIOP counters, read as it stopped. */
    public List<String> clientCounters()
    {
        return clients.stream().map(c -> "client " + c.tag + ": " + c.counters).toList();
    }

    @Override
    public void close()
    {
        stopping = true;
        for (final Client c : clients)
        {
            final ORB orb = c.orb;
            if (orb != null)
            {
                orb.shutdown(false);
            }
        }
    }
}
