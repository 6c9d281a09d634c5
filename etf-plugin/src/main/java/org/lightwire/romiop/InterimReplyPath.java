package org.lightwire.romiop;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.lightwire.romiop.link.GroupLink;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.ReplyFlyweight;

/**
 * INTERIM, to be replaced by the engine's reply path ({@code MemberEngine.sendReply} and
 * {@code GroupClientEngine}'s reply handler, branch rengine): sends a Reply packet straight
 * through the link, once, without ACK or retransmission, and recognises Reply packets on the
 * client before its engine (which counts them as unexpected). Loss of a reply datagram loses the
 * reply; on loopback that needs a full socket buffer.
 */
final class InterimReplyPath
{
    /** A member's reply, as the engine's ReplyHandler will hand it over. */
    interface Handler
    {
        void onReply(int memberId, int packetId, int requestId, ByteBuffer payload, int offset, int length);
    }

    private final ReplyFlyweight reply = new ReplyFlyweight();
    private final PacketHeader_1_0 header = new PacketHeader_1_0();
    private final ByteBuffer out;
    private int packetId;

    InterimReplyPath(final int maxPacketBytes)
    {
        out = ByteBuffer.allocate(maxPacketBytes);
    }

    /** Driver thread of the member. */
    void send(final GroupLink link, final int selfId, final int clientId, final int requestPacketId, final int requestId,
        final byte[] giopReply)
    {
        reply.wrap(out, 0);
        reply.set(ByteOrder.BIG_ENDIAN, selfId, ++packetId, clientId, requestPacketId, requestId, 0, giopReply.length)
            .payload(ByteBuffer.wrap(giopReply), 0, giopReply.length);
        link.send(clientId, out, reply.packetSize());
    }

    /** Driver thread of the client. @return true when the packet was a Reply (handled or dropped). */
    boolean onPacket(final ByteBuffer buffer, final int offset, final int length, final Handler handler)
    {
        header.wrap(buffer, offset);
        if (header.validate(length) != null || header.type() != PacketType.REPLY)
        {
            return false;
        }
        reply.wrap(buffer, offset);
        if (reply.validate(length) == null)
        {
            handler.onReply(reply.senderId(), reply.requestPacketId(), reply.requestId(), buffer, reply.payloadOffset(), reply.payloadLength());
        }
        return true;
    }
}
