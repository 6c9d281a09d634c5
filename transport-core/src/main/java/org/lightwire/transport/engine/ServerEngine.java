package org.lightwire.transport.engine;

import java.nio.ByteBuffer;

import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.MessageType;

/**
 * The server side of omniTransport: the state machines of the paper's Figures 4 (exactly-once)
 * and 6 (one-way), and the server error handling of Figure 8 and section 4.2.2.
 *
 * <pre>
 *          recv partial                recv complete, exactly-once         send partial
 *   IDLE -------------> REQUEST_IN_PROGRESS -------------------> EXECUTING -------------> REPLY_IN_PROGRESS
 *    ^ ^                 |  recv complete, one-way                  |                         |
 *    | +-----------------+  (or one-way aborted, case v)            | send complete           | send complete
 *    +--------------------------------------------------------------+-------------------------+
 *   any state -- hard error, or silent peer --> ZOMBIE (final)
 * </pre>
 *
 * <p>The reply of call N stays held until call N+1 arrives (implicit acknowledgement), a CALL_ACK
 * names it, or a RECLAIM_ACK covers it. Only the client advances the call sequence number, so
 * the server must cope with packets of a call it has not seen begin. Error cases of section
 * 4.2.2, each handled where its number appears below: (i) timeout: retransmit the unacknowledged
 * reply; (ii) a NACK: (iii) for the call just handled, retransmit its reply from the packet named;
 * (iv) for a call not yet begun, free the previous reply and NACK the client for the lost
 * request; (v) a dropped packet once processing began: NACK an exactly-once call, abort a one-way
 * one; (vi) the first packet of a call further ahead than expected: adjust and proceed; (vii) a
 * dropped first packet: ignore a one-way call, NACK an exactly-once one after freeing the
 * previous reply.
 */
public final class ServerEngine extends ProtocolEngine
{
    /** The server states of Figures 4 and 6, named after the client's where they mirror them. */
    public enum State
    {
        IDLE,
        REQUEST_IN_PROGRESS,
        EXECUTING,
        REPLY_IN_PROGRESS,
        ZOMBIE
    }

    private State state = State.IDLE;
    /** Current call, or the last one; 0 before the first call. */
    private long call;
    private boolean exactlyOnce;
    /** Next packet number expected of the current call's request. */
    private int expectedSeq;
    /** True once the first packet of the current call was delivered ("processing started"). */
    private boolean callStarted = true;
    /** True once the current call's request was received whole, or given up (one-way only). */
    private boolean callDone = true;
    /** True while an exactly-once request is missing packets that a NACK asked for. */
    private boolean nackOutstanding;
    /** When the current call's first packet (or the first word of it) arrived. */
    private long requestStartNs;
    /** When the client last showed it got some of the held reply (or the reply was sent whole). */
    private long replyProgressNs;

    public ServerEngine(
        final EngineConfig config,
        final PacketSender sender,
        final MessageHandler handler,
        final BufferReleaser releaser)
    {
        super(config, sender, handler, releaser);
    }

    public State state()
    {
        return state;
    }

    /** @return the current call's number, or the last one's; 0 before the first call. */
    public long callNumber()
    {
        return call;
    }

    @Override
    public boolean isZombie()
    {
        return state == State.ZOMBIE;
    }

    /** @return true while an exactly-once request has been received whole and awaits its reply. */
    public boolean replyExpected()
    {
        return state == State.EXECUTING || state == State.REPLY_IN_PROGRESS;
    }

    /**
     * The paper's send, for the reply to the current exactly-once request. The buffer belongs to
     * the transport until the {@link BufferReleaser} gives it back.
     *
     * @throws IllegalStateException when no exactly-once request awaits a reply, or the buffer
     *         pool cannot hold the packets (check {@link #freePackets()}, {@link #reclaim(long)}).
     */
    public void send(final ByteBuffer payload, final boolean complete, final long nowNs)
    {
        checkNotZombie();
        if (!replyExpected())
        {
            throw new IllegalStateException("no exactly-once request awaits a reply on this connection (state " + state + ")");
        }
        if (state == State.EXECUTING)
        {
            outbound.resetSequence();
            sendSeq = 0;
        }
        final int packets = packetsFor(payload.remaining());
        if (packets > outbound.free())
        {
            throw new IllegalStateException("the buffer pool holds " + outbound.free() + " more packets but this buffer needs " +
                packets + "; reclaim() and wait for the RECLAIM_ACK, send smaller buffers, or raise bufferPoolPackets");
        }
        sendMessage(payload, complete, call, true, true);
        if (complete)
        {
            transitionTo(State.IDLE);
            silentSinceNs = nowNs;
            replyProgressNs = nowNs;
            // The client acknowledges after its ack delay at the latest; retransmit only after that.
            armTimer(nowNs + config.ackDelayNs() + rtt.rtoNs());
        }
        else
        {
            transitionTo(State.REPLY_IN_PROGRESS);
        }
    }

    /**
     * The paper's reclaim, for a reply larger than the buffer pool.
     *
     * @return true when a RECLAIM is outstanding after this call.
     */
    @Override
    public boolean reclaim(final long nowNs)
    {
        checkNotZombie();
        if (outbound.isEmpty())
        {
            return false;
        }
        if (!reclaimOutstanding)
        {
            sendReclaim(call, nowNs);
            silentSinceNs = nowNs;
            armTimer(nowNs + rtt.rtoNs());
        }
        return true;
    }

    @Override
    public void onPacket(final ByteBuffer packet, final long nowNs)
    {
        if (!accept(packet))
        {
            return;
        }
        if (state == State.ZOMBIE)
        {
            counters.unexpected++;
            return;
        }
        final long c = rxHeader.callNumber();
        final int p = rxHeader.packetNumber();
        if (c < call)
        {
            // A late duplicate or a replay of an earlier call: it may not act, nor keep a
            // connection whose client has gone looking alive.
            counters.stale++;
            return;
        }
        silentSinceNs = nowNs;
        final MessageType type = rxHeader.type();
        switch (type)
        {
            case PARTIAL:
            case COMPLETE:
                onRequestData(packet, c, p, type == MessageType.COMPLETE, rxHeader.exactlyOnce(), nowNs);
                break;
            case NACK:
                onNack(c, p, nowNs);
                break;
            case CALL_ACK:
                onCallAck(c);
                break;
            case RECLAIM:
                onReclaim(c, p, nowNs);
                break;
            case RECLAIM_ACK:
                onReclaimAck(c, p, nowNs);
                break;
            default:
                counters.unexpected++;
                break;
        }
    }

    private void onRequestData(
        final ByteBuffer packet,
        final long c,
        final int p,
        final boolean complete,
        final boolean packetExactlyOnce,
        final long nowNs)
    {
        final PacketClass packetClass = Filter.classify(call, expectedSeq, callDone, c, p);
        switch (packetClass)
        {
            case IN_SEQUENCE:
                if (packetExactlyOnce != exactlyOnce && callStarted)
                {
                    counters.unexpected++;
                    return;
                }
                exactlyOnce = packetExactlyOnce;
                acceptInSequence(packet, complete, nowNs);
                break;
            case DUPLICATE:
                counters.duplicates++;
                break;
            case OUT_OF_SEQUENCE:
                counters.outOfSequence++;
                if (callStarted)
                {
                    if (exactlyOnce)
                    {
                        // Case (v), exactly-once: processing began; ask for the missing packet.
                        nackForMissing(call, expectedSeq, nowNs, false);
                    }
                    else
                    {
                        // Case (v), one-way: no retransmission can come; the strand must abort.
                        abortOneWay("packet " + expectedSeq + " of one-way call " + call + " was lost", nowNs);
                    }
                }
                else if (packetExactlyOnce)
                {
                    // Case (vii) again: the start of a call we already NACKed is still missing.
                    nackForMissing(call, 0, nowNs, false);
                }
                else
                {
                    ignoreOneWay();
                }
                break;
            case NEW_CALL:
                if (!newCallAllowed(nowNs))
                {
                    counters.unexpected++;
                    return;
                }
                // Case (vi) when calls were skipped (lost one-way calls): adjust and proceed.
                releasePreviousReply();
                beginCall(c, packetExactlyOnce, nowNs);
                acceptInSequence(packet, complete, nowNs);
                break;
            case NEW_CALL_START_MISSING:
                if (!newCallAllowed(nowNs))
                {
                    counters.unexpected++;
                    return;
                }
                counters.outOfSequence++;
                releasePreviousReply();
                beginCall(c, packetExactlyOnce, nowNs);
                if (packetExactlyOnce)
                {
                    // Case (vii), exactly-once: acknowledge the previous reply (freed above) and
                    // NACK the client for the start of this call.
                    nackForMissing(c, 0, nowNs, true);
                }
                else
                {
                    // Case (vii), one-way: ignore the rest of this call.
                    ignoreOneWay();
                }
                break;
            default:
                counters.unexpected++;
                break;
        }
    }

    private boolean newCallAllowed(final long nowNs)
    {
        switch (state)
        {
            case IDLE:
                return true;
            case REQUEST_IN_PROGRESS:
                if (!exactlyOnce)
                {
                    // The client finished a one-way call whose tail we lost, then moved on.
                    abortOneWay("the last packets of one-way call " + call + " were lost", nowNs);
                    return true;
                }
                return false;
            default:
                // A client waits for the reply of an exactly-once call before its next call.
                return false;
        }
    }

    private void beginCall(final long c, final boolean isExactlyOnce, final long nowNs)
    {
        call = c;
        requestStartNs = nowNs;
        exactlyOnce = isExactlyOnce;
        expectedSeq = 0;
        callStarted = false;
        callDone = false;
        nackOutstanding = false;
    }

    private void acceptInSequence(final ByteBuffer packet, final boolean complete, final long nowNs)
    {
        if (!callStarted)
        {
            callStarted = true;
            counters.calls++;
        }
        expectedSeq++;
        if (nackOutstanding)
        {
            nackOutstanding = false;
            disarmTimer();
            peerAnswered();
        }
        // The state moves before the upcall, so that a handler may reply from inside it.
        if (complete)
        {
            callDone = true;
            transitionTo(exactlyOnce ? State.EXECUTING : State.IDLE);
        }
        else
        {
            transitionTo(State.REQUEST_IN_PROGRESS);
        }
        deliver(packet, complete, exactlyOnce);
    }

    private void nackForMissing(final long c, final int seq, final long nowNs, final boolean force)
    {
        nackOutstanding = true;
        sendNack(c, seq, nowNs, force);
        armTimer(nowNs + rtt.rtoNs());
    }

    private void abortOneWay(final String reason, final long nowNs)
    {
        counters.aborts++;
        callDone = true;
        transitionTo(State.IDLE);
        handler.onMessageAborted(reason);
    }

    private void ignoreOneWay()
    {
        callDone = true;
        transitionTo(State.IDLE);
    }

    /** The previous reply is acknowledged: by a new call (implicitly), a CALL_ACK, or case (iv)/(vii). */
    private void releasePreviousReply()
    {
        if (!outbound.isEmpty() || reclaimOutstanding)
        {
            outbound.acknowledgeAll(releaser);
            reclaimOutstanding = false;
            disarmTimer();
        }
    }

    private void onNack(final long c, final int p, final long nowNs)
    {
        counters.nacksReceived++;
        if (c > call)
        {
            // Case (iv): the client waits for a reply to a call whose request never arrived. Its
            // NACK shows it has our previous reply: free it, and NACK for the lost request.
            if (expectUnseenCall(c, nowNs))
            {
                nackForMissing(c, 0, nowNs, true);
            }
            return;
        }
        switch (state)
        {
            case IDLE:
                if (!callDone && exactlyOnce)
                {
                    nackForMissing(call, expectedSeq, nowNs, true);
                }
                else if (exactlyOnce && !outbound.isEmpty())
                {
                    // Case (iii): the client did not receive our whole reply.
                    retransmitReply(p, nowNs);
                }
                else
                {
                    counters.unexpected++;
                }
                break;
            case REQUEST_IN_PROGRESS:
                if (exactlyOnce)
                {
                    // The client timed out waiting for a reply: the end of its request was lost.
                    nackForMissing(call, expectedSeq, nowNs, true);
                }
                else
                {
                    counters.unexpected++;
                }
                break;
            case EXECUTING:
                // The request is here and the servant is still at work: say so, so that the
                // client keeps waiting instead of declaring us dead.
                sendControl(MessageType.RECLAIM_ACK, call, expectedSeq);
                break;
            case REPLY_IN_PROGRESS:
                if (outbound.contains(p))
                {
                    retransmitReply(p, nowNs);
                }
                else
                {
                    sendControl(MessageType.RECLAIM_ACK, call, expectedSeq);
                }
                break;
            default:
                counters.unexpected++;
                break;
        }
    }

    /**
     * A control packet names an exactly-once call after the current one, none of whose request
     * has arrived: the previous reply is acknowledged, and that call is now awaited from packet 0.
     *
     * @return false when a new call cannot begin now (counted as unexpected).
     */
    private boolean expectUnseenCall(final long c, final long nowNs)
    {
        if (!newCallAllowed(nowNs))
        {
            counters.unexpected++;
            return false;
        }
        releasePreviousReply();
        beginCall(c, true, nowNs);
        return true;
    }

    private void retransmitReply(final int p, final long nowNs)
    {
        // The client asks from packet p on: every packet before it has arrived.
        if (p > outbound.firstSeq() && outbound.acknowledgeBefore(p, releaser) > 0)
        {
            replyProgressNs = nowNs;
        }
        retransmitFrom(outbound.contains(p) ? p : outbound.firstSeq(), call);
        if (state == State.IDLE && !outbound.isEmpty())
        {
            armTimer(nowNs + config.ackDelayNs() + rtt.rtoNs());
        }
    }

    private void onCallAck(final long c)
    {
        if (c == call && state == State.IDLE && callDone && exactlyOnce)
        {
            releasePreviousReply();
            peerAnswered();
        }
        else if (c == call)
        {
            counters.duplicates++;
        }
        else
        {
            counters.unexpected++;
        }
    }

    private void onReclaim(final long c, final int p, final long nowNs)
    {
        if (c == call && state == State.IDLE && callDone)
        {
            // The call is over here, so this is a client's round-trip probe (a client reclaims
            // only a request still being sent): the answer echoes its marker, so that no other
            // RECLAIM_ACK of this call is taken for it. The held reply stays held.
            sendControl(MessageType.RECLAIM_ACK, call, p);
            return;
        }
        if (c > call)
        {
            // Only exactly-once requests are held, so only they are reclaimed; we have none of
            // this one: as in case (iv), free the previous reply and ask for the request.
            if (!expectUnseenCall(c, nowNs))
            {
                return;
            }
            nackOutstanding = true;
            armTimer(nowNs + rtt.rtoNs());
        }
        sendControl(MessageType.RECLAIM_ACK, call, expectedSeq);
    }

    private void onReclaimAck(final long c, final int p, final long nowNs)
    {
        if (reclaimOutstanding && c == reclaimCall)
        {
            onReclaimAnswered(nowNs);
        }
        final boolean replyHeld = c == call && exactlyOnce && !outbound.isEmpty() &&
            (state == State.REPLY_IN_PROGRESS || state == State.IDLE);
        if (!replyHeld)
        {
            if (outbound.isEmpty() && c == call)
            {
                counters.duplicates++;
            }
            else
            {
                counters.unexpected++;
            }
            return;
        }
        if (p < outbound.firstSeq() || p > sendSeq)
        {
            counters.unexpected++;
            return;
        }
        if (outbound.acknowledgeBefore(p, releaser) > 0)
        {
            replyProgressNs = nowNs;
        }
        if (outbound.contains(p))
        {
            retransmitFrom(p, call);
        }
        if (outbound.isEmpty())
        {
            disarmTimer();
        }
        else if (state == State.IDLE)
        {
            armTimer(nowNs + config.ackDelayNs() + rtt.rtoNs());
        }
        else
        {
            disarmTimer();
        }
    }

    @Override
    public void onTimer(final long nowNs)
    {
        if (state == State.ZOMBIE)
        {
            return;
        }
        if (requestOverdue(nowNs))
        {
            final String why = "the request of call " + call + " was not received whole within " + millis(config.requestTimeoutNs()) +
                " of its first packet (requestTimeoutNs = " + config.requestTimeoutNs() + ")";
            if (exactlyOnce)
            {
                becomeZombie(CloseCause.REQUEST_TIMEOUT, why);
            }
            else
            {
                // A one-way dripped out: given up, as at most once allows; the connection lives.
                abortOneWay(why, nowNs);
            }
            return;
        }
        if (replyUnacknowledgedTooLong(nowNs))
        {
            // Packets of this call keep coming (a client that never gets the reply, or a replayer
            // on the path), but none shows that any of the reply arrived: the client is as good
            // as gone, and the held reply is not kept for ever.
            becomeZombie(CloseCause.PEER_SILENT, "the reply of call " + call + " was sent and retransmitted for " +
                millis(nowNs - replyProgressNs) + " and the client never acknowledged any of it (twice peerTimeoutNs = " +
                2 * config.peerTimeoutNs() + ")");
            return;
        }
        if (awaitingPeer() && reached(silentSinceNs + config.peerTimeoutNs(), nowNs))
        {
            if (state == State.REQUEST_IN_PROGRESS && !exactlyOnce)
            {
                // The tail of a one-way was lost and the client has said nothing since: no
                // retransmission can come, so the part received is given up, not the connection.
                abortOneWay("the last packets of one-way call " + call + " were lost and the client fell silent", nowNs);
                return;
            }
            becomeZombie(CloseCause.PEER_SILENT, "no packet from the client for " + millis(nowNs - silentSinceNs) + " while " +
                awaitedWhat() + " (peerTimeoutNs = " + config.peerTimeoutNs() + ")");
            return;
        }
        if (!timerDue(nowNs))
        {
            return;
        }
        if (reclaimOutstanding)
        {
            backOff();
            resendReclaim(nowNs);
            armTimer(nowNs + rtt.rtoNs());
        }
        else if (state == State.IDLE && callDone && !outbound.isEmpty())
        {
            // Case (i): a timeout; retransmit every unacknowledged reply buffer.
            backOff();
            retransmitFrom(outbound.firstSeq(), call);
            armTimer(nowNs + rtt.rtoNs());
        }
        else if (nackOutstanding)
        {
            backOff();
            sendNack(call, callStarted ? expectedSeq : 0, nowNs, true);
            armTimer(nowNs + rtt.rtoNs());
        }
        else
        {
            // Case (i) for an idle client: everything was acknowledged, nothing to do.
            disarmTimer();
        }
    }

    private boolean requestOverdue(final long nowNs)
    {
        return state == State.REQUEST_IN_PROGRESS && config.requestTimeoutNs() > 0 && reached(requestStartNs + config.requestTimeoutNs(), nowNs);
    }

    private boolean replyHeld()
    {
        return state == State.IDLE && !outbound.isEmpty();
    }

    private boolean replyUnacknowledgedTooLong(final long nowNs)
    {
        return replyHeld() && reached(replyProgressNs + 2 * config.peerTimeoutNs(), nowNs);
    }

    @Override
    public long nextDeadlineNs()
    {
        long deadline = super.nextDeadlineNs();
        if (state == State.REQUEST_IN_PROGRESS && config.requestTimeoutNs() > 0)
        {
            deadline = earlier(deadline, requestStartNs + config.requestTimeoutNs());
        }
        if (replyHeld())
        {
            deadline = earlier(deadline, replyProgressNs + 2 * config.peerTimeoutNs());
        }
        return deadline;
    }

    private String awaitedWhat()
    {
        if (state == State.REQUEST_IN_PROGRESS && !nackOutstanding)
        {
            return "receiving the request of call " + call;
        }
        if (reclaimOutstanding)
        {
            return "reclaiming reply buffers of call " + call;
        }
        if (nackOutstanding)
        {
            return "waiting for the retransmission of call " + call;
        }
        return "holding the unacknowledged reply of call " + call;
    }

    /**
     * @return true when the client owes a packet: the rest of a request (a client sends a
     *     request's packets without pausing), a retransmission, a RECLAIM_ACK, or the
     *     acknowledgement of a held reply.
     */
    @Override
    protected boolean awaitingPeer()
    {
        return reclaimOutstanding || nackOutstanding || state == State.REQUEST_IN_PROGRESS ||
            (state == State.IDLE && !outbound.isEmpty());
    }

    @Override
    protected void becomeZombie(final CloseCause cause, final String reason)
    {
        super.becomeZombie(cause, reason);
        nackOutstanding = false;
        transitionTo(State.ZOMBIE);
    }

    private void transitionTo(final State next)
    {
        state = next;
    }

    @Override
    public String toString()
    {
        return "ServerEngine{state=" + state + ", call=" + call + ", exactlyOnce=" + exactlyOnce +
            ", expectedSeq=" + expectedSeq + ", callStarted=" + callStarted + ", callDone=" + callDone +
            ", held=" + outbound.size() + ", sendSeq=" + sendSeq + ", nackOutstanding=" + nackOutstanding +
            ", zombieReason=" + zombieReason + '}';
    }
}
