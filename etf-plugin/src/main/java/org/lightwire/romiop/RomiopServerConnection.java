package org.lightwire.romiop;

import java.io.IOException;

import org.lightwire.etf.giop.GiopMessage;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.NO_IMPLEMENT;
import org.omg.ETF.BufferHolder;
import org.omg.ETF.Profile;

/**
 * The one ETF server connection of a replica: every request the group delivers is queued here in
 * the total order for JacORB's single reader, and every GIOP Reply JacORB flushes goes back to
 * the {@link RomiopListener}, which sends it to the requesting client through the group. A
 * CloseConnection or any other message JacORB sends is dropped and counted: the group has no
 * GIOP conversation to close.
 */
final class RomiopServerConnection extends org.lightwire.etf.MessageConnection
{
    private final RomiopListener listener;
    private final long generation;

    RomiopServerConnection(final RomiopListener listener, final RomiopProfile groupProfile)
    {
        this.listener = listener;
        this.profile = groupProfile;
        this.generation = inbound.open();
    }

    void markConnected()
    {
        synchronized (this)
        {
            connected = true;
        }
    }

    /**
     * Queues a delivered request for the ORB, waiting while {@code maxQueued} wait already: the
     * group's order must not lose one, so a servant slower than the group holds up this member's
     * driver (and with it the ACKs that let clients send more; a member held up longer than the
     * KeepAlive timeout is removed and rejoins).
     *
     * @return false when the connection is closed.
     * @throws InterruptedException when the driver is stopped meanwhile.
     */
    boolean offer(final byte[] request, final int maxQueued) throws InterruptedException
    {
        final org.lightwire.romiop.driver.EngineDriver driver = listener.driver();
        // The reader that polled this request in must not wait for itself: it takes it next.
        final boolean queued = PolledReads.mayWaitForReader(driver) ? inbound.offerWhenRoom(generation, request, maxQueued, Long.MAX_VALUE) :
            inbound.offer(generation, request);
        PolledReads.queued(driver);
        return queued;
    }

    /** The next bytes of the delivered requests; with a polling driver this thread drives the group meanwhile. */
    @Override
    public int read(final BufferHolder data, final int offset, final int minLength, final int maxLength, final long timeOut)
    {
        return PolledReads.read(inbound, listener.driver(), data.value, offset, minLength, maxLength);
    }

    /** @return delivered requests the ORB has not taken yet. */
    int queued()
    {
        return inbound.queued();
    }

    void onTransportClosed(final String reason)
    {
        inbound.close(() -> new COMM_FAILURE("ROMIOP: group connection closed: " + reason, RomiopExceptions.MINOR_CLOSED,
            org.omg.CORBA.CompletionStatus.COMPLETED_MAYBE));
        PolledReads.queued(listener.driver());
    }

    @Override
    protected void onMessage(final byte[] message)
    {
        if (GiopMessage.isGiop(message, message.length) && GiopMessage.type(message) == GiopMessage.REPLY)
        {
            listener.onReply(message);
        }
        else
        {
            listener.messagesDropped.incrementAndGet();
        }
    }

    @Override
    public void connect(final Profile serverProfile, final long timeOut)
    {
        throw new NO_IMPLEMENT("a ROMIOP server connection is made by its listener, never connected");
    }

    @Override
    public void close()
    {
        synchronized (this)
        {
            connected = false;
        }
        inbound.close(() -> RomiopExceptions.closed("group"));
        PolledReads.queued(listener.driver());
        listener.onConnectionClosed(this);
    }

    @Override
    protected COMM_FAILURE handleCommFailure(final IOException exception)
    {
        return RomiopExceptions.sendFailed("group", exception);
    }

    @Override
    public String toString()
    {
        return "RomiopServerConnection{" + profile + '}';
    }
}
