package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import org.lightwire.romiop.protocol.RequestFlyweight;

/**
 * A Request a member received and keeps, as its client sent it: held until the leader's order
 * delivers it, then retained for NAK answers and for a new leader's recovery. Named by its key,
 * the client id in the high 32 bits and the client's packet id in the low 32.
 */
final class HeldRequest
{
    final long key;
    final int requestId;
    final int responseFlags;
    final int clientSeq;
    final byte[] payload;
    /** Bytes a held request counts against {@code max_held_bytes}: its payload and this much more (the object, the map entry). */
    static final int OVERHEAD_BYTES = 96;
    /**
     * Sequencer: sent to it alone (flags bit 2) and not yet carried to the group. Set only on
     * arrival at an ordering member; carrying a request the others already have is harmless
     * (a duplicate to them), so a leader that steps down need not clear it.
     */
    boolean toCarry;

    HeldRequest(final long key, final int requestId, final int responseFlags, final int clientSeq, final byte[] payload)
    {
        this.key = key;
        this.requestId = requestId;
        this.responseFlags = responseFlags;
        this.clientSeq = clientSeq;
        this.payload = payload;
    }

    /** @return what this request counts against {@code max_held_bytes}. */
    int cost()
    {
        return payload.length + OVERHEAD_BYTES;
    }

    static long key(final int senderId, final int packetId)
    {
        return ((long)senderId << 32) | (packetId & 0xFFFF_FFFFL);
    }

    static int clientId(final long key)
    {
        return (int)(key >>> 32);
    }

    static int packetId(final long key)
    {
        return (int)key;
    }

    /** Writes the request as its client sent it (flags bit 2 clear) where {@code request} is wrapped. */
    void writeTo(final RequestFlyweight request)
    {
        request.set(Outbox.WIRE_ORDER, clientId(key), packetId(key), requestId, responseFlags, payload.length)
            .clientSeq(clientSeq).payload(ByteBuffer.wrap(payload), 0, payload.length);
    }
}
