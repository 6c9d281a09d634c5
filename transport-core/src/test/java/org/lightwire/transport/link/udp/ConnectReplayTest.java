package org.lightwire.transport.link.udp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.transport.link.udp.UdpTestSupport.concat;
import static org.lightwire.transport.link.udp.UdpTestSupport.dataDatagram;
import static org.lightwire.transport.link.udp.UdpTestSupport.parseSetup;
import static org.lightwire.transport.link.udp.UdpTestSupport.setupDatagram;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.lightwire.transport.protocol.CloseCause;

/**
 * A CONNECT's cookie stays valid for its life (30 s) whether or not the connection it opened is
 * still open: its late duplicate or replay after that connection closed must open nothing, close
 * no live connection from the same address, and one client's churn must not push another's idle
 * close out of the server's memory.
 */
class ConnectReplayTest
{
    private static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 40001);
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final List<byte[]> sent = new ArrayList<>();
    private final List<Runnable> tasks = new ArrayList<>();
    private final List<DatagramChannel> ownSockets = new ArrayList<>();
    private final RecordingHandler plain = new RecordingHandler();
    private long nowNs = 1_000 * MS;

    private final ServerDemultiplexer.FrontEnd frontEnd = new ServerDemultiplexer.FrontEnd()
    {
        @Override
        public boolean send(final long connectionId, final ByteBuffer header, final ByteBuffer payload, final InetSocketAddress to)
        {
            sent.add(dataDatagram(connectionId, concat(header, payload)));
            return true;
        }

        @Override
        public void runOnReceiveThread(final Runnable task)
        {
            tasks.add(task);
        }

        @Override
        public DatagramChannel openConnectedSocket(final InetSocketAddress remote) throws IOException
        {
            final DatagramChannel channel = DatagramChannel.open();
            channel.connect(remote);
            ownSockets.add(channel);
            return channel;
        }
    };

    @AfterEach
    void closeSockets() throws IOException
    {
        for (final DatagramChannel c : ownSockets)
        {
            c.close();
        }
    }

    private void runTasks()
    {
        final List<Runnable> queued = new ArrayList<>(tasks);
        tasks.clear();
        queued.forEach(Runnable::run);
    }

    private void feed(final ServerDemultiplexer demultiplexer, final byte[] datagram)
    {
        feed(demultiplexer, datagram, CLIENT);
    }

    private void feed(final ServerDemultiplexer demultiplexer, final byte[] datagram, final InetSocketAddress from)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(datagram.length);
        buffer.put(datagram).flip();
        demultiplexer.onDatagram(buffer, from, nowNs);
    }

    /** @return the CONNECT that echoes the cookie the server gave for {@code nonce}. */
    private byte[] cookieConnect(final ServerDemultiplexer demultiplexer, final long nonce)
    {
        return cookieConnect(demultiplexer, nonce, CLIENT);
    }

    private byte[] cookieConnect(final ServerDemultiplexer demultiplexer, final long nonce, final InetSocketAddress from)
    {
        feed(demultiplexer, setupDatagram(SetupFlyweight.Kind.CONNECT, 1000, nonce, 0), from);
        final SetupFlyweight retry = parseSetup(sent.get(sent.size() - 1));
        assertEquals(SetupFlyweight.Kind.RETRY, retry.kind());
        final byte[] cookie = new byte[SetupFlyweight.COOKIE_LENGTH];
        retry.cookie(cookie, 0);
        return setupDatagram(SetupFlyweight.Kind.CONNECT, 1000, nonce, 0, cookie, null);
    }

    /**
     * The hazard: the nonce of a closed connection is forgotten (connectionsByNonce), and the cookie
     * stays valid, so the same CONNECT datagram opens a second connection: a replayed set-up
     * datagram does more than "repeat answers already given" (docs/protocol.md section 11); the
     * ghost holds a session and a per-address slot until the idle timeout.
     */
    @Test
    void aReplayedConnectOfAClosedConnectionOpensNoNewConnection() throws Exception
    {
        final ServerDemultiplexer demultiplexer = new ServerDemultiplexer(UdpLinkConfig.builder().build(), plain, frontEnd, () -> nowNs);
        final byte[] connect = cookieConnect(demultiplexer, 0x61);
        feed(demultiplexer, connect);
        final UdpServerConnection first = plain.nextConnect();
        // The server closes it (any cause: a failed handler, a request too large, idle).
        first.close(CloseCause.HANDLER_FAILED, "servant bug");
        runTasks();
        assertEquals(0, demultiplexer.openConnections());

        // Ten seconds later the same CONNECT datagram arrives again (a late duplicate, or a replay).
        nowNs += 10_000 * MS;
        feed(demultiplexer, connect);
        assertEquals(1, demultiplexer.connectionsAccepted(), "a replayed CONNECT opened connection #" +
            demultiplexer.connectionsAccepted() + "; open now: " + demultiplexer.openConnections());
    }

    /**
     * The hazard: with sockets of their own, the replayed CONNECT of a connection that was closed
     * replaces the live connection that its client has since opened from the same address and
     * port (a port reused, the case ownSocketsByAddress exists for): a duplicated or replayed
     * datagram closes a live connection (REPLACED), and its client's call fails.
     */
    @Test
    void aReplayedConnectNeverClosesALiveConnection() throws Exception
    {
        final RecordingHandler ownSocketHandler = new RecordingHandler()
        {
            @Override
            public void onConnect(final UdpServerConnection connection)
            {
                connection.openOwnSocket();
                super.onConnect(connection);
            }
        };
        final ServerDemultiplexer demultiplexer =
            new ServerDemultiplexer(UdpLinkConfig.builder().build(), ownSocketHandler, frontEnd, () -> nowNs);
        final byte[] oldConnect = cookieConnect(demultiplexer, 0x71);
        feed(demultiplexer, oldConnect);
        final UdpServerConnection old = ownSocketHandler.nextConnect();
        assertTrue(old.hasOwnSocket());
        old.close(CloseCause.HANDLER_FAILED, "servant bug");
        runTasks();

        // The client opens its next connection from the same address and port.
        nowNs += 1_000 * MS;
        feed(demultiplexer, cookieConnect(demultiplexer, 0x72));
        final UdpServerConnection live = ownSocketHandler.nextConnect();
        assertTrue(live.hasOwnSocket());

        // The first connection's CONNECT arrives once more, 5 s after it was first sent.
        nowNs += 4_000 * MS;
        feed(demultiplexer, oldConnect);
        runTasks();
        assertTrue(live.isOpen(), "a replayed CONNECT closed the live connection: replaced=" + demultiplexer.connectionsReplaced() +
            ", closes=" + ownSocketHandler.closes);
    }

    /**
     * The hazard: the closed
     * connections' table holds maxConnections entries and evicts the oldest first, whatever the
     * cause. With sockets of their own, every proved CONNECT from the attacker's address:port
     * replaces its previous connection and adds a REPLACED entry: maxConnections set-ups (two
     * round trips each, no state held, no limit hit) push every IDLE entry out well within the
     * two minutes, and the victim's next call is answered REJECT(UNKNOWN): not sent again, it
     * fails (COMM_FAILURE, COMPLETED_MAYBE) although it provably was not executed.
     */
    @Test
    void anAttackerCannotEvictTheIdleCloseOfAnotherClient() throws Exception
    {
        final RecordingHandler ownSocketHandler = new RecordingHandler()
        {
            @Override
            public void onConnect(final UdpServerConnection connection)
            {
                connection.openOwnSocket();
                super.onConnect(connection);
            }
        };
        final ServerDemultiplexer demultiplexer = new ServerDemultiplexer(UdpLinkConfig.builder().maxConnections(16).build(),
            ownSocketHandler, frontEnd, () -> nowNs);
        feed(demultiplexer, cookieConnect(demultiplexer, 0x99), CLIENT);
        final UdpServerConnection victim = ownSocketHandler.nextConnect();
        victim.close(CloseCause.IDLE, "idle");
        runTasks();

        final InetSocketAddress attacker = new InetSocketAddress("127.0.0.9", 5555);
        for (long nonce = 1; nonce <= 20; nonce++)
        {
            feed(demultiplexer, cookieConnect(demultiplexer, 0x1000 + nonce, attacker), attacker);
            runTasks();
        }
        assertEquals(1, demultiplexer.openConnections(), "the attacker holds one connection");

        nowNs += 1_000 * MS;
        feed(demultiplexer, dataDatagram(victim.connectionId(), concat(UdpTestSupport.header(
            org.lightwire.transport.protocol.MessageType.COMPLETE, 0, 2, 0), null)), CLIENT);
        assertEquals(CloseCause.IDLE, parseSetup(sent.get(sent.size() - 1)).reason(),
            "the victim's idle close, 1 s old, was evicted by the attacker's set-ups");
    }
}
