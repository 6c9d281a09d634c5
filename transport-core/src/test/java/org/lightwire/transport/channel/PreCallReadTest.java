package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.PeerClosedException;
import org.lightwire.transport.link.memory.MemoryLink;
import org.lightwire.transport.protocol.CloseCause;

/** ConnectionPool.acquire reads what reached an idle connection before a call goes on it: against the idle servicer, a failing read, and the acquire timeout. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PreCallReadTest
{
    static final long MS = 1_000_000L;
    final List<AutoCloseable> servers = new ArrayList<>();
    final AtomicInteger connects = new AtomicInteger();
    final List<RejectableLink> links = new ArrayList<>();
    volatile org.lightwire.transport.engine.EngineConfig config = MemoryLinkChannelTest.CONFIG;

    /** A memory link whose server can "send a REJECT(SERVER_CLOSED)": every receive then throws, as AbstractUdpClientLink's does. */
    static final class RejectableLink implements Link
    {
        final MemoryLink inner;
        volatile boolean rejected;
        volatile RuntimeException boom;
        volatile Runnable onClose;

        RejectableLink(final MemoryLink inner)
        {
            this.inner = inner;
        }

        @Override
        public void send(final ByteBuffer header, final ByteBuffer payload) throws IOException
        {
            inner.send(header, payload);
        }

        @Override
        public int receive(final ByteBuffer dst, final long timeoutNs) throws IOException
        {
            if (boom != null)
            {
                throw boom;
            }
            if (rejected)
            {
                throw new PeerClosedException("REJECT: server closed", CloseCause.SERVER_CLOSED);
            }
            return inner.receive(dst, timeoutNs);
        }

        @Override
        public int maxPacketBytes()
        {
            return inner.maxPacketBytes();
        }

        @Override
        public boolean preservesOrder()
        {
            return inner.preservesOrder();
        }

        int closes;

        @Override
        public void close()
        {
            // The second close: ConnectionPool.discard's c.close() (the first is fail()'s).
            final Runnable r = onClose;
            if (r != null && ++closes == 2)
            {
                onClose = null;
            }
            if (r != null && closes == 2)
            {
                r.run();
            }
            inner.close();
        }
    }

    private ClientConnection connect() throws IOException
    {
        final MemoryLink.Pair pair = ConnectionPoolTest.echoServed(connects.incrementAndGet(), servers);
        final RejectableLink link = new RejectableLink(pair.a());
        synchronized (links)
        {
            links.add(link);
        }
        return new ClientConnection(link, config, "pool server " + connects.get(), 1 << 20);
    }

    @AfterEach
    void closeServers() throws Exception
    {
        for (final AutoCloseable s : servers)
        {
            s.close();
        }
    }

    private static ReentrantLock callLock(final ClientConnection c) throws Exception
    {
        final Field f = ClientConnection.class.getDeclaredField("lock");
        f.setAccessible(true);
        return (ReentrantLock)f.get(c);
    }

    /**
     * The idle servicer holds the connection's lock (serviceIdle) at the moment a caller takes it
     * from the pool. Had the pre-call read skipped a connection it could not lock, the servicer
     * would then read the REJECT and fail the connection under a call of which nothing was sent
     * (COMM_FAILURE/COMPLETED_MAYBE in the ETF plug-in); it waits for the servicer instead, and
     * the call goes on a new connection.
     */
    @Test
    void aPreReadWaitsForTheServicerAndNeverHandsOutTheConnectionItFails() throws Exception
    {
        try (ConnectionPool pool = new ConnectionPool(this::connect, "test", 4, 1000 * MS))
        {
            final ClientConnection a = pool.acquire();
            a.call(ByteBuffer.wrap(new byte[] {1}), 10_000 * MS);
            pool.release(a);
            Thread.sleep(5); // idle >= IDLE_READ_AFTER_NS

            final ReentrantLock lock = callLock(a);
            final CountDownLatch held = new CountDownLatch(1);
            final AtomicReference<Boolean> servicerResult = new AtomicReference<>();
            // Stand-in for the IdleServicer thread inside ClientConnection.serviceIdle: it holds the
            // lock while it reads (here a few milliseconds, as a descheduled thread may) and finds the REJECT.
            final Thread servicer = new Thread(() ->
            {
                lock.lock();
                try
                {
                    held.countDown();
                    Thread.sleep(5);
                    servicerResult.set(a.serviceIdle(System.nanoTime())); // reentrant: reads the REJECT
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
                finally
                {
                    lock.unlock();
                }
            });
            servicer.start();
            held.await();
            links.get(0).rejected = true; // the closing server's REJECT is now in the socket

            final ClientConnection c = pool.acquire();
            servicer.join();
            assertEquals(Boolean.FALSE, servicerResult.get(), "the servicer found the REJECT");
            IOException failure = null;
            try
            {
                c.call(ByteBuffer.wrap(new byte[] {2}), 10_000 * MS);
            }
            catch (final IOException e)
            {
                failure = e;
            }
            final String what = failure == null ? "ok" : failure.getClass().getSimpleName() + " cause=" +
                (failure instanceof ConnectionFailedException ? ((ConnectionFailedException)failure).closeCause() : null) + ": " +
                failure.getMessage();
            System.out.println("acquire returned " + (c == a ? "the REJECTed connection" : "a new one") + "; call: " + what);
            assertNotSame(a, c, "acquire handed out the connection the servicer was reading; call: " + what);
        }
    }

    /**
     * A RuntimeException out of the pre-call read gives the connection up, as the idle servicer
     * does with its own read's: the call goes on a new connection, and the pool's one slot is
     * free again afterwards (it stayed counted as open, neither idle nor closed).
     */
    @Test
    void aRuntimeExceptionOutOfThePreReadGivesTheConnectionUp() throws Exception
    {
        try (ConnectionPool pool = new ConnectionPool(this::connect, "test", 1, 200 * MS))
        {
            final ClientConnection a = pool.acquire();
            a.call(ByteBuffer.wrap(new byte[] {1}), 10_000 * MS);
            pool.release(a);
            Thread.sleep(5);
            links.get(0).boom = new IllegalStateException("boom");
            final ClientConnection b = pool.acquire();
            assertTrue(b != a, "the failing connection was handed out");
            assertEquals(2, connects.get(), "a new connection was opened in its place");
            assertEquals(1, pool.openConnections());
            b.call(ByteBuffer.wrap(new byte[] {2}), 10_000 * MS);
            pool.release(b);
            pool.release(pool.acquire());
        }
    }

    /**
     * One acquire deadline for all of acquire()'s rounds: a caller that waited most of its timeout,
     * got a connection that failed the pre-call read, and lost the freed slot to another caller
     * waited a whole timeout more when each round started a deadline of its own. (The other
     * caller's acquire is made from the failed link's close, i.e. inside discard(): an
     * interleaving where another thread takes the pool lock between this caller's discard and its
     * next round.)
     */
    @Test
    void theAcquireTimeoutHoldsAcrossAFailedPreRead() throws Exception
    {
        final long timeoutMs = 300;
        // No ack timer: the idle servicer stays out of this interleaving.
        config = MemoryLinkChannelTest.CONFIG.toBuilder().ackDelayNs(0).build();
        try (ConnectionPool pool = new ConnectionPool(this::connect, "test", 1, timeoutMs * MS))
        {
            final ClientConnection a = pool.acquire();
            a.call(ByteBuffer.wrap(new byte[] {1}), 10_000 * MS);
            final AtomicReference<Object> outcome = new AtomicReference<>();
            final long start = System.nanoTime();
            final Thread m = new Thread(() ->
            {
                try
                {
                    outcome.set(pool.acquire());
                }
                catch (final Throwable e)
                {
                    outcome.set(e);
                }
            });
            m.start();
            Thread.sleep(timeoutMs - 60);
            final RejectableLink link = links.get(0);
            link.rejected = true;
            link.onClose = () ->
            {
                if (Thread.currentThread() != m)
                {
                    throw new IllegalStateException("closed by " + Thread.currentThread());
                }
                try
                {
                    pool.acquire(); // another caller takes the slot the discard freed, and keeps it
                }
                catch (final IOException e)
                {
                    throw new IllegalStateException(e);
                }
            };
            pool.release(a); // usable (REJECT unread): goes to the waiting caller m
            m.join();
            final long tookMs = (System.nanoTime() - start) / MS;
            assertTrue(tookMs < timeoutMs + 100, "acquire waited " + tookMs + " ms with a " + timeoutMs + " ms timeout");
        }
    }

    /**
     * No reflection: a caller waits for the pool's only connection; its holder releases it more
     * than the ack delay after its reply, with a REJECT(SERVER_CLOSED) unread. release() wakes the
     * waiter and (dueAt, the ack is overdue) the idle servicer at once; the waiter's pre-call read
     * must not skip the connection while the servicer holds it (it was handed out failing in 50 of
     * 200 rounds when it did).
     */
    @Test
    void aWaiterIsNeverHandedAConnectionTheServicerFailsOnRelease() throws Exception
    {
        int handedOutRejected = 0;
        final int rounds = 200;
        for (int i = 0; i < rounds; i++)
        {
            links.clear();
            try (ConnectionPool pool = new ConnectionPool(this::connect, "test", 1, 5_000 * MS))
            {
                final ClientConnection a = pool.acquire();
                a.call(ByteBuffer.wrap(new byte[] {1}), 10_000 * MS);
                final AtomicReference<ClientConnection> got = new AtomicReference<>();
                final Thread w = new Thread(() ->
                {
                    try
                    {
                        got.set(pool.acquire());
                    }
                    catch (final IOException e)
                    {
                        throw new IllegalStateException(e);
                    }
                });
                w.start();
                while (w.getState() != Thread.State.TIMED_WAITING)
                {
                    Thread.onSpinWait();
                }
                Thread.sleep(3); // past the 2 ms ack delay
                links.get(0).rejected = true;
                pool.release(a);
                w.join();
                if (got.get() == a)
                {
                    handedOutRejected++;
                }
                pool.release(got.get());
            }
        }
        assertEquals(0, handedOutRejected);
    }

    /** No waiter: a caller comes back about when the idle servicer fires the ack timer (ack delay after the reply). */
    @Test
    void aCallerReturningAtTheAckDelayIsNeverHandedTheRejectedConnection() throws Exception
    {
        int handedOutRejected = 0;
        final int rounds = 300;
        for (int i = 0; i < rounds; i++)
        {
            links.clear();
            try (ConnectionPool pool = new ConnectionPool(this::connect, "test", 1, 5_000 * MS))
            {
                final ClientConnection a = pool.acquire();
                a.call(ByteBuffer.wrap(new byte[] {1}), 10_000 * MS);
                final long replyNs = System.nanoTime();
                pool.release(a);
                links.get(0).rejected = true;
                final long target = replyNs + 2 * MS + (i % 20) * 50_000L; // 2.0 .. 2.95 ms after the reply
                while (System.nanoTime() - target < 0)
                {
                    Thread.onSpinWait();
                }
                final ClientConnection c = pool.acquire();
                if (c == a)
                {
                    handedOutRejected++;
                }
                pool.release(c);
            }
        }
        assertEquals(0, handedOutRejected);
    }
}
