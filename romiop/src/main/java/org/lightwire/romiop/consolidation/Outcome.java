package org.lightwire.romiop.consolidation;

/**
 * How a consolidation ended, and the CORBA system exception a client ORB raises for it. The
 * mapping is data (repository id, minor code in Lightwire's vendor set 0x4C57, completion
 * status), so that this package needs no CORBA classes; the JacORB plug-in builds the exception.
 * Completion is MAYBE or YES: a group call that did not succeed may still have run on some
 * members, since every member executes every ordered request.
 */
public enum Outcome
{
    /** The policy was satisfied: {@link Decision#reply()} is the consolidated reply. */
    SUCCESS(null, 0, null),
    /** No member replied before the timeout. */
    TIMEOUT("IDL:omg.org/CORBA/TIMEOUT:1.0", 0x4C570020, "COMPLETED_MAYBE"),
    /** Fewer members replied (or are left in the group) than the quorum needs. */
    NO_QUORUM("IDL:omg.org/CORBA/TRANSIENT:1.0", 0x4C570021, "COMPLETED_MAYBE"),
    /** The replies counted do not have the consistency the policy asks for. */
    INCONSISTENT_VOTE("IDL:omg.org/CORBA/INTERNAL:1.0", 0x4C570022, "COMPLETED_YES"),
    /** A key member left the group or did not reply before the timeout. */
    KEY_MEMBER_MISSING("IDL:omg.org/CORBA/TRANSIENT:1.0", 0x4C570023, "COMPLETED_MAYBE");

    private final String exceptionId;
    private final int minor;
    private final String completion;

    Outcome(final String exceptionId, final int minor, final String completion)
    {
        this.exceptionId = exceptionId;
        this.minor = minor;
        this.completion = completion;
    }

    /** @return the repository id of the system exception to raise; null for {@link #SUCCESS}. */
    public String exceptionId()
    {
        return exceptionId;
    }

    /** @return its minor code (vendor set 0x4C57, "LW"). */
    public int minor()
    {
        return minor;
    }

    /** @return its completion status, by name (COMPLETED_MAYBE or COMPLETED_YES). */
    public String completion()
    {
        return completion;
    }
}
