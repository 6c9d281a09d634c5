package org.lightwire.transport.engine;

import java.nio.ByteBuffer;

/**
 * Feeds one whole message (a request or a reply) into an engine within its buffer pool: as many
 * partial sends as the pool allows, then a reclaim, then more once the peer has acknowledged
 * (paper, section 4.3, where the strand does this). It does no I/O and never blocks: a driver
 * calls {@link #pump} again after each input to the engine until it returns true.
 *
 * <p>A message that fits in the pool goes to the engine as the caller's buffer itself; a larger
 * one is handed over in slices of that buffer, never copied.
 */
public final class MessageWriter
{
    /** The engine's send, client or server. */
    @FunctionalInterface
    public interface Send
    {
        void send(ByteBuffer payload, boolean complete, long nowNs);
    }

    private final ProtocolEngine engine;
    private final Send send;
    private ByteBuffer message;
    private boolean exactlyOnce;
    private int nextOffset;
    private int endOffset;
    private boolean active;

    public MessageWriter(final ProtocolEngine engine, final Send send)
    {
        this.engine = engine;
        this.send = send;
    }

    /** @return a writer for a client engine, whose send also names the call's semantics. */
    public static MessageWriter forClient(final ClientEngine engine)
    {
        final MessageWriter[] self = new MessageWriter[1];
        self[0] = new MessageWriter(engine, (payload, complete, nowNs) -> engine.send(payload, complete, self[0].exactlyOnce, nowNs));
        return self[0];
    }

    /** @return a writer for a server engine's replies. */
    public static MessageWriter forServer(final ServerEngine engine)
    {
        return new MessageWriter(engine, engine::send);
    }

    /**
     * Begins a message: the bytes of {@code message} from its position to its limit. The buffer
     * belongs to the transport until the engine releases it.
     */
    public void start(final ByteBuffer message, final boolean exactlyOnce)
    {
        if (active)
        {
            throw new IllegalStateException("the previous message has not been handed to the engine whole");
        }
        this.message = message;
        this.exactlyOnce = exactlyOnce;
        this.nextOffset = message.position();
        this.endOffset = message.limit();
        this.active = true;
    }

    /** @return true while part of the message has still to be handed to the engine. */
    public boolean isActive()
    {
        return active;
    }

    /**
     * Hands the engine as much of the message as its pool takes, and asks for a reclaim when the
     * pool is full.
     *
     * @return true once the whole message is with the engine.
     */
    public boolean pump(final long nowNs)
    {
        while (active)
        {
            final int remaining = endOffset - nextOffset;
            final int roomBytes = exactlyOnce ? engine.freePackets() * engine.maxPayloadBytes() : Integer.MAX_VALUE;
            if (roomBytes == 0)
            {
                engine.reclaim(nowNs);
                return false;
            }
            final boolean whole = nextOffset == message.position() && remaining <= roomBytes;
            final int length = Math.min(remaining, roomBytes);
            final ByteBuffer chunk = whole ? message : message.duplicate().limit(nextOffset + length).position(nextOffset);
            nextOffset += length;
            final boolean complete = nextOffset == endOffset;
            if (complete)
            {
                active = false;
                message = null;
            }
            send.send(chunk, complete, nowNs);
        }
        return true;
    }
}
