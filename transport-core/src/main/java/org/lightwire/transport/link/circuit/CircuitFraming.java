package org.lightwire.transport.link.circuit;

import java.io.IOException;
import java.nio.ByteBuffer;

import org.lightwire.transport.link.Link;
import org.lightwire.transport.link.udp.SetupFlyweight;
import org.lightwire.transport.link.udp.UdpPrefixFlyweight;

/**
 * What both ends of a circuit share: a packet goes out as one SDU of the 8-byte connection id,
 * the engine's header and the payload; an SDU comes in whole into a staging buffer and is told
 * apart by its id (0: a set-up body follows). One thread sends and one receives at a time.
 */
final class CircuitFraming
{
    private final Link circuit;
    private final ByteBuffer prefixAndHeader;
    private final ByteBuffer staging;
    private final UdpPrefixFlyweight prefix = new UdpPrefixFlyweight();
    private final SetupFlyweight setup = new SetupFlyweight();
    private final ByteBuffer setupOut = ByteBuffer.allocateDirect(SetupFlyweight.DATAGRAM_LENGTH);
    private long dropped;

    CircuitFraming(final Link circuit, final int maxHeaderBytes)
    {
        this.circuit = circuit;
        this.prefixAndHeader = ByteBuffer.allocateDirect(UdpPrefixFlyweight.HEADER_LENGTH + maxHeaderBytes);
        this.staging = ByteBuffer.allocateDirect(circuit.maxPacketBytes());
    }

    Link circuit()
    {
        return circuit;
    }

    /** Sends one packet of connection {@code id}: the id, then {@code header}, in one buffer, and the payload. */
    void send(final long id, final ByteBuffer header, final ByteBuffer payload) throws IOException
    {
        prefixAndHeader.clear();
        prefix.wrap(prefixAndHeader, 0).connectionId(id);
        prefixAndHeader.position(UdpPrefixFlyweight.HEADER_LENGTH);
        prefixAndHeader.put(header.duplicate()).flip();
        circuit.send(prefixAndHeader, payload);
    }

    /** Sends a set-up SDU: a zero id and the body {@code write} fills in; REJECT is the short one. */
    void sendSetup(final java.util.function.Consumer<SetupFlyweight> write, final boolean reject) throws IOException
    {
        setupOut.clear();
        prefix.wrap(setupOut, 0).connectionId(UdpPrefixFlyweight.SETUP_CONNECTION_ID);
        write.accept(setup.wrap(setupOut, UdpPrefixFlyweight.HEADER_LENGTH));
        setupOut.limit(reject ? SetupFlyweight.REJECT_DATAGRAM_LENGTH : SetupFlyweight.DATAGRAM_LENGTH);
        circuit.send(setupOut, null);
    }

    /**
     * Receives one SDU into the staging buffer.
     *
     * @return false when none came within {@code timeoutNs}.
     */
    boolean receive(final long timeoutNs) throws IOException
    {
        staging.clear();
        final int n = circuit.receive(staging, timeoutNs);
        if (n < 0)
        {
            return false;
        }
        staging.flip();
        return true;
    }

    /** @return the id of the SDU received, or -1 (counted as dropped) when it is too short to have one. */
    long receivedId()
    {
        if (staging.remaining() < UdpPrefixFlyweight.HEADER_LENGTH)
        {
            dropped++;
            return -1;
        }
        return prefix.wrap(staging, 0).connectionId();
    }

    /** @return the set-up body received, validated; null (counted as dropped) when malformed. */
    SetupFlyweight receivedSetup()
    {
        setup.wrap(staging, UdpPrefixFlyweight.HEADER_LENGTH);
        if (setup.validate(staging.remaining() - UdpPrefixFlyweight.HEADER_LENGTH) != null)
        {
            dropped++;
            return null;
        }
        return setup;
    }

    /** Copies the received packet (the SDU less its id) into {@code dst}. @return its length. */
    int copyPacketTo(final ByteBuffer dst)
    {
        final int length = staging.remaining() - UdpPrefixFlyweight.HEADER_LENGTH;
        if (length > dst.remaining())
        {
            dropped++;
            return -1;
        }
        dst.put(staging.position(UdpPrefixFlyweight.HEADER_LENGTH));
        return length;
    }

    void countDropped()
    {
        dropped++;
    }

    /** @return SDUs dropped: too short, malformed, or of another connection. */
    long dropped()
    {
        return dropped;
    }
}
