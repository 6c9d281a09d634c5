package org.lightwire.transport.channel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.transport.channel.IdleServicerTestSupport.MS;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JVM's one {@link IdleServicer} serves every pool: a pool whose servicing throws (here a
 * link whose receive throws a RuntimeException, as a link bug would) is counted and skipped, and
 * the other pools' idle connections are still served (their CALL_ACK goes).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdleServicerIsolationTest
{
    @Test
    void aPoolWhoseServicingThrowsDoesNotStopTheOthers() throws Exception
    {
        try (IdleServicerTestSupport s = new IdleServicerTestSupport())
        {
            final IdleServicerTestSupport.GateLink[] gate = new IdleServicerTestSupport.GateLink[1];
            final ClientConnection cb = s.echo(gate);
            final ClientConnection ca = s.echo(null);
            try (ConnectionPool brokenPool = new ConnectionPool(() -> cb, "broken", 1, 1_000 * MS);
                 ConnectionPool healthyPool = new ConnectionPool(() -> ca, "healthy", 1, 1_000 * MS))
            {
                final long failuresBefore = IdleServicer.shared().failures();
                final ClientConnection b = brokenPool.acquire();
                b.call(ByteBuffer.wrap(new byte[] {0, 0, 0, 1, 1}), 10_000 * MS);
                gate[0].throwOnce = new IllegalStateException("a broken link");
                brokenPool.release(b);
                IdleServicerTestSupport.await(() -> IdleServicer.shared().failures() > failuresBefore,
                    "the broken pool's servicing threw and was counted");

                final ClientConnection a = healthyPool.acquire();
                final ByteBuffer reply = a.call(ByteBuffer.wrap(new byte[] {0, 0, 0, 1, 42}), 10_000 * MS);
                final byte[] got = new byte[reply.remaining()];
                reply.get(got);
                assertArrayEquals(new byte[] {0, 0, 0, 1, 42}, got);
                healthyPool.release(a);
                IdleServicerTestSupport.await(() -> IdleServicerTestSupport.acks(a) == 1, "the healthy pool's CALL_ACK went: the servicer still runs");
                assertTrue(IdleServicer.shared().failures() > failuresBefore);
            }
        }
    }
}
