package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import org.lightwire.romiop.protocol.FragmentHeader;
import org.lightwire.romiop.protocol.ReplyFlyweight;

/**
 * Writes a servant's GIOP reply as ROMIOP Reply packets for {@link ReplyStore}, which keeps and
 * paces them (docs/romiop.md, "Replies"): one Reply when it fits in {@code maxPacketBytes}, else
 * pieces, each a Reply of its own (own packet id, kept and ACKed alone) with flags bit 3 set and a
 * {@link FragmentHeader} naming the request. Refuses what the settings cannot carry, naming them.
 */
final class ReplyWriter
{
    private final GroupConfig config;
    private final GroupCounters counters;
    private final Outbox outbox;
    private final ReplyStore replies;
    private final ByteBuffer out;
    private final ReplyFlyweight reply = new ReplyFlyweight();

    ReplyWriter(final GroupConfig config, final GroupCounters counters, final Outbox outbox, final ReplyStore replies)
    {
        this.config = config;
        this.counters = counters;
        this.outbox = outbox;
        this.replies = replies;
        this.out = outbox.buffer();
    }

    /**
     * @return why a reply of {@code length} bytes cannot be sent (longer than {@code maxReplyBytes},
     *     or in more pieces than {@code maxPendingReplies} can keep), or null when it can. Reads
     *     settings only: any thread.
     */
    String refusal(final int length)
    {
        if (length > config.maxReplyBytes)
        {
            return "a reply of " + length + " bytes is longer than jacorb.lightwire.romiop.max_reply_bytes = " + config.maxReplyBytes;
        }
        final int pieceRoom = pieceRoom();
        final boolean whole = (long)ReplyFlyweight.HEADER_LENGTH + length <= config.maxPacketBytes;
        if (!whole && pieceRoom <= 0)
        {
            return "a reply of " + length + " bytes does not fit in one packet of jacorb.lightwire.romiop.max_packet_bytes = " +
                config.maxPacketBytes + ", which leaves no room for a piece (at least " +
                (ReplyFlyweight.HEADER_LENGTH + FragmentHeader.HEADER_LENGTH + 1) + " bytes are needed)";
        }
        final long pieces = whole ? 1 : ((long)length + pieceRoom - 1) / pieceRoom;
        if (pieces > config.maxPendingReplies)
        {
            return "a reply of " + length + " bytes goes in " + pieces + " pieces of jacorb.lightwire.romiop.max_packet_bytes = " +
                config.maxPacketBytes + ", more than jacorb.lightwire.romiop.max_pending_replies = " + config.maxPendingReplies + " keeps";
        }
        return null;
    }

    /** Writes the reply to {@code clientId}'s request {@code packetId}, bytes {@code [offset, offset + length)} of {@code payload}, copied. */
    void write(final int clientId, final int packetId, final int requestId, final ByteBuffer payload, final int offset, final int length,
        final long nowNs)
    {
        counters.repliesSent++;
        if ((long)ReplyFlyweight.HEADER_LENGTH + length <= config.maxPacketBytes)
        {
            writePacket(clientId, packetId, requestId, false, payload, offset, length, nowNs);
            return;
        }
        final int pieceRoom = pieceRoom();
        final byte[] piece = new byte[FragmentHeader.HEADER_LENGTH + pieceRoom];
        final ByteBuffer pieceBuffer = ByteBuffer.wrap(piece);
        for (int at = 0; at < length; at += pieceRoom)
        {
            final int n = Math.min(pieceRoom, length - at);
            FragmentHeader.write(piece, 0, packetId, at, length);
            payload.get(offset + at, piece, FragmentHeader.HEADER_LENGTH, n);
            writePacket(clientId, packetId, requestId, true, pieceBuffer, 0, FragmentHeader.HEADER_LENGTH + n, nowNs);
            counters.replyFragmentsSent++;
        }
    }

    /** @return bytes of reply in one piece: a packet less the Reply header and the piece header. */
    private int pieceRoom()
    {
        return config.maxPacketBytes - ReplyFlyweight.HEADER_LENGTH - FragmentHeader.HEADER_LENGTH;
    }

    private void writePacket(final int clientId, final int packetId, final int requestId, final boolean piece, final ByteBuffer payload,
        final int offset, final int length, final long nowNs)
    {
        final int replyPacketId = outbox.nextPacketId();
        reply.wrap(out, 0);
        // reply_status stays 0: the GIOP reply in the payload carries the real one.
        reply.set(Outbox.WIRE_ORDER, config.selfId, replyPacketId, clientId, packetId, requestId, 0, length).payload(payload, offset, length);
        reply.header().piece(piece);
        final byte[] copy = new byte[reply.packetSize()];
        out.get(0, copy);
        replies.add(replyPacketId, clientId, packetId, copy, piece, nowNs);
    }
}
