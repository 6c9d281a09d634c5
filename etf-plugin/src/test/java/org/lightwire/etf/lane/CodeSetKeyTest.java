package org.lightwire.etf.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.lightwire.etf.giop.GiopRequestCheck;

/** A transport connection's code-set key follows JacORB's negotiation on a connection of its own. */
class CodeSetKeyTest
{
    private static final int UTF8 = 0x05010001;
    private static final int UTF16 = 0x00010109;
    private static final int LATIN1 = 0x00010001;

    /** A GIOP 1.2 Request (KeyAddr "k", operation "op"), with a CodeSets context when char is not 0. */
    private static GiopRequestCheck request(final int minor, final int charCodeSet)
    {
        final ByteBuffer b = ByteBuffer.allocate(128);
        b.put(new byte[] {'G', 'I', 'O', 'P', 1, (byte)minor, 0, 0, 0, 0, 0, 0});
        if (minor == 2)
        {
            b.putInt(1).put(new byte[] {3, 0, 0, 0}).putShort((short)0).putShort((short)0).putInt(1).put((byte)'k');
            b.position(32).putInt(3).put(new byte[] {'o', 'p', 0}).position(40);
        }
        if (charCodeSet == 0)
        {
            b.putInt(0);
        }
        else
        {
            b.putInt(1).putInt(GiopRequestCheck.CODE_SETS).putInt(12).putInt(0).putInt(charCodeSet).putInt(UTF16);
        }
        if (minor < 2)
        {
            b.putInt(1).put((byte)1).position(align4(b.position())).putInt(1).put((byte)'k');
            b.position(align4(b.position())).putInt(3).put(new byte[] {'o', 'p', 0});
            b.position(align4(b.position())).putInt(0);
        }
        b.flip();
        b.putInt(8, b.limit() - 12);
        final GiopRequestCheck check = new GiopRequestCheck();
        assertEquals(GiopRequestCheck.Verdict.PRESENT, check.check(b));
        return check;
    }

    private static int align4(final int n)
    {
        return (n + 3) & ~3;
    }

    @Test
    void theFirstRequestSettlesTheKey()
    {
        assertSame(CodeSetKey.NO_CONTEXT, CodeSetKey.after(null, request(2, 0)));
        assertSame(CodeSetKey.GIOP_1_0, CodeSetKey.after(null, request(0, 0)));
        assertSame(CodeSetKey.GIOP_1_0, CodeSetKey.after(null, request(0, UTF8)), "GIOP 1.0: JacORB does not look at the context");
        assertEquals(CodeSetKey.of(UTF8, UTF16), CodeSetKey.after(null, request(2, UTF8)));
        assertEquals(CodeSetKey.of(UTF8, UTF16), CodeSetKey.after(null, request(1, UTF8)));
    }

    @Test
    void noContextMayStillBeSettledAsJacorbsUnnegotiatedConnectionMay()
    {
        assertEquals(CodeSetKey.of(LATIN1, UTF16), CodeSetKey.after(CodeSetKey.NO_CONTEXT, request(2, LATIN1)));
        assertSame(CodeSetKey.GIOP_1_0, CodeSetKey.after(CodeSetKey.NO_CONTEXT, request(0, 0)));
        assertSame(CodeSetKey.NO_CONTEXT, CodeSetKey.after(CodeSetKey.NO_CONTEXT, request(2, 0)));
    }

    @Test
    void aSettledKeyNeverChanges()
    {
        final CodeSetKey utf8 = CodeSetKey.of(UTF8, UTF16);
        assertSame(utf8, CodeSetKey.after(utf8, request(2, LATIN1)));
        assertSame(utf8, CodeSetKey.after(utf8, request(0, 0)));
        assertSame(CodeSetKey.GIOP_1_0, CodeSetKey.after(CodeSetKey.GIOP_1_0, request(2, UTF8)));
    }

    @Test
    void keysCompareByCodeSets()
    {
        assertEquals(CodeSetKey.of(UTF8, UTF16), CodeSetKey.of(UTF8, UTF16));
        assertEquals(CodeSetKey.of(UTF8, UTF16).hashCode(), CodeSetKey.of(UTF8, UTF16).hashCode());
        assertNotEquals(CodeSetKey.of(UTF8, UTF16), CodeSetKey.of(LATIN1, UTF16));
        assertNotEquals(CodeSetKey.NO_CONTEXT, CodeSetKey.GIOP_1_0);
        assertEquals("char 0x05010001 wchar 0x00010109", CodeSetKey.of(UTF8, UTF16).toString());
    }
}
