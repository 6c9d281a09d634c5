package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lightwire.etf.giop.GiopBytes;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.ServiceContexts;
import org.lightwire.romiop.consolidation.ConsolidationPolicy;

class CallPolicyTest
{
    /** GIOP 1.2 Request, big-endian: id 7, response expected, KeyAddr "key", operation "append", no service contexts. */
    private static byte[] request()
    {
        final ByteBuffer b = ByteBuffer.allocate(48);
        b.put(new byte[] {'G', 'I', 'O', 'P', 1, 2, 0, 0}).putInt(36);
        b.putInt(7).put((byte)3).put(new byte[3]).putShort((short)0).put(new byte[2]);
        b.putInt(3).put("key".getBytes(StandardCharsets.US_ASCII)).put((byte)0);
        b.putInt(7).put("append\0".getBytes(StandardCharsets.US_ASCII)).put((byte)0);
        b.putInt(0);
        return b.array();
    }

    @Test
    void theContextIsABigEndianEncapsulationOfTheString()
    {
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 4, 'a', '=', 'b', 0}, CallPolicy.encode("a=b"));
        assertEquals("mode=first_reply", CallPolicy.decode(CallPolicy.encode("mode=first_reply")));
        // A little-endian encapsulation, as another ORB may write it, reads the same.
        assertEquals("a=b", CallPolicy.decode(new byte[] {1, 0, 0, 0, 4, 0, 0, 0, 'a', '=', 'b', 0}));
    }

    @Test
    void thePolicyIsFoundInARequestAndAnAbsentOneIsNull()
    {
        final byte[] plain = request();
        assertNull(CallPolicy.fromRequest(plain, plain.length));
        final byte[] with = ServiceContexts.insert(plain, plain.length, CallPolicy.SERVICE_CONTEXT_ID,
            CallPolicy.encode("mode=quorum,quorum=51%,timeout=500ms"));
        final ConsolidationPolicy p = CallPolicy.fromRequest(with, with.length);
        assertEquals(ConsolidationPolicy.Mode.QUORUM_PERCENT, p.mode());
        assertEquals(51, p.quorum());
        assertEquals(500_000_000L, p.timeoutNs());
    }

    /**
     * A group that publishes GIOP 1.0 or 1.1 profiles ({@code jacorb.giop_minor_version}) gets
     * requests whose service contexts come first in the header: the policy is read there too
     * (it was ignored in 1.0, and the group's default consolidated the call).
     */
    @ParameterizedTest(name = "GIOP 1.{0}")
    @ValueSource(ints = {0, 1})
    void thePolicyOfAGiop10Or11RequestIsRead(final int minor)
    {
        final GiopBytes b = GiopBytes.message(minor, GiopMessage.REQUEST, false)
            .ulong(1).context(CallPolicy.SERVICE_CONTEXT_ID, CallPolicy.encode("mode=first_reply"))
            .ulong(7).octets(1);
        if (minor == 1)
        {
            b.octets(0, 0, 0);
        }
        final byte[] m = b.sequence("key".getBytes(StandardCharsets.US_ASCII)).string("append").sequence(new byte[0]).bytes();
        assertEquals(7, GiopMessage.requestId(m, m.length));
        final ConsolidationPolicy policy = CallPolicy.fromRequest(m, m.length);
        assertNotNull(policy, "GIOP 1." + minor + ": the request's policy context was not read");
        assertEquals(ConsolidationPolicy.Mode.FIRST_REPLY, policy.mode());
    }

    @Test
    void anUnreadableContextOrPolicyNamesWhatIsWrong()
    {
        final byte[] plain = request();
        final byte[] badMode = ServiceContexts.insert(plain, plain.length, CallPolicy.SERVICE_CONTEXT_ID, CallPolicy.encode("mode=loudest"));
        final IllegalArgumentException e1 = assertThrows(IllegalArgumentException.class, () -> CallPolicy.fromRequest(badMode, badMode.length));
        assertTrue(e1.getMessage().contains("loudest"), e1.getMessage());
        final byte[] notString = ServiceContexts.insert(plain, plain.length, CallPolicy.SERVICE_CONTEXT_ID, new byte[] {0, 0, 0, 0, 0, 0, 0, 9, 'x'});
        final IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class,
            () -> CallPolicy.fromRequest(notString, notString.length));
        // Padded to 16 bytes by the insertion: a 9-byte string after the 8-byte head does not fit.
        assertEquals("service context 0x4c575003: string length 9 does not fit its 16-byte encapsulation", e2.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CallPolicy.decode(new byte[] {7, 0, 0, 0, 1, 0, 0, 0, 0}));
    }

    @Test
    void withSetsThePolicyForItsCallsOnlyAndChecksItFirst()
    {
        assertNull(CallPolicy.current());
        assertEquals("mode=first_reply", CallPolicy.with("mode=first_reply", CallPolicy::current));
        assertEquals("mode=last_reply", CallPolicy.with("mode=first_reply", () -> CallPolicy.with("mode=last_reply", CallPolicy::current)));
        assertNull(CallPolicy.current());
        final int[] ran = {0};
        assertThrows(IllegalArgumentException.class, () -> CallPolicy.with("quorum=0%", () -> ran[0]++));
        assertEquals(0, ran[0], "a bad policy is refused before the call");
    }
}
