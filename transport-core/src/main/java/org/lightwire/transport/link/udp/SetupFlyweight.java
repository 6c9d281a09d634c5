package org.lightwire.transport.link.udp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.lightwire.transport.protocol.CloseCause;

/**
 * Flyweight over the body of a Lightwire UDP set-up datagram, which follows a zero
 * {@link UdpPrefixFlyweight prefix} (see {@code docs/protocol.md}, "Connection identity over UDP").
 *
 * <p>The set-up exchange stands in for the ATM signalling that opened a VC for omniTransport
 * (paper, section 2), and makes a client prove its address before the server keeps any state
 * for it, as DTLS's HelloVerifyRequest and QUIC's Retry do: the client's first CONNECT, with a
 * fresh random nonce, is answered with RETRY carrying a cookie, a MAC the server computed over
 * the client's address, port and nonce with a secret of its own; only a CONNECT that echoes a
 * valid cookie opens a connection, answered with ACCEPT and the connection id that prefixes
 * every later datagram of it. A server that will not open the connection answers REFUSE with the
 * reason. A datagram for an id the server does not know is answered with REJECT naming that id
 * and, when the server remembers closing it, why.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |     kind      |    version    |        max packet bytes       |
 *  |    CARD8      |  CARD8 (= 2)  |      CARD16, big-endian       |
 *  +---------------+---------------+-------------------------------+
 *  |    reason     | padding (= 0) |      idle timeout seconds     |
 *  |    CARD8      |    CARD8      |      CARD16, big-endian       |
 *  +---------------+---------------+-------------------------------+
 *  |               connection id (CARD64, big-endian)              |
 *  |                                                               |
 *  +---------------------------------------------------------------+  16: end of a REJECT
 *  |                   nonce (CARD64, big-endian)                  |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     cookie (24 bytes)                         |
 *  |                          ...                                  |
 *  +---------------------------------------------------------------+  48: end of the others
 * </pre>
 *
 * <ul>
 *   <li>kind: 1 CONNECT (client to server), 2 ACCEPT, 3 REJECT, 4 RETRY, 5 REFUSE (server to client).</li>
 *   <li>max packet bytes: the largest omniTransport packet, header included, that the sender
 *       of this datagram accepts ({@value #MIN_PACKET_BYTES}..{@value #MAX_PACKET_BYTES}); the
 *       connection uses the smaller of the two sides' values.</li>
 *   <li>reason: in REJECT and REFUSE, a {@link CloseCause} code; 0 in the others.</li>
 *   <li>idle timeout seconds: in ACCEPT, how long the server keeps a connection with nothing in
 *       progress (0: it never closes one); 0 in the others.</li>
 *   <li>connection id: the new nonzero id in ACCEPT; in REJECT the id the server does not know
 *       (nonzero); 0 in the others.</li>
 *   <li>nonce: nonzero, chosen at random by the client for each connect attempt and echoed by
 *       RETRY, ACCEPT and REFUSE.</li>
 *   <li>cookie: in RETRY, issued by the server; in CONNECT, the cookie of the last RETRY, or all
 *       zero before one came; zero in ACCEPT and REFUSE.</li>
 * </ul>
 *
 * <p>A REJECT is 16 bytes and answers a data datagram of at least 24 bytes; RETRY, ACCEPT and
 * REFUSE are as long as the CONNECT they answer: the server never sends more bytes than it
 * received, so a forged source address gains an attacker nothing. Multi-byte fields are in
 * network byte order (big-endian), whatever the buffer's own order.
 */
public final class SetupFlyweight
{
    /** Length of a REJECT body in bytes (the prefix not included). */
    public static final int SHORT_LENGTH = 16;
    /** Length of the body of every other kind (the prefix not included). */
    public static final int LONG_LENGTH = 48;
    /** Length of a whole CONNECT, RETRY, ACCEPT or REFUSE datagram: the zero prefix and the body. */
    public static final int DATAGRAM_LENGTH = UdpPrefixFlyweight.HEADER_LENGTH + LONG_LENGTH;
    /** Length of a whole REJECT datagram. */
    public static final int REJECT_DATAGRAM_LENGTH = UdpPrefixFlyweight.HEADER_LENGTH + SHORT_LENGTH;
    /** Length of the cookie. */
    public static final int COOKIE_LENGTH = 24;
    /** The only version this code speaks. */
    public static final int CURRENT_VERSION = 2;
    /** Smallest max packet size a peer may announce, header included. */
    public static final int MIN_PACKET_BYTES = 64;
    /** Largest max packet size: the IPv4 UDP payload limit (65507) less the 8-byte prefix. */
    public static final int MAX_PACKET_BYTES = 65_507 - UdpPrefixFlyweight.HEADER_LENGTH;

    public static final int KIND_OFFSET = 0;
    public static final int VERSION_OFFSET = 1;
    public static final int MAX_PACKET_BYTES_OFFSET = 2;
    public static final int REASON_OFFSET = 4;
    public static final int PADDING_OFFSET = 5;
    public static final int IDLE_SECONDS_OFFSET = 6;
    public static final int CONNECTION_ID_OFFSET = 8;
    public static final int NONCE_OFFSET = 16;
    public static final int COOKIE_OFFSET = 24;

    private ByteBuffer buffer;
    private int offset;

    /** Points the flyweight at the body that starts at {@code offset} of {@code buffer}. */
    public SetupFlyweight wrap(final ByteBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    public ByteBuffer buffer()
    {
        return buffer;
    }

    public int offset()
    {
        return offset;
    }

    /** @return the raw CARD8 kind code. */
    public int kindCode()
    {
        return buffer.get(offset + KIND_OFFSET) & 0xFF;
    }

    /** @return the kind, or null when the code is unknown. */
    public Kind kind()
    {
        return Kind.fromCode(kindCode());
    }

    /** @return the CARD8 version. */
    public int version()
    {
        return buffer.get(offset + VERSION_OFFSET) & 0xFF;
    }

    public SetupFlyweight version(final int version)
    {
        buffer.put(offset + VERSION_OFFSET, (byte)version);
        return this;
    }

    /** @return the max packet size the sender accepts, header included (CARD16, big-endian). */
    public int maxPacketBytes()
    {
        return BigEndian.getCard16(buffer, offset + MAX_PACKET_BYTES_OFFSET);
    }

    /** @return the raw CARD8 reason code. */
    public int reasonCode()
    {
        return buffer.get(offset + REASON_OFFSET) & 0xFF;
    }

    /** @return the reason of a REJECT or REFUSE. */
    public CloseCause reason()
    {
        return CloseCause.fromCode(reasonCode());
    }

    /** @return the idle timeout an ACCEPT announces, in seconds; 0 for none. */
    public int idleSeconds()
    {
        return BigEndian.getCard16(buffer, offset + IDLE_SECONDS_OFFSET);
    }

    /** @return the connection id (CARD64, big-endian). */
    public long connectionId()
    {
        return BigEndian.getCard64(buffer, offset + CONNECTION_ID_OFFSET);
    }

    /** @return the nonce (CARD64, big-endian); only in the long kinds. */
    public long nonce()
    {
        return BigEndian.getCard64(buffer, offset + NONCE_OFFSET);
    }

    /** Copies the cookie into {@code dst} at {@code at}. */
    public void cookie(final byte[] dst, final int at)
    {
        buffer.get(offset + COOKIE_OFFSET, dst, at, COOKIE_LENGTH);
    }

    /** @return true when the cookie is all zero: a first CONNECT. */
    public boolean cookieIsZero()
    {
        for (int i = 0; i < COOKIE_LENGTH; i++)
        {
            if (buffer.get(offset + COOKIE_OFFSET + i) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Writes a long body (CONNECT, ACCEPT, RETRY, REFUSE), {@link #CURRENT_VERSION} as the
     * version, zero padding.
     *
     * @param cookie 24 bytes, or null for a zero cookie.
     */
    public SetupFlyweight set(final Kind kind, final int maxPacketBytes, final CloseCause reason, final int idleSeconds,
        final long connectionId, final long nonce, final byte[] cookie)
    {
        if (kind == Kind.REJECT)
        {
            throw new IllegalArgumentException("a REJECT has no nonce nor cookie; use setReject");
        }
        header(kind, maxPacketBytes, reason, idleSeconds, connectionId);
        BigEndian.putCard64(buffer, offset + NONCE_OFFSET, nonce);
        for (int i = 0; i < COOKIE_LENGTH; i++)
        {
            buffer.put(offset + COOKIE_OFFSET + i, cookie == null ? 0 : cookie[i]);
        }
        return this;
    }

    /** Writes a REJECT body. */
    public SetupFlyweight setReject(final int maxPacketBytes, final CloseCause reason, final long connectionId)
    {
        return header(Kind.REJECT, maxPacketBytes, reason, 0, connectionId);
    }

    private SetupFlyweight header(final Kind kind, final int maxPacketBytes, final CloseCause reason, final int idleSeconds,
        final long connectionId)
    {
        if ((maxPacketBytes & 0xFFFF) != maxPacketBytes)
        {
            throw new IllegalArgumentException("maxPacketBytes " + maxPacketBytes + " does not fit a CARD16");
        }
        if ((idleSeconds & 0xFFFF) != idleSeconds)
        {
            throw new IllegalArgumentException("idleSeconds " + idleSeconds + " does not fit a CARD16");
        }
        buffer.put(offset + KIND_OFFSET, (byte)kind.code());
        buffer.put(offset + VERSION_OFFSET, (byte)CURRENT_VERSION);
        BigEndian.putCard16(buffer, offset + MAX_PACKET_BYTES_OFFSET, maxPacketBytes);
        buffer.put(offset + REASON_OFFSET, (byte)(reason == null ? 0 : reason.code()));
        buffer.put(offset + PADDING_OFFSET, (byte)0);
        BigEndian.putCard16(buffer, offset + IDLE_SECONDS_OFFSET, idleSeconds);
        BigEndian.putCard64(buffer, offset + CONNECTION_ID_OFFSET, connectionId);
        return this;
    }

    /**
     * Checks the body against the length of the datagram that carried it.
     *
     * @param bodyLength bytes from the body's first byte to the end of the datagram.
     * @return null when the body is well formed, otherwise the reason it is not.
     */
    public Invalid validate(final int bodyLength)
    {
        if (bodyLength < SHORT_LENGTH)
        {
            return Invalid.TRUNCATED;
        }
        if (version() != CURRENT_VERSION)
        {
            return Invalid.BAD_VERSION;
        }
        final Kind kind = kind();
        if (kind == null)
        {
            return Invalid.UNKNOWN_KIND;
        }
        final int expected = kind == Kind.REJECT ? SHORT_LENGTH : LONG_LENGTH;
        if (bodyLength != expected)
        {
            return bodyLength < expected ? Invalid.TRUNCATED : Invalid.TOO_LONG;
        }
        final int maxPacketBytes = maxPacketBytes();
        if (maxPacketBytes < MIN_PACKET_BYTES || maxPacketBytes > MAX_PACKET_BYTES)
        {
            return Invalid.BAD_MAX_PACKET_BYTES;
        }
        if (buffer.get(offset + PADDING_OFFSET) != 0)
        {
            return Invalid.NONZERO_PADDING;
        }
        if (kind != Kind.REJECT && nonce() == 0)
        {
            return Invalid.ZERO_NONCE;
        }
        if ((kind == Kind.ACCEPT || kind == Kind.REJECT) != (connectionId() != 0))
        {
            return Invalid.BAD_CONNECTION_ID;
        }
        // A REJECT may carry 0 (UNKNOWN); a REFUSE must say why; the others say nothing.
        if (kind == Kind.REFUSE ? reasonCode() == 0 : kind != Kind.REJECT && reasonCode() != 0)
        {
            return Invalid.BAD_REASON;
        }
        if (kind != Kind.ACCEPT && idleSeconds() != 0)
        {
            return Invalid.NONZERO_PADDING;
        }
        return null;
    }

    /** @return the byte order of every multi-byte field: big-endian. */
    public static ByteOrder byteOrder()
    {
        return ByteOrder.BIG_ENDIAN;
    }

    @Override
    public String toString()
    {
        if (buffer == null || buffer.limit() - offset < SHORT_LENGTH)
        {
            return "Setup{unwrapped}";
        }
        final StringBuilder s = new StringBuilder("Setup{kind=").append(kind() != null ? kind() : "?" + kindCode())
            .append(", version=").append(version())
            .append(", maxPacketBytes=").append(maxPacketBytes())
            .append(", reason=").append(reasonCode())
            .append(", idleSeconds=").append(idleSeconds())
            .append(", connectionId=").append(UdpPrefixFlyweight.formatId(connectionId()));
        if (buffer.limit() - offset >= LONG_LENGTH)
        {
            s.append(", nonce=").append(UdpPrefixFlyweight.formatId(nonce()));
        }
        return s.append('}').toString();
    }

    /** The set-up message kinds; the codes are fixed by {@code docs/protocol.md}. */
    public enum Kind
    {
        /** Client to server: open a connection; a nonce chosen by the client, a cookie once it has one. */
        CONNECT(1),
        /** Server to client: the connection is open; echoes the nonce, carries the new id. */
        ACCEPT(2),
        /** Server to client: the server does not know the named connection id (16-byte body). */
        REJECT(3),
        /** Server to client: prove your address; echoes the nonce, carries a cookie. */
        RETRY(4),
        /** Server to client: the connection will not be opened; echoes the nonce, says why. */
        REFUSE(5);

        private final int code;

        Kind(final int code)
        {
            this.code = code;
        }

        /** @return the CARD8 code that goes on the wire. */
        public int code()
        {
            return code;
        }

        /** @return the kind, or null when {@code code} is not 1 to 5. */
        public static Kind fromCode(final int code)
        {
            switch (code)
            {
                case 1:
                    return CONNECT;
                case 2:
                    return ACCEPT;
                case 3:
                    return REJECT;
                case 4:
                    return RETRY;
                case 5:
                    return REFUSE;
                default:
                    return null;
            }
        }
    }

    /** Why a received set-up body was rejected; all are counted as malformed datagrams. */
    public enum Invalid
    {
        TRUNCATED,
        TOO_LONG,
        BAD_VERSION,
        UNKNOWN_KIND,
        BAD_MAX_PACKET_BYTES,
        NONZERO_PADDING,
        ZERO_NONCE,
        BAD_CONNECTION_ID,
        BAD_REASON
    }
}
