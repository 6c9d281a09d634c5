package org.lightwire.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;

/**
 * The floor the benchmarks compare Lightwire with: a raw UDP echo over the same kind of socket
 * (a blocking NIO {@link DatagramChannel}), with no protocol at all. One thread receives each
 * datagram and sends it straight back.
 */
public final class RawUdpEcho implements AutoCloseable
{
    private final DatagramChannel channel;
    private final Thread thread;

    public RawUdpEcho(final InetSocketAddress bind) throws IOException
    {
        channel = DatagramChannel.open();
        channel.bind(bind);
        thread = new Thread(this::run, "raw-udp-echo");
        thread.setDaemon(true);
        thread.start();
    }

    public InetSocketAddress localAddress() throws IOException
    {
        return (InetSocketAddress)channel.getLocalAddress();
    }

    private void run()
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(65536);
        try
        {
            while (true)
            {
                buffer.clear();
                final SocketAddress from = channel.receive(buffer);
                buffer.flip();
                channel.send(buffer, from);
            }
        }
        catch (final ClosedChannelException e)
        {
            // Closed: the echo ends.
        }
        catch (final IOException e)
        {
            System.err.println("raw-udp-echo: " + e);
        }
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }
}
