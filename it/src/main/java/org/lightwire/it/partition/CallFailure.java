package org.lightwire.it.partition;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.omg.CORBA.SystemException;

/**
 * How a call failed: the system exception's type, minor code, completion status and message,
 * and, for the plug-in's consolidation failures, the outcome the message names ("ROMIOP group
 * g: NO_QUORUM: ...").
 */
public record CallFailure(String type, int minor, String completed, String message)
{
    private static final Pattern OUTCOME = Pattern.compile("ROMIOP group \\S+: ([A-Z_]+):");
    /** The plug-in's consolidation outcome NO_QUORUM: TRANSIENT with this minor (docs/romiop.md, "Reply consolidation"). */
    public static final int NO_QUORUM_MINOR = 0x4C570021;
    /** The plug-in's failure for a leader without a present majority (its UNAVAILABLE notice): TRANSIENT with this minor. */
    public static final int UNAVAILABLE_MINOR = 0x4C570107;

    /** @return the failure a system exception describes. */
    public static CallFailure of(final SystemException e)
    {
        final String completed = switch (e.completed.value())
        {
            case org.omg.CORBA.CompletionStatus._COMPLETED_YES -> "YES";
            case org.omg.CORBA.CompletionStatus._COMPLETED_NO -> "NO";
            default -> "MAYBE";
        };
        return new CallFailure(e.getClass().getSimpleName(), e.minor, completed, String.valueOf(e.getMessage()));
    }

    /** @return a failure that is no system exception (the client's own error), named by its class. */
    public static CallFailure of(final RuntimeException e)
    {
        return new CallFailure(e.getClass().getSimpleName(), 0, "MAYBE", String.valueOf(e.getMessage()));
    }

    /** @return the consolidation outcome named in the message, or "-" when it names none. */
    public String outcome()
    {
        final Matcher m = OUTCOME.matcher(message);
        return m.find() ? m.group(1) : "-";
    }

    /** @return type, minor code in hex and outcome, e.g. {@code TRANSIENT/0x4C570021/NO_QUORUM}: what errors are counted by. */
    public String kind()
    {
        return type + "/0x" + String.format("%08X", minor) + "/" + outcome();
    }

    /** @return true for the target behaviour under a fault: TRANSIENT, NO_QUORUM (the caller may try again). */
    public boolean isNoQuorum()
    {
        return "TRANSIENT".equals(type) && minor == NO_QUORUM_MINOR;
    }

    /**
     * @return true for the target behaviour under a fault: TRANSIENT, the caller may try again;
     *     NO_QUORUM, or the leader's notice that it lacks a majority (docs/romiop.md, "The leader's lease").
     */
    public boolean isTarget()
    {
        return isNoQuorum() || "TRANSIENT".equals(type) && minor == UNAVAILABLE_MINOR;
    }
}
