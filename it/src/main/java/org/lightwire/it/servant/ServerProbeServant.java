package org.lightwire.it.servant;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

import org.lightwire.etf.LightwireListener;
import org.lightwire.it.idl.lwtest.server_probePOA;

/** Reports the server JVM's threads and memory and its Lightwire listener's lanes, for tests. */
public final class ServerProbeServant extends server_probePOA
{
    private final LightwireListener listener;

    /** @param listener the server's Lightwire listener, or null when it has none (figures of lanes are then 0). */
    public ServerProbeServant(final LightwireListener listener)
    {
        this.listener = listener;
    }

    @Override
    public int thread_count()
    {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    @Override
    public long heap_used_after_gc()
    {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @Override
    public long direct_memory_used()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                return pool.getMemoryUsed();
            }
        }
        return -1;
    }

    @Override
    public int transport_connections()
    {
        return listener == null ? 0 : listener.transportConnections();
    }

    @Override
    public int lane_count()
    {
        return listener == null || listener.lanes() == null ? 0 : listener.lanes().laneCount();
    }

    @Override
    public int[] lane_connections()
    {
        return listener == null || listener.lanes() == null ? new int[0] : listener.lanes().connectionsPerLane();
    }

    @Override
    public String lane_keys()
    {
        return listener == null || listener.lanes() == null ? "" : String.join("; ", listener.lanes().laneKeys());
    }

    @Override
    public String lane_counters()
    {
        return listener == null ? "" : listener.counters().toString();
    }
}
