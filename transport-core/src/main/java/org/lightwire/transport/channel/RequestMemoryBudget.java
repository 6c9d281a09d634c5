package org.lightwire.transport.channel;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * The memory a server may spend on requests it is putting together from their packets: every
 * connection's assembly buffer is charged here while it holds one, so that clients that send
 * part of a large request and stop (or send many at once) cannot exhaust the server's memory. A
 * request that would take the total over the limit fails its connection alone
 * ({@code CloseCause.MEMORY_BUDGET}); the others go on. Thread-safe.
 */
public final class RequestMemoryBudget
{
    /** The most the default takes, whatever the JVM's limit: four requests of the default largest size. */
    public static final long DEFAULT_CEILING_BYTES = 256L * 1024 * 1024;

    private final long limitBytes;
    private final AtomicLong usedBytes = new AtomicLong();
    private final AtomicLong peakBytes = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();

    /** @param limitBytes the most the assembly buffers may hold together; at least 1. */
    public RequestMemoryBudget(final long limitBytes)
    {
        if (limitBytes < 1)
        {
            throw new IllegalArgumentException("a request memory budget of " + limitBytes + " bytes admits nothing; give at least 1");
        }
        this.limitBytes = limitBytes;
    }

    /**
     * @return the default budget: half the JVM's direct memory limit (assembly buffers are direct,
     *     and the rest of the process needs room too), at most {@link #DEFAULT_CEILING_BYTES}.
     */
    public static long defaultLimitBytes()
    {
        return Math.min(DEFAULT_CEILING_BYTES, Math.max(1, maxDirectMemoryBytes() / 2));
    }

    /** @return the JVM's direct memory limit: -XX:MaxDirectMemorySize, or the heap's maximum when it is unset. */
    static long maxDirectMemoryBytes()
    {
        try
        {
            final HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            final long set = Long.parseLong(hotSpot.getVMOption("MaxDirectMemorySize").getValue());
            if (set > 0)
            {
                return set;
            }
        }
        catch (final RuntimeException e)
        {
            // Not HotSpot, or the option is unknown: the JDK's own rule follows.
        }
        return Runtime.getRuntime().maxMemory();
    }

    /**
     * Takes {@code bytes} from the budget if they fit.
     *
     * @return false when they do not: nothing was taken, and the refusal is counted.
     */
    public boolean tryReserve(final long bytes)
    {
        while (true)
        {
            final long used = usedBytes.get();
            if (used + bytes > limitBytes)
            {
                refusals.incrementAndGet();
                return false;
            }
            if (usedBytes.compareAndSet(used, used + bytes))
            {
                peakBytes.accumulateAndGet(used + bytes, Math::max);
                return true;
            }
        }
    }

    /** Gives back {@code bytes} taken with {@link #tryReserve}. */
    public void release(final long bytes)
    {
        usedBytes.addAndGet(-bytes);
    }

    public long limitBytes()
    {
        return limitBytes;
    }

    /** @return bytes held by assembly buffers now. */
    public long usedBytes()
    {
        return usedBytes.get();
    }

    /** @return the most the assembly buffers held at once. */
    public long peakBytes()
    {
        return peakBytes.get();
    }

    /** @return requests refused because the budget was spent. */
    public long refusals()
    {
        return refusals.get();
    }

    @Override
    public String toString()
    {
        return "RequestMemoryBudget{limitBytes=" + limitBytes + ", usedBytes=" + usedBytes.get() + ", peakBytes=" + peakBytes.get() +
            ", refusals=" + refusals.get() + '}';
    }
}
