package org.lightwire.etf;

import org.omg.IOP.TaggedComponent;

/**
 * The tagged component that makes a Lightwire profile an AAL5 one: the VPI and VCI of the
 * server's PVC. Its body is a CDR encapsulation, as every IOR component's is:
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+---------------+-------------------------------+
 * |  byte order   |   (padding)   |              VPI              |
 * +---------------+---------------+-------------------------------+
 * |              VCI              |
 * +-------------------------------+
 * </pre>
 *
 * The byte order octet is 0 (big endian, as written) or 1 (little endian, accepted on read). A
 * PVC's VPI/VCI label the link at both ends of a point-to-point circuit, so a client opens the
 * same VPI/VCI on its own interface ({@link LightwireConfig#AAL5_ITF}); the interface number is
 * local to each host and is not published.
 */
final class Aal5Component
{
    /** The component tag: 0x4C574105 ("LWA" and 5), beside {@link LightwireProfile#TAG}. */
    static final int TAG = 0x4C57_4105;
    static final int LENGTH = 6;
    private static final int BYTE_ORDER_OFFSET = 0;
    private static final int VPI_OFFSET = 2;
    private static final int VCI_OFFSET = 4;

    private Aal5Component()
    {
    }

    /** @return the component naming {@code vpi.vci}, big endian. */
    static TaggedComponent encode(final int vpi, final int vci)
    {
        final byte[] b = new byte[LENGTH];
        b[VPI_OFFSET] = (byte)(vpi >>> 8);
        b[VPI_OFFSET + 1] = (byte)vpi;
        b[VCI_OFFSET] = (byte)(vci >>> 8);
        b[VCI_OFFSET + 1] = (byte)vci;
        return new TaggedComponent(TAG, b);
    }

    /**
     * @return {@code {vpi, vci}}, or null when {@code data} is not such a component (wrong
     *     length or byte-order octet): the profile is then treated as having no AAL5 circuit.
     */
    static int[] decode(final byte[] data)
    {
        if (data == null || data.length != LENGTH || (data[BYTE_ORDER_OFFSET] & 0xFE) != 0)
        {
            return null;
        }
        final boolean little = data[BYTE_ORDER_OFFSET] == 1;
        return new int[] {unsignedShort(data, VPI_OFFSET, little), unsignedShort(data, VCI_OFFSET, little)};
    }

    private static int unsignedShort(final byte[] b, final int offset, final boolean littleEndian)
    {
        final int first = b[offset] & 0xFF;
        final int second = b[offset + 1] & 0xFF;
        return littleEndian ? second << 8 | first : first << 8 | second;
    }
}
