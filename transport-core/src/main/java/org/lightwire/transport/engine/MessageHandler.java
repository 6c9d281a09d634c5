package org.lightwire.transport.engine;

import java.nio.ByteBuffer;

/**
 * Where an engine delivers what it received: the paper's receive function turned into upcalls,
 * so that the bytes go up from the receive buffer without a copy.
 */
public interface MessageHandler
{
    /**
     * One in-sequence packet's payload.
     *
     * @param payload valid from position to limit during this call only; copy what must be kept.
     * @param endOfMessage true on the last packet of the request or reply.
     * @param exactlyOnce the semantics the sender asked for this call.
     */
    void onMessageData(ByteBuffer payload, boolean endOfMessage, boolean exactlyOnce);

    /**
     * A one-way request, part of which was already delivered, lost a packet: the upper layer must
     * discard what it has of it (the paper's ABORT; server error case v).
     */
    void onMessageAborted(String reason);
}
