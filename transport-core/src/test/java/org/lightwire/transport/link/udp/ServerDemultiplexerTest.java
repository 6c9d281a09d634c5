package org.lightwire.transport.link.udp;

import org.junit.jupiter.api.Test;
import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.MessageType;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lightwire.transport.link.udp.UdpTestSupport.concat;
import static org.lightwire.transport.link.udp.UdpTestSupport.dataDatagram;
import static org.lightwire.transport.link.udp.UdpTestSupport.header;
import static org.lightwire.transport.link.udp.UdpTestSupport.parseSetup;
import static org.lightwire.transport.link.udp.UdpTestSupport.payload;
import static org.lightwire.transport.link.udp.UdpTestSupport.setupDatagram;

/** Unit tests of the server's protocol logic: no socket, no thread, a hand-advanced clock. */
class ServerDemultiplexerTest
{
    private static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 40001);
    private static final InetSocketAddress OTHER = new InetSocketAddress("127.0.0.1", 40002);
    private static final InetSocketAddress ELSEWHERE = new InetSocketAddress("127.0.0.2", 40001);
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final RecordingFrontEnd frontEnd = new RecordingFrontEnd();
    private final RecordingHandler handler = new RecordingHandler();
    private long nowNs = 1_000 * MS;
    private final ServerDemultiplexer demultiplexer =
        new ServerDemultiplexer(UdpLinkConfig.builder().maxConnections(3).maxConnectionsPerAddress(2).build(), handler, frontEnd, () -> nowNs);

    /** A front-end that records what is sent and queues tasks for the receive thread. */
    private static final class RecordingFrontEnd implements ServerDemultiplexer.FrontEnd
    {
        record Sent(byte[] datagram, InetSocketAddress to)
        {
        }

        final List<Sent> sent = new ArrayList<>();
        final List<Runnable> tasks = new ArrayList<>();

        @Override
        public boolean send(final long connectionId, final ByteBuffer header, final ByteBuffer payload, final InetSocketAddress to)
        {
            final byte[] body = concat(header, payload);
            sent.add(new Sent(dataDatagram(connectionId, body), to));
            return true;
        }

        @Override
        public void runOnReceiveThread(final Runnable task)
        {
            tasks.add(task);
        }

        void runTasks()
        {
            final List<Runnable> queued = new ArrayList<>(tasks);
            tasks.clear();
            queued.forEach(Runnable::run);
        }

        Sent last()
        {
            return sent.get(sent.size() - 1);
        }
    }

    private void feed(final byte[] datagram, final InetSocketAddress from)
    {
        // A position other than 0, as Netty's pooled buffers have.
        final ByteBuffer buffer = ByteBuffer.allocateDirect(datagram.length + 3);
        buffer.position(3);
        buffer.put(datagram).position(3);
        demultiplexer.onDatagram(buffer, from, nowNs);
    }

    /** The whole set-up: a CONNECT, its RETRY, the CONNECT that echoes the cookie. */
    private UdpServerConnection connect(final long nonce, final InetSocketAddress from) throws InterruptedException
    {
        feed(cookieConnect(nonce, from), from);
        return handler.nextConnect();
    }

    /** @return a CONNECT from {@code from} with the cookie the server issues for it. */
    private byte[] cookieConnect(final long nonce, final InetSocketAddress from)
    {
        final byte[] first = setupDatagram(SetupFlyweight.Kind.CONNECT, 1000, nonce, 0);
        final int sentBefore = frontEnd.sent.size();
        feed(first, from);
        assertEquals(sentBefore + 1, frontEnd.sent.size());
        assertEquals(from, frontEnd.last().to());
        final byte[] retryDatagram = frontEnd.last().datagram();
        assertEquals(first.length, retryDatagram.length, "a RETRY is exactly as long as the CONNECT it answers");
        final SetupFlyweight retry = parseSetup(retryDatagram);
        assertEquals(SetupFlyweight.Kind.RETRY, retry.kind());
        assertEquals(nonce, retry.nonce());
        final byte[] cookie = new byte[SetupFlyweight.COOKIE_LENGTH];
        retry.cookie(cookie, 0);
        return setupDatagram(SetupFlyweight.Kind.CONNECT, 1000, nonce, 0, cookie, null);
    }

    @Test
    void connectIsAcceptedOnceItsAddressIsProvedAndARetransmittedConnectGetsTheSameAccept() throws Exception
    {
        final byte[] withCookie = cookieConnect(0x77, CLIENT);
        assertEquals(0, demultiplexer.connectionsAccepted(), "a CONNECT without a cookie costs the server no state");
        assertTrue(handler.connects.isEmpty());
        feed(withCookie, CLIENT);
        final UdpServerConnection connection = handler.nextConnect();
        final SetupFlyweight accept = parseSetup(frontEnd.last().datagram());
        assertEquals(CLIENT, frontEnd.last().to());
        assertEquals(SetupFlyweight.Kind.ACCEPT, accept.kind());
        assertEquals(0x77, accept.nonce());
        assertEquals(8192, accept.maxPacketBytes());
        assertEquals(connection.connectionId(), accept.connectionId());
        assertNotEquals(0, connection.connectionId());
        assertEquals(1000, connection.maxPacketBytes());

        feed(withCookie, CLIENT);
        assertEquals(accept.toString(), parseSetup(frontEnd.last().datagram()).toString());
        // The same nonce and cookie from another address: the cookie was not issued there.
        feed(withCookie, OTHER);
        assertEquals(SetupFlyweight.Kind.RETRY, parseSetup(frontEnd.last().datagram()).kind());

        assertEquals(4, frontEnd.sent.size());
        assertEquals(4, demultiplexer.datagramsReceived());
        assertEquals(1, demultiplexer.connectionsAccepted());
        assertEquals(1, demultiplexer.duplicateConnects());
        assertEquals(1, demultiplexer.badCookies());
        assertEquals(2, demultiplexer.retriesSent());
        assertEquals(1, demultiplexer.openConnections());
    }

    @Test
    void aCookieIsBoundToItsAddressPortAndNonceAndExpires() throws Exception
    {
        final byte[] withCookie = cookieConnect(0x51, CLIENT);
        final byte[] cookie = java.util.Arrays.copyOfRange(withCookie, 32, 56);
        feed(setupDatagram(SetupFlyweight.Kind.CONNECT, 1000, 0x52, 0, cookie, null), CLIENT);
        feed(withCookie, ELSEWHERE);
        final byte[] flipped = withCookie.clone();
        flipped[55] ^= 1;
        feed(flipped, CLIENT);
        assertEquals(3, demultiplexer.badCookies());
        assertEquals(0, demultiplexer.connectionsAccepted());

        nowNs += SetupCookies.LIFETIME_NS + TimeUnit.SECONDS.toNanos(1);
        feed(withCookie, CLIENT);
        assertEquals(4, demultiplexer.badCookies(), "an expired cookie");
        assertEquals(SetupFlyweight.Kind.RETRY, parseSetup(frontEnd.last().datagram()).kind());
        assertEquals(0, demultiplexer.connectionsAccepted());
        assertTrue(handler.connects.isEmpty());
    }

    @Test
    void aForgedConnectFromALiveConnectionsAddressLeavesItAlone() throws Exception
    {
        final UdpServerConnection live = connect(0x61, CLIENT);
        // An off-path attacker sends from the live client's address and port: without the
        // cookie, which went to the real client, it gets nowhere.
        for (long nonce = 1; nonce <= 50; nonce++)
        {
            feed(setupDatagram(SetupFlyweight.Kind.CONNECT, 1000, nonce, 0), CLIENT);
        }
        frontEnd.runTasks();
        assertTrue(live.isOpen());
        assertEquals(1, demultiplexer.openConnections());
        assertEquals(0, demultiplexer.connectionsReplaced());
        assertTrue(handler.closes.isEmpty());
        assertEquals(51, demultiplexer.retriesSent());
    }

    @Test
    void connectionsPerAddressAndInAllAreLimitedWithARefuseThatSaysWhich() throws Exception
    {
        connect(0x11, CLIENT);
        connect(0x12, OTHER);
        feed(cookieConnect(0x13, CLIENT), CLIENT);
        SetupFlyweight refuse = parseSetup(frontEnd.last().datagram());
        assertEquals(SetupFlyweight.Kind.REFUSE, refuse.kind());
        assertEquals(CloseCause.ADDRESS_LIMIT, refuse.reason());
        assertEquals(0x13, refuse.nonce());
        assertEquals(1, demultiplexer.refusedAddressLimit());

        connect(0x14, ELSEWHERE);
        feed(cookieConnect(0x15, new InetSocketAddress("127.0.0.3", 5)), new InetSocketAddress("127.0.0.3", 5));
        refuse = parseSetup(frontEnd.last().datagram());
        assertEquals(CloseCause.SERVER_FULL, refuse.reason());
        assertEquals(1, demultiplexer.refusedFull());
        assertEquals(2, demultiplexer.connectionsRefused());
        assertEquals(3, demultiplexer.openConnections());
    }

    @Test
    void aClosedConnectionsIdIsRejectedWithTheCauseOfItsClose() throws Exception
    {
        final UdpServerConnection idle = connect(0x21, CLIENT);
        idle.close(CloseCause.IDLE, "idle");
        frontEnd.runTasks();
        feed(dataDatagram(idle.connectionId(), concat(header(MessageType.COMPLETE, 0, 2, 0), null)), CLIENT);
        final byte[] rejectDatagram = frontEnd.last().datagram();
        assertEquals(SetupFlyweight.REJECT_DATAGRAM_LENGTH, rejectDatagram.length);
        final SetupFlyweight reject = parseSetup(rejectDatagram);
        assertEquals(SetupFlyweight.Kind.REJECT, reject.kind());
        assertEquals(idle.connectionId(), reject.connectionId());
        assertEquals(CloseCause.IDLE, reject.reason());

        feed(dataDatagram(0x4242, concat(header(MessageType.COMPLETE, 0, 2, 0), null)), CLIENT);
        assertEquals(CloseCause.UNKNOWN, parseSetup(frontEnd.last().datagram()).reason(), "an id it never gave");
        nowNs += ServerDemultiplexer.CLOSE_CAUSE_RETENTION_NS + MS;
        feed(dataDatagram(idle.connectionId(), concat(header(MessageType.COMPLETE, 0, 3, 0), null)), CLIENT);
        assertEquals(CloseCause.UNKNOWN, parseSetup(frontEnd.last().datagram()).reason(), "forgotten after the retention");
    }

    @Test
    void dataIsDeliveredOnlyFromTheAddressThatConnected() throws Exception
    {
        final UdpServerConnection connection = connect(0x77, CLIENT);
        final byte[] packet = concat(header(MessageType.COMPLETE, 5, 1, 0), payload(5, 1));

        feed(dataDatagram(connection.connectionId(), packet), CLIENT);
        final RecordingHandler.Received received = handler.nextPacket();
        assertSame(connection, received.connection());
        assertArrayEquals(packet, received.packet());

        feed(dataDatagram(connection.connectionId(), packet), OTHER);
        feed(dataDatagram(connection.connectionId(), new byte[7]), CLIENT);
        assertTrue(handler.packets.isEmpty());
        assertEquals(1, demultiplexer.packetsDelivered());
        assertEquals(1, demultiplexer.wrongAddress());
        assertEquals(1, demultiplexer.malformed());
    }

    @Test
    void anUnknownIdIsRejectedAtMostOncePerIntervalAndBurst()
    {
        final byte[] packet = concat(header(MessageType.COMPLETE, 0, 1, 0), null);
        feed(dataDatagram(0x1234, packet), CLIENT);
        final SetupFlyweight reject = parseSetup(frontEnd.last().datagram());
        assertEquals(SetupFlyweight.Kind.REJECT, reject.kind());
        assertEquals(0x1234, reject.connectionId());
        assertEquals(CloseCause.UNKNOWN, reject.reason());

        nowNs += UdpServerEndpoint.REJECT_INTERVAL_NS - 1;
        feed(dataDatagram(0x1234, packet), CLIENT);
        assertEquals(1, frontEnd.sent.size());
        nowNs += 1;
        feed(dataDatagram(0x1234, packet), CLIENT);
        assertEquals(2, frontEnd.sent.size());

        nowNs += TimeUnit.SECONDS.toNanos(1);
        for (int i = 0; i <= UdpServerEndpoint.REJECT_BURST; i++)
        {
            feed(dataDatagram(0x5000 + i, packet), CLIENT);
        }
        assertEquals(2 + UdpServerEndpoint.REJECT_BURST, frontEnd.sent.size());
        assertEquals(4 + UdpServerEndpoint.REJECT_BURST, demultiplexer.unknownId());
        assertEquals(2 + UdpServerEndpoint.REJECT_BURST, demultiplexer.rejectsSent());
        assertEquals(2, demultiplexer.rejectsSuppressed());
    }

    @Test
    void aCloseFromAnotherThreadTakesEffectWhenTheReceiveThreadRunsIt() throws Exception
    {
        final UdpServerConnection connection = connect(0x77, CLIENT);
        connection.close();
        assertFalse(connection.isOpen());
        assertEquals(1, demultiplexer.openConnections());
        assertTrue(handler.closes.isEmpty());

        frontEnd.runTasks();
        assertEquals(0, demultiplexer.openConnections());
        assertEquals(1, demultiplexer.connectionsClosed());
        assertEquals(UdpPrefixFlyweight.formatId(connection.connectionId()) + ": closed by the server application",
            handler.closes.poll());

        feed(dataDatagram(connection.connectionId(), concat(header(MessageType.COMPLETE, 0, 1, 0), null)), CLIENT);
        assertEquals(SetupFlyweight.Kind.REJECT, parseSetup(frontEnd.last().datagram()).kind());
        assertTrue(handler.packets.isEmpty());
    }

    @Test
    void closingRefusesConnectsAndClosesEveryConnectionOnce() throws Exception
    {
        final UdpServerConnection first = connect(0x71, CLIENT);
        final UdpServerConnection second = connect(0x72, OTHER);
        final UdpServerConnection third = connect(0x73, ELSEWHERE);
        feed(cookieConnect(0x75, new InetSocketAddress("127.0.0.3", 5)), new InetSocketAddress("127.0.0.3", 5));
        assertEquals(1, demultiplexer.connectionsRefused());

        first.close();
        final int sentBefore = frontEnd.sent.size();
        demultiplexer.startClosing();
        demultiplexer.closeAllConnections(true);
        frontEnd.runTasks();
        // Each connection still open is told, unasked, that the server closed it; the first was closed already.
        final List<String> notices = new ArrayList<>();
        for (final RecordingFrontEnd.Sent sent : frontEnd.sent.subList(sentBefore, frontEnd.sent.size()))
        {
            final SetupFlyweight reject = parseSetup(sent.datagram());
            notices.add(sent.to() + " " + reject.kind() + " " + reject.reason() + " " + Long.toHexString(reject.connectionId()));
        }
        notices.sort(null);
        final List<String> expected = new ArrayList<>(List.of(
            OTHER + " REJECT SERVER_CLOSED " + Long.toHexString(second.connectionId()),
            ELSEWHERE + " REJECT SERVER_CLOSED " + Long.toHexString(third.connectionId())));
        expected.sort(null);
        assertEquals(expected, notices);
        feed(cookieConnect(0x74, CLIENT), CLIENT);
        assertEquals(CloseCause.SERVER_CLOSED, parseSetup(frontEnd.last().datagram()).reason());

        assertEquals(2, demultiplexer.connectionsRefused());
        assertEquals(0, demultiplexer.openConnections());
        // The connection the application closed was already marked: the endpoint's close skips it.
        assertEquals(2, demultiplexer.connectionsClosed());
        assertEquals(2, handler.closes.size());
        assertTrue(handler.closes.poll().endsWith(": the server endpoint was closed"));
    }

    @Test
    void theLimitPerAddressCountsAnIpv6ClientPerSlash64() throws Exception
    {
        final java.net.InetAddress a = java.net.InetAddress.getByName("2001:db8:1:2:aaaa::1");
        final java.net.InetAddress b = java.net.InetAddress.getByName("2001:db8:1:2:bbbb::7");
        final java.net.InetAddress c = java.net.InetAddress.getByName("2001:db8:1:3::1");
        assertEquals(ServerDemultiplexer.addressKey(new InetSocketAddress(a, 1)), ServerDemultiplexer.addressKey(new InetSocketAddress(b, 2)));
        assertNotEquals(ServerDemultiplexer.addressKey(new InetSocketAddress(a, 1)), ServerDemultiplexer.addressKey(new InetSocketAddress(c, 1)));
        assertEquals(CLIENT.getAddress(), ServerDemultiplexer.addressKey(CLIENT), "an IPv4 address is counted as itself");
    }
}
