package org.lightwire.transport.link.circuit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;

import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.udp.SetupFlyweight;
import org.lightwire.transport.link.udp.UdpPrefixFlyweight;
import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.HeaderFlyweight;

/**
 * The server end of the connection over a circuit: it answers the client's CONNECT with ACCEPT
 * and a fresh random id, delivers only packets that carry that id, and answers any other id with
 * REJECT ({@link CloseCause#UNKNOWN}): a client of the server's previous incarnation learns at
 * once that its connection is gone. A CONNECT with a new nonce opens a new connection (the first
 * one, or a new client incarnation): {@link #receive} throws {@link PeerRestartedException} once,
 * and the server starts afresh (a new engine), so that nothing of an old incarnation's calls is
 * taken for the new one's. Each connection is numbered ({@link #incarnation()}); what a server
 * engine sends goes out only while its connection is the current one
 * ({@link #send(int, ByteBuffer, ByteBuffer)}): a late reply of a replaced engine is dropped,
 * never stamped with the next connection's id.
 */
public final class CircuitServerLink implements Link
{
    private static final SecureRandom IDS = new SecureRandom();

    private final CircuitFraming framing;
    private final String name;
    /** The connection's id and the nonce of the CONNECT that opened it; 0 before any. Receive thread only, read by send. */
    private volatile long connectionId;
    /** Counts the connections opened on the circuit; 0 before the first. */
    private volatile int incarnation;
    private long nonce;
    private long repliesOfEarlierConnections;
    /** The last connection the server gave up, and why: its packets get a REJECT that says so. */
    private long forgottenId;
    private CloseCause forgottenCause = CloseCause.UNKNOWN;
    private long rejectsSent;

    public CircuitServerLink(final Link circuit, final String name)
    {
        this.framing = new CircuitFraming(circuit, HeaderFlyweight.HEADER_LENGTH);
        this.name = name;
    }

    /**
     * Sends one packet of the current connection.
     *
     * @throws IOException the circuit failed, or no client has connected yet (a server only answers).
     */
    @Override
    public void send(final ByteBuffer header, final ByteBuffer payload) throws IOException
    {
        final long id = connectionId;
        if (id == 0)
        {
            throw new IOException("no client has connected on " + name + " yet: nothing to answer");
        }
        framing.send(id, header, payload);
    }

    /**
     * Sends one packet of connection number {@code ofIncarnation}, if it is still the current
     * one; otherwise the packet belongs to a connection that is gone and is dropped (counted).
     */
    public void send(final int ofIncarnation, final ByteBuffer header, final ByteBuffer payload) throws IOException
    {
        final long id = connectionId;
        if (ofIncarnation != incarnation || id == 0)
        {
            repliesOfEarlierConnections++;
            return;
        }
        framing.send(id, header, payload);
    }

    /** @return the number of the current connection: 1 for the first opened, 0 before any. */
    public int incarnation()
    {
        return incarnation;
    }

    /** @return packets an engine of an earlier connection sent after it was replaced: dropped. */
    public long repliesOfEarlierConnections()
    {
        return repliesOfEarlierConnections;
    }

    /**
     * Receives the next packet of the current connection, answering set-up and stray SDUs on the way.
     *
     * @throws PeerRestartedException a new client incarnation connected; receive again for its packets.
     */
    @Override
    public int receive(final ByteBuffer dst, final long timeoutNs) throws IOException
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        long waitNs = timeoutNs;
        while (true)
        {
            if (!framing.receive(waitNs))
            {
                return TIMEOUT;
            }
            final long id = framing.receivedId();
            if (id == UdpPrefixFlyweight.SETUP_CONNECTION_ID)
            {
                onSetup();
            }
            else if (id != -1 && id == connectionId)
            {
                final int n = framing.copyPacketTo(dst);
                if (n >= 0)
                {
                    return n;
                }
            }
            else if (id != -1)
            {
                // A connection this server does not know: an earlier incarnation's, or a forgery.
                framing.countDropped();
                rejectsSent++;
                final CloseCause cause = id == forgottenId ? forgottenCause : CloseCause.UNKNOWN;
                framing.sendSetup(s -> s.setReject(announcedMaxPacketBytes(), cause, id), true);
            }
            if (timeoutNs != FOREVER)
            {
                waitNs = Math.max(0, deadlineNs - System.nanoTime());
                if (timeoutNs == 0 || waitNs == 0)
                {
                    return TIMEOUT;
                }
            }
        }
    }

    private void onSetup() throws IOException
    {
        final SetupFlyweight setup = framing.receivedSetup();
        if (setup == null || setup.kind() != SetupFlyweight.Kind.CONNECT)
        {
            framing.countDropped();
            return;
        }
        final long connectNonce = setup.nonce();
        final int clientMax = setup.maxPacketBytes();
        if (connectNonce == nonce && connectionId != 0)
        {
            // Our ACCEPT was lost: the same answer again.
            sendAccept(connectionId, connectNonce, clientMax);
            return;
        }
        long id;
        do
        {
            id = IDS.nextLong();
        }
        while (id == 0 || id == connectionId);
        nonce = connectNonce;
        connectionId = id;
        incarnation++;
        sendAccept(id, connectNonce, clientMax);
        throw new PeerRestartedException(name, id);
    }

    private void sendAccept(final long id, final long connectNonce, final int clientMax) throws IOException
    {
        framing.sendSetup(s -> s.set(SetupFlyweight.Kind.ACCEPT, Math.min(announcedMaxPacketBytes(), clientMax), null, 0, id, connectNonce, null),
            false);
    }

    /** @return this end's largest packet as a set-up body can say it. */
    private int announcedMaxPacketBytes()
    {
        return Math.max(SetupFlyweight.MIN_PACKET_BYTES, Math.min(SetupFlyweight.MAX_PACKET_BYTES, maxPacketBytes()));
    }

    /**
     * The server gave the current connection up (its engine became a zombie): its packets are
     * answered from now on with a REJECT that names {@code cause}, and the next CONNECT opens a
     * new connection. Call it on the receiving thread.
     */
    public void forget(final CloseCause cause)
    {
        if (connectionId != 0)
        {
            forgottenId = connectionId;
            forgottenCause = cause;
            connectionId = 0;
            nonce = 0;
        }
    }

    /** @return the current connection's id, 0 before a client connected. */
    public long connectionId()
    {
        return connectionId;
    }

    /** @return REJECTs sent for packets of connections this server does not know. */
    public long rejectsSent()
    {
        return rejectsSent;
    }

    /** @return SDUs dropped: of another connection, too short or malformed. */
    public long dropped()
    {
        return framing.dropped();
    }

    @Override
    public int maxPacketBytes()
    {
        return framing.circuit().maxPacketBytes() - UdpPrefixFlyweight.HEADER_LENGTH;
    }

    @Override
    public boolean preservesOrder()
    {
        return framing.circuit().preservesOrder();
    }

    @Override
    public boolean timedReceive()
    {
        return framing.circuit().timedReceive();
    }

    @Override
    public void close() throws IOException
    {
        framing.circuit().close();
    }

    @Override
    public String toString()
    {
        return "CircuitServerLink{" + name + ", connectionId=" + UdpPrefixFlyweight.formatId(connectionId) + ", rejectsSent=" + rejectsSent +
            ", dropped=" + framing.dropped() + ", circuit=" + framing.circuit() + '}';
    }
}
