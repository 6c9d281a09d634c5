package org.lightwire.it.partition;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The {@link HistoryChecker}'s findings about one run: each check on its own (a failed check never
 * hides another), and the figures of the run's summary line.
 *
 * @param checks     every check, passed or not, in a fixed order.
 * @param acked      appends the clients saw acknowledged.
 * @param lost       acknowledged appends missing from the group's sequence or skipped by a live replica.
 * @param divergedAt the first index of the group's sequence at which some replica executed something else; "start"
 *                   when the only departure is a restarted process whose log begins outside the sequence; "none".
 * @param doubles    executions of an entry beyond its first, over every replica.
 * @param stalledNs  the shortest time, over the clients, from a client's first append made after the last heal
 *                   to its first acknowledged one, or -1 when none was acknowledged.
 * @param errors     failed appends by {@link CallFailure#kind()}, most frequent first.
 */
public record Verdict(List<Check> checks, long acked, long lost, String divergedAt, long doubles, long stalledNs, Map<String, Integer> errors)
{
    /** One check: its name, whether it passed, and what it found (one line each). */
    public record Check(String name, boolean passed, List<String> findings)
    {
    }

    /** @return true when every check passed. */
    public boolean passed()
    {
        return checks.stream().allMatch(Check::passed);
    }

    /** @return the names of the checks that failed. */
    public List<String> failedChecks()
    {
        return checks.stream().filter(c -> !c.passed()).map(Check::name).toList();
    }

    /**
     * @return the run's one summary line: {@code PARTITION name: PASS|FAIL acked=… lost=…
     * diverged_at=… double=… stalled=… errors=…}, then the failed checks' names.
     */
    public String line(final String name)
    {
        final String errorText = errors.isEmpty() ? "none" : errors.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
            .collect(Collectors.joining(","));
        return "PARTITION " + name + ": " + (passed() ? "PASS" : "FAIL") + " acked=" + acked + " lost=" + lost + " diverged_at=" + divergedAt +
            " double=" + doubles + " stalled=" + seconds(stalledNs) +
            " errors=" + errorText + (passed() ? "" : " failed=" + String.join(",", failedChecks()));
    }

    /** @return every check with its findings, one per line. */
    public String report()
    {
        final StringBuilder b = new StringBuilder();
        for (final Check c : checks)
        {
            b.append(c.passed() ? "PASS " : "FAIL ").append(c.name()).append('\n');
            for (final String f : c.findings())
            {
                b.append("  ").append(f).append('\n');
            }
        }
        return b.toString();
    }

    /** @return e.g. "1.25s", or "never" for a negative time. */
    static String seconds(final long ns)
    {
        return ns < 0 ? "never" : String.format(java.util.Locale.ROOT, "%.2fs", ns / (double)TimeUnit.SECONDS.toNanos(1));
    }
}
