package org.lightwire.romiop.engine.nemesis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What happened in one run, as the checker reads it: every request a client sent (and when),
 * every delivery by every member incarnation, every member reply a client accepted, every call
 * its consolidation decided, every fault and when each incarnation ended. Requests are named
 * "clientId/requestId"; a member's reply carries "orderSeq:clientId/requestId".
 */
final class History
{
    /** One life of a member process: a restart with the same id is a new incarnation. */
    record Incarnation(int memberId, int number)
    {
        @Override
        public String toString()
        {
            return memberId + "#" + number;
        }
    }

    record Delivery(Incarnation by, long orderSeq, String request, long atNs)
    {
    }

    /** A member's reply the client's engine handed on: {@code orderSeq} is where that member delivered the request. */
    record Reply(int clientId, int memberId, String request, long orderSeq, long atNs)
    {
    }

    /** A call whose consolidation decided SUCCESS with the reply "orderSeq:request". */
    record Completion(int clientId, String request, long orderSeq, long atNs)
    {
    }

    /** A state installed: the incarnation's application was replaced by {@code entries}, taken after order {@code cut}. */
    record Install(Incarnation by, long cut, List<ReplicaLog.Entry> entries, long atNs)
    {
    }

    record Fault(long atNs, String what)
    {
    }

    private final Map<String, Long> sentNs = new HashMap<>();
    private final Map<Incarnation, List<Delivery>> deliveries = new LinkedHashMap<>();
    private final Map<Incarnation, Long> endedNs = new HashMap<>();
    private final List<Reply> replies = new ArrayList<>();
    private final List<Completion> completions = new ArrayList<>();
    private final List<Fault> faults = new ArrayList<>();
    private final List<Install> installs = new ArrayList<>();

    void sent(final String request, final long atNs)
    {
        sentNs.put(request, atNs);
    }

    /** @return when the request was first sent, or -1 for a request no client sent. */
    long sentNs(final String request)
    {
        return sentNs.getOrDefault(request, -1L);
    }

    void started(final Incarnation incarnation)
    {
        deliveries.put(incarnation, new ArrayList<>());
    }

    /** The incarnation crashed: it never runs again. */
    void ended(final Incarnation incarnation, final long atNs)
    {
        endedNs.put(incarnation, atNs);
    }

    /** @return when the incarnation crashed, or Long.MAX_VALUE while it lives. */
    long endedNs(final Incarnation incarnation)
    {
        return endedNs.getOrDefault(incarnation, Long.MAX_VALUE);
    }

    Delivery delivered(final Incarnation by, final long orderSeq, final String request, final long atNs)
    {
        final Delivery d = new Delivery(by, orderSeq, request, atNs);
        deliveries.get(by).add(d);
        return d;
    }

    Install installed(final Incarnation by, final long cut, final List<ReplicaLog.Entry> entries, final long atNs)
    {
        final Install i = new Install(by, cut, entries, atNs);
        installs.add(i);
        return i;
    }

    List<Install> installs()
    {
        return installs;
    }

    void replied(final Reply reply)
    {
        replies.add(reply);
    }

    void completed(final Completion completion)
    {
        completions.add(completion);
    }

    void fault(final long atNs, final String what)
    {
        faults.add(new Fault(atNs, what));
    }

    Map<Incarnation, List<Delivery>> deliveries()
    {
        return deliveries;
    }

    List<Reply> replies()
    {
        return replies;
    }

    List<Completion> completions()
    {
        return completions;
    }

    List<Fault> faults()
    {
        return faults;
    }

    List<Fault> lastFaults(final int count)
    {
        return faults.subList(Math.max(0, faults.size() - count), faults.size());
    }
}
