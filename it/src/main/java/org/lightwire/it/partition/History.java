package org.lightwire.it.partition;

import java.util.List;
import java.util.Map;

/**
 * Everything a run observed, for the {@link HistoryChecker}: the workload's appends, the replicas'
 * execution logs, and when the fault began and was last healed ({@code System.nanoTime()} of the
 * test JVM, as the appends' times).
 *
 * @param appends      every append of every client, acknowledged or failed.
 * @param logs         every live replica's log after the run, and snapshots taken before kills.
 * @param unreadable   live replicas whose log could not be read, with the reason.
 * @param faultStartNs when the fault began.
 * @param lastHealNs   when the last fault ended (links healed, process resumed or restarted).
 * @param faultActed   whether the fault demonstrably happened (packets dropped, process gone or stopped).
 * @param faultEvidence what shows it, for the report.
 */
public record History(List<Append> appends, List<ReplicaLog> logs, Map<Integer, String> unreadable, long faultStartNs, long lastHealNs,
    boolean faultActed, String faultEvidence)
{
}
