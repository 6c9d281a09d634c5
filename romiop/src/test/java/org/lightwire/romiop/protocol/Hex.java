package org.lightwire.romiop.protocol;

import java.nio.ByteBuffer;

final class Hex
{
    private Hex()
    {
    }

    static String of(final ByteBuffer b, final int length)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++)
        {
            sb.append(String.format("%02x", b.get(i) & 0xFF));
        }
        return sb.toString();
    }

    static ByteBuffer parse(final String hex)
    {
        final String h = hex.replace(" ", "");
        final ByteBuffer b = ByteBuffer.allocate(h.length() / 2);
        for (int i = 0; i < b.capacity(); i++)
        {
            b.put(i, (byte)Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16));
        }
        return b;
    }
}
