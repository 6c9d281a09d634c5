package org.lightwire.etf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.omg.IOP.TaggedComponent;

class Aal5ComponentTest
{
    @Test
    void encodesVpiAndVciBigEndianInACdrEncapsulation()
    {
        final TaggedComponent c = Aal5Component.encode(0x0123, 0xBEEF);
        assertEquals(0x4C574105, c.tag);
        assertArrayEquals(new byte[] {0, 0, 0x01, 0x23, (byte)0xBE, (byte)0xEF}, c.component_data);
    }

    @Test
    void decodesWhatItEncodesAtTheLimits()
    {
        assertArrayEquals(new int[] {0, 32}, Aal5Component.decode(Aal5Component.encode(0, 32).component_data));
        assertArrayEquals(new int[] {4095, 65535}, Aal5Component.decode(Aal5Component.encode(4095, 65535).component_data));
    }

    @Test
    void decodesALittleEndianEncapsulation()
    {
        assertArrayEquals(new int[] {0x0123, 100}, Aal5Component.decode(new byte[] {1, 0, 0x23, 0x01, 100, 0}));
    }

    @Test
    void malformedComponentsNameNoCircuit()
    {
        assertNull(Aal5Component.decode(null));
        assertNull(Aal5Component.decode(new byte[] {0, 0, 0, 0, 100}));
        assertNull(Aal5Component.decode(new byte[] {0, 0, 0, 0, 0, 100, 0}));
        assertNull(Aal5Component.decode(new byte[] {2, 0, 0, 0, 0, 100}));
    }
}
