package org.lightwire.transport.engine;

import java.nio.ByteBuffer;

import org.lightwire.transport.protocol.HeaderFlyweight;
import org.lightwire.transport.protocol.MessageType;

/**
 * Packets received together, handed to an engine control first: CALL_ACK, NACK, RECLAIM and
 * RECLAIM_ACK before PARTIAL and COMPLETE (A1's two priority queues). A NACK or an
 * acknowledgement waiting behind a burst of data then takes effect before the data is handled.
 *
 * <p>The slots are preallocated; a driver fills them ({@link #nextSlot()}, {@link #commit()})
 * and calls {@link #dispatch}. Within each class, packets keep their arrival order.
 */
public final class PacketBatch
{
    private final ByteBuffer[] slots;
    private int size;

    /**
     * @param capacity packets per batch.
     * @param slotBytes bytes per slot: the link's largest packet.
     * @param direct true for direct buffers (for socket reads).
     */
    public PacketBatch(final int capacity, final int slotBytes, final boolean direct)
    {
        slots = new ByteBuffer[capacity];
        for (int i = 0; i < capacity; i++)
        {
            slots[i] = direct ? ByteBuffer.allocateDirect(slotBytes) : ByteBuffer.allocate(slotBytes);
        }
    }

    /** @return the next free slot, cleared for a receive; null when the batch is full. */
    public ByteBuffer nextSlot()
    {
        if (size == slots.length)
        {
            return null;
        }
        final ByteBuffer slot = slots[size];
        slot.clear();
        return slot;
    }

    /** Adds the slot returned by {@link #nextSlot()}, filled up to its position, to the batch. */
    public void commit()
    {
        slots[size].flip();
        size++;
    }

    public int size()
    {
        return size;
    }

    public boolean isFull()
    {
        return size == slots.length;
    }

    /** Hands every packet to {@code engine}, control packets first, and empties the batch. */
    public void dispatch(final ProtocolEngine engine, final long nowNs)
    {
        for (int i = 0; i < size; i++)
        {
            if (isControl(slots[i]))
            {
                engine.onPacket(slots[i], nowNs);
            }
        }
        for (int i = 0; i < size; i++)
        {
            if (!isControl(slots[i]))
            {
                engine.onPacket(slots[i], nowNs);
            }
        }
        size = 0;
    }

    /** A packet too short to name its type counts as data, so the engine counts it as malformed. */
    static boolean isControl(final ByteBuffer packet)
    {
        if (packet.remaining() < HeaderFlyweight.HEADER_LENGTH)
        {
            return false;
        }
        final MessageType type = MessageType.fromCode(packet.get(packet.position() + HeaderFlyweight.TYPE_OFFSET) & 0xFF);
        return type != null && type.isControl();
    }
}
