package org.lightwire.transport.link.udp;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ClientSetupHandshakeTest
{
    private static final long NONCE = 0x0102030405060708L;
    private static final long MS = 1_000_000L;
    private static final long START_NS = Long.MAX_VALUE - 500 * MS; // deadlines wrap: compared wrap-safely

    private final ClientSetupHandshake handshake = new ClientSetupHandshake(NONCE, 4000, 1000 * MS, 100 * MS);

    @Test
    void writesAConnectDatagram()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(40);
        assertEquals(32, handshake.writeConnect(buffer, 8));
        final byte[] datagram = new byte[32];
        buffer.get(8, datagram);
        assertArrayEquals(new byte[] {
            0, 0, 0, 0, 0, 0, 0, 0,
            1, 1, 0x0F, (byte)0xA0, 0, 0, 0, 0,
            1, 2, 3, 4, 5, 6, 7, 8,
            0, 0, 0, 0, 0, 0, 0, 0}, datagram);
    }

    @Test
    void retransmitsAtDoublingIntervalsThenTimesOut()
    {
        handshake.start(START_NS);
        assertEquals(START_NS + 100 * MS, handshake.nextDeadlineNs());
        assertEquals(ClientSetupHandshake.Action.NONE, handshake.onTimer(START_NS + 99 * MS));
        assertEquals(ClientSetupHandshake.Action.RETRANSMIT, handshake.onTimer(START_NS + 100 * MS));
        assertEquals(START_NS + 300 * MS, handshake.nextDeadlineNs());
        assertEquals(ClientSetupHandshake.Action.NONE, handshake.onTimer(START_NS + 299 * MS));
        assertEquals(ClientSetupHandshake.Action.RETRANSMIT, handshake.onTimer(START_NS + 300 * MS));
        assertEquals(START_NS + 700 * MS, handshake.nextDeadlineNs());
        assertEquals(ClientSetupHandshake.Action.RETRANSMIT, handshake.onTimer(START_NS + 700 * MS));
        // The next retry (1500 ms) is after the give-up deadline (1000 ms).
        assertEquals(START_NS + 1000 * MS, handshake.nextDeadlineNs());
        assertEquals(ClientSetupHandshake.Action.TIMED_OUT, handshake.onTimer(START_NS + 1000 * MS));
        assertEquals(ClientSetupHandshake.State.TIMED_OUT, handshake.state());
        assertEquals(4, handshake.connectsSent());
    }

    @Test
    void acceptOfTheOnlyConnectMeasuresRttAndNegotiatesTheSmallerMax()
    {
        handshake.start(START_NS);
        assertEquals(ClientSetupHandshake.Outcome.ACCEPTED, handshake.onSetup(accept(NONCE, 42, 3000), START_NS + 7 * MS));
        assertEquals(ClientSetupHandshake.State.ACCEPTED, handshake.state());
        assertEquals(42, handshake.connectionId());
        assertEquals(3000, handshake.negotiatedMaxPacketBytes());
        assertEquals(7 * MS, handshake.setupRttNs());
    }

    @Test
    void acceptAfterARetransmissionHasNoRttByKarnsRule()
    {
        handshake.start(START_NS);
        assertEquals(ClientSetupHandshake.Action.RETRANSMIT, handshake.onTimer(START_NS + 100 * MS));
        assertEquals(ClientSetupHandshake.Outcome.ACCEPTED, handshake.onSetup(accept(NONCE, 42, 9000), START_NS + 101 * MS));
        assertEquals(-1, handshake.setupRttNs());
        assertEquals(4000, handshake.negotiatedMaxPacketBytes());
    }

    @Test
    void acceptWithAnotherNonceOrAfterAcceptanceIsStray()
    {
        handshake.start(START_NS);
        assertEquals(ClientSetupHandshake.Outcome.STRAY_ACCEPT, handshake.onSetup(accept(NONCE + 1, 42, 4000), START_NS));
        assertEquals(ClientSetupHandshake.State.CONNECTING, handshake.state());
        assertEquals(ClientSetupHandshake.Outcome.ACCEPTED, handshake.onSetup(accept(NONCE, 42, 4000), START_NS));
        assertEquals(ClientSetupHandshake.Outcome.STRAY_ACCEPT, handshake.onSetup(accept(NONCE, 43, 4000), START_NS));
        assertEquals(42, handshake.connectionId());
    }

    @Test
    void rejectAndConnectAreIgnored()
    {
        handshake.start(START_NS);
        final SetupFlyweight reject = new SetupFlyweight().wrap(ByteBuffer.allocate(24), 0)
            .set(SetupFlyweight.Kind.REJECT, 4000, 0, 42);
        assertEquals(ClientSetupHandshake.Outcome.IGNORED, handshake.onSetup(reject, START_NS));
        assertEquals(ClientSetupHandshake.State.CONNECTING, handshake.state());
    }

    @Test
    void zeroNonceIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new ClientSetupHandshake(0, 4000, MS, MS));
    }

    private static SetupFlyweight accept(final long nonce, final long id, final int maxPacketBytes)
    {
        return new SetupFlyweight().wrap(ByteBuffer.allocate(24), 0)
            .set(SetupFlyweight.Kind.ACCEPT, maxPacketBytes, nonce, id);
    }
}
