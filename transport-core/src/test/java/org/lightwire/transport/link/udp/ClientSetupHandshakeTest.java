package org.lightwire.transport.link.udp;

import org.junit.jupiter.api.Test;
import org.lightwire.transport.protocol.CloseCause;

import java.nio.ByteBuffer;
import java.util.Arrays;

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
        final ByteBuffer buffer = ByteBuffer.allocate(64);
        assertEquals(56, handshake.writeConnect(buffer, 8));
        final byte[] datagram = new byte[56];
        buffer.get(8, datagram);
        final byte[] expected = new byte[56];
        System.arraycopy(new byte[] {
            0, 0, 0, 0, 0, 0, 0, 0,
            1, 2, 0x0F, (byte)0xA0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
            1, 2, 3, 4, 5, 6, 7, 8}, 0, expected, 0, 32);
        assertArrayEquals(expected, datagram, "the first CONNECT has no cookie");
    }

    @Test
    void aRetryCookieIsEchoedAtOnceAndRestartsTheRetransmissionClock()
    {
        handshake.start(START_NS);
        assertEquals(ClientSetupHandshake.Action.RETRANSMIT, handshake.onTimer(START_NS + 100 * MS));
        final byte[] cookie = new byte[24];
        Arrays.fill(cookie, (byte)0x77);
        assertEquals(ClientSetupHandshake.Outcome.RETRY, handshake.onSetup(retry(NONCE, cookie), START_NS + 150 * MS));
        assertEquals(ClientSetupHandshake.Outcome.STRAY_ACCEPT, handshake.onSetup(retry(NONCE, cookie), START_NS + 151 * MS),
            "a duplicate RETRY sends nothing again");
        assertEquals(ClientSetupHandshake.Outcome.STRAY_ACCEPT, handshake.onSetup(retry(NONCE + 1, cookie), START_NS + 151 * MS));
        assertEquals(START_NS + 250 * MS, handshake.nextDeadlineNs());
        final ByteBuffer buffer = ByteBuffer.allocate(56);
        handshake.writeConnect(buffer, 0);
        assertArrayEquals(cookie, Arrays.copyOfRange(buffer.array(), 32, 56));
        assertEquals(ClientSetupHandshake.Outcome.ACCEPTED, handshake.onSetup(accept(NONCE, 42, 3000), START_NS + 160 * MS));
        assertEquals(10 * MS, handshake.setupRttNs(), "measured from the CONNECT that carried the cookie");
        assertEquals(3, handshake.connectsSent());
    }

    @Test
    void aRefuseEndsTheExchangeWithItsReason()
    {
        handshake.start(START_NS);
        final SetupFlyweight refuse = new SetupFlyweight().wrap(ByteBuffer.allocate(48), 0)
            .set(SetupFlyweight.Kind.REFUSE, 4000, CloseCause.ADDRESS_LIMIT, 0, 0, NONCE, null);
        assertEquals(ClientSetupHandshake.Outcome.REFUSED, handshake.onSetup(refuse, START_NS + MS));
        assertEquals(ClientSetupHandshake.State.REFUSED, handshake.state());
        assertEquals(CloseCause.ADDRESS_LIMIT, handshake.refusal());
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
        final SetupFlyweight reject = new SetupFlyweight().wrap(ByteBuffer.allocate(16), 0)
            .setReject(4000, CloseCause.UNKNOWN, 42);
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
        return new SetupFlyweight().wrap(ByteBuffer.allocate(48), 0)
            .set(SetupFlyweight.Kind.ACCEPT, maxPacketBytes, null, 600, id, nonce, null);
    }

    private static SetupFlyweight retry(final long nonce, final byte[] cookie)
    {
        return new SetupFlyweight().wrap(ByteBuffer.allocate(48), 0)
            .set(SetupFlyweight.Kind.RETRY, 4000, null, 0, 0, nonce, cookie);
    }
}
