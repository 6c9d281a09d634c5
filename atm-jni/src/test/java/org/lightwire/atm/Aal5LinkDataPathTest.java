package org.lightwire.atm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.LinkServerDriver;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.Link;

/**
 * The AAL5 link's data path through the real shim under -Xcheck:jni, on a connected AF_UNIX
 * datagram pair standing in for the circuit (it keeps SDU boundaries and truncates as AAL5
 * sockets do), so it runs on kernels without ATM. The same link over real AAL5 runs in the qemu
 * guest (src/test/qemu).
 */
class Aal5LinkDataPathTest
{
    static final long MS = 1_000_000L;
    static final AtmQos QOS = new AtmQos(TrafficClass.UBR, 0, 2048);

    Aal5Link a;
    Aal5Link b;

    @BeforeEach
    void pair() throws Exception
    {
        assumeTrue(AtmLibrary.isAvailable(), AtmLibrary.unavailableReason());
        final long fds = AtmNative.datagramPair();
        assertTrue(fds >= 0, "socketpair: " + Errno.name((int)-fds));
        a = Aal5Link.adopt((int)(fds >>> 32), "pair a", QOS, QOS, 2048);
        b = Aal5Link.adopt((int)fds, "pair b", QOS, QOS, 2048);
    }

    @AfterEach
    void close()
    {
        if (a != null)
        {
            a.close();
            b.close();
        }
    }

    static ByteBuffer direct(final byte[] bytes)
    {
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    }

    static byte[] bytes(final int length, final int seed)
    {
        final byte[] out = new byte[length];
        for (int i = 0; i < length; i++)
        {
            out[i] = (byte)(seed + i * 31);
        }
        return out;
    }

    static byte[] concat(final byte[] x, final byte[] y)
    {
        final byte[] out = new byte[x.length + y.length];
        System.arraycopy(x, 0, out, 0, x.length);
        System.arraycopy(y, 0, out, x.length, y.length);
        return out;
    }

    @Test
    void headerAndPayloadGatherIntoOneSduFromDirectAndHeapBuffers() throws Exception
    {
        final byte[] header = bytes(8, 1);
        final byte[] payload = bytes(1500, 2);
        a.send(direct(header), direct(payload));
        a.send(ByteBuffer.wrap(header), ByteBuffer.wrap(payload));
        a.send(direct(header), null);

        final ByteBuffer directDst = ByteBuffer.allocateDirect(2048);
        directDst.position(3);
        assertEquals(1508, b.receive(directDst, 1000 * MS));
        assertEquals(1511, directDst.position());
        final byte[] got = new byte[1508];
        directDst.flip().position(3);
        directDst.get(got);
        assertArrayEquals(concat(header, payload), got);

        final ByteBuffer heapDst = ByteBuffer.allocate(2048);
        assertEquals(1508, b.receive(heapDst, 1000 * MS));
        assertArrayEquals(concat(header, payload), java.util.Arrays.copyOf(heapDst.array(), 1508));

        final ByteBuffer small = ByteBuffer.allocateDirect(64);
        assertEquals(8, b.receive(small, 1000 * MS));
        assertEquals(3, a.sentSdus());
        assertEquals(3, b.receivedSdus());
    }

    @Test
    void zeroTimeoutPollsAndAPositiveOneWaitsThenReturnsTimeout() throws Exception
    {
        final ByteBuffer dst = ByteBuffer.allocateDirect(2048);
        assertEquals(Link.TIMEOUT, b.receive(dst, 0));
        final long startNs = System.nanoTime();
        assertEquals(Link.TIMEOUT, b.receive(dst, 20 * MS));
        assertTrue(System.nanoTime() - startNs >= 20 * MS, "waited the timeout");
        assertEquals(0, dst.position());
    }

    @Test
    void anSduLargerThanTheBufferIsDroppedAndCountedNeverThrown() throws Exception
    {
        a.send(direct(bytes(8, 0)), direct(bytes(500, 0)));
        a.send(direct(bytes(8, 9)), null);
        final ByteBuffer dst = ByteBuffer.allocateDirect(100);
        assertEquals(8, b.receive(dst, 1000 * MS));
        assertEquals(1, b.oversizedSdus());
        assertEquals(1, b.receivedSdus());
    }

    @Test
    void anSduAboveTheStagingBufferFailsWithTheQosMaximum()
    {
        final SduTooLargeException e = assertThrows(SduTooLargeException.class,
            () -> a.send(ByteBuffer.wrap(bytes(8, 0)), ByteBuffer.wrap(bytes(4000, 0))));
        assertTrue(e.getMessage().contains("the SDU of 4008 bytes is larger than the QoS maximum SDU of 2048 bytes"), e.getMessage());
    }

    @Test
    void closeWakesAWaitingReceiveWhichThenReportsTheLinkClosed() throws Exception
    {
        final CompletableFuture<Throwable> waiting = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                b.receive(ByteBuffer.allocateDirect(2048), 60_000 * MS);
                return null;
            }
            catch (final Throwable t)
            {
                return t;
            }
        });
        Thread.sleep(50);
        b.close();
        final Throwable thrown = waiting.get(10, TimeUnit.SECONDS);
        assertTrue(thrown instanceof ClosedChannelException, String.valueOf(thrown));
        assertThrows(ClosedChannelException.class, () -> b.send(direct(bytes(8, 0)), null));
        assertThrows(ClosedChannelException.class, () -> b.receive(ByteBuffer.allocateDirect(16), 0));
    }

    @Test
    void transportNullCallsRunOverTheLink() throws Exception
    {
        final EngineConfig config = EngineConfig.builder().maxPacketBytes(2048).build();
        try (LinkServerDriver server = new LinkServerDriver(b, config, call ->
            {
                final ByteBuffer copy = ByteBuffer.allocate(call.request().remaining()).put(call.request()).flip();
                call.reply(copy);
            }, null, 1 << 20, "pair").start();
             ClientConnection client = new ClientConnection(a, config, "pair", 1 << 20))
        {
            assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
            {
                for (int i = 0; i < 200; i++)
                {
                    final byte[] request = bytes(i % 2 == 0 ? 0 : 5000 + i, i);
                    final ByteBuffer reply = client.call(ByteBuffer.wrap(request), 10_000 * MS);
                    final byte[] got = new byte[reply.remaining()];
                    reply.get(got);
                    assertArrayEquals(request, got, "call " + i);
                }
            });
        }
        a = null; // closed by the drivers
    }
}
