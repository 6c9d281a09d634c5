package org.lightwire.transport.link.udp;

import org.junit.jupiter.api.Test;
import org.lightwire.transport.protocol.CloseCause;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SetupFlyweightTest
{
    private static final long NONCE = 0x1122334455667788L;
    private static final long ID = 0x99AABBCCDDEEFF01L;
    private static final byte[] COOKIE = new byte[24];

    static
    {
        for (int i = 0; i < COOKIE.length; i++)
        {
            COOKIE[i] = (byte)(0xC0 + i);
        }
    }

    private static final byte[] GOLDEN_ACCEPT = {
        0x02, 0x02, 0x20, 0x00,                                         // ACCEPT, version 2, 8192
        0x00, 0x00, 0x02, 0x58,                                         // reason 0, padding, idle 600 s
        (byte)0x99, (byte)0xAA, (byte)0xBB, (byte)0xCC, (byte)0xDD, (byte)0xEE, (byte)0xFF, 0x01, // id
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte)0x88,           // nonce
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // no cookie
    };

    private static final byte[] GOLDEN_REJECT = {
        0x03, 0x02, 0x20, 0x00,                                         // REJECT, version 2, 8192
        0x01, 0x00, 0x00, 0x00,                                         // reason IDLE
        (byte)0x99, (byte)0xAA, (byte)0xBB, (byte)0xCC, (byte)0xDD, (byte)0xEE, (byte)0xFF, 0x01, // id
    };

    @Test
    void writesGoldenAcceptInEitherBufferOrder()
    {
        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN})
        {
            final ByteBuffer buffer = ByteBuffer.allocate(SetupFlyweight.LONG_LENGTH).order(order);
            new SetupFlyweight().wrap(buffer, 0).set(SetupFlyweight.Kind.ACCEPT, 8192, null, 600, ID, NONCE, null);
            assertArrayEquals(GOLDEN_ACCEPT, buffer.array(), order.toString());
        }
    }

    @Test
    void writesAGoldenRejectOfSixteenBytesNamingTheCause()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(SetupFlyweight.SHORT_LENGTH);
        final SetupFlyweight reject = new SetupFlyweight().wrap(buffer, 0).setReject(8192, CloseCause.IDLE, ID);
        assertArrayEquals(GOLDEN_REJECT, buffer.array());
        assertNull(reject.validate(SetupFlyweight.SHORT_LENGTH));
        assertEquals(CloseCause.IDLE, reject.reason());
        assertEquals(ID, reject.connectionId());
        // A REJECT is never longer than the smallest data datagram it answers: no amplification.
        assertTrue(SetupFlyweight.REJECT_DATAGRAM_LENGTH <= UdpPrefixFlyweight.HEADER_LENGTH +
            org.lightwire.transport.protocol.HeaderFlyweight.HEADER_LENGTH);
    }

    @Test
    void retryCarriesTheCookieAConnectEchoes()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(SetupFlyweight.LONG_LENGTH);
        final SetupFlyweight retry = new SetupFlyweight().wrap(buffer, 0).set(SetupFlyweight.Kind.RETRY, 9000, null, 0, 0, NONCE, COOKIE);
        assertNull(retry.validate(SetupFlyweight.LONG_LENGTH));
        assertArrayEquals(COOKIE, Arrays.copyOfRange(buffer.array(), 24, 48));
        final byte[] read = new byte[24];
        retry.cookie(read, 0);
        assertArrayEquals(COOKIE, read);
        final SetupFlyweight connect = new SetupFlyweight().wrap(ByteBuffer.allocate(48), 0)
            .set(SetupFlyweight.Kind.CONNECT, 9000, null, 0, 0, NONCE, null);
        assertTrue(connect.cookieIsZero());
        assertNull(connect.validate(SetupFlyweight.LONG_LENGTH));
    }

    @Test
    void validationNamesEachDefect()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(SetupFlyweight.LONG_LENGTH + 1);
        final SetupFlyweight s = new SetupFlyweight().wrap(buffer, 0);
        s.set(SetupFlyweight.Kind.CONNECT, 8192, null, 0, 0, NONCE, null);
        assertNull(s.validate(48));
        assertEquals(SetupFlyweight.Invalid.TRUNCATED, s.validate(15));
        assertEquals(SetupFlyweight.Invalid.TRUNCATED, s.validate(47));
        assertEquals(SetupFlyweight.Invalid.TOO_LONG, s.validate(49));
        buffer.put(SetupFlyweight.VERSION_OFFSET, (byte)1);
        assertEquals(SetupFlyweight.Invalid.BAD_VERSION, s.validate(48), "the version 1 set-up body is not this one");
        buffer.put(SetupFlyweight.VERSION_OFFSET, (byte)2);
        buffer.put(SetupFlyweight.KIND_OFFSET, (byte)6);
        assertEquals(SetupFlyweight.Invalid.UNKNOWN_KIND, s.validate(48));
        s.set(SetupFlyweight.Kind.CONNECT, 63, null, 0, 0, NONCE, null);
        assertEquals(SetupFlyweight.Invalid.BAD_MAX_PACKET_BYTES, s.validate(48));
        s.set(SetupFlyweight.Kind.CONNECT, 8192, null, 0, 0, 0, null);
        assertEquals(SetupFlyweight.Invalid.ZERO_NONCE, s.validate(48));
        s.set(SetupFlyweight.Kind.CONNECT, 8192, null, 0, 5, NONCE, null);
        assertEquals(SetupFlyweight.Invalid.BAD_CONNECTION_ID, s.validate(48));
        s.set(SetupFlyweight.Kind.ACCEPT, 8192, null, 0, 0, NONCE, null);
        assertEquals(SetupFlyweight.Invalid.BAD_CONNECTION_ID, s.validate(48), "an ACCEPT names its new id");
        s.set(SetupFlyweight.Kind.REFUSE, 8192, null, 0, 0, NONCE, null);
        assertEquals(SetupFlyweight.Invalid.BAD_REASON, s.validate(48), "a REFUSE says why");
        s.set(SetupFlyweight.Kind.CONNECT, 8192, CloseCause.IDLE, 0, 0, NONCE, null);
        assertEquals(SetupFlyweight.Invalid.BAD_REASON, s.validate(48));
        s.set(SetupFlyweight.Kind.CONNECT, 8192, null, 7, 0, NONCE, null);
        assertEquals(SetupFlyweight.Invalid.NONZERO_PADDING, s.validate(48), "only an ACCEPT announces an idle timeout");
        s.set(SetupFlyweight.Kind.CONNECT, 8192, null, 0, 0, NONCE, null);
        buffer.put(SetupFlyweight.PADDING_OFFSET, (byte)1);
        assertEquals(SetupFlyweight.Invalid.NONZERO_PADDING, s.validate(48));
        s.setReject(8192, CloseCause.UNKNOWN, ID);
        assertNull(s.validate(16));
        assertEquals(SetupFlyweight.Invalid.TOO_LONG, s.validate(48), "a REJECT is 16 bytes");
        s.setReject(8192, CloseCause.UNKNOWN, 0);
        assertEquals(SetupFlyweight.Invalid.BAD_CONNECTION_ID, s.validate(16));
    }

    @Test
    void writersRefuseValuesTheFieldsCannotHold()
    {
        final SetupFlyweight s = new SetupFlyweight().wrap(ByteBuffer.allocate(48), 0);
        assertThrows(IllegalArgumentException.class, () -> s.set(SetupFlyweight.Kind.CONNECT, 70_000, null, 0, 0, NONCE, null));
        assertThrows(IllegalArgumentException.class, () -> s.set(SetupFlyweight.Kind.ACCEPT, 8192, null, 70_000, ID, NONCE, null));
        assertThrows(IllegalArgumentException.class, () -> s.set(SetupFlyweight.Kind.REJECT, 8192, null, 0, ID, NONCE, null));
    }

    @Test
    void kindCodesAreFixed()
    {
        assertEquals(1, SetupFlyweight.Kind.CONNECT.code());
        assertEquals(2, SetupFlyweight.Kind.ACCEPT.code());
        assertEquals(3, SetupFlyweight.Kind.REJECT.code());
        assertEquals(4, SetupFlyweight.Kind.RETRY.code());
        assertEquals(5, SetupFlyweight.Kind.REFUSE.code());
        for (final SetupFlyweight.Kind k : SetupFlyweight.Kind.values())
        {
            assertEquals(k, SetupFlyweight.Kind.fromCode(k.code()));
        }
        assertNull(SetupFlyweight.Kind.fromCode(0));
        assertNull(SetupFlyweight.Kind.fromCode(6));
    }

    @Test
    void closeCauseCodesAreFixedAndUnknownCodesReadAsUnknown()
    {
        final CloseCause[] byCode = {CloseCause.UNKNOWN, CloseCause.IDLE, CloseCause.PEER_SILENT, CloseCause.REQUEST_TIMEOUT,
            CloseCause.REQUEST_TOO_LARGE, CloseCause.MEMORY_BUDGET, CloseCause.HANDLER_FAILED, CloseCause.SERVER_CLOSED,
            CloseCause.HARD_ERROR, CloseCause.REPLACED, CloseCause.SERVER_FULL, CloseCause.ADDRESS_LIMIT};
        for (int code = 0; code < byCode.length; code++)
        {
            assertEquals(code, byCode[code].code());
            assertEquals(byCode[code], CloseCause.fromCode(code));
        }
        assertEquals(CloseCause.UNKNOWN, CloseCause.fromCode(200));
        // Only the causes that prove a request never ran let a client send it again.
        assertEquals(java.util.Set.of(CloseCause.IDLE, CloseCause.REQUEST_TIMEOUT, CloseCause.REQUEST_TOO_LARGE, CloseCause.MEMORY_BUDGET,
                CloseCause.SERVER_FULL, CloseCause.ADDRESS_LIMIT),
            java.util.Arrays.stream(CloseCause.values()).filter(CloseCause::notExecuted).collect(java.util.stream.Collectors.toSet()));
    }
}
