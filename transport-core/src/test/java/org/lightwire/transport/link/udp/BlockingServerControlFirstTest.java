package org.lightwire.transport.link.udp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lightwire.transport.link.udp.UdpTestSupport.LOOPBACK;
import static org.lightwire.transport.link.udp.UdpTestSupport.anyLoopbackPort;
import static org.lightwire.transport.link.udp.UdpTestSupport.concat;
import static org.lightwire.transport.link.udp.UdpTestSupport.dataDatagram;
import static org.lightwire.transport.link.udp.UdpTestSupport.header;
import static org.lightwire.transport.link.udp.UdpTestSupport.parseSetup;
import static org.lightwire.transport.link.udp.UdpTestSupport.payload;
import static org.lightwire.transport.link.udp.UdpTestSupport.receiveRaw;
import static org.lightwire.transport.link.udp.UdpTestSupport.sendRaw;
import static org.lightwire.transport.link.udp.UdpTestSupport.setupDatagram;

import java.net.DatagramSocket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.transport.protocol.MessageType;

/**
 * The blocking server front-end hands control packets that arrive in the same burst as a
 * multi-packet message's data to the handler first (A1's priority queue).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BlockingServerControlFirstTest
{
    @Test
    void controlPacketQueuedBehindDataIsHandledFirst() throws Exception
    {
        final List<String> order = new ArrayList<>();
        final CountDownLatch burstSent = new CountDownLatch(1);
        final CountDownLatch done = new CountDownLatch(4);
        final ServerPacketHandler handler = (connection, packet, nowNs) ->
        {
            final MessageType type = MessageType.fromCode(packet.get(packet.position()) & 0xFF);
            order.add(type + "#" + (packet.get(packet.position() + 5) & 0xFF));
            if (order.size() == 1)
            {
                // Hold the receive thread until the burst is queued in the socket behind us.
                try
                {
                    burstSent.await(30, TimeUnit.SECONDS);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            }
            done.countDown();
        };
        final UdpLinkConfig config = UdpLinkConfig.builder().serverIo(UdpLinkConfig.ServerIo.BLOCKING).build();
        try (UdpServerEndpoint server = UdpServerEndpoint.bind(anyLoopbackPort(), config, handler);
             DatagramSocket raw = new DatagramSocket(0, LOOPBACK))
        {
            sendRaw(raw, server.localAddress(), UdpTestSupport.cookieConnect(raw, server.localAddress(), 0x77L, 8192));
            final long id = parseSetup(receiveRaw(raw)).connectionId();
            sendRaw(raw, server.localAddress(), dataDatagram(id, concat(header(MessageType.COMPLETE, 4, 1, 0), payload(4, 1))));
            sendRaw(raw, server.localAddress(), dataDatagram(id, concat(header(MessageType.PARTIAL, 4, 2, 0), payload(4, 2))));
            sendRaw(raw, server.localAddress(), dataDatagram(id, concat(header(MessageType.PARTIAL, 4, 2, 1), payload(4, 3))));
            sendRaw(raw, server.localAddress(), dataDatagram(id, concat(header(MessageType.NACK, 0, 1, 7), ByteBuffer.allocate(0))));
            burstSent.countDown();
            done.await(30, TimeUnit.SECONDS);
            assertEquals(List.of("COMPLETE#0", "NACK#7", "PARTIAL#0", "PARTIAL#1"), order);
        }
    }
}
