package org.lightwire.transport.engine;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.lightwire.transport.protocol.HeaderFlyweight;
import org.lightwire.transport.protocol.MessageType;

/** Test doubles for an engine's three collaborators: records what it sends, delivers and releases. */
final class Recorder implements PacketSender, MessageHandler, BufferReleaser
{
    /** One packet the engine sent, decoded. */
    record Sent(MessageType type, boolean exactlyOnce, int size, int call, int packet, boolean fragmented, byte[] payload, ByteBuffer payloadBuffer)
    {
        @Override
        public String toString()
        {
            return type + "(call=" + call + ", packet=" + packet + ", eo=" + exactlyOnce + ", frag=" + fragmented + ", bytes=" + payload.length + ")";
        }
    }

    final List<Sent> sent = new ArrayList<>();
    final List<byte[]> deliveredChunks = new ArrayList<>();
    final List<byte[]> messages = new ArrayList<>();
    final List<String> aborts = new ArrayList<>();
    final Map<ByteBuffer, Integer> releases = new IdentityHashMap<>();
    int releaseCount;
    boolean lastExactlyOnce;
    private final ByteArrayOutputStream current = new ByteArrayOutputStream();

    @Override
    public void sendPacket(final ByteBuffer header, final ByteBuffer payload)
    {
        final HeaderFlyweight h = new HeaderFlyweight().wrap(header, header.position());
        final byte[] bytes = new byte[payload == null ? 0 : payload.remaining()];
        if (payload != null)
        {
            payload.duplicate().get(bytes);
        }
        sent.add(new Sent(h.type(), h.exactlyOnce(), h.messageSize(), (int)h.callNumber(), h.packetNumber(), h.fragmented(), bytes, payload));
    }

    @Override
    public void onMessageData(final ByteBuffer payload, final boolean endOfMessage, final boolean exactlyOnce)
    {
        final byte[] bytes = new byte[payload.remaining()];
        payload.get(bytes);
        deliveredChunks.add(bytes);
        current.writeBytes(bytes);
        lastExactlyOnce = exactlyOnce;
        if (endOfMessage)
        {
            messages.add(current.toByteArray());
            current.reset();
        }
    }

    @Override
    public void onMessageAborted(final String reason)
    {
        aborts.add(reason);
        current.reset();
    }

    @Override
    public void release(final ByteBuffer buffer)
    {
        releaseCount++;
        releases.merge(buffer, 1, Integer::sum);
    }

    List<Sent> take()
    {
        final List<Sent> copy = new ArrayList<>(sent);
        sent.clear();
        return copy;
    }

    Sent only()
    {
        if (sent.size() != 1)
        {
            throw new AssertionError("expected one packet sent, got " + sent);
        }
        return take().get(0);
    }

    static ByteBuffer data(final MessageType type, final boolean exactlyOnce, final long call, final int packet, final boolean fragmented, final byte[] payload)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(HeaderFlyweight.HEADER_LENGTH + payload.length);
        new HeaderFlyweight().wrap(buffer, 0).set(type, exactlyOnce, HeaderFlyweight.HEADER_LENGTH + payload.length, call, packet, fragmented);
        buffer.position(HeaderFlyweight.HEADER_LENGTH);
        buffer.put(payload);
        buffer.flip();
        return buffer;
    }

    static ByteBuffer control(final MessageType type, final long call, final int packet)
    {
        return data(type, true, call, packet, false, new byte[0]);
    }

    /** Re-creates the wire form of a packet the engine sent, to feed it to the peer engine. */
    static ByteBuffer wire(final Sent s)
    {
        return data(s.type(), s.exactlyOnce(), s.call(), s.packet(), s.fragmented(), s.payload());
    }

    static byte[] pattern(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(i * 31 + seed);
        }
        return bytes;
    }
}
