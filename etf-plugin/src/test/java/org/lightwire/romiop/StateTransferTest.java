package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.BAD_OPERATION;
import org.omg.CORBA.CompletionStatus;
import org.slf4j.helpers.NOPLogger;

/** The replica's side of state transfer against a recording replica: every request queued and every engine call counted. */
class StateTransferTest
{
    private static final byte[] KEY = "grp/log".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] STATE = {10, 20, 30};
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

    /** Records what the transfer asks of its replica. */
    private static final class Recording implements StateTransfer.Replica
    {
        long nextId = 100;
        boolean accepts = true;
        final List<byte[]> queued = new ArrayList<>();
        final List<String> engine = new ArrayList<>();
        int leaves;

        @Override
        public long nextRequestId()
        {
            return nextId++;
        }

        @Override
        public boolean queue(final byte[] request)
        {
            if (accepts)
            {
                queued.add(request);
            }
            return accepts;
        }

        @Override
        public void stateCaptured(final long cut, final byte[] state)
        {
            engine.add("captured " + cut + " " + java.util.Arrays.toString(state));
        }

        @Override
        public void stateUnavailable(final long cut, final String reason)
        {
            engine.add("unavailable " + cut + ": " + reason);
        }

        @Override
        public void leave()
        {
            leaves++;
        }
    }

    private static StateTransfer transfer(final Recording r, final long keyWaitMs)
    {
        return new StateTransfer(2, r, NOPLogger.NOP_LOGGER, keyWaitMs);
    }

    @Test
    void aCaptureQueuesGetStateAndHandsTheEngineTheServantsState()
    {
        final Recording r = new Recording();
        final StateTransfer t = transfer(r, 0);
        assertTrue(t.stateObject(KEY));
        t.capture(41);
        assertEquals(1, r.queued.size());
        assertArrayEquals(StateRequests.getState(100, KEY), r.queued.get(0));
        assertEquals(List.of(), r.engine, "nothing before the servant answers");
        assertFalse(t.onReply(99, jacorb.state(99, STATE)), "a client's reply is not the transfer's");
        assertTrue(t.onReply(100, jacorb.state(100, STATE)));
        assertEquals(List.of("captured 41 [10, 20, 30]"), r.engine);
        assertFalse(t.onReply(100, jacorb.state(100, STATE)), "answered once");
        assertEquals(1, t.statesServed.get());
        assertEquals(0, t.statesNotServed.get());
        assertNull(t.lastError());
        assertEquals("statesServed=1, statesNotServed=0, statesApplied=0, statesNotApplied=0, joinsRefused=0", t.counters());
    }

    @Test
    void aCaptureWithoutAStateObjectIsUnavailableAndNamesGroupReference()
    {
        final Recording r = new Recording();
        final StateTransfer t = transfer(r, 0);
        t.capture(7);
        assertEquals(List.of(), r.queued);
        assertEquals(List.of("unavailable 7: " + StateErrors.noObjectKey(2)), r.engine);
        assertTrue(r.engine.get(0).contains("RomiopFactories.groupReference(orb, object)"), r.engine.get(0));
        assertEquals(1, t.statesNotServed.get());
        assertEquals(StateErrors.noObjectKey(2), t.lastError());
    }

    @Test
    void aServantWithoutCheckpointableMakesTheCaptureUnavailable()
    {
        final Recording r = new Recording();
        final StateTransfer t = transfer(r, 0);
        t.stateObject(KEY);
        t.capture(41);
        final byte[] reply = jacorb.systemException(100, new BAD_OPERATION("get_state not found", 0, CompletionStatus.COMPLETED_NO));
        assertTrue(t.onReply(100, reply));
        final String reason = StateErrors.captureFailed(2, KEY, StateReply.read(reply, true));
        assertEquals(List.of("unavailable 41: " + reason), r.engine);
        assertEquals(0, r.leaves, "the donor stays");
        assertEquals(0, t.statesServed.get());
        assertEquals(1, t.statesNotServed.get());
        assertEquals(reason, t.lastError());
    }

    @Test
    void aCaptureTheConnectionDoesNotTakeIsUnavailableAndForgotten()
    {
        final Recording r = new Recording();
        r.accepts = false;
        final StateTransfer t = transfer(r, 0);
        t.stateObject(KEY);
        t.capture(3);
        assertEquals(List.of("unavailable 3: " + StateErrors.notQueued(2, "get_state")), r.engine);
        assertFalse(t.onReply(100, jacorb.state(100, STATE)), "no call awaits that reply");
    }

    @Test
    void anInstallQueuesSetStateAndCountsTheServantsSuccess()
    {
        final Recording r = new Recording();
        final StateTransfer t = transfer(r, 0);
        t.stateObject(KEY);
        t.install(12, STATE);
        assertEquals(1, r.queued.size());
        assertArrayEquals(StateRequests.setState(100, KEY, STATE), r.queued.get(0));
        assertEquals(0, t.statesApplied.get());
        assertTrue(t.onReply(100, jacorb.done(100)));
        assertFalse(t.stateLost());
        assertEquals(1, t.statesApplied.get());
        assertEquals(0, r.leaves);
        assertEquals(List.of(), r.engine, "an install answers the engine nothing");
    }

    @Test
    void aServantThatRefusesTheStateMakesTheMemberLeave()
    {
        final Recording r = new Recording();
        final StateTransfer t = transfer(r, 0);
        t.stateObject(KEY);
        t.install(12, STATE);
        final byte[] reply = jacorb.invalidState(100);
        assertFalse(t.stateLost());
        assertTrue(t.onReply(100, reply));
        assertTrue(t.stateLost(), "nothing it executes from now on reaches a client");
        assertEquals(1, r.leaves);
        assertEquals(0, t.statesApplied.get());
        assertEquals(1, t.statesNotApplied.get());
        assertEquals(StateErrors.installFailed(2, KEY, 12, StateReply.read(reply, false)), t.lastError());
        assertTrue(t.lastError().contains("LightwireFT::InvalidState"), t.lastError());
    }

    @Test
    void anInstallWaitsForTheStateObjectThenQueuesSetStateOnIt() throws Exception
    {
        final Recording r = new Recording();
        final StateTransfer t = transfer(r, 60_000);
        final Thread driver = new Thread(() -> t.install(5, STATE), "driver");
        driver.start();
        final long end = System.nanoTime() + 10_000_000_000L;
        while (driver.getState() != Thread.State.TIMED_WAITING && System.nanoTime() - end < 0)
        {
            Thread.onSpinWait();
        }
        assertEquals(Thread.State.TIMED_WAITING, driver.getState(), "install waits for the application's group reference");
        assertEquals(List.of(), r.queued);
        assertTrue(t.stateObject(KEY));
        driver.join(10_000);
        assertFalse(driver.isAlive());
        assertEquals(1, r.queued.size());
        assertArrayEquals(StateRequests.setState(100, KEY, STATE), r.queued.get(0));
        assertEquals(0, r.leaves);
    }

    @Test
    void anInstallWithoutAStateObjectInTimeMakesTheMemberLeave()
    {
        final Recording r = new Recording();
        final StateTransfer t = transfer(r, 0);
        t.install(5, STATE);
        assertEquals(List.of(), r.queued);
        assertEquals(1, r.leaves);
        assertEquals(1, t.statesNotApplied.get());
        assertEquals(StateErrors.noObjectKeyToInstall(2, 5, 0), t.lastError());
        assertTrue(t.lastError().contains("RomiopFactories.groupReference"), t.lastError());
    }

    @Test
    void aRefusalIsCountedAndItsReasonKept()
    {
        final Recording r = new Recording();
        final StateTransfer t = transfer(r, 0);
        t.refused("member 1's servant for object key k does not implement LightwireFT::Checkpointable");
        assertEquals(1, t.joinsRefused.get());
        assertEquals("member 1's servant for object key k does not implement LightwireFT::Checkpointable", t.lastError());
        assertEquals(0, r.leaves, "the engine has left already");
        assertEquals(List.of(), r.engine);
    }

    @Test
    void theFirstObjectNamedHoldsTheState()
    {
        final Recording r = new Recording();
        final StateTransfer t = transfer(r, 0);
        assertTrue(t.stateObject(KEY));
        assertFalse(t.stateObject("other".getBytes(StandardCharsets.US_ASCII)));
        assertTrue(t.stateObject(KEY.clone()));
        t.capture(1);
        assertArrayEquals(StateRequests.getState(100, KEY), r.queued.get(0));
    }

    @Test
    void aClosedConnectionAnswersEveryOpenStateRequestAsFailed()
    {
        final Recording r = new Recording();
        final StateTransfer t = transfer(r, 0);
        t.stateObject(KEY);
        t.capture(8);
        t.install(9, STATE);
        t.connectionClosed("the ORB closed it");
        assertEquals(List.of("unavailable 8: member 2's group connection closed (the ORB closed it) before its servant answered get_state"),
            r.engine);
        assertEquals(1, r.leaves);
        assertEquals("member 2's group connection closed (the ORB closed it) before its servant answered set_state; it leaves the group",
            t.lastError());
        assertFalse(t.onReply(100, jacorb.state(100, STATE)), "answered already");
        t.connectionClosed("again");
        assertEquals(1, r.engine.size());
        assertEquals(1, r.leaves);
    }
}
