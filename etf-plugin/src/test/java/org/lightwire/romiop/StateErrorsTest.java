package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lightwire.etf.giop.GiopBytes;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.romiop.ft.InvalidStateHelper;
import org.lightwire.romiop.ft.NoStateAvailableHelper;
import org.omg.CORBA.BAD_OPERATION;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.NO_MEMORY;
import org.omg.CORBA.OBJECT_NOT_EXIST;

/** The reasons a failed state transfer is given, for each reply the servant's ORB can send. */
class StateErrorsTest
{
    private static final byte[] KEY = "romiop/log".getBytes(StandardCharsets.US_ASCII);
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
    void theExceptionIdsAreThoseOfTheShippedIdl()
    {
        assertEquals(NoStateAvailableHelper.id(), StateErrors.NO_STATE_AVAILABLE_ID);
        assertEquals(InvalidStateHelper.id(), StateErrors.INVALID_STATE_ID);
    }

    @Test
    void aServantWithoutCheckpointableIsNamedWithTheFix()
    {
        final StateReply r = StateReply.read(jacorb.systemException(1, new BAD_OPERATION("get_state not found", 0,
            CompletionStatus.COMPLETED_NO)), true);
        assertEquals("member 2's servant for object key romiop/log does not implement LightwireFT::Checkpointable (BAD_OPERATION " +
            "from get_state): a replica without it may only join an empty group", StateErrors.captureFailed(2, KEY, r));
        assertEquals("member 4's servant for object key romiop/log does not implement LightwireFT::Checkpointable (BAD_OPERATION " +
            "from set_state): a replica without it may only join an empty group; it leaves the group", StateErrors.installFailed(4, KEY, 12,
            StateReply.read(jacorb.systemException(1, new BAD_OPERATION(0, CompletionStatus.COMPLETED_NO)), false)));
    }

    @Test
    void eachCaptureFailureHasItsOwnReason()
    {
        assertEquals("member 2's servant for object key romiop/log has no state to give (LightwireFT::NoStateAvailable from get_state)",
            StateErrors.captureFailed(2, KEY, StateReply.read(jacorb.noStateAvailable(1), true)));
        assertEquals("member 2 has no active object with key romiop/log (OBJECT_NOT_EXIST from get_state): the object given to " +
            "RomiopFactories.groupReference must stay active to give its state", StateErrors.captureFailed(2, KEY,
            StateReply.read(jacorb.systemException(1, new OBJECT_NOT_EXIST(2, CompletionStatus.COMPLETED_NO)), true)));
        assertEquals("member 2's servant for object key romiop/log failed get_state with NO_MEMORY (minor 0x4C570001, COMPLETED_MAYBE)",
            StateErrors.captureFailed(2, KEY, StateReply.read(jacorb.systemException(1, new NO_MEMORY(0x4C570001,
            CompletionStatus.COMPLETED_MAYBE)), true)));
        assertEquals("member 2's servant for object key romiop/log raised IDL:x/Other:1.0 from get_state, which " +
            "LightwireFT::Checkpointable does not declare", StateErrors.captureFailed(2, KEY, StateReply.read(GiopBytes.message(2,
            GiopMessage.REPLY, false).ulong(1).ulong(1).ulong(0).string("IDL:x/Other:1.0").bytes(), true)));
        assertEquals("member 2 answered get_state on object key romiop/log with LOCATION_FORWARD: the object that holds the state must " +
            "be served by the replica itself", StateErrors.captureFailed(2, KEY, StateReply.read(GiopBytes.message(2, GiopMessage.REPLY,
            false).ulong(1).ulong(3).ulong(0).bytes(), true)));
        assertEquals("member 2 could not read its ORB's reply to get_state on object key romiop/log: it ends before its reply status",
            StateErrors.captureFailed(2, KEY, StateReply.read(GiopBytes.message(2, GiopMessage.REPLY, false).ulong(1).bytes(), true)));
    }

    @Test
    void anInstallFailureSaysTheMemberLeaves()
    {
        assertEquals("member 4's servant for object key romiop/log refused the group's state after order 12 (LightwireFT::InvalidState " +
            "from set_state); it leaves the group", StateErrors.installFailed(4, KEY, 12, StateReply.read(jacorb.invalidState(1), false)));
        assertEquals("member 4 has no active object with key romiop/log (OBJECT_NOT_EXIST from set_state): the object given to " +
            "RomiopFactories.groupReference must stay active to take the group's state after order 12; it leaves the group",
            StateErrors.installFailed(4, KEY, 12, StateReply.read(jacorb.systemException(1, new OBJECT_NOT_EXIST(2,
            CompletionStatus.COMPLETED_NO)), false)));
    }

    @Test
    void aKeyIsWrittenAsCorbalocWritesIt()
    {
        assertEquals("romiop-g/POA%00%FF%25%20x", StateErrors.keyText(new byte[] {'r', 'o', 'm', 'i', 'o', 'p', '-', 'g', '/', 'P', 'O', 'A', 0,
            (byte)0xFF, '%', ' ', 'x'}));
    }
}
