package org.lightwire.etf.giop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The bounded offer a replica delivers with: it waits for the reader, never drops while open. */
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
}
