package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lightwire.etf.giop.GiopBytes;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.SystemExceptionReply;
import org.lightwire.romiop.ft.NoStateAvailableHelper;
import org.omg.CORBA.BAD_OPERATION;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.OBJECT_NOT_EXIST;

/** Reading the ORB's replies to get_state and set_state: JacORB's own bytes, and hand-made ones in either byte order. */
class StateReplyTest
{
    private static final byte[] STATE = {1, 2, 3, 4, 5};
    private static JacorbReplies jacorb;

    @BeforeAll
    static void startOrb()
    {
        jacorb = new JacorbReplies();
    }

    @AfterAll
    static void stopOrb()
    {
        jacorb.close();
    }

    @Test
    void readsTheStateOfJacorbsReply()
    {
        final StateReply r = StateReply.read(jacorb.state(9, STATE), true);
        assertEquals(StateReply.Outcome.NO_EXCEPTION, r.outcome, r.toString());
        assertArrayEquals(STATE, r.state);
        assertNull(r.exceptionId);
        final StateReply empty = StateReply.read(jacorb.state(9, new byte[0]), true);
        assertEquals(StateReply.Outcome.NO_EXCEPTION, empty.outcome, empty.toString());
        assertArrayEquals(new byte[0], empty.state);
    }

    @Test
    void theBodyStartsAtTheNextEightByteBoundaryAfterTheServiceContexts()
    {
        // One context with one data byte: the header ends at 33; the body starts at 40, not 36.
        final byte[] m = GiopBytes.message(2, GiopMessage.REPLY, false).ulong(9).ulong(0).ulong(1).context(14, new byte[] {0x77})
            .align(8).sequence(STATE).bytes();
        assertEquals(40 + 4 + STATE.length, m.length);
        final StateReply r = StateReply.read(m, true);
        assertEquals(StateReply.Outcome.NO_EXCEPTION, r.outcome, r.toString());
        assertArrayEquals(STATE, r.state);
    }

    @Test
    void readsALittleEndianReplyInItsOwnByteOrder()
    {
        final byte[] m = GiopBytes.message(2, GiopMessage.REPLY, true).ulong(9).ulong(0).ulong(0).align(8).sequence(STATE).bytes();
        assertArrayEquals(new byte[] {5, 0, 0, 0}, Arrays.copyOfRange(m, 24, 28), "little-endian length");
        final StateReply r = StateReply.read(m, true);
        assertEquals(StateReply.Outcome.NO_EXCEPTION, r.outcome, r.toString());
        assertArrayEquals(STATE, r.state);
        final byte[] e = GiopBytes.message(2, GiopMessage.REPLY, true).ulong(9).ulong(2).ulong(0).align(8)
            .string("IDL:omg.org/CORBA/BAD_OPERATION:1.0").ulong(0x4F4D0001).ulong(1).bytes();
        final StateReply s = StateReply.read(e, true);
        assertEquals(StateReply.Outcome.SYSTEM_EXCEPTION, s.outcome, s.toString());
        assertEquals("IDL:omg.org/CORBA/BAD_OPERATION:1.0", s.exceptionId);
        assertEquals(0x4F4D0001, s.minor);
        assertEquals(1, s.completion);
    }

    @Test
    void setStatesReplyHasNoBody()
    {
        final byte[] done = jacorb.done(3);
        assertEquals(24, done.length, "JacORB drops the padding of an empty body");
        assertEquals(StateReply.Outcome.NO_EXCEPTION, StateReply.read(done, false).outcome);
        assertNull(StateReply.read(done, false).state);
        final byte[] padded = GiopBytes.message(2, GiopMessage.REPLY, false).ulong(3).ulong(0).ulong(1).context(14, new byte[] {1})
            .align(8).bytes();
        assertEquals(StateReply.Outcome.NO_EXCEPTION, StateReply.read(padded, false).outcome, "padding kept by another ORB");
        final byte[] extra = GiopBytes.message(2, GiopMessage.REPLY, false).ulong(3).ulong(0).ulong(0).octets(1, 2, 3, 4, 5, 6, 7, 8, 9)
            .bytes();
        final StateReply r = StateReply.read(extra, false);
        assertEquals(StateReply.Outcome.MALFORMED, r.outcome);
        assertEquals("9 bytes after the header of a reply to a call that returns nothing", r.malformed);
    }

    @Test
    void readsJacorbsUserAndSystemExceptions()
    {
        final StateReply none = StateReply.read(jacorb.noStateAvailable(4), true);
        assertEquals(StateReply.Outcome.USER_EXCEPTION, none.outcome, none.toString());
        assertEquals(NoStateAvailableHelper.id(), none.exceptionId);
        final StateReply bad = StateReply.read(jacorb.systemException(4, new BAD_OPERATION("get_state not found", 0x4F4D0003,
            CompletionStatus.COMPLETED_NO)), true);
        assertEquals(StateReply.Outcome.SYSTEM_EXCEPTION, bad.outcome, bad.toString());
        assertEquals("IDL:omg.org/CORBA/BAD_OPERATION:1.0", bad.exceptionId);
        assertEquals("BAD_OPERATION", bad.exceptionName());
        assertEquals(0x4F4D0003, bad.minor);
        assertEquals("COMPLETED_NO", bad.completionName());
        final StateReply gone = StateReply.read(jacorb.systemException(4, new OBJECT_NOT_EXIST(2, CompletionStatus.COMPLETED_MAYBE)), false);
        assertEquals("IDL:omg.org/CORBA/OBJECT_NOT_EXIST:1.0", gone.exceptionId);
        assertEquals("COMPLETED_MAYBE", gone.completionName());
    }

    @Test
    void readsASystemExceptionAfterAnExceptionDetailMessageContext()
    {
        // The reply the plug-in makes for a call it failed: context data of 1 byte ends the header at 33, the body starts at 40.
        final byte[] m = SystemExceptionReply.build(2, 6, "IDL:omg.org/CORBA/OBJECT_NOT_EXIST:1.0", 0x4F4D0002, 1, new byte[] {'x'});
        assertEquals(40 + 4 + 39 + 1 + 4 + 4, m.length, "padded to 40; id (length, 38 characters, NUL, padding), minor, completion");
        final StateReply r = StateReply.read(m, true);
        assertEquals(StateReply.Outcome.SYSTEM_EXCEPTION, r.outcome, r.toString());
        assertEquals("IDL:omg.org/CORBA/OBJECT_NOT_EXIST:1.0", r.exceptionId);
        assertEquals(0x4F4D0002, r.minor);
        assertEquals("COMPLETED_NO", r.completionName());
    }

    @Test
    void anotherStatusIsNamed()
    {
        final byte[] m = GiopBytes.message(2, GiopMessage.REPLY, false).ulong(3).ulong(3).ulong(0).bytes();
        final StateReply r = StateReply.read(m, true);
        assertEquals(StateReply.Outcome.OTHER_STATUS, r.outcome);
        assertEquals("LOCATION_FORWARD", StateReply.statusName(r.status));
    }

    @Test
    void everyTruncationOrLengthMismatchIsMalformedAndNothingThrows()
    {
        final byte[] whole = jacorb.state(9, STATE);
        for (int length = 0; length < whole.length; length++)
        {
            final byte[] cut = Arrays.copyOf(whole, length);
            if (length >= GiopMessage.HEADER_LENGTH)
            {
                // The size field made to agree with the bytes present: only the body's fields can tell.
                GiopMessage.writeULong(cut, 8, length - GiopMessage.HEADER_LENGTH, false);
            }
            assertEquals(StateReply.Outcome.MALFORMED, StateReply.read(cut, true).outcome, "cut at " + length);
        }
        final byte[] longer = GiopBytes.message(2, GiopMessage.REPLY, false).ulong(9).ulong(0).ulong(0).ulong(6).octets(1, 2, 3, 4, 5)
            .bytes();
        assertEquals("the state's length, 6, does not match the 5 bytes that follow it", StateReply.read(longer, true).malformed);
        final byte[] giop10 = GiopBytes.message(0, GiopMessage.REPLY, false).ulong(0).ulong(9).ulong(0).bytes();
        assertEquals("a GIOP 1.0 Reply to a GIOP 1.2 Request", StateReply.read(giop10, true).malformed);
        final byte[] sizeWrong = whole.clone();
        GiopMessage.writeULong(sizeWrong, 8, whole.length, false);
        assertEquals(StateReply.Outcome.MALFORMED, StateReply.read(sizeWrong, true).outcome);
        final byte[] contexts = GiopBytes.message(2, GiopMessage.REPLY, false).ulong(9).ulong(0).ulong(1).ulong(14).ulong(100).bytes();
        assertEquals("its service contexts run past its end", StateReply.read(contexts, true).malformed);
    }
}
