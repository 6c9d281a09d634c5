package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;

/** Receives each member's reply to this client's requests, once per member and request. */
@FunctionalInterface
public interface ReplyHandler
{
    /**
     * @param memberId  the replying member.
     * @param packetId  the request's packet id ({@link GroupClientEngine#multicast} returned it).
     * @param requestId the GIOP request id.
     * @param payload   the GIOP reply, bytes {@code [offset, offset + length)}, lent for the call only.
     */
    void onReply(int memberId, int packetId, int requestId, ByteBuffer payload, int offset, int length);
}
