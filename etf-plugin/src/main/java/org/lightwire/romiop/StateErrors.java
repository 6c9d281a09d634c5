package org.lightwire.romiop;

import org.omg.CORBA.BAD_OPERATIONHelper;
import org.omg.CORBA.OBJECT_NOT_EXISTHelper;

/**
 * The one place where a failed state transfer gets its words: each reason names the member, the
 * object, what failed, and what to do. A capture's reason is sent to the joiner, which logs it
 * ({@link org.lightwire.romiop.engine.StateHandler#stateRefused}); an install's is logged where
 * it failed.
 */
final class StateErrors
{
    /** {@code LightwireFT::NoStateAvailable}, which {@code get_state} raises. */
    static final String NO_STATE_AVAILABLE_ID = "IDL:lightwire.org/LightwireFT/NoStateAvailable:1.0";
    /** {@code LightwireFT::InvalidState}, which {@code set_state} raises. */
    static final String INVALID_STATE_ID = "IDL:lightwire.org/LightwireFT/InvalidState:1.0";
    static final String CHECKPOINTABLE = "LightwireFT::Checkpointable";
    private static final String EMPTY_GROUP_ONLY = "a replica without it may only join an empty group";

    private StateErrors()
    {
    }

    /** A state was asked of a replica whose application never named the object that holds it. */
    static String noObjectKey(final int memberId)
    {
        return "member " + memberId + " does not know which object holds its state: its application did not call " +
            "RomiopFactories.groupReference(orb, object) for a servant that implements " + CHECKPOINTABLE;
    }

    /** A replica was given a state before its application named the object that holds it. */
    static String noObjectKeyToInstall(final int memberId, final long cut, final long waitedMs)
    {
        return "member " + memberId + " cannot take the group's state after order " + cut + ": its application did not call " +
            "RomiopFactories.groupReference(orb, object) for a servant that implements " + CHECKPOINTABLE + " within " + waitedMs +
            " ms; it leaves the group";
    }

    /** The group connection took no request (the replica is shutting down). */
    static String notQueued(final int memberId, final String operation)
    {
        return "member " + memberId + " could not hand " + operation + " to its ORB: its group connection is closed";
    }

    /** The group connection closed before the ORB answered a state request. */
    static String closedBeforeAnswer(final int memberId, final String operation, final String why)
    {
        return "member " + memberId + "'s group connection closed (" + why + ") before its servant answered " + operation;
    }

    /** @return why {@code get_state} on member {@code memberId} gave no state. */
    static String captureFailed(final int memberId, final byte[] objectKey, final StateReply r)
    {
        final String servant = "member " + memberId + "'s servant for object key " + keyText(objectKey);
        switch (r.outcome)
        {
            case USER_EXCEPTION:
                return NO_STATE_AVAILABLE_ID.equals(r.exceptionId) ? servant + " has no state to give (LightwireFT::NoStateAvailable " +
                    "from get_state)" : servant + " raised " + r.exceptionId + " from get_state, which " + CHECKPOINTABLE + " does not declare";
            case SYSTEM_EXCEPTION:
                return systemException(memberId, objectKey, servant, r, StateRequests.GET_STATE, "to give its state");
            case OTHER_STATUS:
                return "member " + memberId + " answered get_state on object key " + keyText(objectKey) + " with " +
                    StateReply.statusName(r.status) + ": the object that holds the state must be served by the replica itself";
            case MALFORMED:
                return "member " + memberId + " could not read its ORB's reply to get_state on object key " + keyText(objectKey) + ": " +
                    r.malformed;
            default:
                throw new IllegalArgumentException("not a failure: " + r);
        }
    }

    /** @return why {@code set_state} on member {@code memberId} did not take the state after order {@code cut}. */
    static String installFailed(final int memberId, final byte[] objectKey, final long cut, final StateReply r)
    {
        final String servant = "member " + memberId + "'s servant for object key " + keyText(objectKey);
        final String leaves = "; it leaves the group";
        switch (r.outcome)
        {
            case USER_EXCEPTION:
                return (INVALID_STATE_ID.equals(r.exceptionId) ? servant + " refused the group's state after order " + cut +
                    " (LightwireFT::InvalidState from set_state)" : servant + " raised " + r.exceptionId + " from set_state, which " +
                    CHECKPOINTABLE + " does not declare") + leaves;
            case SYSTEM_EXCEPTION:
                return systemException(memberId, objectKey, servant, r, StateRequests.SET_STATE, "to take the group's state after order " +
                    cut) + leaves;
            case OTHER_STATUS:
                return "member " + memberId + " answered set_state on object key " + keyText(objectKey) + " with " +
                    StateReply.statusName(r.status) + ": the object that holds the state must be served by the replica itself" + leaves;
            case MALFORMED:
                return "member " + memberId + " could not read its ORB's reply to set_state on object key " + keyText(objectKey) + ": " +
                    r.malformed + leaves;
            default:
                throw new IllegalArgumentException("not a failure: " + r);
        }
    }

    private static String systemException(final int memberId, final byte[] objectKey, final String servant, final StateReply r,
        final String operation, final String purpose)
    {
        if (BAD_OPERATIONHelper.id().equals(r.exceptionId))
        {
            return servant + " does not implement " + CHECKPOINTABLE + " (BAD_OPERATION from " + operation + "): " + EMPTY_GROUP_ONLY;
        }
        if (OBJECT_NOT_EXISTHelper.id().equals(r.exceptionId))
        {
            return "member " + memberId + " has no active object with key " + keyText(objectKey) + " (OBJECT_NOT_EXIST from " + operation +
                "): the object given to RomiopFactories.groupReference must stay active " + purpose;
        }
        return servant + " failed " + operation + " with " + r.exceptionName() + String.format(" (minor 0x%08X, %s)", r.minor,
            r.completionName());
    }

    /** @return the key as corbaloc writes it: printable ASCII as it is, every other byte and '%' as %XX. */
    static String keyText(final byte[] key)
    {
        final StringBuilder b = new StringBuilder(key.length + 8);
        for (final byte k : key)
        {
            final int c = k & 0xFF;
            if (c > 0x20 && c < 0x7F && c != '%')
            {
                b.append((char)c);
            }
            else
            {
                b.append(String.format("%%%02X", c));
            }
        }
        return b.toString();
    }
}
