package org.lightwire.transport.link.udp;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UdpLinkConfigTest
{
    @Test
    void defaultsAreTheDocumentedOnes()
    {
        final UdpLinkConfig config = UdpLinkConfig.defaults();
        assertEquals(8192, config.maxPacketBytes());
        assertEquals(TimeUnit.SECONDS.toNanos(5), config.connectTimeoutNs());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(200), config.setupRetryNs());
        assertEquals(0, config.receiveSpinNs());
        assertEquals(4 * 1024 * 1024, config.socketReceiveBufferBytes());
        assertEquals(4 * 1024 * 1024, config.socketSendBufferBytes());
        assertNull(config.bindAddress());
        assertEquals(4096, config.maxConnections());
        assertFalse(config.reusePort());
        assertEquals(UdpLinkConfig.ServerIo.BLOCKING, config.serverIo());
        assertEquals(UdpLinkConfig.ClientWaits.BLOCK, config.clientWaits());
        assertTrue(config.nativeTransport());
    }

    @Test
    void toBuilderCopiesEverySetting()
    {
        final UdpLinkConfig config = UdpLinkConfig.builder()
            .maxPacketBytes(64).connectTimeoutNs(2_000_000).setupRetryNs(1_000_000).receiveSpinNs(5)
            .socketReceiveBufferBytes(4096).socketSendBufferBytes(8192)
            .bindAddress(new InetSocketAddress("127.0.0.1", 0)).maxConnections(1).reusePort(true)
            .serverIo(UdpLinkConfig.ServerIo.BLOCKING).nativeTransport(false)
            .build();
        assertEquals(config.toString(), config.toBuilder().build().toString());
    }

    @Test
    void acceptsTheEndsOfEveryRange()
    {
        UdpLinkConfig.builder().maxPacketBytes(64).build();
        UdpLinkConfig.builder().maxPacketBytes(65_499).build();
        UdpLinkConfig.builder().connectTimeoutNs(1_000_000).setupRetryNs(1_000_000).build();
        UdpLinkConfig.builder().connectTimeoutNs(TimeUnit.HOURS.toNanos(1)).build();
        UdpLinkConfig.builder().receiveSpinNs(TimeUnit.SECONDS.toNanos(1)).build();
        UdpLinkConfig.builder().maxConnections(1 << 20).build();
    }

    @Test
    void rejectionNamesTheSettingAndItsRange()
    {
        expect(b -> b.maxPacketBytes(63), "maxPacketBytes = 63 is outside the allowed range 64..65499");
        expect(b -> b.maxPacketBytes(65_500), "maxPacketBytes = 65500 is outside the allowed range 64..65499");
        expect(b -> b.connectTimeoutNs(0), "connectTimeoutNs = 0 is outside the allowed range 1000000..3600000000000");
        expect(b -> b.setupRetryNs(6_000_000_000L),
            "setupRetryNs = 6000000000 is outside the allowed range 1000000..connectTimeoutNs (5000000000)");
        expect(b -> b.setupRetryNs(999_999),
            "setupRetryNs = 999999 is outside the allowed range 1000000..connectTimeoutNs (5000000000)");
        expect(b -> b.receiveSpinNs(-1), "receiveSpinNs = -1 is outside the allowed range 0..1000000000");
        expect(b -> b.socketReceiveBufferBytes(100),
            "socketReceiveBufferBytes = 100 is outside the allowed range 4096..1073741824");
        expect(b -> b.socketSendBufferBytes(Integer.MAX_VALUE),
            "socketSendBufferBytes = 2147483647 is outside the allowed range 4096..1073741824");
        expect(b -> b.maxConnections(0), "maxConnections = 0 is outside the allowed range 1..1048576");
        expect(b -> b.serverIo(null), "serverIo must not be null: choose [BLOCKING, NETTY]");
    }

    private static void expect(final UnaryOperator<UdpLinkConfig.Builder> change, final String message)
    {
        final IllegalArgumentException ex = assertThrows(
            IllegalArgumentException.class, () -> change.apply(UdpLinkConfig.builder()).build());
        assertEquals(message, ex.getMessage());
    }
}
