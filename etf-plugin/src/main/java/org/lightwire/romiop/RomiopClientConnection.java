package org.lightwire.romiop;

import java.io.IOException;

import org.jacorb.orb.dsi.ServerRequest;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.romiop.consolidation.ConsolidationPolicy;
import org.lightwire.etf.giop.SystemExceptionReply;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.SystemException;
import org.omg.ETF.BufferHolder;
import org.omg.ETF.Profile;

/**
 * The client side of one JacORB connection to a ROMIOP group. Each GIOP Request JacORB flushes
 * is multicast to the group through the ORB's {@link ClientGroup} (paper, section 5: the ORB's
 * request becomes a ROMIOP Request); a two-way call's consolidated reply comes back through
 * {@link ClientGroup.ReplySink} and is queued for JacORB's reader, which matches it by request
 * id. Oneways are multicast once, reliably, in flush order.
 *
 * <ul>
 *   <li>A LocateRequest is answered here with OBJECT_HERE: every replica serves the key, and
 *       asking the group would only cost a round of the protocol.</li>
 *   <li>CancelRequest and other messages are dropped and counted: the group has no GIOP
 *       conversation to cancel or close.</li>
 *   <li>A request that cannot be handed to the group gets a COMM_FAILURE reply of its own.</li>
 * </ul>
 */
final class RomiopClientConnection extends org.lightwire.etf.MessageConnection
{
    private final RomiopFactories factories;
    private volatile ClientGroup group;
    private volatile long generation;
    private volatile String name = "romiop:(not connected)";

    RomiopClientConnection(final RomiopFactories factories)
    {
        this.factories = factories;
    }

    @Override
    public synchronized void connect(final Profile serverProfile, final long timeOut)
    {
        if (connected)
        {
            return;
        }
        if (!(serverProfile instanceof RomiopProfile))
        {
            throw RomiopExceptions.badAddress(String.valueOf(serverProfile), "not a ROMIOP profile");
        }
        final RomiopProfile p = (RomiopProfile)serverProfile;
        profile = p;
        name = p.toString();
        final ClientGroup g;
        try
        {
            g = factories.clientGroup(p.address());
        }
        catch (final IOException e)
        {
            throw RomiopExceptions.joinFailed(name, e);
        }
        generation = inbound.open();
        final long gen = generation;
        g.setSink(reply ->
        {
            if (!inbound.offer(gen, reply))
            {
                factories.repliesDropped.incrementAndGet();
            }
            PolledReads.queued(g.driver());
        });
        group = g;
        clearOutgoing();
        connected = true;
    }

    @Override
    protected void onMessage(final byte[] message)
    {
        final ClientGroup g = group;
        if (!connected || g == null)
        {
            throw RomiopExceptions.closed(name);
        }
        if (!GiopMessage.isGiop(message, message.length))
        {
            factories.messagesDropped.incrementAndGet();
            return;
        }
        final int type = GiopMessage.type(message);
        final long requestId = GiopMessage.requestId(message, message.length);
        if (type == GiopMessage.LOCATE_REQUEST && requestId != GiopMessage.UNKNOWN)
        {
            inbound.offer(generation, locateReplyObjectHere(message, requestId));
            PolledReads.queued(g.driver());
            return;
        }
        if (type != GiopMessage.REQUEST || requestId == GiopMessage.UNKNOWN)
        {
            factories.messagesDropped.incrementAndGet();
            return;
        }
        final boolean twoWay = GiopMessage.responseExpected(message, message.length) != 0;
        final ConsolidationPolicy callPolicy;
        try
        {
            callPolicy = twoWay ? CallPolicy.fromRequest(message, message.length) : null;
        }
        catch (final IllegalArgumentException e)
        {
            fail(message, requestId, RomiopExceptions.badCallPolicy(name, e));
            return;
        }
        try
        {
            g.send(message, (int)requestId, twoWay, callPolicy);
        }
        catch (final IOException e)
        {
            if (twoWay)
            {
                fail(message, requestId, RomiopExceptions.sendFailed(name, e));
            }
            else
            {
                factories.onewaysLost.incrementAndGet();
            }
        }
    }

    /** Answers one request with a system exception reply of its own; the other calls go on. */
    private void fail(final byte[] request, final long requestId, final SystemException ex)
    {
        final byte[] detail = ServerRequest.createExceptionDetailMessage(ex.getMessage()).context_data;
        inbound.offer(generation, SystemExceptionReply.build(GiopMessage.minor(request), requestId,
            org.lightwire.etf.CorbaExceptions.repositoryId(ex), ex.minor, ex.completed.value(), detail));
        final ClientGroup g = group;
        if (g != null)
        {
            PolledReads.queued(g.driver());
        }
    }

    /** The next bytes of the consolidated replies; with a polling driver this thread drives the group meanwhile. */
    @Override
    public int read(final BufferHolder data, final int offset, final int minLength, final int maxLength, final long timeOut)
    {
        final ClientGroup g = group;
        return g == null ? super.read(data, offset, minLength, maxLength, timeOut) :
            PolledReads.read(inbound, g.driver(), data.value, offset, minLength, maxLength);
    }

    /** GIOP LocateReply, status OBJECT_HERE (1), big-endian: header, request id, status. */
    private static byte[] locateReplyObjectHere(final byte[] request, final long requestId)
    {
        final byte[] m = {'G', 'I', 'O', 'P', 1, (byte)GiopMessage.minor(request), 0, (byte)GiopMessage.LOCATE_REPLY, 0, 0, 0, 8,
            0, 0, 0, 0, 0, 0, 0, 1};
        GiopMessage.setRequestId(m, m.length, requestId);
        return m;
    }

    @Override
    public void close()
    {
        final ClientGroup g;
        synchronized (this)
        {
            connected = false;
            g = group;
            group = null;
        }
        final String n = name;
        inbound.close(() -> RomiopExceptions.closed(n));
        if (g != null)
        {
            PolledReads.queued(g.driver());
            factories.releaseClientGroup(g);
        }
    }

    @Override
    protected COMM_FAILURE handleCommFailure(final IOException exception)
    {
        return RomiopExceptions.sendFailed(name, exception);
    }

    @Override
    public String toString()
    {
        return "RomiopClientConnection{" + name + ", connected=" + connected + '}';
    }
}
