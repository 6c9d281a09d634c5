package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import org.lightwire.romiop.protocol.Invalid;
import org.lightwire.romiop.protocol.PacketFlyweight;

/** The receive-path check every engine makes before reading a packet's fields. */
final class Packets
{
    private Packets()
    {
    }

    /** Wraps and validates; a bad packet is counted by its reason, never thrown. */
    static boolean wrapValid(final PacketFlyweight flyweight, final ByteBuffer buffer, final int offset, final int length,
        final GroupCounters counters)
    {
        flyweight.wrap(buffer, offset);
        final Invalid invalid = flyweight.validate(length);
        if (invalid != null)
        {
            counters.countInvalid(invalid);
            return false;
        }
        return true;
    }
}
