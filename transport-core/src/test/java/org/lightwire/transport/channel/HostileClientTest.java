package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.PeerResetException;
import org.lightwire.transport.link.udp.UdpClientLink;
import org.lightwire.transport.link.udp.UdpLinkConfig;
import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.HeaderFlyweight;
import org.lightwire.transport.protocol.MessageType;

/**
 * Clients that do not play by the rules, against a real server over loopback sockets: one that
 * sends the start of large requests and stops, and a request handler that throws. Each must cost
 * the server bounded memory and time, and be told why its call ended.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileClientTest
{
    private static final long MS = 1_000_000L;
    private static final int PACKET = 8192;
    private static final int PAYLOAD = PACKET - HeaderFlyweight.HEADER_LENGTH;

    /** Sends the first {@code packets} packets of call 1, a request of many more, and stops. */
    private static void sendStartOfARequest(final UdpClientLink link, final int packets) throws IOException
    {
        final ByteBuffer header = ByteBuffer.allocate(HeaderFlyweight.HEADER_LENGTH);
        final ByteBuffer payload = ByteBuffer.allocate(PAYLOAD);
        for (int p = 0; p < packets; p++)
        {
            new HeaderFlyweight().wrap(header, 0).set(MessageType.PARTIAL, true, PACKET, 1, p, true);
            header.clear();
            payload.clear();
            link.send(header, payload);
        }
    }

    @Test
    void halfSentRequestsHoldNoMoreThanTheBudgetAndAreGivenUpAtTheRequestTimeout() throws Exception
    {
        // Room for two of the half-sent requests below (their buffers grow by doubling, to about
        // 256 KiB for 160 KiB received), not for eight.
        final RequestMemoryBudget budget = new RequestMemoryBudget(600 * 1024);
        final EngineConfig engine = EngineConfig.defaults().toBuilder().requestTimeoutNs(2_000 * MS).build();
        final AtomicInteger executed = new AtomicInteger();
        final RequestHandler echo = call ->
        {
            executed.incrementAndGet();
            UdpServerTest.ECHO.onRequest(call);
        };
        final List<UdpClientLink> attackers = new ArrayList<>();
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), engine, UdpLinkConfig.defaults(), echo, null,
                4 << 20, UdpServer.DEFAULT_IDLE_TIMEOUT_NS, budget);
             UdpClient client = UdpClient.withDefaults())
        {
            final InetSocketAddress address = server.localAddress();
            // Eight clients each send 20 packets (160 KiB) of a 4 MiB request and fall silent:
            // 1.3 MiB wanted, 600 KiB allowed.
            for (int i = 0; i < 8; i++)
            {
                final UdpClientLink link = UdpClientLink.connect(address, UdpLinkConfig.defaults());
                attackers.add(link);
                sendStartOfARequest(link, 20);
            }
            awaitTrue(() -> budget.refusals() > 0, "refusals " + budget);
            assertTrue(budget.peakBytes() <= budget.limitBytes(), budget.toString());

            // Small calls need no assembly memory: served throughout.
            for (int i = 0; i < 50; i++)
            {
                final byte value = (byte)i;
                assertEquals(value, (byte)client.call(address, ByteBuffer.wrap(new byte[] {value}), 10_000 * MS, r -> r.get()));
            }

            // At the request timeout every half-sent request is given up and its memory freed.
            awaitTrue(() -> budget.usedBytes() == 0, "memory freed " + budget);
            assertEquals(0, executed.get() - 50, "no half-sent request executed");
            // The clients learn why: over budget (refused at once) or their request timed out.
            int overBudget = 0;
            int timedOut = 0;
            for (final UdpClientLink link : attackers)
            {
                final CloseCause cause = causeOfReject(link);
                overBudget += cause == CloseCause.MEMORY_BUDGET ? 1 : 0;
                timedOut += cause == CloseCause.REQUEST_TIMEOUT ? 1 : 0;
            }
            assertEquals(8, overBudget + timedOut, "every attacker learnt why: " + overBudget + " over budget, " + timedOut + " timed out");
            assertTrue(overBudget > 0 && timedOut > 0, overBudget + " over budget, " + timedOut + " timed out");

            // And a large request is served once the memory is back.
            final byte[] large = new byte[200 * 1024];
            new java.util.Random(5).nextBytes(large);
            final byte[] reply = client.call(address, ByteBuffer.wrap(large), 10_000 * MS, r ->
            {
                final byte[] b = new byte[r.remaining()];
                r.get(b);
                return b;
            });
            assertArrayEquals(large, reply);
            assertTrue(budget.peakBytes() <= budget.limitBytes(), budget.toString());
        }
        finally
        {
            for (final UdpClientLink link : attackers)
            {
                link.close();
            }
        }
    }

    /** Sends one more packet of call 1 and returns the cause the server's REJECT names. */
    private static CloseCause causeOfReject(final UdpClientLink link) throws IOException
    {
        sendStartOfARequest(link, 1);
        final PeerResetException reset = assertThrows(PeerResetException.class,
            () -> link.receive(ByteBuffer.allocate(link.maxPacketBytes()), TimeUnit.SECONDS.toNanos(10)));
        return reset.closeCause();
    }

    @Test
    void aHandlerThatThrowsEndsItsCallWithACauseInsteadOfLeavingItForever() throws Exception
    {
        final RequestHandler broken = call ->
        {
            throw new IllegalStateException("servant bug");
        };
        try (UdpServer server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(),
                broken, null, 1 << 20, UdpServer.DEFAULT_IDLE_TIMEOUT_NS);
             UdpClient client = UdpClient.withDefaults())
        {
            // The call has no timeout of its own (an hour): only the server's answer can end it.
            final ConnectionFailedException e = assertThrows(ConnectionFailedException.class,
                () -> client.call(server.localAddress(), ByteBuffer.wrap(new byte[] {1}), TimeUnit.HOURS.toNanos(1), r -> r.get()));
            assertEquals(CloseCause.HANDLER_FAILED, e.closeCause());
            assertTrue(e.getMessage().contains("the server application failed while it handled the request"), e.getMessage());
            assertEquals(false, e.notExecuted(), "the handler ran: the call may have had effects");
            awaitTrue(() -> server.connections() == 0, "the connection was closed");
        }
    }

    private static void awaitTrue(final java.util.function.BooleanSupplier condition, final String what) throws InterruptedException
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
