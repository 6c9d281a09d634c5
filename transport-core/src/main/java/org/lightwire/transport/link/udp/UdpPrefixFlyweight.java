package org.lightwire.transport.link.udp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Flyweight over the 8-byte link-level prefix that Lightwire puts in front of every
 * omniTransport packet it sends over UDP (see {@code docs/udp-link.md}).
 *
 * <p>UDP has no virtual circuit, so the prefix carries the connection identity that an ATM VC
 * gave omniTransport for free (paper, section 2): a random 64-bit connection id negotiated by
 * the set-up exchange ({@link SetupFlyweight}) for one incarnation of one connection.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |              connection id (CARD64, big-endian)               |
 *  |                 0 = set-up datagram follows                   |
 *  +---------------------------------------------------------------+
 *  |     omniTransport header (8 bytes), payload ...               |
 *  |     or, when the id is 0, a SetupFlyweight body (24 bytes)    |
 * </pre>
 *
 * <p>The id is in network byte order (big-endian), whatever the buffer's own order.
 */
public final class UdpPrefixFlyweight
{
    /** Length of the prefix in bytes. */
    public static final int HEADER_LENGTH = 8;
    /** The reserved id: a datagram whose prefix is 0 is a set-up datagram. */
    public static final long SETUP_CONNECTION_ID = 0L;

    public static final int CONNECTION_ID_OFFSET = 0;

    private ByteBuffer buffer;
    private int offset;

    /** Points the flyweight at the prefix that starts at {@code offset} of {@code buffer}. */
    public UdpPrefixFlyweight wrap(final ByteBuffer buffer, final int offset)
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

    /** @return the connection id (CARD64, big-endian); 0 marks a set-up datagram. */
    public long connectionId()
    {
        return BigEndian.getCard64(buffer, offset + CONNECTION_ID_OFFSET);
    }

    /** Writes the connection id (CARD64, big-endian). */
    public UdpPrefixFlyweight connectionId(final long connectionId)
    {
        BigEndian.putCard64(buffer, offset + CONNECTION_ID_OFFSET, connectionId);
        return this;
    }

    /** @return true when the prefix is 0, i.e. a {@link SetupFlyweight} body follows. */
    public boolean isSetup()
    {
        return connectionId() == SETUP_CONNECTION_ID;
    }

    /** @return the byte order of every multi-byte field of the prefix: big-endian. */
    public static ByteOrder byteOrder()
    {
        return ByteOrder.BIG_ENDIAN;
    }

    /** @return {@code id} as the fixed-width hexadecimal string used in messages and logs. */
    public static String formatId(final long id)
    {
        return String.format("0x%016x", id);
    }

    @Override
    public String toString()
    {
        if (buffer == null || buffer.limit() - offset < HEADER_LENGTH)
        {
            return "UdpPrefix{unwrapped}";
        }
        return "UdpPrefix{connectionId=" + formatId(connectionId()) + '}';
    }
}
