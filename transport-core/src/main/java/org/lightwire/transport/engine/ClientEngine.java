package org.lightwire.transport.engine;

import java.nio.ByteBuffer;

import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.HeaderFlyweight;
import org.lightwire.transport.protocol.MessageType;

/**
 * The client side of omniTransport: the state machines of the paper's Figures 3 (exactly-once)
 * and 5 (one-way), and the client error handling of Figure 7 and section 4.2.1.
 *
 * <pre>
 *            send partial            send complete, exactly-once
 *   IDLE ------------------> REQUEST_IN_PROGRESS ------------------> WAITING_FOR_REPLY
 *    ^  \___ send complete, exactly-once ____________________________^        |
 *    |                                                                         |
 *    +---- last reply packet received (ack timer set) ------------------------+
 *    +---- send complete, one-way (from IDLE or REQUEST_IN_PROGRESS)
 *   any state -- hard error, or silent peer --> ZOMBIE (final)
 * </pre>
 *
 * <p>Call N+1 acknowledges the reply of call N implicitly; when the client stays idle for the
 * configured ack delay after a reply, the ack timer sends CALL_ACK instead (section 4.1). The
 * first reply packet acknowledges the whole request.
 *
 * <p>Error cases of section 4.2.1: (i) a timeout or an out-of-sequence reply packet while a
 * reply is awaited sends a NACK naming the call and the first packet missing; (ii) a NACK from
 * the server retransmits the held request packets from the packet it names; (iii) a hard
 * network error makes the connection a zombie, after which every operation throws
 * {@link ZombieConnectionException}.
 */
public final class ClientEngine extends ProtocolEngine
{
    /** The client states of Figures 3 and 5, named as in the paper. */
    public enum State
    {
        IDLE,
        REQUEST_IN_PROGRESS,
        WAITING_FOR_REPLY,
        ZOMBIE
    }

    /**
     * Top bit of a probe's packet number (2^30): no message comes near 2^30 packets, so the echo
     * of a probe's number is never taken for another RECLAIM_ACK of the same call, such as a
     * late "still executing".
     */
    static final int PROBE_MARKER = 1 << 30;

    private State state = State.IDLE;
    /** Current call, or the last one; 0 before the first call, whose number is 1. */
    private long call;
    private boolean exactlyOnce;
    private int expectedReplySeq;
    private boolean replyStarted;
    /** True when the last finished call was exactly-once and its reply arrived whole. */
    private boolean lastReplyComplete;

    private boolean ackPending;
    private long ackDeadlineNs;
    /** When the last reply was complete, and how long the connection then stayed idle before this call (0: unknown). */
    private long replyCompleteNs;
    private long idleBeforeCallNs;

    private boolean probed;
    private long lastProbeNs;
    private boolean probeOutstanding;
    private long probeCall;
    private long probeSentNs;
    /** The packet number the outstanding probe carries, which only its answer echoes. */
    private int probeMarker;
    private int probesSent;
    /** When to ask for a reply that has not come. */
    private final ReplyWait replyWait;

    public ClientEngine(
        final EngineConfig config,
        final PacketSender sender,
        final MessageHandler handler,
        final BufferReleaser releaser)
    {
        super(config, sender, handler, releaser);
        this.replyWait = new ReplyWait(Math.min(config.retransmitMaxNs(), config.peerTimeoutNs() / 3));
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

    /** @return true when a CALL_ACK for the last reply is still to be sent by the ack timer. */
    public boolean ackPending()
    {
        return ackPending;
    }

    /**
     * The paper's send: passes one buffer of the request. The buffer belongs to the transport
     * from now until it is given back through the {@link BufferReleaser} (at once for a one-way
     * call, on acknowledgement for an exactly-once one); its position and limit are undefined
     * until then.
     *
     * @param complete true on the request's last buffer (send complete), false for send partial.
     * @param exactlyOnce the call's semantics, fixed by its first buffer.
     * @throws ZombieConnectionException when the connection is a zombie.
     * @throws IllegalStateException while a reply is awaited, or when the buffer pool cannot
     *         hold the packets: check {@link #freePackets()} and {@link #reclaim(long)} first.
     */
    public void send(final ByteBuffer payload, final boolean complete, final boolean exactlyOnce, final long nowNs)
    {
        checkNotZombie();
        switch (state)
        {
            case IDLE:
                if (call == HeaderFlyweight.MAX_CALL_NUMBER)
                {
                    throw new IllegalStateException("this connection has carried " + call + " calls, as many as the call number counts; " +
                        "open a new one");
                }
                final long previous = call;
                idleBeforeCallNs = lastReplyComplete ? nowNs - replyCompleteNs : 0;
                beginCall(exactlyOnce);
                maybeProbe(previous, nowNs);
                break;
            case REQUEST_IN_PROGRESS:
                if (exactlyOnce != this.exactlyOnce)
                {
                    throw new IllegalArgumentException("call " + call + " was begun " + semantics(this.exactlyOnce) +
                        "; a later buffer of it cannot ask for " + semantics(exactlyOnce));
                }
                break;
            case WAITING_FOR_REPLY:
                throw new IllegalStateException("call " + call + " is waiting for its reply; receive it before sending another request");
            default:
                throw new IllegalStateException("unexpected state " + state);
        }
        final int packets = packetsFor(payload.remaining());
        if (exactlyOnce && packets > outbound.free())
        {
            throw new IllegalStateException("the buffer pool holds " + outbound.free() + " more packets but this buffer needs " +
                packets + "; reclaim() and wait for the RECLAIM_ACK, send smaller buffers, or raise bufferPoolPackets");
        }
        sendMessage(payload, complete, call, exactlyOnce, exactlyOnce);
        if (!exactlyOnce)
        {
            releaser.release(payload);
        }
        if (!complete)
        {
            transitionTo(State.REQUEST_IN_PROGRESS);
        }
        else if (exactlyOnce)
        {
            transitionTo(State.WAITING_FOR_REPLY);
            silentSinceNs = nowNs;
            replyWait.sent(nowNs);
            armTimer(replyWait.deadlineNs(nowNs, rtt.rtoNs()));
        }
        else
        {
            transitionTo(State.IDLE);
        }
    }

    /**
     * The paper's reclaim: asks the server to acknowledge the request packets it holds, so that
     * their buffers return to the pool (section 4.3).
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
            if (!timerArmed)
            {
                armTimer(nowNs + rtt.rtoNs());
            }
            if (state == State.REQUEST_IN_PROGRESS)
            {
                silentSinceNs = nowNs;
            }
        }
        return true;
    }

    private void beginCall(final boolean exactlyOnce)
    {
        call++;
        this.exactlyOnce = exactlyOnce;
        // The new call acknowledges the last reply implicitly: the ack timer has nothing to do.
        ackPending = false;
        lastReplyComplete = false;
        reclaimOutstanding = false;
        expectedReplySeq = 0;
        replyStarted = false;
        outbound.resetSequence();
        sendSeq = 0;
        disarmTimer();
        counters.calls++;
    }

    /**
     * Measures the round trip (A1's SYNC) at most once per {@code rttProbeIntervalNs}: a RECLAIM
     * naming the call just finished goes out before the new request, so the server answers it at
     * once, before it executes the request, and the RECLAIM_ACK reaches the client while it waits
     * for its reply: the sample is the network's round trip, not the servant's time nor the
     * client's idle time. A lost probe is not retransmitted; it only costs a sample. Its packet
     * number is a marker ({@link #PROBE_MARKER} and a count) that the server's answer echoes.
     */
    private void maybeProbe(final long previousCall, final long nowNs)
    {
        final long intervalNs = config.rttProbeIntervalNs();
        if (intervalNs > 0 && (!probed || nowNs - lastProbeNs >= intervalNs))
        {
            probed = true;
            lastProbeNs = nowNs;
            probeOutstanding = true;
            probeCall = previousCall;
            probeSentNs = nowNs;
            probeMarker = PROBE_MARKER | (probesSent++ & (PROBE_MARKER - 1));
            sendControl(MessageType.RECLAIM, previousCall, probeMarker);
        }
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
        final MessageType type = rxHeader.type();
        if (c < call)
        {
            onStale(type, c, p, nowNs);
            return;
        }
        silentSinceNs = nowNs;
        switch (type)
        {
            case PARTIAL:
            case COMPLETE:
                onReplyData(packet, c, p, type == MessageType.COMPLETE, nowNs);
                break;
            case NACK:
                onNack(c, p, nowNs);
                break;
            case RECLAIM:
                onReclaim(c);
                break;
            case RECLAIM_ACK:
                onReclaimAck(c, p, nowNs);
                break;
            case CALL_ACK:
            default:
                // Only a client acknowledges calls.
                counters.unexpected++;
                break;
        }
    }

    /**
     * A packet of an earlier call: a late duplicate, a replay, or the reply of an earlier call
     * that its server still holds because our implicit acknowledgement (a one-way call) was lost.
     * It changes nothing here, and it does not reset the silence timer; a reply packet is
     * acknowledged with CALL_ACK, which the server takes only if it still holds that reply. The
     * one packet of an earlier call that is news is the answer to a round-trip probe, which names
     * the call before the one it preceded.
     */
    private void onStale(final MessageType type, final long c, final int p, final long nowNs)
    {
        if (type == MessageType.RECLAIM_ACK && probeOutstanding && c == probeCall && p == probeMarker)
        {
            probeOutstanding = false;
            onRttSample(nowNs - probeSentNs, true);
            return;
        }
        counters.stale++;
        if (type == MessageType.PARTIAL || type == MessageType.COMPLETE)
        {
            sendControl(MessageType.CALL_ACK, c, p);
        }
    }

    private void onReplyData(final ByteBuffer packet, final long c, final int p, final boolean complete, final long nowNs)
    {
        if (state != State.WAITING_FOR_REPLY)
        {
            if (c == call && state == State.IDLE && lastReplyComplete)
            {
                // The server sent the reply again: our CALL_ACK is late or lost. Acknowledge now.
                counters.duplicates++;
                ackPending = false;
                sendControl(MessageType.CALL_ACK, call, expectedReplySeq);
            }
            else if (c == call)
            {
                counters.duplicates++;
            }
            else
            {
                counters.unexpected++;
            }
            return;
        }
        final PacketClass packetClass = Filter.classify(call, expectedReplySeq, false, c, p);
        switch (packetClass)
        {
            case IN_SEQUENCE:
                acknowledgeRequest();
                peerAnswered();
                expectedReplySeq++;
                // The state moves before the upcall, so that a handler may begin the next call.
                if (complete)
                {
                    replyComplete(nowNs);
                }
                else
                {
                    armTimer(nowNs + rtt.rtoNs());
                }
                deliver(packet, complete, true);
                break;
            case OUT_OF_SEQUENCE:
                // Client error case (i): an out-of-sequence packet. Any reply packet shows the
                // server has the whole request.
                acknowledgeRequest();
                counters.outOfSequence++;
                sendNack(call, expectedReplySeq, nowNs, false);
                break;
            case DUPLICATE:
                counters.duplicates++;
                break;
            case NEW_CALL:
            case NEW_CALL_START_MISSING:
            default:
                // Only the client advances the call sequence number.
                counters.unexpected++;
                break;
        }
    }

    private void acknowledgeRequest()
    {
        if (!replyStarted)
        {
            replyStarted = true;
            outbound.acknowledgeAll(releaser);
        }
    }

    private void replyComplete(final long nowNs)
    {
        transitionTo(State.IDLE);
        lastReplyComplete = true;
        replyWait.replied(nowNs);
        disarmTimer();
        replyCompleteNs = nowNs;
        // A caller that stayed idle for longer than the ack delay before this call will likely
        // do so again: its next request would not carry the acknowledgement, so it goes now,
        // and no timer has to wake for it.
        if (config.ackDelayNs() == 0 || idleBeforeCallNs > config.ackDelayNs())
        {
            sendControl(MessageType.CALL_ACK, call, expectedReplySeq);
        }
        else
        {
            ackPending = true;
            ackDeadlineNs = nowNs + config.ackDelayNs();
        }
    }

    private void onNack(final long c, final int p, final long nowNs)
    {
        counters.nacksReceived++;
        final boolean requestOpen = state == State.REQUEST_IN_PROGRESS || state == State.WAITING_FOR_REPLY;
        if (c != call || !requestOpen || !exactlyOnce || replyStarted)
        {
            counters.unexpected++;
            return;
        }
        // A NACK for packet p acknowledges every packet before it.
        if (p < outbound.firstSeq() || p > sendSeq)
        {
            counters.unexpected++;
            return;
        }
        peerAnswered();
        outbound.acknowledgeBefore(p, releaser);
        // Client error case (ii): retransmit the held buffers from the NACKed packet on.
        retransmitFrom(p, call);
        replyWait.resent();
        armTimer(state == State.WAITING_FOR_REPLY ? replyWait.deadlineNs(nowNs, rtt.rtoNs()) : nowNs + rtt.rtoNs());
    }

    private void onReclaim(final long c)
    {
        final boolean replyOpen = state == State.WAITING_FOR_REPLY || (state == State.IDLE && lastReplyComplete);
        if (c != call || !replyOpen)
        {
            counters.unexpected++;
            return;
        }
        if (state == State.IDLE)
        {
            ackPending = false;
        }
        sendControl(MessageType.RECLAIM_ACK, call, expectedReplySeq);
    }

    private void onReclaimAck(final long c, final int p, final long nowNs)
    {
        final boolean answersReclaim = reclaimOutstanding && c == reclaimCall;
        if (answersReclaim)
        {
            onReclaimAnswered(nowNs);
        }
        final boolean requestOpen = state == State.REQUEST_IN_PROGRESS || state == State.WAITING_FOR_REPLY;
        if (c != call || !requestOpen || !exactlyOnce)
        {
            return;
        }
        if (p < outbound.firstSeq() || p > sendSeq)
        {
            counters.unexpected++;
            return;
        }
        outbound.acknowledgeBefore(p, releaser);
        if (outbound.contains(p))
        {
            // The server lacks packets that the RECLAIM followed: they were lost.
            retransmitFrom(p, call);
        }
        if (state == State.REQUEST_IN_PROGRESS && outbound.isEmpty())
        {
            disarmTimer();
        }
        else
        {
            if (state == State.WAITING_FOR_REPLY && !replyStarted && p == sendSeq && !answersReclaim)
            {
                replyWait.stillExecuting();
            }
            armTimer(state == State.WAITING_FOR_REPLY && !replyStarted ? replyWait.deadlineNs(nowNs, rtt.rtoNs()) : nowNs + rtt.rtoNs());
        }
    }

    @Override
    public void onTimer(final long nowNs)
    {
        if (state == State.ZOMBIE)
        {
            return;
        }
        if (awaitingPeer() && reached(silentSinceNs + config.peerTimeoutNs(), nowNs))
        {
            becomeZombie(CloseCause.PEER_SILENT, "no packet from the server for " + millis(nowNs - silentSinceNs) + " while " +
                (state == State.WAITING_FOR_REPLY ? "waiting for the reply to call " + call : "reclaiming buffers of call " + call) +
                " (peerTimeoutNs = " + config.peerTimeoutNs() + ")");
            return;
        }
        if (ackPending && reached(ackDeadlineNs, nowNs))
        {
            ackPending = false;
            sendControl(MessageType.CALL_ACK, call, expectedReplySeq);
        }
        if (timerDue(nowNs))
        {
            backOff();
            if (state == State.WAITING_FOR_REPLY)
            {
                // Client error case (i): a timeout while a reply is awaited.
                replyWait.asked();
                sendNack(call, expectedReplySeq, nowNs, true);
                armTimer(replyStarted ? nowNs + rtt.rtoNs() : replyWait.deadlineNs(nowNs, rtt.rtoNs()));
            }
            else if (state == State.REQUEST_IN_PROGRESS && reclaimOutstanding)
            {
                resendReclaim(nowNs);
                armTimer(nowNs + rtt.rtoNs());
            }
            else
            {
                disarmTimer();
            }
        }
    }

    /**
     * @return how long after a one-packet call started now its first timer would fire (its reply
     *     asked for): a reader that watches this connection for calls it has not yet seen needs to
     *     look no sooner. Read without the connection's lock: an estimate.
     */
    public long callLeadNs()
    {
        return replyWait.leadNs(rtt.rtoNs());
    }

    @Override
    public long nextDeadlineNs()
    {
        final long deadline = super.nextDeadlineNs();
        return ackPending ? earlier(deadline, ackDeadlineNs) : deadline;
    }

    @Override
    protected boolean awaitingPeer()
    {
        return state == State.WAITING_FOR_REPLY || (state == State.REQUEST_IN_PROGRESS && reclaimOutstanding);
    }

    @Override
    protected void becomeZombie(final CloseCause cause, final String reason)
    {
        super.becomeZombie(cause, reason);
        ackPending = false;
        transitionTo(State.ZOMBIE);
    }

    private void transitionTo(final State next)
    {
        state = next;
    }

    private static String semantics(final boolean exactlyOnce)
    {
        return exactlyOnce ? "exactly-once" : "at-most-once";
    }

    @Override
    public String toString()
    {
        return "ClientEngine{state=" + state + ", call=" + call + ", exactlyOnce=" + exactlyOnce +
            ", sendSeq=" + sendSeq + ", held=" + outbound.size() + ", expectedReplySeq=" + expectedReplySeq +
            ", ackPending=" + ackPending + ", zombieReason=" + zombieReason + '}';
    }
}
