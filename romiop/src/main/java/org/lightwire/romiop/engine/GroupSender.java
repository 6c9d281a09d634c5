package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;

/**
 * The engines' only way out: hands one encoded ROMIOP packet to the link. The buffer is lent for
 * the call only; a link that sends later copies it.
 */
@FunctionalInterface
public interface GroupSender
{
    /** Destination meaning "every member of the group" (multicast, or fan-out to each member). */
    int GROUP = -1;

    /**
     * @param destinationId a member or client id, or {@link #GROUP}.
     * @param packet        bytes {@code [0, length)} are the packet.
     */
    void send(int destinationId, ByteBuffer packet, int length);
}
