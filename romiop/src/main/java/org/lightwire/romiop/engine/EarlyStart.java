package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;

/**
 * A joiner's copy of a start KeepAlive that came before the LIST naming it (the two are sent one
 * after the other and may be reordered): the newest one, kept until the LIST comes and then
 * taken only when its sender sent it after that LIST (an earlier one belongs to an earlier
 * admission, whose start the leader no longer keeps orders for). One packet of a fixed size.
 */
final class EarlyStart
{
    private final byte[] kept = new byte[KeepAliveFlyweight.LENGTH];
    private int keptLength = -1;
    private int senderId;
    private int packetId;

    /** Keeps {@code keepAlive} (a start, wrapped on its packet) unless it is older than the one kept from the same sender. */
    void keep(final KeepAliveFlyweight keepAlive, final ByteBuffer buffer, final int offset, final int length)
    {
        if (length > kept.length || keptLength >= 0 && senderId == keepAlive.senderId() &&
            Integer.compareUnsigned(keepAlive.packetId(), packetId) <= 0)
        {
            return;
        }
        buffer.get(offset, kept, 0, length);
        keptLength = length;
        senderId = keepAlive.senderId();
        packetId = keepAlive.packetId();
    }

    /**
     * @return the start kept from {@code leaderId} sent after its packet {@code listPacketId}, in a
     *         buffer of its own (forgotten here), or null.
     */
    ByteBuffer takeAfter(final int leaderId, final int listPacketId)
    {
        if (keptLength < 0 || senderId != leaderId || Integer.compareUnsigned(packetId, listPacketId) <= 0)
        {
            return null;
        }
        final ByteBuffer start = ByteBuffer.wrap(kept.clone(), 0, keptLength);
        keptLength = -1;
        return start;
    }

    void clear()
    {
        keptLength = -1;
    }
}
