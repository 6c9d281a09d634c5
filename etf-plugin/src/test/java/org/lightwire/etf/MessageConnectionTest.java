package org.lightwire.etf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.ETF.Profile;

/**
 * How JacORB's writes become messages: a large GIOP 1.2 Request goes into the buffer the
 * subclass gives, without an array of its own; every other message, and a Request whose length
 * is not the one its header announced, goes on as an array, and the buffer is given back once.
 */
class MessageConnectionTest
{
    private static final int MIN = 32;

    /** Records what the base class hands on; its message buffer starts at position 5 of a direct buffer. */
    private static final class Recorder extends MessageConnection
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(256);
        final List<byte[]> arrays = new ArrayList<>();
        final List<byte[]> buffered = new ArrayList<>();
        final List<Integer> asked = new ArrayList<>();
        int abandoned;

        @Override
        protected int messageBufferMinBytes()
        {
            return MIN;
        }

        @Override
        protected ByteBuffer messageBuffer(final int length)
        {
            asked.add(length);
            return buffer.clear().position(5);
        }

        @Override
        protected void messageBufferAbandoned()
        {
            abandoned++;
        }

        @Override
        protected void onMessage(final ByteBuffer message)
        {
            assertSame(buffer, message, "the very buffer given");
            assertEquals(5, message.position());
            final byte[] bytes = new byte[message.remaining()];
            message.get(bytes);
            buffered.add(bytes);
        }

        @Override
        protected void onMessage(final byte[] message)
        {
            arrays.add(message);
        }

        @Override
        public void connect(final Profile server, final long timeout)
        {
        }

        @Override
        public void close()
        {
        }

        @Override
        protected COMM_FAILURE handleCommFailure(final IOException e)
        {
            return new COMM_FAILURE(e.toString());
        }
    }

    /** A GIOP message of {@code total} bytes whose header announces {@code announced}; body bytes count up. */
    private static byte[] giop(final int minor, final int type, final int total, final int announced)
    {
        final byte[] m = new byte[total];
        m[0] = 'G';
        m[1] = 'I';
        m[2] = 'O';
        m[3] = 'P';
        m[4] = 1;
        m[5] = (byte)minor;
        m[6] = 0;
        m[7] = (byte)type;
        ByteBuffer.wrap(m, 8, 4).putInt(announced - 12);
        for (int i = 12; i < total; i++)
        {
            m[i] = (byte)i;
        }
        return m;
    }

    /** Writes {@code m} as JacORB does: the header, then the body in two pieces, then a flush. */
    private static void send(final Recorder c, final byte[] m)
    {
        final int half = 12 + (m.length - 12) / 2;
        c.write(true, false, m, 0, 12, 0);
        c.write(false, false, m, 12, half - 12, 0);
        c.write(false, true, m, half, m.length - half, 0);
        c.flush();
    }

    @Test
    void aLargeGiop12RequestIsWrittenIntoTheGivenBufferAndNothingElseIs()
    {
        final Recorder c = new Recorder();
        final byte[] request = giop(2, 0, 100, 100);
        send(c, request);
        assertEquals(List.of(100), c.asked);
        assertEquals(1, c.buffered.size());
        assertArrayEquals(request, c.buffered.get(0));
        assertEquals(0, c.arrays.size());

        final byte[] small = giop(2, 0, MIN - 1, MIN - 1);
        final byte[] reply = giop(2, 1, 100, 100);
        final byte[] old = giop(1, 0, 100, 100);
        final byte[] fragmented = giop(2, 0, 100, 100);
        fragmented[6] = 0x02;
        for (final byte[] m : List.of(small, reply, old, fragmented))
        {
            send(c, m);
        }
        assertEquals(List.of(100), c.asked, "only the first was asked for a buffer");
        // The first fragment of a fragmented message waits in the joiner for the rest.
        assertEquals(3, c.arrays.size());
        assertArrayEquals(small, c.arrays.get(0));
        assertArrayEquals(reply, c.arrays.get(1));
        assertArrayEquals(old, c.arrays.get(2));
        assertEquals(0, c.abandoned);
    }

    @Test
    void aRequestLongerOrShorterThanAnnouncedGoesOnAsAnArrayAndGivesTheBufferBack()
    {
        final Recorder c = new Recorder();
        final byte[] longer = giop(2, 0, 120, 100);
        send(c, longer);
        assertEquals(1, c.abandoned);
        assertEquals(0, c.buffered.size());
        assertArrayEquals(longer, c.arrays.get(0), "every byte written, in order");

        final byte[] shorter = giop(2, 0, 80, 100);
        send(c, shorter);
        assertEquals(2, c.abandoned);
        assertArrayEquals(shorter, c.arrays.get(1));

        // A message begun and then forgotten (a reconnect) gives its buffer back too.
        final byte[] begun = giop(2, 0, 100, 100);
        c.write(true, false, begun, 0, 12, 0);
        c.clearOutgoing();
        assertEquals(3, c.abandoned);
        send(c, begun);
        assertEquals(1, c.buffered.size());
        assertArrayEquals(begun, c.buffered.get(0));
        assertEquals(List.of(100, 100, 100, 100), c.asked);
    }
}
