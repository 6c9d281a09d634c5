package org.lightwire.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpClientLink;
import org.lightwire.transport.link.udp.UdpLinkConfig;

/**
 * A client JVM that opens many Lightwire transport connections to one server and holds them
 * open: each costs the server one completed set-up exchange and one socket, which is what a
 * client that wants to exhaust a server would do. Every {@code callEvery}-th connection carries
 * one call, a raw GIOP 1.2 {@code echoString} to the object key {@code echo} ({@link RawGiop}),
 * whose reply is checked. Each connection has one socket and no selector (a blocking link), and
 * small packets and socket buffers, so that thousands fit in one JVM.
 *
 * <p>Arguments: {@code host port count callEvery threads}. When every connection is open it
 * announces {@code LW-IOR opened <count> calls=<calls> ok=<ok> failed=<failures>} (the
 * {@link ProcessHarness} announcement protocol) and holds the connections until its standard
 * input reaches end of file.
 */
public final class ConnectionHog
{
    private ConnectionHog()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final InetSocketAddress server = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
        final int count = Integer.parseInt(args[2]);
        final int callEvery = Integer.parseInt(args[3]);
        final int threads = Integer.parseInt(args[4]);
        final UdpLinkConfig link = UdpLinkConfig.builder().maxPacketBytes(1400).loopbackMaxPacketBytes(0)
            .socketReceiveBufferBytes(64 * 1024).socketSendBufferBytes(64 * 1024)
            .connectTimeoutNs(TimeUnit.SECONDS.toNanos(30)).build();
        final List<Object> held = java.util.Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger ok = new AtomicInteger();
        final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            final Thread w = new Thread(() ->
            {
                int i;
                while ((i = next.getAndIncrement()) < count)
                {
                    try
                    {
                        final UdpClientLink l = UdpClientLink.connectBlocking(server, link);
                        if (i % callEvery != 0)
                        {
                            held.add(l);
                            continue;
                        }
                        final ClientConnection c = new ClientConnection(l, EngineConfig.defaults(), "hog " + i, 4096);
                        held.add(c);
                        calls.incrementAndGet();
                        final String text = "hog connection " + i;
                        final ByteBuffer reply = c.call(ByteBuffer.wrap(RawGiop.request(i, 3, "echo", "echoString", text, null)),
                            TimeUnit.SECONDS.toNanos(30));
                        final RawGiop.Reply r = RawGiop.parseReply(reply);
                        if (r.requestId == i && r.status == RawGiop.NO_EXCEPTION && text.equals(r.result))
                        {
                            ok.incrementAndGet();
                        }
                        else
                        {
                            failures.add("connection " + i + ": " + r);
                        }
                    }
                    catch (final IOException | RuntimeException e)
                    {
                        failures.add("connection " + i + ": " + e);
                    }
                }
            }, "hog-" + t);
            w.start();
            workers.add(w);
        }
        for (final Thread w : workers)
        {
            w.join();
        }
        for (final String f : failures.subList(0, Math.min(10, failures.size())))
        {
            System.out.println("failure: " + f);
        }
        System.out.println(TestServer.IOR_LINE_PREFIX + "opened " + held.size() + " calls=" + calls.get() + " ok=" + ok.get() +
            " failed=" + failures.size());
        System.out.println(TestServer.READY_LINE);
        System.out.flush();
        TestServer.watchStandardInput();
        Thread.sleep(Long.MAX_VALUE);
    }
}
