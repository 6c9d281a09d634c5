package org.lightwire.it.servant;

import java.util.function.Supplier;

import org.lightwire.it.idl.lwtest.replica_probePOA;

/** One replica's view of its {@link ReplicatedLogServant}, reached over IIOP to compare replicas. */
public final class ReplicaProbeServant extends replica_probePOA
{
    private final ReplicatedLogServant log;
    private final Supplier<String> counters;
    private final Supplier<int[]> deliverySenders;
    private final Runnable leave;

    /**
     * @param counters        the transport's counters, for failure messages.
     * @param deliverySenders the sender of each request the transport delivered, in order.
     * @param leave           shuts the replica down in order; runs on a thread of its own.
     */
    public ReplicaProbeServant(final ReplicatedLogServant log, final Supplier<String> counters, final Supplier<int[]> deliverySenders,
        final Runnable leave)
    {
        this.log = log;
        this.counters = counters;
        this.deliverySenders = deliverySenders;
        this.leave = leave;
    }

    @Override
    public long executed()
    {
        return log.executed();
    }

    @Override
    public long installed()
    {
        return log.installed();
    }

    @Override
    public String digest()
    {
        return log.digest();
    }

    @Override
    public int[] execution_clients()
    {
        return log.executionClients();
    }

    @Override
    public int[] delivery_senders()
    {
        return deliverySenders.get();
    }

    @Override
    public String counters()
    {
        return counters.get();
    }

    @Override
    public long in_order()
    {
        return log.inOrder();
    }

    @Override
    public long last_execution_ns()
    {
        return log.lastExecutionNs();
    }

    @Override
    public int[] execution_seqs()
    {
        return log.executionSeqs();
    }

    @Override
    public void leave()
    {
        final Thread t = new Thread(leave, "replica-leave");
        t.setDaemon(false);
        t.start();
    }
}
