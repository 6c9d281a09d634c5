package org.lightwire.transport.link.udp;

import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link ServerPacketHandler} that records every callback, copying each packet. */
class RecordingHandler implements ServerPacketHandler
{
    static final long WAIT_S = 10;

    /** One packet as it reached the handler. */
    record Received(UdpServerConnection connection, byte[] packet, String thread)
    {
    }

    final BlockingQueue<UdpServerConnection> connects = new LinkedBlockingQueue<>();
    final BlockingQueue<Received> packets = new LinkedBlockingQueue<>();
    final BlockingQueue<String> closes = new LinkedBlockingQueue<>();
    final BlockingQueue<String> closeThreads = new LinkedBlockingQueue<>();

    @Override
    public void onConnect(final UdpServerConnection connection)
    {
        connects.add(connection);
    }

    @Override
    public void onPacket(final UdpServerConnection connection, final ByteBuffer packet, final long nowNs)
    {
        final byte[] bytes = new byte[packet.remaining()];
        packet.get(packet.position(), bytes);
        packets.add(new Received(connection, bytes, Thread.currentThread().getName()));
    }

    @Override
    public void onClose(final UdpServerConnection connection, final String reason)
    {
        closeThreads.add(Thread.currentThread().getName());
        closes.add(UdpPrefixFlyweight.formatId(connection.connectionId()) + ": " + reason);
    }

    Received nextPacket() throws InterruptedException
    {
        final Received received = packets.poll(WAIT_S, TimeUnit.SECONDS);
        if (received == null)
        {
            throw new AssertionError("no packet reached the server handler within " + WAIT_S + " s");
        }
        return received;
    }

    UdpServerConnection nextConnect() throws InterruptedException
    {
        final UdpServerConnection connection = connects.poll(WAIT_S, TimeUnit.SECONDS);
        if (connection == null)
        {
            throw new AssertionError("no onConnect within " + WAIT_S + " s");
        }
        return connection;
    }
}
