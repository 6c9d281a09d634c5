package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.engine.ConnectionCounters;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpClientLink;
import org.lightwire.transport.link.udp.UdpLinkConfig;
import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.HeaderFlyweight;
import org.lightwire.transport.protocol.MessageType;

/** The server's resource bounds and handler failures, over loopback sockets. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerResourceTest
{
    private static final long MS = 1_000_000L;
    private static final int PACKET = 8192;
    private static final int PAYLOAD = PACKET - HeaderFlyweight.HEADER_LENGTH;

    private static void sendStart(final UdpClientLink link, final boolean exactlyOnce, final int packets) throws IOException
    {
        final ByteBuffer header = ByteBuffer.allocate(HeaderFlyweight.HEADER_LENGTH);
        final ByteBuffer payload = ByteBuffer.allocate(PAYLOAD);
        for (int p = 0; p < packets; p++)
        {
            new HeaderFlyweight().wrap(header, 0).set(MessageType.PARTIAL, exactlyOnce, PACKET, 1, p, true);
            header.clear();
            payload.clear();
            link.send(header, payload);
        }
    }

    /**
     * The hazard: a one-way whose tail never comes is given up by the engine's timer after the peer
     * timeout (abortOneWay -> onMessageAborted -> AssemblyBuffer.reset), but reset() keeps a buffer
     * of up to 1 MiB, still charged to the budget. UdpServer.tick tried to trim it a second after
     * the last packet, while the request was still being put together (a no-op), and set
     * Entry.trimmed; no packet comes to clear the flag, so it is never trimmed again: the memory
     * stays charged until the idle timeout (10 minutes), not "returned" as docs/protocol.md
     * section 11 says. Thousands of such connections hold the whole budget for ten minutes.
     */
    @Test
    void anAbandonedOneWayGivesItsMemoryBackWhenItIsGivenUp() throws Exception
    {
        final RequestMemoryBudget budget = new RequestMemoryBudget(64L << 20);
        final EngineConfig engine = EngineConfig.defaults().toBuilder().peerTimeoutNs(2_500 * MS).build();
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), engine, UdpLinkConfig.defaults(),
                UdpServerTest.ECHO, null, 4 << 20, UdpServer.DEFAULT_IDLE_TIMEOUT_NS, budget);
             UdpClientLink attacker = UdpClientLink.connect(server.localAddress(), UdpLinkConfig.defaults()))
        {
            // The start of a one-way of many packets (160 KiB), and silence.
            sendStart(attacker, false, 20);
            awaitTrue(() -> budget.usedBytes() > 0, "the one-way is being put together " + budget);
            awaitTrue(() -> server.sum(ConnectionCounters::aborts) == 1, "the one-way was given up at the peer timeout");
            // Given up: its memory should go back (at the latest at the next quiet-trim, 1 s).
            Thread.sleep(2_500);
            assertEquals(0, budget.usedBytes(), "the abandoned one-way still holds budget memory: " + budget);
        }
    }

    /**
     * The hazard: only a RuntimeException thrown by RequestHandler.onRequest fails the connection with
     * HANDLER_FAILED (ServerSession.RequestAssembler.handle). A handler that throws an Error
     * (AssertionError, StackOverflowError, NoClassDefFoundError, ...) escapes to the front-end,
     * which swallows it; the engine stays EXECUTING and answers every NACK "still executing", so
     * the client waits until its own timeout (for ever without one), which is exactly what
     * HANDLER_FAILED was added to prevent.
     */
    @Test
    void aHandlerThatThrowsAnErrorEndsItsCallWithHandlerFailed() throws Exception
    {
        final RequestHandler broken = call ->
        {
            throw new AssertionError("servant bug");
        };
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(),
                broken, null, 1 << 20, UdpServer.DEFAULT_IDLE_TIMEOUT_NS);
             UdpClient client = UdpClient.withDefaults())
        {
            final IOException e = assertThrows(IOException.class,
                () -> client.call(server.localAddress(), ByteBuffer.wrap(new byte[] {1}), 5_000 * MS, r -> r.get()));
            assertTrue(e instanceof ConnectionFailedException && ((ConnectionFailedException)e).closeCause() == CloseCause.HANDLER_FAILED,
                "expected HANDLER_FAILED, got " + e);
        }
    }

    /**
     * The hazard: with an executor, a request is handed over with executor.execute(...) outside the
     * try/catch of handle(); an executor that refuses it (a bounded pool under load: the JDK's
     * default AbortPolicy throws RejectedExecutionException) leaves the call EXECUTING for ever,
     * its client waiting until its own timeout.
     */
    @Test
    void aRequestTheExecutorRefusesEndsItsCall() throws Exception
    {
        final java.util.concurrent.Executor full = task ->
        {
            throw new RejectedExecutionException("pool full");
        };
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(),
                UdpServerTest.ECHO, full, 1 << 20, UdpServer.DEFAULT_IDLE_TIMEOUT_NS);
             UdpClient client = UdpClient.withDefaults())
        {
            final IOException e = assertThrows(IOException.class,
                () -> client.call(server.localAddress(), ByteBuffer.wrap(new byte[] {1}), 5_000 * MS, r -> r.get()));
            assertTrue(e instanceof ConnectionFailedException && ((ConnectionFailedException)e).closeCause() != null,
                "expected the server to end the call with a cause, got " + e);
        }
    }

    static void awaitTrue(final java.util.function.BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("not within 30 s: " + what);
            }
            Thread.sleep(5);
        }
    }
}
