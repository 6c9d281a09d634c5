package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.link.memory.Faults;
import org.lightwire.transport.link.memory.MemoryLink;
import org.lightwire.transport.link.memory.PacketKind;

/**
 * A pooled connection left idle after a call whose CALL_ACK was lost: the server resends its
 * reply until it hears from the client, and the pool's servicer must read and answer it. It only
 * read connections whose own timer was due, and an idle connection has none once its CALL_ACK
 * is sent: the server held the reply until its peer timeout closed the connection, and the
 * client's next call on it failed (found by the loss sweep: at 10% kernel loss a null call over
 * JacORB failed with COMM_FAILURE, PEER_SILENT, after the connection sat idle for 10 s).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdleServicerTest
{
    private static final long MS = MemoryLinkChannelTest.MS;

    @Test
    void anIdleConnectionAcknowledgesTheRepliesItsServerResends() throws Exception
    {
        final MemoryLink.Pair pair = MemoryLink.pair(11, Faults.NONE, Faults.NONE, 1500);
        final MemoryLinkChannelTest.Echo echo = new MemoryLinkChannelTest.Echo();
        final ClientConnection connection = new ClientConnection(pair.a(), MemoryLinkChannelTest.CONFIG, "idle", 1 << 20);
        try (LinkServerDriver server = new LinkServerDriver(pair.b(), MemoryLinkChannelTest.CONFIG, echo, null, 1 << 20, "idle").start();
             ConnectionPool pool = new ConnectionPool(() -> connection, "idle", 1, 1_000 * MS))
        {
            // Every control packet from the client is lost: the call's CALL_ACK among them.
            pair.a().faults(Faults.builder().dropRate(PacketKind.CONTROL, 1.0).build());
            final ClientConnection c = pool.acquire();
            final ByteBuffer reply = c.call(ByteBuffer.wrap(new byte[] {0, 0, 0, 1, 42}), 10_000 * MS);
            final byte[] got = new byte[reply.remaining()];
            reply.get(got);
            assertArrayEquals(new byte[] {0, 0, 0, 1, 42}, got);
            pool.release(c);
            // (A sweep of the servicer may already have read and answered a resent reply, as lost.)
            awaitTrue(() -> connection.counters().callAcksSent() >= 1 && server.session().counters().retransmissions() >= 2,
                "the CALL_ACK was sent (and lost) and the server resent its reply");
            final long acksBefore = connection.counters().callAcksSent();
            pair.a().faults(Faults.NONE);
            // The connection stays idle: only the servicer can read the resent reply and answer it.
            awaitTrue(() -> connection.counters().callAcksSent() > acksBefore, "an idle connection answered its server's resent reply");
            final long resent = server.session().counters().retransmissions();
            Thread.sleep(300);
            assertEquals(resent, server.session().counters().retransmissions(), "acknowledged: the server no longer resends");
            assertFalse(server.session().isZombie());
            assertEquals(1, pool.connectsMade());
        }
    }

    private static void awaitTrue(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new AssertionError("not within 10 s: " + what);
            }
            Thread.sleep(5);
        }
    }
}
