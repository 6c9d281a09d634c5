package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;

/**
 * Receives, at the client, each member's reply to one of this client's requests, once per member
 * and request (paper, Figure 4 lines 19-20: the client consolidates). Duplicates are dropped and
 * counted ({@code duplicateReplies}); replies from a member outside the client's current view are
 * not delivered ({@code repliesFromNonMembers}).
 */
@FunctionalInterface
public interface ReplyHandler
{
    /**
     * @param memberId  the replying member.
     * @param packetId  the request's packet id, as returned by {@code GroupClientEngine.multicast}.
     * @param requestId the GIOP request id of that request.
     * @param payload   the GIOP Reply message, bytes {@code [offset, offset + length)}, lent for the call only.
     */
    void onReply(int memberId, int packetId, int requestId, ByteBuffer payload, int offset, int length);
}
