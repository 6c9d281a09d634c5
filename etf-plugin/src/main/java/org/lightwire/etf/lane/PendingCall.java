package org.lightwire.etf.lane;

import org.lightwire.transport.channel.ServerCall;

/**
 * A request a lane presented to JacORB and whose reply it awaits: the transport call to answer,
 * the id the client gave the request (restored in the reply), and what an error reply for it
 * needs (its request bytes may be overwritten by then). Made once per request, as the single
 * connection's pending call was before lanes.
 */
final class PendingCall
{
    final int laneId;
    final ServerCall call;
    final int originalId;
    final int type;
    final int minor;
    final Route route;

    PendingCall(final int laneId, final ServerCall call, final int originalId, final int type, final int minor, final Route route)
    {
        this.laneId = laneId;
        this.call = call;
        this.originalId = originalId;
        this.type = type;
        this.minor = minor;
        this.route = route;
    }

    @Override
    public String toString()
    {
        return "PendingCall{laneId=" + Integer.toUnsignedString(laneId) + ", originalId=" + Integer.toUnsignedString(originalId) +
            ", type=" + type + ", minor=" + minor + ", connection=" + route.name() + '}';
    }
}
