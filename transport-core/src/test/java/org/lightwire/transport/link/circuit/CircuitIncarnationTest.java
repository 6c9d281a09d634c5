package org.lightwire.transport.link.circuit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.ConnectionFailedException;
import org.lightwire.transport.channel.LinkServerDriver;
import org.lightwire.transport.channel.RequestHandler;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.memory.Faults;
import org.lightwire.transport.link.memory.MemoryLink;
import org.lightwire.transport.protocol.CloseCause;

/**
 * A process restarted on either end of a circuit, over an in-memory circuit (the qemu kernel test
 * runs the same over AAL5): each incarnation has its own connection id, so a restarted server
 * never executes a call again that its predecessor had executed, and a restarted client never
 * takes its predecessor's reply for its own.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CircuitIncarnationTest
{
    private static final long MS = 1_000_000L;
    private static final EngineConfig CONFIG = EngineConfig.builder().retransmitInitialNs(20 * MS).retransmitMaxNs(200 * MS)
        .peerTimeoutNs(5_000 * MS).build();

    /** How often each request (by its bytes) was executed, across every server incarnation. */
    private final Map<String, Integer> executions = new ConcurrentHashMap<>();

    /** Echoes every request, except one whose bytes say "crash": executed, never answered (its process dies). */
    private final RequestHandler echo = call ->
    {
        final byte[] bytes = new byte[call.request().remaining()];
        call.request().get(bytes);
        final String text = new String(bytes, StandardCharsets.UTF_8);
        executions.merge(text, 1, Integer::sum);
        if (!text.startsWith("crash"))
        {
            call.reply(ByteBuffer.wrap(bytes));
        }
    };

    private static ByteBuffer text(final String s)
    {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String call(final ClientConnection c, final String request) throws IOException
    {
        final ByteBuffer reply = c.call(text(request), 10_000 * MS);
        final byte[] bytes = new byte[reply.remaining()];
        reply.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static ClientConnection client(final Link end) throws IOException
    {
        return new ClientConnection(CircuitClientLink.connect(end, "pvc 0.0.100", 5_000 * MS, 50 * MS), CONFIG, "pvc 0.0.100", 1 << 20);
    }

    @Test
    void aRestartedClientIsANewConnectionAndNeverGetsItsPredecessorsReply() throws Exception
    {
        final MemoryLink.Pair circuit = MemoryLink.pair(3L, Faults.NONE, Faults.NONE, 1500);
        final CircuitServerLink serverEnd = new CircuitServerLink(circuit.b(), "pvc 1.0.100");
        try (LinkServerDriver server = new LinkServerDriver(serverEnd, CONFIG, echo, null, 1 << 20, "aal5").start())
        {
            final ClientConnection first = client(new Unclosed(circuit.a()));
            for (int i = 1; i <= 5; i++)
            {
                assertEquals("first " + i, call(first, "first " + i));
            }
            // The first incarnation sends call 6 and dies before reading the reply, which the
            // server sends on the first connection's id.
            first.startCall(text("first 6"));
            awaitTrue(() -> executions.containsKey("first 6"));
            final long firstId = serverEnd.connectionId();

            final ClientConnection second = client(circuit.a());
            assertNotEquals(firstId, serverEnd.connectionId());
            for (int i = 1; i <= 5; i++)
            {
                // Call numbers start again at 1: the server serves them as new calls of a new connection.
                assertEquals("second " + i, call(second, "second " + i));
            }
            for (final Map.Entry<String, Integer> e : executions.entrySet())
            {
                assertEquals(1, e.getValue(), "executions of " + e.getKey());
            }
            assertEquals(11, executions.size());
            assertTrue(((CircuitClientLink)second.link()).dropped() >= 1, "call 6's reply reached the new client and was dropped");
            assertTrue(server.session().name().endsWith("#2"), "a fresh session serves each connection: " + server.session().name());
            second.close();
        }
    }

    @Test
    void aRestartedServerNeverExecutesACallItsPredecessorExecuted() throws Exception
    {
        final MemoryLink.Pair circuit = MemoryLink.pair(4L, Faults.NONE, Faults.NONE, 1500);
        final ClientConnection client;
        try (LinkServerDriver first = new LinkServerDriver(new CircuitServerLink(new Unclosed(circuit.b()), "pvc 1.0.100"), CONFIG, echo,
            null, 1 << 20, "aal5").start())
        {
            client = client(new Unclosed(circuit.a()));
            for (int i = 1; i <= 4; i++)
            {
                assertEquals("call " + i, call(client, "call " + i));
            }
            // Call 5 is executed, and the server dies before it replies.
            client.startCall(text("crash 5"));
            awaitTrue(() -> executions.containsKey("crash 5"));
        }
        try (LinkServerDriver second = new LinkServerDriver(new CircuitServerLink(circuit.b(), "pvc 1.0.100"), CONFIG, echo,
            null, 1 << 20, "aal5").start())
        {
            // The client asks for call 5's reply again; the new server knows no such connection.
            final ConnectionFailedException e = assertThrows(ConnectionFailedException.class, () -> client.awaitReply(10_000 * MS));
            assertEquals(CloseCause.UNKNOWN, e.closeCause());
            assertFalse(e.notExecuted(), "the call may have been executed: the client must not send it again");
            assertEquals(1, executions.get("crash 5"));

            // A new connection of the same client process is served by the new server.
            final ClientConnection again = client(circuit.a());
            assertEquals("call 6", call(again, "call 6"));
            assertEquals(1, executions.get("crash 5"));
            again.close();
        }
    }

    @Test
    void aConnectionTheServerGaveUpIsRejectedWithItsCauseAndTheNextConnects() throws Exception
    {
        final MemoryLink.Pair circuit = MemoryLink.pair(5L, Faults.NONE, Faults.NONE, 1500);
        final EngineConfig quick = CONFIG.toBuilder().peerTimeoutNs(400 * MS).retransmitMaxNs(100 * MS).build();
        final CircuitServerLink serverEnd = new CircuitServerLink(circuit.b(), "pvc 1.0.100");
        try (LinkServerDriver server = new LinkServerDriver(serverEnd, quick, echo, null, 1 << 20, "aal5").start())
        {
            final ClientConnection client = client(new Unclosed(circuit.a()));
            assertEquals("before", call(client, "before"));
            // The circuit loses call 2's reply, then everything: the server holds the reply, hears
            // nothing for its peer timeout, and gives the connection up.
            final Faults cut = Faults.builder().dropRate(1.0).build();
            circuit.b().faults(cut);
            client.startCall(text("during"));
            awaitTrue(() -> executions.containsKey("during"));
            circuit.a().faults(cut);
            awaitTrue(() -> serverEnd.connectionId() == 0);
            circuit.a().faults(Faults.NONE);
            circuit.b().faults(Faults.NONE);
            // The client's next NACK gets a REJECT that says why.
            final ConnectionFailedException e = assertThrows(ConnectionFailedException.class, () -> client.awaitReply(10_000 * MS));
            assertEquals(CloseCause.PEER_SILENT, e.closeCause());
            assertFalse(e.notExecuted());
            final ClientConnection next = client(circuit.a());
            assertEquals("after", call(next, "after"));
            assertEquals(1, executions.get("during"));
            next.close();
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

    /** A circuit end that outlives the link made over it, as a PVC outlives the process that used it. */
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
            // The process goes; the circuit stays for the next one.
        }
    }
}
