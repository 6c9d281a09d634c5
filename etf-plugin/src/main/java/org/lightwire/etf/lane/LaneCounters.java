package org.lightwire.etf.lane;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.lightwire.etf.giop.GiopRequestCheck;

/**
 * What a server's lanes dropped, refused, moved and failed, each under a name of its own (the
 * style's "on the receive path, never throw: drop and count"). Every counter only goes up.
 */
public final class LaneCounters
{
    /** CloseConnection messages JacORB wrote on a lane: a server cannot send one in Lightwire (only the client starts an exchange). */
    final LongAdder closeConnectionsDropped = new LongAdder();
    /** Replies JacORB wrote whose request id names no call waiting on the lane (a one-way's, or one whose lane or connection went). */
    final LongAdder messagesWithoutCall = new LongAdder();
    /** MessageErrors JacORB wrote on a lane other than on its reader thread right after a request: nobody to give them to. */
    final LongAdder messageErrorsDropped = new LongAdder();
    /** Calls failed with COMM_FAILURE because JacORB closed their lane before it answered them. */
    final LongAdder orphanedCalls = new LongAdder();
    /** Requests answered COMM_FAILURE because JacORB refused a new lane ({@code jacorb.connection.max_server_connections}). */
    final LongAdder deliveryFailures = new LongAdder();
    /** Requests answered NO_RESOURCES because their code sets needed a lane beyond the cap (reader_threads + 8). */
    final LongAdder laneCapRefusals = new LongAdder();
    /** Transport connections moved to another lane because their code sets were not their lane's. */
    final LongAdder connectionsMoved = new LongAdder();
    /** Transport connections closed because no lane could carry them, or their socket could not be selected. */
    final LongAdder connectionsRefused = new LongAdder();
    /** Lanes handed to JacORB, and lanes JacORB (or the shutdown) closed. */
    final AtomicLong lanesOpened = new AtomicLong();
    final AtomicLong lanesClosed = new AtomicLong();
    /** Lanes closed at the cap because no connection was left on them, to make room for other code sets (counted in lanesClosed too). */
    final AtomicLong lanesRetired = new AtomicLong();
    /** Transport connections given a lane to read alone (a solo lane) as they opened. */
    final LongAdder soloStarts = new LongAdder();
    /** Solo lanes that turned shared because new connections had to join lanes with others. */
    final LongAdder soloLanesShared = new LongAdder();
    /** Requests handed to a lane by another thread (no own socket, AAL5, a move): each was copied once. */
    final LongAdder requestsHandedOff = new LongAdder();
    /** Requests answered NO_MEMORY because their copy did not fit the budget of requests queued for the lanes. */
    final LongAdder handOffsRefused = new LongAdder();
    /** Client messages not presented to JacORB, by verdict (malformed ones and control messages alike). */
    private final LongAdder[] notPresented = new LongAdder[GiopRequestCheck.Verdict.values().length];

    public LaneCounters()
    {
        for (int i = 0; i < notPresented.length; i++)
        {
            notPresented[i] = new LongAdder();
        }
    }

    void countNotPresented(final GiopRequestCheck.Verdict verdict)
    {
        notPresented[verdict.ordinal()].increment();
    }

    /** @return messages of this verdict that were not presented to JacORB (0 for PRESENT). */
    public long notPresented(final GiopRequestCheck.Verdict verdict)
    {
        return notPresented[verdict.ordinal()].sum();
    }

    /** @return client messages refused as malformed, every malformed verdict together. */
    public long protocolErrors()
    {
        long sum = 0;
        for (final GiopRequestCheck.Verdict v : GiopRequestCheck.Verdict.values())
        {
            if (v.malformed())
            {
                sum += notPresented(v);
            }
        }
        return sum;
    }

    public long closeConnectionsDropped()
    {
        return closeConnectionsDropped.sum();
    }

    public long messagesWithoutCall()
    {
        return messagesWithoutCall.sum();
    }

    public long messageErrorsDropped()
    {
        return messageErrorsDropped.sum();
    }

    public long orphanedCalls()
    {
        return orphanedCalls.sum();
    }

    public long deliveryFailures()
    {
        return deliveryFailures.sum();
    }

    public long laneCapRefusals()
    {
        return laneCapRefusals.sum();
    }

    public long connectionsMoved()
    {
        return connectionsMoved.sum();
    }

    public long connectionsRefused()
    {
        return connectionsRefused.sum();
    }

    public long lanesOpened()
    {
        return lanesOpened.get();
    }

    public long lanesClosed()
    {
        return lanesClosed.get();
    }

    public long lanesRetired()
    {
        return lanesRetired.get();
    }

    public long soloStarts()
    {
        return soloStarts.sum();
    }

    public long soloLanesShared()
    {
        return soloLanesShared.sum();
    }

    public long requestsHandedOff()
    {
        return requestsHandedOff.sum();
    }

    public long handOffsRefused()
    {
        return handOffsRefused.sum();
    }

    /** @return every counter as {@code name=value} pairs separated by spaces, for reports and failure messages. */
    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("lanesOpened=").append(lanesOpened()).append(" lanesClosed=").append(lanesClosed())
            .append(" lanesRetired=").append(lanesRetired())
            .append(" soloStarts=").append(soloStarts()).append(" soloLanesShared=").append(soloLanesShared())
            .append(" connectionsMoved=").append(connectionsMoved()).append(" connectionsRefused=").append(connectionsRefused())
            .append(" requestsHandedOff=").append(requestsHandedOff()).append(" handOffsRefused=").append(handOffsRefused())
            .append(" protocolErrors=").append(protocolErrors())
            .append(" closeConnectionsDropped=").append(closeConnectionsDropped())
            .append(" messagesWithoutCall=").append(messagesWithoutCall())
            .append(" messageErrorsDropped=").append(messageErrorsDropped())
            .append(" orphanedCalls=").append(orphanedCalls())
            .append(" deliveryFailures=").append(deliveryFailures())
            .append(" laneCapRefusals=").append(laneCapRefusals());
        for (final GiopRequestCheck.Verdict v : GiopRequestCheck.Verdict.values())
        {
            if (v != GiopRequestCheck.Verdict.PRESENT)
            {
                sb.append(" notPresented.").append(v.name()).append('=').append(notPresented(v));
            }
        }
        return sb.toString();
    }
}
