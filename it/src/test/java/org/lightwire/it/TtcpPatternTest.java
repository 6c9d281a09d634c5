package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.lightwire.it.servant.TtcpPattern;

class TtcpPatternTest
{
    @Test
    void createdBufferVerifiesToItsSequence()
    {
        assertEquals(0, TtcpPattern.verify(TtcpPattern.create(0, 8)));
        assertEquals(305419896, TtcpPattern.verify(TtcpPattern.create(0x12345678, 1000)));
        assertEquals(Integer.MAX_VALUE, TtcpPattern.verify(TtcpPattern.create(Integer.MAX_VALUE, 64)));
    }

    @Test
    void headerIsLowercaseHexOfSequence()
    {
        assertEquals("00abcdef", new String(TtcpPattern.create(0xabcdef, 8)));
    }

    @Test
    void anyChangedCharacterFailsVerification()
    {
        final char[] buffer = TtcpPattern.create(42, 100);
        for (final int index : new int[] {0, 7, 8, 50, 99})
        {
            final char[] copy = buffer.clone();
            copy[index] = (char)(copy[index] == 'z' ? 'y' : copy[index] + 1);
            assertEquals(-1, TtcpPattern.verify(copy), "changed index " + index);
        }
    }

    @Test
    void shortUppercaseOrNegativeHeadersFail()
    {
        assertEquals(-1, TtcpPattern.verify(new char[7]));
        assertEquals(-1, TtcpPattern.verify("0000000A".toCharArray()));
        assertEquals(-1, TtcpPattern.verify("80000000".toCharArray()));
        assertThrows(IllegalArgumentException.class, () -> TtcpPattern.create(1, 7));
        assertThrows(IllegalArgumentException.class, () -> TtcpPattern.create(-1, 8));
    }

    @Test
    void differentSequencesGiveDifferentChecksums()
    {
        assertNotEquals(TtcpPattern.crc32(TtcpPattern.create(1, 4096)),
            TtcpPattern.crc32(TtcpPattern.create(2, 4096)));
    }
}
