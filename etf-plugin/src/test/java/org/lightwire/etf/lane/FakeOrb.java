package org.lightwire.etf.lane;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.lightwire.etf.giop.GiopBytes;
import org.lightwire.etf.giop.GiopMessage;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.ETF.BufferHolder;

/**
 * JacORB as a lane sees it, for tests without JacORB: a reader thread per delivered lane that
 * reads messages as JacORB's does (header, then body), and writes of whole messages, as a POA
 * thread's replies.
 */
final class FakeOrb implements LanePool.Delivery
{
    /** What the fake ORB's reader thread read from a lane. */
    static final class Presented
    {
        final Lane lane;
        final byte[] message;

        Presented(final Lane lane, final byte[] message)
        {
            this.lane = lane;
            this.message = message;
        }

        int laneId()
        {
            return (int)GiopMessage.requestId(message, message.length);
        }
    }

    final List<Lane> lanes = new CopyOnWriteArrayList<>();
    /** Each delivered lane's reader thread (JacORB's, in a real ORB). */
    final Map<Lane, Thread> readers = new ConcurrentHashMap<>();
    final BlockingQueue<Presented> presented = new LinkedBlockingQueue<>();
    volatile RuntimeException refusal;
    /** Runs on a lane's reader thread right after it read a message, as JacORB's MessageError does. */
    volatile BiConsumer<Lane, byte[]> onReaderThread = (l, m) -> { };

    @Override
    public void deliver(final Lane lane)
    {
        if (refusal != null)
        {
            lane.close();
            throw refusal;
        }
        lane.markConnected();
        lanes.add(lane);
        final Thread reader = new Thread(() -> readLoop(lane), "fake-receptor-" + lane.index());
        reader.setDaemon(true);
        readers.put(lane, reader);
        reader.start();
    }

    private void readLoop(final Lane lane)
    {
        try
        {
            while (true)
            {
                final BufferHolder h = new BufferHolder(new byte[GiopMessage.HEADER_LENGTH]);
                lane.read(h, 0, GiopMessage.HEADER_LENGTH, GiopMessage.HEADER_LENGTH, 0);
                final int size = GiopMessage.bodySize(h.value);
                h.value = Arrays.copyOf(h.value, GiopMessage.HEADER_LENGTH + size);
                lane.read(h, GiopMessage.HEADER_LENGTH, size, size, 0);
                onReaderThread.accept(lane, h.value);
                presented.add(new Presented(lane, h.value));
            }
        }
        catch (final COMM_FAILURE e)
        {
            // The lane closed: JacORB's reader would end here too.
        }
    }

    Presented next() throws InterruptedException
    {
        final Presented p = presented.poll(20, TimeUnit.SECONDS);
        if (p == null)
        {
            throw new AssertionError("no message reached the fake ORB");
        }
        return p;
    }

    /** Writes a GIOP 1.2 Reply (NO_EXCEPTION, 4 body bytes) for lane id {@code laneId} on {@code lane}, as a POA thread would. */
    static void reply(final Lane lane, final int laneId, final int body)
    {
        final byte[] reply = GiopBytes.message(2, GiopMessage.REPLY, false).ulong(laneId).ulong(0).ulong(0).align(8).ulong(body).bytes();
        write(lane, reply);
    }

    static void write(final Lane lane, final byte[] message)
    {
        lane.write(false, false, message, 0, 12, 0);
        lane.write(false, false, message, 12, message.length - 12, 0);
        lane.flush();
    }
}
