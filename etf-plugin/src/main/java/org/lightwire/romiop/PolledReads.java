package org.lightwire.romiop;

import java.util.concurrent.TimeUnit;

import org.lightwire.etf.giop.InboundMessages;
import org.lightwire.romiop.driver.EngineDriver;
import org.lightwire.romiop.driver.PollingDriver;

/**
 * JacORB's reader of a ROMIOP connection, when the group runs on a {@link PollingDriver}: instead
 * of waiting for another thread to queue the next GIOP message, the reader polls the group's
 * sockets itself until the message is there (or the connection is closed), so the message reaches
 * JacORB on the thread that received it. With any other driver it simply waits.
 */
final class PolledReads
{
    /** A reader polls in turns this long, then looks again (a closed driver, a closed stream). */
    private static final long TURN_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long NOT_STARTED_WAIT_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private PolledReads()
    {
    }

    /** As {@link InboundMessages#read}, polling the group meanwhile when {@code driver} polls. */
    static int read(final InboundMessages inbound, final EngineDriver driver, final byte[] dst, final int offset, final int minLength,
        final int maxLength)
    {
        if (driver instanceof PollingDriver p)
        {
            while (!p.closed())
            {
                final int n = inbound.tryRead(dst, offset, minLength, maxLength);
                if (n >= 0)
                {
                    return n;
                }
                if (!p.running())
                {
                    // Connected before the group's driver started (a replica's listener): soon.
                    java.util.concurrent.locks.LockSupport.parkNanos(NOT_STARTED_WAIT_NS);
                    continue;
                }
                p.pollUntil(inbound::readable, TURN_NS);
            }
        }
        return inbound.read(dst, offset, minLength, maxLength);
    }

    /** A message was queued for the reader by another thread: a reader polling now must look. */
    static void queued(final EngineDriver driver)
    {
        if (driver instanceof PollingDriver p && !p.onReaderThread())
        {
            p.wakeup();
        }
    }

    /** @return true when a delivery on this thread may wait for the reader (it is not the reader). */
    static boolean mayWaitForReader(final EngineDriver driver)
    {
        return !(driver instanceof PollingDriver p) || !p.onReaderThread();
    }
}
