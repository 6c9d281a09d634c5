package org.lightwire.etf.giop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Properties;

import org.jacorb.orb.giop.RequestInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CONV_FRAME.CodeSetContext;
import org.omg.CONV_FRAME.CodeSetContextHelper;
import org.omg.CORBA.ORB;
import org.omg.IOP.ServiceContext;

/** Finding and inserting the code-set context in GIOP 1.1 and 1.2 Requests; JacORB parses the result. */
class ServiceContextsTest
{
    /** UTF-8 for char, UTF-16 for wchar: the context JacORB sends when both ends pin UTF8. */
    private static final int UTF8 = 0x05010001;
    private static final int UTF16 = 0x00010109;
    private static final byte[] BODY = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

    private static ORB orb;

    @BeforeAll
    static void startOrb()
    {
        final Properties p = new Properties();
        p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        orb = ORB.init(new String[0], p);
    }

    @AfterAll
    static void stopOrb()
    {
        orb.shutdown(false);
    }

    /** A CDR writer just big enough to build request headers, in either byte order. */
    private static final class Cdr
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final boolean little;

        Cdr(final boolean little)
        {
            this.little = little;
        }

        Cdr align(final int n)
        {
            while (out.size() % n != 0)
            {
                out.write(0);
            }
            return this;
        }

        Cdr octet(final int v)
        {
            out.write(v);
            return this;
        }

        Cdr ushort(final int v)
        {
            align(2);
            return little ? octet(v).octet(v >>> 8) : octet(v >>> 8).octet(v);
        }

        Cdr ulong(final int v)
        {
            align(4);
            return little ? octet(v).octet(v >>> 8).octet(v >>> 16).octet(v >>> 24) : octet(v >>> 24).octet(v >>> 16).octet(v >>> 8).octet(v);
        }

        Cdr octets(final byte[] b)
        {
            ulong(b.length);
            out.write(b, 0, b.length);
            return this;
        }

        Cdr string(final String s)
        {
            final byte[] b = Arrays.copyOf(s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), s.length() + 1);
            return octets(b);
        }

        byte[] message()
        {
            final byte[] m = out.toByteArray();
            GiopMessage.setBodySize(m, m.length - GiopMessage.HEADER_LENGTH);
            return m;
        }
    }

    private static Cdr header(final boolean little, final int minor)
    {
        final Cdr c = new Cdr(little);
        c.octet('G').octet('I').octet('O').octet('P').octet(1).octet(minor).octet(little ? 1 : 0).octet(GiopMessage.REQUEST).ulong(0);
        return c;
    }

    /** The encapsulated CodeSetContext, as JacORB writes it. */
    private static byte[] codeSetData(final boolean little)
    {
        return new Cdr(little).octet(little ? 1 : 0).ulong(UTF8).ulong(UTF16).out.toByteArray();
    }

    /** A service context list with one unrelated context of 5 bytes (id 0x4A414300, JacORB's own). */
    private static void contexts(final Cdr c, final byte[] codeSets)
    {
        c.ulong(codeSets == null ? 1 : 2);
        c.ulong(0x4A414300).octets(new byte[] {9, 9, 9, 9, 9});
        if (codeSets != null)
        {
            c.ulong(ServiceContexts.CODE_SETS_ID).octets(codeSets);
        }
    }

    /** GIOP 1.2 Request: id 42, response expected, the given target, operation "echoString", contexts, body at 8. */
    private static byte[] request12(final boolean little, final int disposition, final byte[] codeSets)
    {
        final Cdr c = header(little, 2).ulong(42).octet(3).octet(0).octet(0).octet(0).ushort(disposition);
        final byte[] key = "key/of/echo".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        switch (disposition)
        {
            case 0:
                c.octets(key);
                break;
            case 1:
                c.ulong(0).octets(key);
                break;
            default:
                c.ulong(0).string("IDL:lwtest/echo:1.0").ulong(2).ulong(0).octets(key).ulong(0x4C575001).octets(new byte[] {1, 2, 3});
                break;
        }
        c.string("echoString");
        contexts(c, codeSets);
        c.align(8).out.write(BODY, 0, BODY.length);
        return c.message();
    }

    /** GIOP 1.1 Request: contexts, id 42, response expected, key, operation, principal, body. */
    private static byte[] request11(final boolean little, final byte[] codeSets)
    {
        final Cdr c = header(little, 1);
        contexts(c, codeSets);
        c.ulong(42).octet(1).octet(0).octet(0).octet(0).octets("key".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).string("echoString")
            .octets(new byte[0]);
        c.align(8).out.write(BODY, 0, BODY.length);
        return c.message();
    }

    /** Parses with JacORB and checks what a server reads: the context, the operation, the body. */
    private static void assertJacorbReads(final byte[] m)
    {
        final RequestInputStream in = new RequestInputStream(orb, null, m);
        try
        {
            assertEquals(42, in.req_hdr.request_id);
            assertEquals("echoString", in.req_hdr.operation);
            final ServiceContext sc = in.getServiceContext(ServiceContexts.CODE_SETS_ID);
            final org.jacorb.orb.CDRInputStream enc = new org.jacorb.orb.CDRInputStream(orb, sc.context_data);
            enc.openEncapsulatedArray();
            final CodeSetContext ctx = CodeSetContextHelper.read(enc);
            assertEquals(UTF8, ctx.char_data);
            assertEquals(UTF16, ctx.wchar_data);
            assertEquals(2, in.req_hdr.service_context.length, "the inserted context and the original one");
        }
        finally
        {
            in.close();
        }
        final int bodyAt = m.length - BODY.length;
        assertArrayEquals(BODY, Arrays.copyOfRange(m, bodyAt, m.length));
        assertEquals(0, bodyAt % 8, "the body keeps its 8-byte alignment");
        assertEquals(m.length - GiopMessage.HEADER_LENGTH, GiopMessage.bodySize(m));
    }

    @Test
    void findsTheContextInEveryTargetFormAndByteOrder()
    {
        for (final boolean little : new boolean[] {false, true})
        {
            for (int disposition = 0; disposition <= 2; disposition++)
            {
                final byte[] m = request12(little, disposition, codeSetData(little));
                assertArrayEquals(codeSetData(little), ServiceContexts.find(m, m.length), "1.2 disposition " + disposition);
                final byte[] none = request12(little, disposition, null);
                assertNull(ServiceContexts.find(none, none.length), "none to find");
            }
            final byte[] m11 = request11(little, codeSetData(little));
            assertArrayEquals(codeSetData(little), ServiceContexts.find(m11, m11.length));
        }
    }

    @Test
    void insertedContextIsReadByJacorbAndLeavesTheRestAligned()
    {
        for (final boolean little : new boolean[] {false, true})
        {
            for (int disposition = 0; disposition <= 2; disposition++)
            {
                final byte[] without = request12(little, disposition, null);
                // Taken from a big-endian request and put into a request of either byte order:
                // an encapsulation carries its own byte order.
                final byte[] with = ServiceContexts.insert(without, without.length, codeSetData(false));
                assertEquals(without.length + 24, with.length, "12 bytes of context padded to 16, with id and length");
                assertJacorbReads(with);
            }
            final byte[] without11 = request11(little, null);
            assertJacorbReads(ServiceContexts.insert(without11, without11.length, codeSetData(true)));
        }
    }

    @Test
    void messagesItCannotParseAreLeftAlone()
    {
        final byte[] m = request12(false, 0, null);
        assertNull(ServiceContexts.insert(m, m.length - 1, codeSetData(false)), "body size disagrees with the length");
        final byte[] badTarget = m.clone();
        badTarget[21] = 7;
        assertNull(ServiceContexts.insert(badTarget, badTarget.length, codeSetData(false)), "unknown addressing disposition");
        final byte[] giop10 = m.clone();
        giop10[5] = 0;
        assertNull(ServiceContexts.insert(giop10, giop10.length, codeSetData(false)), "GIOP 1.0 negotiates no code sets");
        final byte[] reply = m.clone();
        reply[7] = GiopMessage.REPLY;
        assertNull(ServiceContexts.find(reply, reply.length));
        final byte[] hugeKey = m.clone();
        hugeKey[24] = 0x7F;
        assertNull(ServiceContexts.insert(hugeKey, hugeKey.length, codeSetData(false)), "object key longer than the message");
    }
}
