package org.lightwire.etf.lane;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.giop.GiopBytes;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.GiopRequestCheck;
import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.RequestMemoryBudget;
import org.lightwire.transport.channel.UdpServer;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpClientLink;
import org.lightwire.transport.link.udp.UdpLinkConfig;

/**
 * Solo lanes over real loopback sockets (each transport connection with a socket of its own, read
 * by its lane's thread): a lane that carries one connection waits on that socket in a blocking
 * receive, not in its selector, while fewer than half of {@code reader_threads} lanes do; it is given
 * no other connection; it turns shared at its connection's next datagram once new connections
 * must share a lane; and it reads the next connection alone once its own has closed. Where a
 * lane's thread waits is read from its stack: a blocking receive
 * ({@code DatagramChannelImpl.read}) or a selection ({@code doSelect}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SoloLaneTest
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);
    private static final byte[] KEY = "impl/POA/oid".getBytes(StandardCharsets.ISO_8859_1);
    private static final int UTF8 = 0x05010001;
    private static final int UTF16 = 0x00010109;

    /** Where a lane's reader thread waits. */
    private enum Wait
    {
        ALONE, SELECTING
    }

    private final FakeOrb orb = new FakeOrb();
    private final LaneCounters counters = new LaneCounters();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private LanePool pool;
    private UdpServer server;
    private int nextRequestId = 1;

    private void start(final int readerThreads) throws IOException
    {
        pool = new LanePool(readerThreads, orb, () -> null, counters);
        final LaneRouter router = new LaneRouter(pool, true, new RequestMemoryBudget(1L << 30));
        server = new UdpServer(new InetSocketAddress("127.0.0.1", 0), EngineConfig.defaults(), UdpLinkConfig.defaults(), router,
            null, 1 << 20, UdpServer.DEFAULT_IDLE_TIMEOUT_NS);
    }

    @AfterEach
    void stop() throws Exception
    {
        for (final AutoCloseable c : toClose)
        {
            c.close();
        }
        if (pool != null)
        {
            pool.shutdown("the test ended");
        }
        if (server != null)
        {
            server.close();
        }
    }

    /** @return a new transport connection; its server end is on a lane when this returns (set up before the ACCEPT). */
    private ClientConnection connect(final String name) throws IOException
    {
        final ClientConnection c = new ClientConnection(UdpClientLink.connect(server.localAddress(), UdpLinkConfig.defaults()),
            EngineConfig.defaults(), name, 1 << 20);
        toClose.add(c);
        return c;
    }

    /** One call of {@code client} answered by the fake ORB. @return the lane that presented it. */
    private Lane call(final ClientConnection client, final int charCodeSet) throws Exception
    {
        final int id = nextRequestId++;
        client.startCall(request(id, charCodeSet));
        final FakeOrb.Presented p = orb.next();
        FakeOrb.reply(p.lane, p.laneId(), id);
        final ByteBuffer reply = client.awaitReply(TIMEOUT_NS);
        final byte[] r = new byte[reply.remaining()];
        reply.get(r);
        assertEquals(id, GiopMessage.requestId(r, r.length), "the reply to the call");
        assertEquals(id, GiopMessage.readULong(r, r.length - 4, false), "its body");
        return p.lane;
    }

    private static ByteBuffer request(final int requestId, final int charCodeSet)
    {
        return ByteBuffer.wrap(GiopBytes.request12(false, requestId, 3, KEY, "op", GiopRequestCheck.CODE_SETS,
            GiopBytes.codeSetContext(charCodeSet, UTF16)));
    }

    private Lane call(final ClientConnection client) throws Exception
    {
        return call(client, UTF8);
    }

    /** @return where {@code lane}'s reader thread waits, once it waits (the same in three looks in a row). */
    private Wait waitOf(final Lane lane) throws InterruptedException
    {
        final Thread t = orb.readers.get(lane);
        assertNotNull(t, "a reader thread for " + lane);
        Wait last = null;
        int same = 0;
        while (same < 3)
        {
            Thread.sleep(5);
            final Wait now = waitIn(t);
            same = now != null && now == last ? same + 1 : 0;
            last = now;
        }
        return last;
    }

    private static Wait waitIn(final Thread t)
    {
        for (final StackTraceElement e : t.getStackTrace())
        {
            if (e.getClassName().equals("sun.nio.ch.DatagramChannelImpl") && e.getMethodName().equals("read"))
            {
                return Wait.ALONE;
            }
            if (e.getMethodName().equals("doSelect"))
            {
                return Wait.SELECTING;
            }
        }
        return null;
    }

    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() - deadline < 0, "timed out waiting until " + what);
            Thread.sleep(2);
        }
    }

    private static Route onlyMember(final Lane lane)
    {
        assertEquals(1, lane.members().size(), lane.describe());
        return lane.members().iterator().next();
    }

    @Test
    void aLaneWithOneConnectionWaitsOnItsSocketAloneAndServesItsCalls() throws Exception
    {
        start(4);
        final ClientConnection a = connect("a");
        final Lane lane = call(a);
        for (int i = 0; i < 20; i++)
        {
            assertEquals(lane, call(a));
        }
        assertEquals(Wait.ALONE, waitOf(lane));
        assertEquals(1, pool.soloLaneCount());
        assertEquals(1, counters.soloStarts());
        assertEquals(0, counters.requestsHandedOff(), "read in place on the lane's thread");
    }

    @Test
    void withOneReaderThreadTheOnlyLaneStaysSharedAndSelects() throws Exception
    {
        start(1);
        final ClientConnection a = connect("a");
        final Lane lane = call(a);
        assertEquals(Wait.SELECTING, waitOf(lane));
        assertEquals(0, pool.soloLaneCount());
        assertEquals(0, counters.soloStarts());
    }

    @Test
    void atMostHalfTheLanesAreSoloTheOthersSelectThoughEachCarriesOneConnection() throws Exception
    {
        start(4);
        final Lane[] lanes = new Lane[4];
        for (int i = 0; i < lanes.length; i++)
        {
            lanes[i] = call(connect("c" + i));
        }
        assertEquals(4, java.util.Set.of(lanes).size(), "a lane each");
        assertEquals(4, pool.laneCount());
        assertEquals(2, pool.soloLaneCount());
        assertEquals(2, counters.soloStarts());
        assertEquals(Wait.ALONE, waitOf(lanes[0]));
        assertEquals(Wait.ALONE, waitOf(lanes[1]));
        assertEquals(Wait.SELECTING, waitOf(lanes[2]), "half the lanes are kept to be shared");
        assertEquals(Wait.SELECTING, waitOf(lanes[3]));
        assertArrayEquals(new int[] {1, 1, 1, 1}, pool.connectionsPerLane());
        assertEquals(0, counters.soloLanesShared());
    }

    @Test
    void aSoloLaneTurnsSharedAtItsConnectionsNextDatagramOnceConnectionsMustShareAndThenTakesTheNextOne() throws Exception
    {
        start(4);
        final ClientConnection a = connect("a");
        final Lane la = call(a);
        final Lane lb = call(connect("b"));
        final Lane lc = call(connect("c"));
        call(connect("d"));
        // e joins c's lane, which has a connection already: the solo lanes are asked to turn shared.
        final ClientConnection e = connect("e");
        assertEquals(lc, call(e));
        assertEquals(2, pool.soloLaneCount(), "they are idle: nothing wakes them yet");
        assertEquals(Wait.ALONE, waitOf(la));

        assertEquals(la, call(a));
        await(() -> counters.soloLanesShared() == 1, "a's lane turned shared after a's datagram");
        assertEquals(Wait.SELECTING, waitOf(la));
        assertEquals(1, pool.soloLaneCount(), "b's lane is still solo");
        assertEquals(Wait.ALONE, waitOf(lb));

        // The fewest connections: a's lane (1) before d's (1) and c's (2), never b's (solo).
        final ClientConnection f = connect("f");
        assertEquals(la, call(f));
        assertEquals(la, call(a), "a is still served, now through the selector");
        assertArrayEquals(new int[] {2, 1, 2, 1}, pool.connectionsPerLane());
        assertEquals(0, counters.connectionsRefused());
    }

    @Test
    void theLaneOfAConnectionThatClosedReadsTheNextConnectionAlone() throws Exception
    {
        start(4);
        final ClientConnection a = connect("a");
        final Lane lane = call(a);
        assertEquals(Wait.ALONE, waitOf(lane));
        // The server closes a's connection (as its idle timeout would): its socket's close ends the blocking receive.
        onlyMember(lane).reader.close();
        await(() -> pool.soloLaneCount() == 0 && lane.members().isEmpty(), "the lane is no longer solo");
        assertEquals(Wait.SELECTING, waitOf(lane), "an empty lane waits in its selector, where a new connection wakes it");
        assertThrows(IOException.class, () -> a.call(request(99, UTF8), TIMEOUT_NS), "a's connection is closed");

        final ClientConnection b = connect("b");
        assertEquals(lane, call(b));
        assertEquals(Wait.ALONE, waitOf(lane));
        assertEquals(1, pool.laneCount());
        assertEquals(2, counters.soloStarts());
    }

    @Test
    void aSoloLaneJacorbClosesEndsItsReaderAndClosesItsConnection() throws Exception
    {
        start(4);
        final ClientConnection a = connect("a");
        final Lane lane = call(a);
        assertEquals(Wait.ALONE, waitOf(lane));
        lane.close();
        final Thread reader = orb.readers.get(lane);
        reader.join(TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NS));
        assertFalse(reader.isAlive(), "the reader thread, blocked in the receive, ended with COMM_FAILURE");
        assertEquals(0, pool.laneCount());
        assertThrows(IOException.class, () -> a.call(request(98, UTF8), TIMEOUT_NS), "its connection was closed with the lane");
    }

    @Test
    void aSoloConnectionWhoseCodeSetsAreNotItsLanesMovesToAnotherLaneThatSelectsIt() throws Exception
    {
        start(4);
        final ClientConnection a = connect("a");
        final Lane first = call(a, UTF8);
        onlyMember(first).reader.close();
        await(() -> pool.soloLaneCount() == 0 && first.members().isEmpty(), "a's lane is no longer solo");
        // b reads the lane settled on UTF-8 alone, but its requests want another char code set.
        final ClientConnection b = connect("b");
        await(() -> pool.soloLaneCount() == 1, "b's lane is solo");
        final int latin1 = 0x00010001;
        final Lane moved = call(b, latin1);
        assertNotEquals(first, moved);
        assertEquals(1, counters.connectionsMoved());
        assertEquals(CodeSetKey.of(latin1, UTF16), moved.key());
        assertEquals(0, pool.soloLaneCount(), "the moved connection's new lane selects it");
        for (int i = 0; i < 10; i++)
        {
            assertEquals(moved, call(b, latin1));
        }
        assertEquals(Wait.SELECTING, waitOf(moved));
        assertEquals(Wait.SELECTING, waitOf(first));
    }
}
