package org.lightwire.transport.engine;

import java.nio.ByteBuffer;

/**
 * Gives a buffer passed to {@code send} back to its owner's pool once the transport no longer
 * needs it: acknowledged by the peer, sent at most once, or dropped by a zombie connection
 * (the paper's reclaim, section 4.3).
 */
@FunctionalInterface
public interface BufferReleaser
{
    BufferReleaser NONE = buffer -> { };

    void release(ByteBuffer buffer);
}
