package org.lightwire.transport.link.circuit;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;

import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.PeerClosedException;
import org.lightwire.transport.link.udp.ClientSetupHandshake;
import org.lightwire.transport.link.udp.SetupFlyweight;
import org.lightwire.transport.link.udp.UdpPrefixFlyweight;
import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.HeaderFlyweight;

/**
 * The client end of a connection over a circuit: {@link #connect} runs the set-up exchange over
 * it (a CONNECT with a fresh nonce, retransmitted until the server's ACCEPT), and every packet
 * then carries the connection id the server gave. A packet of another connection id (one the
 * previous incarnation of this client made, a reply the server sent it) is dropped; a REJECT
 * naming this connection (the server restarted, or closed it) makes every later call throw
 * {@link PeerClosedException} with the server's reason.
 */
public final class CircuitClientLink implements Link
{
    private static final SecureRandom NONCES = new SecureRandom();

    private final CircuitFraming framing;
    private final String name;
    private final long connectionId;
    private volatile CloseCause closedBy;

    private CircuitClientLink(final CircuitFraming framing, final String name, final long connectionId)
    {
        this.framing = framing;
        this.name = name;
        this.connectionId = connectionId;
    }

    /**
     * Opens a connection over {@code circuit}, which this link then owns.
     *
     * @param name how messages name the circuit, e.g. "pvc 0.0.100".
     * @throws ConnectException no ACCEPT within {@code connectTimeoutNs}: is a server on the circuit?
     */
    public static CircuitClientLink connect(final Link circuit, final String name, final long connectTimeoutNs, final long setupRetryNs)
        throws IOException
    {
        final CircuitFraming framing = new CircuitFraming(circuit, HeaderFlyweight.HEADER_LENGTH);
        long nonce;
        do
        {
            nonce = NONCES.nextLong();
        }
        while (nonce == 0);
        final int maxPacketBytes = Math.min(SetupFlyweight.MAX_PACKET_BYTES,
            Math.max(SetupFlyweight.MIN_PACKET_BYTES, circuit.maxPacketBytes() - UdpPrefixFlyweight.HEADER_LENGTH));
        final ClientSetupHandshake handshake = new ClientSetupHandshake(nonce, maxPacketBytes, connectTimeoutNs, setupRetryNs);
        final ByteBuffer connect = ByteBuffer.allocateDirect(SetupFlyweight.DATAGRAM_LENGTH);
        handshake.writeConnect(connect, 0);
        handshake.start(System.nanoTime());
        circuit.send(connect.clear(), null);
        while (true)
        {
            final long nowNs = System.nanoTime();
            switch (handshake.onTimer(nowNs))
            {
                case TIMED_OUT:
                    throw new ConnectException("no ACCEPT on " + name + " within " + TimeUnit.NANOSECONDS.toMillis(connectTimeoutNs) +
                        " ms (" + handshake.connectsSent() + " CONNECTs sent): is a Lightwire server on the circuit's other end?");
                case RETRANSMIT:
                    circuit.send(connect.clear(), null);
                    break;
                default:
                    break;
            }
            if (!framing.receive(Math.max(0, handshake.nextDeadlineNs() - nowNs)))
            {
                continue;
            }
            if (framing.receivedId() != UdpPrefixFlyweight.SETUP_CONNECTION_ID)
            {
                // A packet of an earlier connection (a reply to this client's predecessor): not ours.
                framing.countDropped();
                continue;
            }
            final SetupFlyweight setup = framing.receivedSetup();
            if (setup != null && handshake.onSetup(setup, System.nanoTime()) == ClientSetupHandshake.Outcome.ACCEPTED)
            {
                return new CircuitClientLink(framing, name, handshake.connectionId());
            }
        }
    }

    @Override
    public void send(final ByteBuffer header, final ByteBuffer payload) throws IOException
    {
        checkOpen();
        framing.send(connectionId, header, payload);
    }

    @Override
    public int receive(final ByteBuffer dst, final long timeoutNs) throws IOException
    {
        checkOpen();
        final long deadlineNs = System.nanoTime() + timeoutNs;
        long waitNs = timeoutNs;
        while (true)
        {
            if (!framing.receive(waitNs))
            {
                return TIMEOUT;
            }
            final long id = framing.receivedId();
            if (id == connectionId)
            {
                final int n = framing.copyPacketTo(dst);
                if (n >= 0)
                {
                    return n;
                }
            }
            else if (id == UdpPrefixFlyweight.SETUP_CONNECTION_ID)
            {
                final SetupFlyweight setup = framing.receivedSetup();
                if (setup != null && setup.kind() == SetupFlyweight.Kind.REJECT && setup.connectionId() == connectionId)
                {
                    closedBy = setup.reason();
                    checkOpen();
                }
                // A duplicate ACCEPT, or a REJECT of an earlier connection: nothing for us.
            }
            else if (id != -1)
            {
                framing.countDropped();
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

    private void checkOpen() throws PeerClosedException
    {
        final CloseCause cause = closedBy;
        if (cause != null)
        {
            throw new PeerClosedException("the server on " + name + " no longer knows connection " + UdpPrefixFlyweight.formatId(connectionId) +
                ": " + cause.description() + "; open a new connection", cause);
        }
    }

    /** @return the id the server gave this connection. */
    public long connectionId()
    {
        return connectionId;
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
        return "CircuitClientLink{" + name + ", connectionId=" + UdpPrefixFlyweight.formatId(connectionId) + ", dropped=" + framing.dropped() +
            ", circuit=" + framing.circuit() + '}';
    }
}
