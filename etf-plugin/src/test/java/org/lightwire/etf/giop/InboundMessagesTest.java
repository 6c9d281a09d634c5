package org.lightwire.etf.giop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The bounded offer a replica delivers with: it waits for the reader, never drops while open; and
 * messages offered in place (arrays longer than their message, direct buffers) read as the
 * stream of exactly their bytes.
 */
class InboundMessagesTest
{
    private static final long FOREVER = Long.MAX_VALUE;

    @Test
    void aFullQueueHoldsTheProducerUntilTheReaderTakesAMessage() throws Exception
    {
        final InboundMessages in = new InboundMessages();
        final long gen = in.open();
        assertTrue(in.offerWhenRoom(gen, new byte[] {1}, 2, FOREVER));
        assertTrue(in.offerWhenRoom(gen, new byte[] {2}, 2, FOREVER));
        assertEquals(2, in.queued());
        final CompletableFuture<Boolean> third = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return in.offerWhenRoom(gen, new byte[] {3}, 2, FOREVER);
            }
            catch (final InterruptedException e)
            {
                throw new IllegalStateException(e);
            }
        });
        // Not a timing assertion: the producer cannot finish before a message is taken, however long we wait.
        Thread.sleep(50);
        assertFalse(third.isDone(), "the third offer waits for room");
        assertEquals(2, in.queued());
        final byte[] one = new byte[1];
        in.read(one, 0, 1, 1);
        assertArrayEquals(new byte[] {1}, one);
        assertTrue(third.get(10, TimeUnit.SECONDS));
        in.read(one, 0, 1, 1);
        assertArrayEquals(new byte[] {2}, one);
        in.read(one, 0, 1, 1);
        assertArrayEquals(new byte[] {3}, one, "nothing lost, nothing reordered");
        assertEquals(0, in.dropped());
    }

    @Test
    void closingReleasesAWaitingProducerAndATimeoutIsCountedAsADrop() throws Exception
    {
        final InboundMessages in = new InboundMessages();
        final long gen = in.open();
        assertTrue(in.offerWhenRoom(gen, new byte[] {1}, 1, FOREVER));
        assertFalse(in.offerWhenRoom(gen, new byte[] {2}, 1, TimeUnit.MILLISECONDS.toNanos(1)), "no room within 1 ms");
        assertEquals(1, in.dropped());
        final CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return in.offerWhenRoom(gen, new byte[] {3}, 1, FOREVER);
            }
            catch (final InterruptedException e)
            {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(50);
        assertFalse(waiting.isDone());
        in.close(() -> new IllegalStateException("closed for the test"));
        assertFalse(waiting.get(10, TimeUnit.SECONDS), "a closed stream takes nothing");
        assertEquals(2, in.dropped());
    }

    @Test
    void messagesOfferedInPlaceReadAsExactlyTheirBytesWhateverTheirBuffersDoAfterwards()
    {
        final InboundMessages in = new InboundMessages();
        final long gen = in.open();
        // A transport's assembly buffer: offered from position to limit, then cleared for the
        // next message, as a server session does before JacORB has read the request.
        final ByteBuffer assembly = ByteBuffer.allocate(64);
        assembly.put(new byte[] {1, 2, 3, 4, 5}).flip();
        assertTrue(in.offer(gen, assembly));
        assembly.clear();
        // A direct buffer with a position: only the bytes from position to limit are the message.
        final ByteBuffer direct = ByteBuffer.allocateDirect(16);
        direct.put(new byte[] {9, 9, 6, 7, 8, 9}).flip().position(2).limit(5);
        assertTrue(in.offer(gen, direct));
        // An array longer than its message.
        assertTrue(in.offer(gen, ByteBuffer.wrap(new byte[] {10, 11, 99, 99}, 0, 2)));
        assertEquals(3, in.queued());

        final byte[] all = new byte[10];
        assertEquals(-1, in.tryRead(all, 0, 11, 11), "only 10 bytes are here");
        assertEquals(3, in.tryRead(all, 0, 3, 3));
        assertEquals(7, in.read(all, 3, 7, 7));
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 10, 11}, all);
        assertEquals(2, direct.position(), "the offered buffer's position is left alone");
        assertEquals(5, direct.limit());
        assertFalse(in.hasData());
    }
}
