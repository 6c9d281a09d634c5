package org.lightwire.it.servant;

import java.util.zip.CRC32;

/**
 * The content of a ttcp buffer, derived from its sequence number alone, so that the receiver can
 * check every buffer on its own whatever the order in which buffers arrive, and can tell a
 * duplicate from a new buffer.
 *
 * <pre>
 *  index:  0 .. 7                      8 .. length-1
 *         +---------------------------+------------------------------------------+
 *         | sequence number, 8 lower- | 'a' + ((sequence * 31 + index) mod 26)    |
 *         | case hex digits, MSB first|                                          |
 *         +---------------------------+------------------------------------------+
 * </pre>
 *
 * <p>Every character is 7-bit ASCII, so the buffer crosses any char code set unchanged.
 */
public final class TtcpPattern
{
    /** Characters taken by the sequence number; the shortest valid buffer. */
    public static final int HEADER_CHARS = 8;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private TtcpPattern()
    {
    }

    /**
     * @param sequence non-negative sequence number of the buffer
     * @param length number of characters, at least {@link #HEADER_CHARS}
     * @return a new buffer holding the pattern for {@code sequence}
     */
    public static char[] create(final int sequence, final int length)
    {
        if (sequence < 0)
        {
            throw new IllegalArgumentException("sequence must be >= 0, was " + sequence);
        }
        if (length < HEADER_CHARS)
        {
            throw new IllegalArgumentException(
                "a ttcp buffer needs at least " + HEADER_CHARS + " chars, asked for " + length);
        }
        final char[] buffer = new char[length];
        for (int i = 0; i < HEADER_CHARS; i++)
        {
            buffer[i] = HEX[(sequence >>> (28 - 4 * i)) & 0xF];
        }
        for (int i = HEADER_CHARS; i < length; i++)
        {
            buffer[i] = patternChar(sequence, i);
        }
        return buffer;
    }

    /**
     * @return the sequence number a well-formed buffer carries, or -1 if the buffer is shorter than
     * the header, its header is not lowercase hex, its sequence number is negative, or any
     * character after the header differs from the pattern
     */
    public static int verify(final char[] buffer)
    {
        if (buffer == null || buffer.length < HEADER_CHARS)
        {
            return -1;
        }
        int sequence = 0;
        for (int i = 0; i < HEADER_CHARS; i++)
        {
            final int digit = Character.digit(buffer[i], 16);
            if (digit < 0 || Character.isUpperCase(buffer[i]))
            {
                return -1;
            }
            sequence = (sequence << 4) | digit;
        }
        if (sequence < 0)
        {
            return -1;
        }
        for (int i = HEADER_CHARS; i < buffer.length; i++)
        {
            if (buffer[i] != patternChar(sequence, i))
            {
                return -1;
            }
        }
        return sequence;
    }

    /** @return CRC32 of the buffer's characters taken as bytes (they are all ASCII). */
    public static long crc32(final char[] buffer)
    {
        final CRC32 crc = new CRC32();
        for (final char c : buffer)
        {
            crc.update(c & 0xFF);
        }
        return crc.getValue();
    }

    private static char patternChar(final int sequence, final int index)
    {
        return (char)('a' + (int)(((long)sequence * 31 + index) % 26));
    }
}
