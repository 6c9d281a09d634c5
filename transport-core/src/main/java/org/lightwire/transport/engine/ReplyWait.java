package org.lightwire.transport.engine;

/**
 * How long a client waits for a call's reply before it asks the server for it (a NACK): at least
 * the retransmission timeout (backoff included), and at least what this connection's replies
 * usually take and as long again as the call has waited so far, these two bounded by the
 * retransmission timeout's maximum. Once a reply has begun to arrive the server has executed the
 * call, and a missing piece is asked for after the retransmission timeout alone.
 *
 * <p>The retransmission timeout measures the network alone ({@link RttEstimator}); a reply also
 * waits for the servant and for every call queued before it at the server. A client that asked
 * after each timeout while its server was loaded made it answer "still executing" several times a
 * call, its timeout doubling from the network's round trip up to the call's time (replies taking
 * 30 ms, asks at 1, 3, 7 and 15 ms). So the first ask waits for the usual reply time too,
 * estimated like RFC 6298's (smoothed time plus four deviations) from calls whose reply cannot
 * have come because of an ask (Karn's rule: answered without one, or after the server said it
 * was still executing, the request not sent again); on a path where replies come well within the
 * retransmission timeout it stays below it.
 */
final class ReplyWait
{
    private final long maxNs;
    private final RttEstimator replyTimes;
    private long sentNs;
    /** The reply, when it comes, may have come because the client asked: no sample. */
    private boolean asked;
    /** The request went again (the server lacked part of it): no sample, whatever the server says next. */
    private boolean resent;

    /**
     * @param maxNs the longest the usual reply time or the time waited may hold an ask back (the
     *     retransmission timeout's maximum, and at most a third of the peer timeout: a slow server
     *     is asked at least twice before its silence gives the connection up).
     */
    ReplyWait(final long maxNs)
    {
        this.maxNs = maxNs;
        this.replyTimes = new RttEstimator(0, maxNs, 0);
    }

    /** The call's request went out whole at {@code nowNs}: its reply is awaited from then. */
    void sent(final long nowNs)
    {
        sentNs = nowNs;
        asked = false;
        resent = false;
    }

    /** The client asked for the reply: the server may resend it, and this call's time says nothing of the usual one. */
    void asked()
    {
        asked = true;
    }

    /** The client sent part of the request again: this call's time includes that recovery. */
    void resent()
    {
        asked = true;
        resent = true;
    }

    /**
     * The server answered the last ask with "still executing": the reply is not sent yet, and will
     * come once, when it is done; its time is the usual one again. (Without this, a client whose
     * every call outlasts the retransmission timeout would ask in every call and never learn.)
     */
    void stillExecuting()
    {
        if (!resent)
        {
            asked = false;
        }
    }

    /** The whole reply came: a sample of the usual reply time, unless it may have come because the client asked. */
    void replied(final long nowNs)
    {
        if (!asked)
        {
            // Unambiguous: a sample far under the estimate starts it afresh (see RttEstimator), so
            // one slow call (a cold path, a collection) does not hold every later ask back for long.
            replyTimes.onSample(nowNs - sentNs, true);
        }
    }

    /**
     * @param rtoNs the retransmission timeout, backoff included.
     * @return when to ask for the reply if none has come.
     */
    long deadlineNs(final long nowNs, final long rtoNs)
    {
        return nowNs + Math.max(rtoNs, Math.min(maxNs, Math.max(usualNs(), nowNs - sentNs)));
    }

    /**
     * @param rtoNs the retransmission timeout, backoff included.
     * @return how long after a request sent now the reply would first be asked for.
     */
    long leadNs(final long rtoNs)
    {
        return Math.max(rtoNs, Math.min(maxNs, usualNs()));
    }

    /** @return the usual reply time (smoothed plus four deviations), 0 before the first sample. */
    long usualNs()
    {
        return replyTimes.samples() == 0 ? 0 : replyTimes.rtoNs();
    }
}
