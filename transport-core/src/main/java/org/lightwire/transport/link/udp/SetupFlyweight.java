package org.lightwire.transport.link.udp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Flyweight over the body of a Lightwire UDP set-up datagram, the 24 bytes that follow a zero
 * {@link UdpPrefixFlyweight prefix} (see {@code docs/udp-link.md}).
 *
 * <p>The set-up exchange stands in for the ATM signalling that opened a VC for omniTransport
 * (paper, section 2): the client sends CONNECT with a fresh random nonce and retransmits it
 * until an ACCEPT echoing that nonce arrives; the ACCEPT carries the connection id that prefixes
 * every later datagram of that connection. A server that receives a datagram for an id it does
 * not know answers REJECT naming that id, so a client of a previous server incarnation learns
 * at once that its connection is gone.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |     kind      |    version    |        max packet bytes       |
 *  |    CARD8      |  CARD8 (= 1)  |      CARD16, big-endian       |
 *  +---------------+---------------+-------------------------------+
 *  |                       padding (4 bytes, = 0)                  |
 *  +---------------------------------------------------------------+
 *  |                   nonce (CARD64, big-endian)                  |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |               connection id (CARD64, big-endian)              |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li>kind: 1 CONNECT (client to server), 2 ACCEPT, 3 REJECT (server to client).</li>
 *   <li>max packet bytes: the largest omniTransport packet, header included, that the sender
 *       of this datagram accepts ({@value #MIN_PACKET_BYTES}..{@value #MAX_PACKET_BYTES}); the
 *       connection uses the smaller of the two sides' values.</li>
 *   <li>nonce: nonzero, chosen at random by the client for each connect attempt and echoed by
 *       ACCEPT; 0 in a REJECT of a data datagram (the server no longer knows the nonce).</li>
 *   <li>connection id: 0 in CONNECT; the new nonzero id in ACCEPT; in REJECT the id the server
 *       does not know.</li>
 * </ul>
 *
 * <p>Multi-byte fields are in network byte order (big-endian), whatever the buffer's own order.
 */
public final class SetupFlyweight
{
    /** Length of the set-up body in bytes (the prefix not included). */
    public static final int HEADER_LENGTH = 24;
    /** Length of a whole set-up datagram: the zero prefix and the body. */
    public static final int DATAGRAM_LENGTH = UdpPrefixFlyweight.HEADER_LENGTH + HEADER_LENGTH;
    /** The only version this code speaks. */
    public static final int CURRENT_VERSION = 1;
    /** Smallest max packet size a peer may announce, header included. */
    public static final int MIN_PACKET_BYTES = 64;
    /** Largest max packet size: the IPv4 UDP payload limit (65507) less the 8-byte prefix. */
    public static final int MAX_PACKET_BYTES = 65_507 - UdpPrefixFlyweight.HEADER_LENGTH;

    public static final int KIND_OFFSET = 0;
    public static final int VERSION_OFFSET = 1;
    public static final int MAX_PACKET_BYTES_OFFSET = 2;
    public static final int PADDING_OFFSET = 4;
    public static final int PADDING_LENGTH = 4;
    public static final int NONCE_OFFSET = 8;
    public static final int CONNECTION_ID_OFFSET = 16;

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

    public SetupFlyweight kind(final Kind kind)
    {
        buffer.put(offset + KIND_OFFSET, (byte)kind.code());
        return this;
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

    /** Writes the max packet size (CARD16, big-endian). */
    public SetupFlyweight maxPacketBytes(final int maxPacketBytes)
    {
        if ((maxPacketBytes & 0xFFFF) != maxPacketBytes)
        {
            throw new IllegalArgumentException("maxPacketBytes " + maxPacketBytes + " does not fit a CARD16");
        }
        BigEndian.putCard16(buffer, offset + MAX_PACKET_BYTES_OFFSET, maxPacketBytes);
        return this;
    }

    /** @return true when all four padding bytes are 0. */
    public boolean paddingIsZero()
    {
        for (int i = 0; i < PADDING_LENGTH; i++)
        {
            if (buffer.get(offset + PADDING_OFFSET + i) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /** @return the four padding bytes as one big-endian int, for {@link #toString()}. */
    public int padding()
    {
        return (BigEndian.getCard16(buffer, offset + PADDING_OFFSET) << 16) |
            BigEndian.getCard16(buffer, offset + PADDING_OFFSET + 2);
    }

    /** @return the nonce (CARD64, big-endian). */
    public long nonce()
    {
        return BigEndian.getCard64(buffer, offset + NONCE_OFFSET);
    }

    /** Writes the nonce (CARD64, big-endian). */
    public SetupFlyweight nonce(final long nonce)
    {
        BigEndian.putCard64(buffer, offset + NONCE_OFFSET, nonce);
        return this;
    }

    /** @return the connection id (CARD64, big-endian). */
    public long connectionId()
    {
        return BigEndian.getCard64(buffer, offset + CONNECTION_ID_OFFSET);
    }

    /** Writes the connection id (CARD64, big-endian). */
    public SetupFlyweight connectionId(final long connectionId)
    {
        BigEndian.putCard64(buffer, offset + CONNECTION_ID_OFFSET, connectionId);
        return this;
    }

    /** Writes every field at once, {@link #CURRENT_VERSION} as the version and zero padding. */
    public SetupFlyweight set(final Kind kind, final int maxPacketBytes, final long nonce, final long connectionId)
    {
        kind(kind).version(CURRENT_VERSION).maxPacketBytes(maxPacketBytes).nonce(nonce).connectionId(connectionId);
        for (int i = 0; i < PADDING_LENGTH; i++)
        {
            buffer.put(offset + PADDING_OFFSET + i, (byte)0);
        }
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
        if (bodyLength < HEADER_LENGTH)
        {
            return Invalid.TRUNCATED;
        }
        if (bodyLength > HEADER_LENGTH)
        {
            return Invalid.TOO_LONG;
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
        final int maxPacketBytes = maxPacketBytes();
        if (maxPacketBytes < MIN_PACKET_BYTES || maxPacketBytes > MAX_PACKET_BYTES)
        {
            return Invalid.BAD_MAX_PACKET_BYTES;
        }
        if (!paddingIsZero())
        {
            return Invalid.NONZERO_PADDING;
        }
        if (kind != Kind.REJECT && nonce() == 0)
        {
            return Invalid.ZERO_NONCE;
        }
        if ((kind == Kind.CONNECT) != (connectionId() == 0))
        {
            return Invalid.BAD_CONNECTION_ID;
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
        if (buffer == null || buffer.limit() - offset < HEADER_LENGTH)
        {
            return "Setup{unwrapped}";
        }
        return "Setup{kind=" + (kind() != null ? kind() : "?" + kindCode()) +
            ", version=" + version() +
            ", maxPacketBytes=" + maxPacketBytes() +
            ", padding=" + padding() +
            ", nonce=" + UdpPrefixFlyweight.formatId(nonce()) +
            ", connectionId=" + UdpPrefixFlyweight.formatId(connectionId()) + '}';
    }

    /** The set-up message kinds; the codes are fixed by {@code docs/udp-link.md}. */
    public enum Kind
    {
        /** Client to server: open a connection; nonce chosen by the client, id 0. */
        CONNECT(1),
        /** Server to client: the connection is open; echoes the nonce, carries the new id. */
        ACCEPT(2),
        /** Server to client: the server does not know the named connection id. */
        REJECT(3);

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

        /** @return the kind, or null when {@code code} is not 1, 2 or 3. */
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
        BAD_CONNECTION_ID
    }
}
