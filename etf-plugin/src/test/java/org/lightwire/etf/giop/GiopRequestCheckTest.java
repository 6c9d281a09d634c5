package org.lightwire.etf.giop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.lightwire.etf.giop.GiopRequestCheck.Verdict;

class GiopRequestCheckTest
{
    private static final byte[] KEY = "impl/RootPOA/oid1".getBytes(StandardCharsets.ISO_8859_1);
    private static final int UTF8 = 0x05010001;
    private static final int UTF16 = 0x00010109;

    private final GiopRequestCheck check = new GiopRequestCheck();

    private Verdict check(final byte[] m)
    {
        return check.check(ByteBuffer.wrap(m));
    }

    @Test
    void giop12RequestIsPresentedWithItsIdWhereItIsAndItsResponseFlags()
    {
        for (final boolean little : new boolean[] {false, true})
        {
            assertEquals(Verdict.PRESENT, check(GiopBytes.request12(little, 0x01020304, 3, KEY, "echoString")));
            assertEquals(0x01020304L, check.requestId());
            assertEquals(12, check.requestIdOffset());
            assertEquals(little, check.littleEndian());
            assertTrue(check.responseExpected());
            assertEquals(GiopMessage.REQUEST, check.type());
            assertEquals(2, check.minor());
            assertFalse(check.hasCodeSetContext());

            assertEquals(Verdict.PRESENT, check(GiopBytes.request12(little, 9, 0, KEY, "oneway_op")));
            assertFalse(check.responseExpected(), "response_flags 0: a one-way");
            assertEquals(Verdict.PRESENT, check(GiopBytes.request12(little, 9, 1, KEY, "op")));
            assertTrue(check.responseExpected(), "response_flags 1 (SYNC_WITH_SERVER) is answered");
        }
    }

    @Test
    void aRequestInPlaceInADirectBufferIsReadFromItsPositionAndNotMoved()
    {
        final byte[] m = GiopBytes.request12(false, 77, 3, KEY, "op");
        final ByteBuffer direct = ByteBuffer.allocateDirect(m.length + 40);
        direct.position(13);
        direct.put(m).flip().position(13);
        assertEquals(Verdict.PRESENT, check.check(direct));
        assertEquals(77, check.requestId());
        assertEquals(12, check.requestIdOffset(), "relative to the message start");
        assertEquals(13, direct.position());
        assertEquals(13 + m.length, direct.limit());
    }

    @Test
    void giop10And11RequestsHaveTheirIdAfterTheServiceContexts()
    {
        for (final int minor : new int[] {0, 1})
        {
            final GiopBytes b = GiopBytes.message(minor, GiopMessage.REQUEST, true).ulong(1)
                .context(GiopRequestCheck.CODE_SETS, GiopBytes.codeSetContext(UTF8, UTF16)).ulong(0xCAFE).octets(1);
            if (minor == 1)
            {
                b.octets(0, 0, 0);
            }
            final byte[] m = b.sequence(KEY).string("echoString").sequence(new byte[0]).align(8).octets(9, 9).bytes();
            assertEquals(Verdict.PRESENT, check(m), "GIOP 1." + minor);
            assertEquals(0xCAFE, check.requestId());
            assertEquals(GiopMessage.requestIdOffset(m, m.length), check.requestIdOffset());
            assertTrue(check.responseExpected());
            assertTrue(check.hasCodeSetContext());
            assertEquals(UTF8, check.charCodeSet());
            assertEquals(UTF16, check.wcharCodeSet());
        }
    }

    @Test
    void locateRequestsOfEveryVersionArePresented()
    {
        for (final int minor : new int[] {0, 1, 2})
        {
            final GiopBytes b = GiopBytes.message(minor, GiopMessage.LOCATE_REQUEST, false).ulong(42);
            if (minor == 2)
            {
                b.ushort(0);
            }
            assertEquals(Verdict.PRESENT, check(b.sequence(KEY).bytes()), "GIOP 1." + minor);
            assertEquals(42, check.requestId());
            assertEquals(12, check.requestIdOffset());
            assertTrue(check.responseExpected());
        }
    }

    @Test
    void theLastCodeSetContextIsTheOneReadAsJacorbReadsIt()
    {
        final byte[] m = GiopBytes.request12(false, 1, 3, KEY, "op", GiopRequestCheck.CODE_SETS, GiopBytes.codeSetContext(1, 2),
            GiopRequestCheck.CODE_SETS, GiopBytes.codeSetContext(UTF8, UTF16));
        assertEquals(Verdict.PRESENT, check(m));
        assertEquals(UTF8, check.charCodeSet());
        final byte[] littleContext = {1, 0, 0, 0, 1, 0, 1, 5, 9, 1, 1, 0, 0, 0, 0, 0};
        assertEquals(Verdict.PRESENT, check(GiopBytes.request12(false, 1, 3, KEY, "op", GiopRequestCheck.CODE_SETS, littleContext)));
        assertEquals(UTF8, check.charCodeSet(), "read in the encapsulation's own byte order");
        assertEquals(UTF16, check.wcharCodeSet());
    }

    @Test
    void unreadableServiceContextsThatJacorbDecodesOnItsReaderThreadAreRefused()
    {
        assertEquals(Verdict.MALFORMED_SERVICE_CONTEXT,
            check(GiopBytes.request12(false, 1, 3, KEY, "op", GiopRequestCheck.CODE_SETS, new byte[8])), "too short");
        final byte[] badOrder = GiopBytes.codeSetContext(UTF8, UTF16);
        badOrder[0] = 2;
        assertEquals(Verdict.MALFORMED_SERVICE_CONTEXT,
            check(GiopBytes.request12(false, 1, 3, KEY, "op", GiopRequestCheck.CODE_SETS, badOrder)), "byte order 2");
        // PolicyValueSeq with one REQUEST_END_TIME policy whose UtcT is 16 bytes, not 24.
        final byte[] shortTime = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 28, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        assertEquals(Verdict.MALFORMED_SERVICE_CONTEXT,
            check(GiopBytes.request12(false, 1, 3, KEY, "op", GiopRequestCheck.INVOCATION_POLICIES, shortTime)));
        final byte[] goodTime = new byte[16 + 24];
        System.arraycopy(shortTime, 0, goodTime, 0, 12);
        goodTime[15] = 24;
        assertEquals(Verdict.PRESENT, check(GiopBytes.request12(false, 1, 3, KEY, "op", GiopRequestCheck.INVOCATION_POLICIES, goodTime)));
        final byte[] hugeCount = {0, 0, 0, 0, 0x7F, 0, 0, 0};
        assertEquals(Verdict.MALFORMED_SERVICE_CONTEXT,
            check(GiopBytes.request12(false, 1, 3, KEY, "op", GiopRequestCheck.INVOCATION_POLICIES, hugeCount)));
        assertEquals(Verdict.PRESENT, check(GiopBytes.request12(false, 1, 3, KEY, "op", 0x4C570001, new byte[3])),
            "other contexts are the servant's business");
    }

    @Test
    void headersJacorbCannotReadAreRefused()
    {
        assertEquals(Verdict.MALFORMED_HEADER, check(GiopBytes.request12(false, 1, 2, KEY, "op")), "response_flags 2");
        final byte[] noNul = GiopBytes.message(2, GiopMessage.REQUEST, false).ulong(1).octets(3, 0, 0, 0).ushort(0).sequence(KEY)
            .ulong(2).octets('o', 'p').ulong(0).bytes();
        assertEquals(Verdict.MALFORMED_HEADER, check(noNul), "operation without its NUL");
        final byte[] emptyString = GiopBytes.message(2, GiopMessage.REQUEST, false).ulong(1).octets(3, 0, 0, 0).ushort(0)
            .sequence(KEY).ulong(0).ulong(0).bytes();
        assertEquals(Verdict.MALFORMED_HEADER, check(emptyString), "a string of length 0");
        final byte[] hugeKey = GiopBytes.message(2, GiopMessage.REQUEST, false).ulong(1).octets(3, 0, 0, 0).ushort(0)
            .ulong(0x7FFF_FFF0).octets(1, 2, 3).bytes();
        assertEquals(Verdict.MALFORMED_HEADER, check(hugeKey));
        assertEquals(1, check.requestId(), "still answerable");
        final byte[] hugeContexts = GiopBytes.message(2, GiopMessage.REQUEST, false).ulong(1).octets(3, 0, 0, 0).ushort(0)
            .sequence(KEY).string("op").ulong(1_000_000).bytes();
        assertEquals(Verdict.MALFORMED_HEADER, check(hugeContexts));
        final byte[] badBoolean = GiopBytes.message(0, GiopMessage.REQUEST, false).ulong(0).ulong(5).octets(2).sequence(KEY)
            .string("op").sequence(new byte[0]).bytes();
        assertEquals(Verdict.MALFORMED_HEADER, check(badBoolean), "response_expected 2");
        final byte[] giop10Flags = GiopBytes.request12(false, 1, 3, KEY, "op");
        giop10Flags[5] = 0;
        giop10Flags[6] = 2;
        assertEquals(Verdict.MALFORMED_HEADER, check(giop10Flags), "a GIOP 1.0 flags octet is a boolean");
    }

    @Test
    void onlyKeyAddressingIsAccepted()
    {
        final byte[] profileAddr = GiopBytes.message(2, GiopMessage.REQUEST, false).ulong(1).octets(3, 0, 0, 0).ushort(1)
            .ulong(0).sequence(new byte[8]).string("op").ulong(0).bytes();
        assertEquals(Verdict.UNSUPPORTED_TARGET, check(profileAddr));
        assertEquals(1, check.requestId());
    }

    @Test
    void objectKeysThatMakeJacorbReadPastTheirEndAreRefused()
    {
        assertEquals(Verdict.UNUSABLE_OBJECT_KEY, check(GiopBytes.request12(false, 1, 3, bytes("impl/POA/oid&"), "op")));
        assertEquals(Verdict.PRESENT, check(GiopBytes.request12(false, 1, 3, bytes("impl/POA/oid&&"), "op")), "a masked mask");
        assertEquals(Verdict.PRESENT, check(GiopBytes.request12(false, 1, 3, bytes("impl/POA/a&%b"), "op")), "a masked separator");
        assertEquals(Verdict.UNUSABLE_OBJECT_KEY, check(GiopBytes.request12(false, 1, 3, bytes("impl/POA/&&&"), "op")));
        assertEquals(Verdict.PRESENT, check(GiopBytes.request12(false, 1, 3, bytes("echo&"), "op")),
            "no separator: JacORB refuses the key itself, without failing");
        assertEquals(Verdict.UNUSABLE_OBJECT_KEY, check(GiopBytes.request12(false, 1, 3, bytes("a/&/b&"), "op")),
            "'&/' masks that separator: the last one counts");
    }

    @Test
    void theHeaderItselfIsChecked()
    {
        final byte[] good = GiopBytes.request12(false, 5, 3, KEY, "op");
        assertEquals(Verdict.NOT_GIOP, check(new byte[] {'G', 'I', 'O', 'P', 1, 2, 0, 0}));
        final byte[] magic = good.clone();
        magic[0] = 'X';
        assertEquals(Verdict.NOT_GIOP, check(magic));
        final byte[] version = good.clone();
        version[5] = 3;
        assertEquals(Verdict.UNSUPPORTED_VERSION, check(version));
        version[4] = 2;
        version[5] = 0;
        assertEquals(Verdict.UNSUPPORTED_VERSION, check(version));
        final byte[] longer = java.util.Arrays.copyOf(good, good.length + 8);
        assertEquals(Verdict.SIZE_MISMATCH, check(longer), "more bytes than the header announces");
        assertEquals(Verdict.SIZE_MISMATCH, check(java.util.Arrays.copyOf(good, good.length - 1)));
    }

    @Test
    void fragmentsAreRefusedAndAnsweredByTheirIdWhenItCanBeRead()
    {
        final byte[] first = GiopBytes.message(2, GiopMessage.REQUEST, false, 0x02).ulong(31).octets(3, 0, 0, 0).ushort(0).sequence(KEY)
            .bytes();
        assertEquals(Verdict.FRAGMENTED, check(first));
        assertEquals(31, check.requestId());
        assertTrue(check.responseExpected());
        final byte[] fragment = GiopBytes.message(2, GiopMessage.FRAGMENT, false).ulong(31).octets(1, 2, 3).bytes();
        assertEquals(Verdict.FRAGMENTED, check(fragment));
        assertEquals(31, check.requestId());
        final byte[] fragment11 = GiopBytes.message(1, GiopMessage.FRAGMENT, false).octets(1, 2, 3).bytes();
        assertEquals(Verdict.FRAGMENTED, check(fragment11));
        assertEquals(GiopMessage.UNKNOWN, check.requestId(), "GIOP 1.1 fragments carry no id");
    }

    @Test
    void controlMessagesAndTypesAClientDoesNotSendAreToldApart()
    {
        assertEquals(Verdict.CANCEL_REQUEST, check(GiopBytes.message(2, GiopMessage.CANCEL_REQUEST, false).ulong(3).bytes()));
        assertEquals(Verdict.CLIENT_MESSAGE_ERROR, check(GiopBytes.message(1, GiopMessage.MESSAGE_ERROR, false).bytes()));
        assertEquals(Verdict.CLIENT_CLOSE_CONNECTION, check(GiopBytes.message(2, GiopMessage.CLOSE_CONNECTION, true).bytes()));
        assertEquals(Verdict.UNEXPECTED_TYPE, check(GiopBytes.message(2, GiopMessage.REPLY, false).ulong(3).ulong(0).ulong(0).bytes()));
        assertEquals(Verdict.UNEXPECTED_TYPE, check(GiopBytes.message(2, 9, false).bytes()));
        for (final Verdict v : Verdict.values())
        {
            assertEquals(v.malformed(), v.description() != null, v.name());
        }
    }

    /** Every prefix and a thousand random corruptions of valid requests: a verdict each time, never an exception. */
    @Test
    void noTruncationOrCorruptionThrows()
    {
        final long seed = System.nanoTime();
        final Random random = new Random(seed);
        final byte[][] samples = {
            GiopBytes.request12(false, 1, 3, KEY, "echoString", GiopRequestCheck.CODE_SETS, GiopBytes.codeSetContext(UTF8, UTF16)),
            GiopBytes.message(1, GiopMessage.REQUEST, true).ulong(1).context(7, new byte[40]).ulong(3).octets(1, 0, 0, 0).sequence(KEY)
                .string("op").sequence(new byte[0]).bytes(),
        };
        for (final byte[] sample : samples)
        {
            for (int n = 0; n <= sample.length; n++)
            {
                final byte[] prefix = java.util.Arrays.copyOf(sample, n);
                if (n >= GiopMessage.HEADER_LENGTH)
                {
                    GiopMessage.writeULong(prefix, 8, n - GiopMessage.HEADER_LENGTH, GiopMessage.littleEndian(prefix));
                }
                check(prefix);
            }
            for (int i = 0; i < 1000; i++)
            {
                final byte[] corrupt = sample.clone();
                for (int k = 1 + random.nextInt(4); k > 0; k--)
                {
                    corrupt[GiopMessage.HEADER_LENGTH + random.nextInt(corrupt.length - GiopMessage.HEADER_LENGTH)] = (byte)random.nextInt();
                }
                try
                {
                    check(corrupt);
                }
                catch (final RuntimeException e)
                {
                    throw new AssertionError("seed " + seed + ": " + e, e);
                }
            }
        }
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
