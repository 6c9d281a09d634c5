package org.lightwire.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * A raw UDP ping-pong client: a connected, blocking {@link DatagramChannel}, one datagram out and
 * the echo back, read by the calling thread. Its datagram is as long as a Lightwire null call's
 * (8-byte connection prefix and 8-byte header), so that the two differ by protocol work only.
 */
public final class RawUdpClient implements AutoCloseable
{
    public static final int NULL_CALL_DATAGRAM_BYTES = 16;

    private final DatagramChannel channel;
    private final ByteBuffer out;
    private final ByteBuffer in = ByteBuffer.allocateDirect(65536);

    public RawUdpClient(final InetSocketAddress server, final int datagramBytes) throws IOException
    {
        channel = DatagramChannel.open();
        channel.connect(server);
        out = ByteBuffer.allocateDirect(datagramBytes);
    }

    /** One round trip; returns the echoed length. */
    public int pingPong() throws IOException
    {
        out.clear();
        channel.write(out);
        in.clear();
        return channel.read(in);
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }
}
