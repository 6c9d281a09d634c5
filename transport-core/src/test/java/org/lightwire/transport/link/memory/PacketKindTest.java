package org.lightwire.transport.link.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.lightwire.transport.protocol.MessageType;

class PacketKindTest
{
    @Test
    void everyMessageTypeMapsToItsKind()
    {
        for (final MessageType type : MessageType.values())
        {
            final ByteBuffer packet = ByteBuffer.wrap(new byte[]{ (byte)type.code(), 0, 0, 8, 0, 0, 0, 0 });
            assertEquals(type.isControl() ? PacketKind.CONTROL : PacketKind.DATA, PacketKind.of(packet), type.name());
        }
        assertEquals(PacketKind.CONTROL, PacketKind.of(ByteBuffer.wrap(new byte[]{ 3 })));
        assertEquals(PacketKind.CONTROL, PacketKind.of(ByteBuffer.wrap(new byte[]{ 6 })));
        assertEquals(PacketKind.DATA, PacketKind.of(ByteBuffer.wrap(new byte[]{ 1 })));
        assertEquals(PacketKind.DATA, PacketKind.of(ByteBuffer.wrap(new byte[]{ 2 })));
    }

    @Test
    void unknownTypeCodesAndEmptyPacketsAreData()
    {
        for (final int code : new int[]{ 0, 7, 0x7F, 0x80, 0xFF })
        {
            assertEquals(PacketKind.DATA, PacketKind.of(ByteBuffer.wrap(new byte[]{ (byte)code })), "code " + code);
            assertEquals(PacketKind.DATA, PacketKind.of(new byte[]{ (byte)code }), "code " + code);
        }
        assertEquals(PacketKind.DATA, PacketKind.of(ByteBuffer.allocate(0)));
        assertEquals(PacketKind.DATA, PacketKind.of(new byte[0]));
    }

    @Test
    void readsTheByteAtThePositionWithoutMovingIt()
    {
        final ByteBuffer buffer = ByteBuffer.wrap(new byte[]{ 1, 4, 2 });
        buffer.position(1);
        assertEquals(PacketKind.CONTROL, PacketKind.of(buffer));
        assertEquals(1, buffer.position());
        buffer.position(3);
        assertEquals(PacketKind.DATA, PacketKind.of(buffer));
    }
}
