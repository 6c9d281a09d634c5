package org.lightwire.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lightwire.transport.engine.Recorder.data;
import static org.lightwire.transport.engine.Recorder.pattern;
import static org.lightwire.transport.protocol.MessageType.PARTIAL;

import org.junit.jupiter.api.Test;

/** A one-way dripped out, one packet per less than the peer timeout, is given up at the request timeout. */
class DrippedOneWayTest
{
    private static final long MS = 1_000_000L;

    /**
     * The hazard: the request timeout applies to exactly-once requests only (requestOverdue,
     * nextDeadlineNs), and each packet resets the peer timeout, so a one-way dripped one packet
     * per (peer timeout - epsilon) is never given up: its assembly buffer grows and stays charged
     * to the request memory budget for as long as the client cares to drip (up to maxMessageBytes
     * per connection, and the connection is never idle-closed either).
     */
    @Test
    void aOneWayDrippedSlowerThanTheRequestTimeoutIsGivenUp()
    {
        final EngineConfig config = ClientEngineTest.CONFIG.toBuilder().requestTimeoutNs(3_000 * MS).build();
        final Recorder rec = new Recorder();
        final ServerEngine server = new ServerEngine(config, rec, rec, rec);
        long t = 7_000 * MS;
        final long end = t + 10 * config.requestTimeoutNs();
        for (int p = 0; t - end < 0; p++)
        {
            long deadline = server.nextDeadlineNs();
            while (deadline != ProtocolEngine.NO_DEADLINE && deadline - t <= 0)
            {
                server.onTimer(deadline);
                deadline = server.nextDeadlineNs();
            }
            if (server.state() != ServerEngine.State.REQUEST_IN_PROGRESS && p > 0)
            {
                break;
            }
            server.onPacket(data(PARTIAL, false, 1, p, true, pattern(50, p)), t);
            t += config.peerTimeoutNs() * 9 / 10;
        }
        assertEquals(1, rec.aborts.size(), "after ten request timeouts the dripped one-way still holds its request (state " +
            server.state() + ", " + rec.deliveredChunks.size() + " packets taken)");
    }
}
