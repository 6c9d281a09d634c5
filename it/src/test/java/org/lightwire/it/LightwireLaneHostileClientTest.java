package org.lightwire.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lightwire.etf.CorbaExceptions;
import org.lightwire.etf.LightwireConfig;
import org.lightwire.it.idl.lwtest.echo;
import org.lightwire.it.idl.lwtest.echoHelper;
import org.lightwire.it.idl.lwtest.server_probe;
import org.lightwire.it.idl.lwtest.server_probeHelper;
import org.lightwire.transport.channel.UdpClient;
import org.lightwire.transport.engine.EngineConfig;
import org.lightwire.transport.link.udp.UdpLinkConfig;
import org.omg.CORBA.ORB;

/**
 * A client's bytes never close or confuse a lane that others share. A raw transport client
 * (transport-core's {@link UdpClient}, no ORB) sends, as exactly-once calls and as one-ways,
 * messages JacORB must not see or would fail its connection on: bytes that are not GIOP, a wrong
 * size, an unknown GIOP version, MessageError, CloseConnection, CancelRequest, a Request with the
 * "more fragments" bit, a Fragment, ProfileAddr addressing, an object key ending in the POA's mask
 * byte, an operation without its NUL, an unreadable CodeSets context, a huge service context
 * count, a Reply. Meanwhile a JacORB client calls the same server without a pause, on the same
 * lane ({@code reader_threads = 1}, and the raw client's last, valid, request carries the same
 * code sets).
 *
 * <p>Expected: the JacORB client sees no failure; the lane is never closed; each exactly-once
 * message gets the documented answer (a MARSHAL reply, minor 0x4C57000B, COMPLETED_NO, carrying
 * the message's request id, when that id can be read and a reply was asked for; otherwise an
 * empty transport reply), each one-way none; the server counts every message under its verdict;
 * and the raw client's valid request afterwards is answered, under its own request id.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LightwireLaneHostileClientTest
{
    private static final int ROUNDS = 20;
    private static final byte[] KEY = "echo".getBytes(StandardCharsets.ISO_8859_1);
    /** The good JacORB client's code sets (UTF-8, UTF-16): the lane's key, so the raw client's valid request stays on it. */
    private static final int[] CODE_SETS = {0x05010001, 0x00010109};
    private static final String EMPTY = "empty";

    /** One hostile message: what it is, its bytes, the verdict the server counts, the answer expected ({@link #EMPTY} or a request id). */
    private static final class Case
    {
        final String name;
        final byte[] bytes;
        final String verdict;
        final String answer;

        Case(final String name, final byte[] bytes, final String verdict, final String answer)
        {
            this.name = name;
            this.bytes = bytes;
            this.verdict = verdict;
            this.answer = answer;
        }
    }

    private static List<Case> cases()
    {
        final List<Case> c = new ArrayList<>();
        c.add(new Case("not GIOP", "hello, lane".getBytes(StandardCharsets.ISO_8859_1), "NOT_GIOP", EMPTY));
        final byte[] wrongSize = RawGiop.request(101, 3, "echo", "echoString", "x", null);
        ByteBuffer.wrap(wrongSize).putInt(8, wrongSize.length);
        c.add(new Case("wrong size", wrongSize, "SIZE_MISMATCH", EMPTY));
        final byte[] version = RawGiop.request(102, 3, "echo", "echoString", "x", null);
        version[5] = 3;
        c.add(new Case("GIOP 1.3", version, "UNSUPPORTED_VERSION", EMPTY));
        c.add(new Case("MessageError", RawGiop.message(RawGiop.MESSAGE_ERROR, 0).bytes(), "CLIENT_MESSAGE_ERROR", EMPTY));
        c.add(new Case("CloseConnection", RawGiop.message(RawGiop.CLOSE_CONNECTION, 0).bytes(), "CLIENT_CLOSE_CONNECTION", EMPTY));
        c.add(new Case("CancelRequest", RawGiop.message(RawGiop.CANCEL_REQUEST, 0).ulong(103).bytes(), "CANCEL_REQUEST", EMPTY));
        c.add(new Case("first fragment", RawGiop.message(RawGiop.REQUEST, 0x02).ulong(104).octets(3, 0, 0, 0).ushort(0).sequence(KEY)
            .bytes(), "FRAGMENTED", "104"));
        c.add(new Case("Fragment", RawGiop.message(RawGiop.FRAGMENT, 0).ulong(105).octets(1, 2, 3, 4).bytes(), "FRAGMENTED", "105"));
        c.add(new Case("one-way first fragment", RawGiop.message(RawGiop.REQUEST, 0x02).ulong(106).octets(0, 0, 0, 0).ushort(0)
            .sequence(KEY).bytes(), "FRAGMENTED", EMPTY));
        c.add(new Case("ProfileAddr", RawGiop.message(RawGiop.REQUEST, 0).ulong(107).octets(3, 0, 0, 0).ushort(1).ulong(0)
            .sequence(new byte[8]).string("echoString").ulong(0).bytes(), "UNSUPPORTED_TARGET", "107"));
        c.add(new Case("key ending in '&'", RawGiop.request(108, 3, "impl/POA/oid&", "echoString", "x", null), "UNUSABLE_OBJECT_KEY",
            "108"));
        c.add(new Case("operation without NUL", RawGiop.message(RawGiop.REQUEST, 0).ulong(109).octets(3, 0, 0, 0).ushort(0).sequence(KEY)
            .ulong(4).octets('e', 'c', 'h', 'o').ulong(0).bytes(), "MALFORMED_HEADER", "109"));
        c.add(new Case("huge context count", RawGiop.message(RawGiop.REQUEST, 0).ulong(110).octets(3, 0, 0, 0).ushort(0).sequence(KEY)
            .string("echoString").ulong(0x7FFF_FFFF).bytes(), "MALFORMED_HEADER", "110"));
        c.add(new Case("short CodeSets context", RawGiop.message(RawGiop.REQUEST, 0).ulong(111).octets(3, 0, 0, 0).ushort(0)
            .sequence(KEY).string("echoString").ulong(1).ulong(1).sequence(new byte[4]).bytes(), "MALFORMED_SERVICE_CONTEXT", "111"));
        c.add(new Case("Reply", RawGiop.message(RawGiop.REPLY, 0).ulong(112).ulong(0).ulong(0).bytes(), "UNEXPECTED_TYPE", EMPTY));
        return c;
    }

    @Test
    void malformedAndControlMessagesAreAnsweredByTheLaneWhichStaysOpenForTheOtherClients() throws Exception
    {
        final int port = Workloads.freePort();
        try (ProcessHarness server = ProcessHarness.startTestServer(Orbs.lightwire(Map.of("OAPort", Integer.toString(port),
            LightwireConfig.SERVER_READER_THREADS, "1"))))
        {
            final ORB good = Orbs.init(Orbs.lightwire());
            final ORB probeOrb = Orbs.init(Map.of());
            final UdpClient raw = new UdpClient(EngineConfig.defaults(), UdpLinkConfig.defaults(), 1, TimeUnit.SECONDS.toNanos(10), 1 << 20);
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicLong goodCalls = new AtomicLong();
            final List<String> goodFailures = java.util.Collections.synchronizedList(new ArrayList<>());
            Thread caller = null;
            try
            {
                final server_probe probe = server_probeHelper.narrow(probeOrb.string_to_object(server.ior("probe")));
                final echo e = echoHelper.narrow(good.string_to_object(server.ior("echo")));
                assertEquals("first", e.echoString("first"));
                caller = new Thread(() ->
                {
                    while (!stop.get())
                    {
                        final String text = "good call " + goodCalls.get();
                        try
                        {
                            final String back = e.echoString(text);
                            if (!text.equals(back))
                            {
                                goodFailures.add("'" + text + "' came back as '" + back + "'");
                            }
                        }
                        catch (final RuntimeException ex)
                        {
                            goodFailures.add(ex.toString());
                        }
                        goodCalls.incrementAndGet();
                    }
                }, "good-client");
                caller.start();

                final InetSocketAddress address = new InetSocketAddress(Orbs.LOOPBACK, port);
                final List<Case> cases = cases();
                final Map<String, Long> expected = new LinkedHashMap<>();
                for (int round = 0; round < ROUNDS; round++)
                {
                    for (final Case c : cases)
                    {
                        final String answer = raw.call(address, ByteBuffer.wrap(c.bytes), TimeUnit.SECONDS.toNanos(10),
                            LightwireLaneHostileClientTest::describe);
                        assertEquals(c.answer, answer, c.name);
                        raw.send(address, ByteBuffer.wrap(c.bytes));
                        expected.merge(c.verdict, 2L, Long::sum);
                    }
                }
                final String valid = raw.call(address, ByteBuffer.wrap(RawGiop.request(0x7FFF_0001, 3, "echo", "echoString", "still here",
                    CODE_SETS)), TimeUnit.SECONDS.toNanos(10), r -> RawGiop.parseReply(r).toString());
                assertEquals("Reply{id=" + 0x7FFF_0001 + ", status=0, result=still here, exception=null, minor=0x0, completed=0}", valid,
                    "the raw client's valid request, answered under its own id");

                stop.set(true);
                caller.join(TimeUnit.SECONDS.toMillis(30));
                assertEquals(List.of(), goodFailures, "the JacORB client's failures");
                assertTrue(goodCalls.get() > 0, "the JacORB client called");

                String counters = probe.lane_counters();
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!matches(counters, expected) && System.nanoTime() - deadlineNs < 0)
                {
                    // One-ways are handled asynchronously: wait for the last to be counted.
                    Thread.sleep(50);
                    counters = probe.lane_counters();
                }
                System.out.println(goodCalls.get() + " good calls; lanes " + probe.lane_count() + " [" + probe.lane_keys() + "]; " + counters);
                for (final Map.Entry<String, Long> v : expected.entrySet())
                {
                    assertTrue(counters.contains(" notPresented." + v.getKey() + "=" + v.getValue() + " ") ||
                        counters.endsWith(" notPresented." + v.getKey() + "=" + v.getValue()), v + " in " + counters);
                }
                assertTrue(counters.startsWith("lanesOpened=1 lanesClosed=0 "), "one lane, never closed: " + counters);
                assertEquals(1, probe.lane_count());
                assertTrue(counters.contains(" messagesWithoutCall=0 ") && counters.contains(" orphanedCalls=0 "), counters);
            }
            finally
            {
                stop.set(true);
                if (caller != null)
                {
                    caller.join(TimeUnit.SECONDS.toMillis(30));
                }
                raw.close();
                good.shutdown(true);
                good.destroy();
                probeOrb.shutdown(true);
                probeOrb.destroy();
            }
        }
    }

    /** @return {@link #EMPTY} for an empty reply, the request id of a MARSHAL reply as the lane sends it, else a description. */
    private static String describe(final ByteBuffer reply)
    {
        if (!reply.hasRemaining())
        {
            return EMPTY;
        }
        final RawGiop.Reply r = RawGiop.parseReply(reply);
        if (r.status == RawGiop.SYSTEM_EXCEPTION && "IDL:omg.org/CORBA/MARSHAL:1.0".equals(r.exceptionId) &&
            r.minor == CorbaExceptions.MINOR_REFUSED && r.completed == org.omg.CORBA.CompletionStatus._COMPLETED_NO)
        {
            return Integer.toString(r.requestId);
        }
        return r.toString();
    }

    private static boolean matches(final String counters, final Map<String, Long> expected)
    {
        for (final Map.Entry<String, Long> v : expected.entrySet())
        {
            if (!(counters + " ").contains(" notPresented." + v.getKey() + "=" + v.getValue() + " "))
            {
                return false;
            }
        }
        return true;
    }
}
