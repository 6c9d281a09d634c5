package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;

/** Receives requests in the group's total order, each exactly once (paper, Figure 4 line 36). */
@FunctionalInterface
public interface DeliveryHandler
{
    /**
     * @param orderSeq  position in the total order, 1, 2, 3, ... without gaps.
     * @param senderId  the client that multicast the request.
     * @param packetId  the request's packet id (its identity together with senderId).
     * @param requestId the GIOP request id.
     * @param payload   bytes {@code [offset, offset + length)}, lent for the call only.
     */
    void onDeliver(long orderSeq, int senderId, int packetId, int requestId, ByteBuffer payload, int offset, int length);
}
