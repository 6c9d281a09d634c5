package org.lightwire.it.servant;

import java.util.BitSet;
import java.util.concurrent.locks.LockSupport;

import org.lightwire.it.idl.lwtest.TtcpStats;
import org.lightwire.it.idl.lwtest.ttcpPOA;

/**
 * The receiving end of ttcp: checks every buffer against {@link TtcpPattern} and keeps the counts
 * that the tests assert on. The ORB dispatches on several threads, so every update holds the
 * servant's lock.
 */
public final class TtcpServant extends ttcpPOA
{
    private final BitSet seen = new BitSet();
    private long calls;
    private long bytes;
    private long corrupt;
    private long duplicates;
    private long checksum;
    private long lastCallNs;
    /** How long each one-way takes before it is recorded: a slow receiver, for flow-control tests. */
    private final long onewayDelayNs;

    public TtcpServant()
    {
        this(0);
    }

    /** @param onewayDelayNs how long each one-way sleeps, outside the servant's lock, before it is recorded. */
    public TtcpServant(final long onewayDelayNs)
    {
        this.onewayDelayNs = onewayDelayNs;
    }

    @Override
    public void receive_at_most_once(final char[] data)
    {
        if (onewayDelayNs > 0)
        {
            LockSupport.parkNanos(onewayDelayNs);
        }
        record(data);
    }

    @Override
    public void receive_exactly_once(final char[] data)
    {
        record(data);
    }

    @Override
    public synchronized long bytes_received()
    {
        return bytes;
    }

    @Override
    public synchronized int calls_received()
    {
        return (int)calls;
    }

    @Override
    public synchronized TtcpStats stats()
    {
        return new TtcpStats(calls, bytes, corrupt, duplicates, checksum, lastCallNs);
    }

    @Override
    public synchronized void reset()
    {
        seen.clear();
        calls = 0;
        bytes = 0;
        corrupt = 0;
        duplicates = 0;
        checksum = 0;
        lastCallNs = 0;
    }

    private void record(final char[] data)
    {
        // Verify outside the lock: a 1 MiB buffer should not stall the other dispatch threads.
        final int sequence = TtcpPattern.verify(data);
        final long crc = sequence < 0 ? 0 : TtcpPattern.crc32(data);
        synchronized (this)
        {
            calls++;
            bytes += data.length;
            lastCallNs = System.nanoTime();
            if (sequence < 0)
            {
                corrupt++;
            }
            else if (seen.get(sequence))
            {
                duplicates++;
            }
            else
            {
                seen.set(sequence);
                checksum += crc;
            }
        }
    }
}
