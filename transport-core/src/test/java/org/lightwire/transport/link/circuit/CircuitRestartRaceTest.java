package org.lightwire.transport.link.circuit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.LinkServerDriver;
import org.lightwire.transport.channel.RequestHandler;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.memory.Faults;
import org.lightwire.transport.link.memory.MemoryLink;

/**
 * What a server's circuit end sends is stamped
 * with the connection id current when it is sent, not with the id of the session that sends it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CircuitRestartRaceTest
{
    private static final long MS = 1_000_000L;
    private static final EngineConfig CONFIG = EngineConfig.builder().retransmitInitialNs(20 * MS).retransmitMaxNs(200 * MS)
        .peerTimeoutNs(5_000 * MS).build();

    private final Map<String, Integer> executions = new ConcurrentHashMap<>();

    private static ByteBuffer text(final String s)
    {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String string(final ByteBuffer reply)
    {
        final byte[] bytes = new byte[reply.remaining()];
        reply.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static ClientConnection client(final Link end) throws IOException
    {
        return new ClientConnection(CircuitClientLink.connect(end, "pvc 0.0.100", 5_000 * MS, 50 * MS), CONFIG, "pvc 0.0.100", 1 << 20);
    }

    /**
     * The hazard: a session replaced because its client connected anew (PeerRestartedException) is
     * closed but its engine lives on; a reply that its handler sends afterwards (from a worker, or
     * JacORB's request processor in the ETF plug-in) goes out through CircuitServerLink.send, which
     * stamps it with the NEW connection's id. The new incarnation, whose call numbers start again
     * at 1, takes its predecessor's reply of call 1 for the reply of its own call 1.
     * (A client whose call timed out and that reconnects is such a new incarnation too.)
     */
    @Test
    void aReplacedSessionsLateReplyIsNeverTakenByTheNewIncarnation() throws Exception
    {
        final CountDownLatch releaseFirst = new CountDownLatch(1);
        final CountDownLatch releaseSecond = new CountDownLatch(1);
        final CountDownLatch firstReplied = new CountDownLatch(1);
        final RequestHandler slow = call ->
        {
            final byte[] bytes = new byte[call.request().remaining()];
            call.request().get(bytes);
            final String request = new String(bytes, StandardCharsets.UTF_8);
            executions.merge(request, 1, Integer::sum);
            try
            {
                (request.startsWith("first") ? releaseFirst : releaseSecond).await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            call.reply(ByteBuffer.wrap(("reply to " + request).getBytes(StandardCharsets.UTF_8)));
            if (request.startsWith("first"))
            {
                firstReplied.countDown();
            }
        };
        final ExecutorService workers = Executors.newCachedThreadPool();
        final MemoryLink.Pair circuit = MemoryLink.pair(11L, Faults.NONE, Faults.NONE, 1500);
        final CircuitServerLink serverEnd = new CircuitServerLink(circuit.b(), "pvc 1.0.100");
        try (LinkServerDriver server = new LinkServerDriver(serverEnd, CONFIG, slow, workers, 1 << 20, "aal5").start())
        {
            // The first incarnation's call 1 is executing when its process dies.
            final ClientConnection first = client(new Unclosed(circuit.a()));
            first.startCall(text("first 1"));
            awaitTrue(() -> executions.containsKey("first 1"));

            // The next incarnation connects and sends its own call 1.
            final ClientConnection second = client(circuit.a());
            second.startCall(text("second 1"));
            awaitTrue(() -> executions.containsKey("second 1"));

            // The old call's servant finishes now, then the new one.
            releaseFirst.countDown();
            firstReplied.await(10, TimeUnit.SECONDS);
            releaseSecond.countDown();

            assertEquals("reply to second 1", string(second.awaitReply(10_000 * MS)),
                "the new incarnation took its predecessor's reply for its own");
            second.close();
        }
        finally
        {
            workers.shutdownNow();
        }
    }

    /**
     * The hazard: LinkServerDriver keeps the first send failure in {@code failure} for ever and, on
     * every turn of its loop, makes the current session a zombie with it. Over a circuit the
     * zombie is forgotten and replaced, but the next session is killed on the next turn, and the
     * next: after one failed send (a transient error of the circuit, or a reply sent by a replaced
     * session while no connection is open) no client is ever served again; each gets a REJECT.
     */
    @Test
    void oneFailedSendDoesNotStopTheServerFromServingTheNextConnection() throws Exception
    {
        final RequestHandler echo = call ->
        {
            final byte[] bytes = new byte[call.request().remaining()];
            call.request().get(bytes);
            call.reply(ByteBuffer.wrap(bytes));
        };
        final MemoryLink.Pair circuit = MemoryLink.pair(12L, Faults.NONE, Faults.NONE, 1500);
        final FailingOnce serverSide = new FailingOnce(circuit.b());
        final CircuitServerLink serverEnd = new CircuitServerLink(serverSide, "pvc 1.0.100");
        final EngineConfig quick = CONFIG.toBuilder().peerTimeoutNs(400 * MS).retransmitMaxNs(100 * MS).build();
        try (LinkServerDriver server = new LinkServerDriver(serverEnd, quick, echo, null, 1 << 20, "aal5").start())
        {
            final ClientConnection before = client(new Unclosed(circuit.a()));
            assertEquals("one", string(before.call(text("one"), 10_000 * MS)));
            // The circuit refuses one send (the reply of the next call): that connection is lost.
            serverSide.failNext.set(true);
            try
            {
                before.call(text("two"), 3_000 * MS);
            }
            catch (final IOException expected)
            {
                // This call may fail: its reply could not be sent.
            }
            before.close();
            Thread.sleep(300);
            // A new connection on the same circuit must be served.
            final ClientConnection after = client(circuit.a());
            assertEquals("three", string(after.call(text("three"), 5_000 * MS)), "server after one failed send: " + server.failure());
            after.close();
        }
    }

    private static void awaitTrue(final java.util.function.BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("not within 20 s");
            }
            Thread.sleep(2);
        }
    }

    /** A circuit end whose next send fails once when asked to. */
    private static final class FailingOnce implements Link
    {
        final AtomicBoolean failNext = new AtomicBoolean();
        private final Link end;

        FailingOnce(final Link end)
        {
            this.end = end;
        }

        @Override
        public void send(final ByteBuffer header, final ByteBuffer payload) throws IOException
        {
            if (failNext.compareAndSet(true, false))
            {
                throw new IOException("transient send failure (ENOBUFS)");
            }
            end.send(header, payload);
        }

        @Override
        public int receive(final ByteBuffer dst, final long timeoutNs) throws IOException
        {
            return end.receive(dst, timeoutNs);
        }

        @Override
        public int maxPacketBytes()
        {
            return end.maxPacketBytes();
        }

        @Override
        public boolean preservesOrder()
        {
            return end.preservesOrder();
        }

        @Override
        public void close() throws IOException
        {
            end.close();
        }
    }

    /** A circuit end that outlives the link made over it. */
    private static final class Unclosed implements Link
    {
        private final Link end;

        Unclosed(final Link end)
        {
            this.end = end;
        }

        @Override
        public void send(final ByteBuffer header, final ByteBuffer payload) throws IOException
        {
            end.send(header, payload);
        }

        @Override
        public int receive(final ByteBuffer dst, final long timeoutNs) throws IOException
        {
            return end.receive(dst, timeoutNs);
        }

        @Override
        public int maxPacketBytes()
        {
            return end.maxPacketBytes();
        }

        @Override
        public boolean preservesOrder()
        {
            return end.preservesOrder();
        }

        @Override
        public void close()
        {
        }
    }
}
