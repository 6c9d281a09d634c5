package org.lightwire.etf.lane;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.CorbaExceptions;
import org.lightwire.etf.giop.GiopBytes;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.GiopRequestCheck;
import org.lightwire.transport.channel.ClientConnection;
import org.lightwire.transport.channel.LinkServerDriver;
import org.lightwire.transport.channel.RequestMemoryBudget;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.memory.Faults;
import org.lightwire.transport.link.memory.MemoryLink;
import org.omg.CORBA.NO_RESOURCES;

/**
 * Lanes, pool and router without JacORB: transport connections over in-memory links (each served
 * by a {@link LinkServerDriver}, so every request reaches its lane as a hand-off), and a fake ORB
 * whose reader thread per lane reads messages as JacORB's does (header, then body) and writes
 * replies with the lane ids it was given.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LaneTest
{
    private static final long MS = 1_000_000L;
    private static final EngineConfig CONFIG = EngineConfig.builder().maxPacketBytes(1500).ackDelayNs(2 * MS).retransmitMinNs(20 * MS)
        .retransmitInitialNs(100 * MS).retransmitMaxNs(500 * MS).peerTimeoutNs(10_000 * MS).build();
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);
    private static final byte[] KEY = "impl/POA/oid".getBytes(StandardCharsets.ISO_8859_1);
    private static final int UTF8 = 0x05010001;
    private static final int UTF16 = 0x00010109;

    private final FakeOrb orb = new FakeOrb();
    private final LaneCounters counters = new LaneCounters();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private LanePool pool;
    private LaneRouter router;
    private RequestMemoryBudget handOffMemory;

    private void start(final int readerThreads)
    {
        start(readerThreads, 1L << 30);
    }

    private void start(final int readerThreads, final long handOffBytes)
    {
        pool = new LanePool(readerThreads, orb, () -> null, counters);
        handOffMemory = new RequestMemoryBudget(handOffBytes);
        router = new LaneRouter(pool, false, handOffMemory);
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
    }

    /** @return the client end of a new transport connection named {@code name}, served by the router. */
    private ClientConnection connect(final String name)
    {
        final MemoryLink.Pair pair = MemoryLink.pair(name.hashCode(), Faults.NONE, Faults.NONE, 1500);
        final LinkServerDriver server = new LinkServerDriver(pair.b(), CONFIG, router, null, 1 << 20, name).start();
        final ClientConnection client = new ClientConnection(pair.a(), CONFIG, name, 1 << 20);
        toClose.add(client);
        toClose.add(server);
        return client;
    }

    private static byte[] request(final int requestId, final int charCodeSet)
    {
        return GiopBytes.request12(false, requestId, 3, KEY, "op", GiopRequestCheck.CODE_SETS, GiopBytes.codeSetContext(charCodeSet, UTF16));
    }

    /** @return the reply's bytes as Latin-1 text without NULs: the repository id and the detail message (a UTF-16 wstring) both read. */
    private static String text(final byte[] reply)
    {
        return new String(reply, StandardCharsets.ISO_8859_1).replace("\0", "");
    }

    private static byte[] bytes(final ByteBuffer reply)
    {
        final byte[] b = new byte[reply.remaining()];
        reply.get(reply.position(), b);
        return b;
    }

    @Test
    void twoClientsWithOneRequestIdEachGetALaneIdAndTheirOwnReplyUnderTheirOwnId() throws Exception
    {
        start(1);
        final ClientConnection a = connect("a");
        final ClientConnection b = connect("b");
        a.startCall(ByteBuffer.wrap(request(5, UTF8)));
        final FakeOrb.Presented first = orb.next();
        b.startCall(ByteBuffer.wrap(request(5, UTF8)));
        final FakeOrb.Presented second = orb.next();
        assertEquals(first.lane, second.lane, "one lane");
        assertNotEquals(first.laneId(), second.laneId(), "two lane ids for the clients' one id");
        // Answered in the other order, each with a body naming its caller.
        FakeOrb.reply(second.lane, second.laneId(), 0xBBBB);
        FakeOrb.reply(first.lane, first.laneId(), 0xAAAA);
        final byte[] ra = bytes(a.awaitReply(TIMEOUT_NS));
        final byte[] rb = bytes(b.awaitReply(TIMEOUT_NS));
        assertEquals(5, GiopMessage.requestId(ra, ra.length));
        assertEquals(5, GiopMessage.requestId(rb, rb.length));
        assertEquals(0xAAAA, GiopMessage.readULong(ra, ra.length - 4, false));
        assertEquals(0xBBBB, GiopMessage.readULong(rb, rb.length - 4, false));
        assertEquals(2, counters.requestsHandedOff());
        assertEquals(0, counters.messagesWithoutCall());
    }

    @Test
    void aReplyToAnUnknownIdAndACloseConnectionAreDroppedAndCounted() throws Exception
    {
        start(1);
        final ClientConnection a = connect("a");
        a.startCall(ByteBuffer.wrap(request(9, UTF8)));
        final FakeOrb.Presented p = orb.next();
        FakeOrb.reply(p.lane, p.laneId() + 1000, 1);
        FakeOrb.write(p.lane, GiopBytes.message(2, GiopMessage.CLOSE_CONNECTION, false).bytes());
        FakeOrb.reply(p.lane, p.laneId(), 2);
        final byte[] r = bytes(a.awaitReply(TIMEOUT_NS));
        assertEquals(2, GiopMessage.readULong(r, r.length - 4, false));
        assertEquals(1, counters.messagesWithoutCall());
        assertEquals(1, counters.closeConnectionsDropped());
    }

    @Test
    void aMessageErrorJacorbWritesOnTheReaderThreadAnswersTheRequestJustPresented() throws Exception
    {
        start(1);
        final byte[] messageError = GiopBytes.message(2, GiopMessage.MESSAGE_ERROR, false).bytes();
        orb.onReaderThread = (lane, m) -> FakeOrb.write(lane, messageError);
        final ClientConnection a = connect("a");
        final ByteBuffer r = a.call(ByteBuffer.wrap(request(3, UTF8)), TIMEOUT_NS);
        assertArrayEquals(messageError, bytes(r));
        orb.onReaderThread = (lane, m) -> { };
        FakeOrb.write(orb.lanes.get(0), messageError);
        assertEquals(1, counters.messageErrorsDropped(), "a MessageError from another thread has no request to answer");
    }

    @Test
    void aLaneJacorbClosesFailsItsPendingCallsAndTheNextConnectionGetsANewLane() throws Exception
    {
        start(1);
        final ClientConnection a = connect("a");
        a.startCall(ByteBuffer.wrap(request(77, UTF8)));
        final FakeOrb.Presented p = orb.next();
        p.lane.close();
        final byte[] r = bytes(a.awaitReply(TIMEOUT_NS));
        assertEquals(GiopMessage.REPLY, GiopMessage.type(r));
        assertEquals(77, GiopMessage.requestId(r, r.length), "under the client's own id");
        assertTrue(text(r).contains("IDL:omg.org/CORBA/COMM_FAILURE:1.0"));
        assertEquals(org.omg.CORBA.CompletionStatus._COMPLETED_MAYBE, GiopMessage.readULong(r, r.length - 4, false));
        assertEquals(CorbaExceptions.MINOR_CLOSED, GiopMessage.readULong(r, r.length - 8, false));
        assertEquals(1, counters.orphanedCalls());
        assertEquals(1, counters.lanesClosed());
        assertEquals(0, pool.laneCount());

        final ClientConnection b = connect("b");
        b.startCall(ByteBuffer.wrap(request(78, UTF8)));
        final FakeOrb.Presented q = orb.next();
        assertNotEquals(p.lane, q.lane, "a new lane");
        FakeOrb.reply(q.lane, q.laneId(), 1);
        assertEquals(78, GiopMessage.requestId(bytes(b.awaitReply(TIMEOUT_NS)), 24));
        assertEquals(2, counters.lanesOpened());
    }

    @Test
    void requestsQueuedForABusyLaneAreChargedToTheirBudgetAndTheOneBeyondIsRefusedNoResources() throws Exception
    {
        final int size = request(1, UTF8).length;
        start(1, 2L * size);
        final CountDownLatch busy = new CountDownLatch(1);
        final CountDownLatch presented = new CountDownLatch(1);
        orb.onReaderThread = (lane, m) ->
        {
            presented.countDown();
            try
            {
                busy.await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        };
        final ClientConnection a = connect("a");
        a.startCall(ByteBuffer.wrap(request(1, UTF8)));
        awaitHandedOff(1);
        // Request 1 is presented (its charge given back) before the next two come: otherwise the
        // third could find the budget still holding request 1 and be refused.
        assertTrue(presented.await(TIMEOUT_NS, java.util.concurrent.TimeUnit.NANOSECONDS), () -> "request 1 was never presented: " + counters);
        // The lane's reader is held inside JacORB with request 1: the next two wait in its queue, charged.
        final ClientConnection b = connect("b");
        final ClientConnection c = connect("c");
        b.startCall(ByteBuffer.wrap(request(2, UTF8)));
        c.startCall(ByteBuffer.wrap(request(3, UTF8)));
        awaitHandedOff(3);
        assertEquals(2L * size, handOffMemory.usedBytes(), "requests 2 and 3 queued; request 1 was presented, no longer charged");
        final ClientConnection d = connect("d");
        final byte[] refused = bytes(d.call(ByteBuffer.wrap(request(4, UTF8)), TIMEOUT_NS));
        assertEquals(4, GiopMessage.requestId(refused, refused.length), "under the client's own id");
        final String text = text(refused);
        assertTrue(text.contains("IDL:omg.org/CORBA/NO_MEMORY:1.0") && text.contains("jacorb.lightwire.server.request_memory_bytes"), text);
        assertEquals(CorbaExceptions.MINOR_REQUEST_MEMORY, GiopMessage.readULong(refused, refused.length - 8, false));
        assertEquals(org.omg.CORBA.CompletionStatus._COMPLETED_NO, GiopMessage.readULong(refused, refused.length - 4, false));
        assertEquals(1, counters.handOffsRefused());
        assertEquals(3, counters.requestsHandedOff(), "the refused request was not copied");

        busy.countDown();
        final ClientConnection[] callers = {a, b, c};
        for (int i = 0; i < 3; i++)
        {
            final FakeOrb.Presented p = orb.next();
            FakeOrb.reply(p.lane, p.laneId(), 100 + i);
        }
        for (int i = 0; i < 3; i++)
        {
            final byte[] r = bytes(callers[i].awaitReply(TIMEOUT_NS));
            assertEquals(i + 1, GiopMessage.requestId(r, r.length));
        }
        assertEquals(0, handOffMemory.usedBytes(), "every charge given back once its request was presented");
        assertEquals(2L * size, handOffMemory.peakBytes());
    }

    /** Waits, at most {@link #TIMEOUT_NS}, until {@code n} requests were handed off; fails naming the counters. */
    private void awaitHandedOff(final long n) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TIMEOUT_NS;
        while (counters.requestsHandedOff() < n)
        {
            assertTrue(System.nanoTime() - deadline < 0, () -> "waited for " + n + " hand-offs: " + counters);
            Thread.sleep(1);
        }
    }

    @Test
    void aLaneJacorbRefusesMakesTheRequestCommFailureAsOverIiop() throws Exception
    {
        start(1);
        orb.refusal = new NO_RESOURCES("max_server_connections reached");
        final ClientConnection a = connect("a");
        final byte[] r = bytes(a.call(ByteBuffer.wrap(request(12, UTF8)), TIMEOUT_NS));
        assertEquals(12, GiopMessage.requestId(r, r.length));
        final String text = text(r);
        assertTrue(text.contains("IDL:omg.org/CORBA/COMM_FAILURE:1.0") && text.contains("jacorb.connection.max_server_connections"), text);
        assertEquals(org.lightwire.etf.CorbaExceptions.MINOR_SERVER_CONNECTIONS, GiopMessage.readULong(r, r.length - 8, false));
        assertEquals(org.omg.CORBA.CompletionStatus._COMPLETED_NO, GiopMessage.readULong(r, r.length - 4, false));
        assertEquals(1, counters.deliveryFailures());

        orb.refusal = null;
        final byte[] again = request(13, UTF8);
        a.startCall(ByteBuffer.wrap(again));
        final FakeOrb.Presented p = orb.next();
        FakeOrb.reply(p.lane, p.laneId(), 1);
        assertEquals(13, GiopMessage.requestId(bytes(a.awaitReply(TIMEOUT_NS)), 24), "a lane is made once JacORB takes it");
    }

    @Test
    void aConnectionWhoseCodeSetsAreNotItsLanesMovesToALaneOfItsOwnUpToTheCapWhereAnIdleLaneMakesRoom() throws Exception
    {
        start(1);
        final ClientConnection a = connect("a");
        a.startCall(ByteBuffer.wrap(request(1, UTF8)));
        final FakeOrb.Presented pa = orb.next();
        FakeOrb.reply(pa.lane, pa.laneId(), 1);
        a.awaitReply(TIMEOUT_NS);
        // Nine more code sets: lanes 2 to 9 are the eight beyond reader_threads; the tenth finds none.
        for (int i = 1; i <= LanePool.EXTRA_LANES_FOR_CODE_SETS; i++)
        {
            final ClientConnection c = connect("c" + i);
            c.startCall(ByteBuffer.wrap(request(100 + i, 0x00010001 + i)));
            final FakeOrb.Presented p = orb.next();
            assertNotEquals(pa.lane, p.lane);
            assertEquals(CodeSetKey.of(0x00010001 + i, UTF16), p.lane.key());
            FakeOrb.reply(p.lane, p.laneId(), 1);
            assertEquals(100 + i, GiopMessage.requestId(bytes(c.awaitReply(TIMEOUT_NS)), 24));
        }
        assertEquals(1 + LanePool.EXTRA_LANES_FOR_CODE_SETS, pool.laneCount());
        assertEquals(LanePool.EXTRA_LANES_FOR_CODE_SETS, counters.connectionsMoved());
        final ClientConnection over = connect("over");
        final byte[] r = bytes(over.call(ByteBuffer.wrap(request(200, 0x00020001)), TIMEOUT_NS));
        final String text = text(r);
        assertTrue(text.contains("IDL:omg.org/CORBA/NO_RESOURCES:1.0") && text.contains("jacorb.lightwire.server.reader_threads"), text);
        assertEquals(1, counters.laneCapRefusals());
        assertEquals(1 + LanePool.EXTRA_LANES_FOR_CODE_SETS, pool.laneCount(), "no lane beyond the cap");
        // Once a lane at the cap carries no connection, a new code set takes its place.
        router.onConnectionClosed("c3", "the test closed it");
        final ClientConnection later = connect("later");
        later.startCall(ByteBuffer.wrap(request(400, 0x00030001)));
        final FakeOrb.Presented pl = orb.next();
        assertEquals(CodeSetKey.of(0x00030001, UTF16), pl.lane.key());
        FakeOrb.reply(pl.lane, pl.laneId(), 1);
        assertEquals(400, GiopMessage.requestId(bytes(later.awaitReply(TIMEOUT_NS)), 24));
        assertEquals(1, counters.lanesRetired());
        assertEquals(1 + LanePool.EXTRA_LANES_FOR_CODE_SETS, pool.laneCount(), "still at the cap");
        assertTrue(!pool.laneKeys().contains(CodeSetKey.of(0x00010001 + 3, UTF16).toString()), "the idle lane went: " + pool.laneKeys());
        // A connection of the first lane's code sets is still served there.
        final ClientConnection same = connect("same");
        same.startCall(ByteBuffer.wrap(request(300, UTF8)));
        final FakeOrb.Presented ps = orb.next();
        assertEquals(pa.lane, ps.lane);
        FakeOrb.reply(ps.lane, ps.laneId(), 1);
        assertEquals(300, GiopMessage.requestId(bytes(same.awaitReply(TIMEOUT_NS)), 24));
    }

    @Test
    void refusedMessagesAreAnsweredWithoutReachingTheOrb() throws IOException, InterruptedException
    {
        start(1);
        final ClientConnection a = connect("a");
        final byte[] fragment = GiopBytes.message(2, GiopMessage.REQUEST, false, 0x02).ulong(44).octets(3, 0, 0, 0).ushort(0).sequence(KEY)
            .bytes();
        final byte[] r = bytes(a.call(ByteBuffer.wrap(fragment), TIMEOUT_NS));
        assertEquals(44, GiopMessage.requestId(r, r.length));
        assertTrue(text(r).contains("IDL:omg.org/CORBA/MARSHAL:1.0"));
        assertEquals(CorbaExceptions.MINOR_REFUSED, GiopMessage.readULong(r, r.length - 8, false));
        assertEquals(0, bytes(a.call(ByteBuffer.wrap(GiopBytes.message(2, GiopMessage.CANCEL_REQUEST, false).ulong(44).bytes()),
            TIMEOUT_NS)).length, "a CancelRequest is answered empty");
        assertEquals(1, counters.notPresented(GiopRequestCheck.Verdict.FRAGMENTED));
        assertEquals(1, counters.notPresented(GiopRequestCheck.Verdict.CANCEL_REQUEST));
        assertEquals(1, counters.protocolErrors());
        assertEquals(null, orb.presented.poll(100, TimeUnit.MILLISECONDS), "nothing reached the ORB");
    }
}
