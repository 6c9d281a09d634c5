package org.lightwire.transport.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.lightwire.transport.protocol.CloseCause;
import org.lightwire.transport.protocol.HeaderFlyweight;
import org.lightwire.transport.protocol.MessageType;

/**
 * What the client and server protocol engines share (paper, section 3, item 1, with the packet
 * handler of item 3): header insertion and fragmentation on send, header validation on receive,
 * the held packets and their retransmission, NACK pacing, the round-trip estimate, counters and
 * the zombie state.
 *
 * <p>An engine does no I/O and reads no clock. Its inputs are API calls, {@link #onPacket} and
 * {@link #onTimer}, each with the time as a {@code nowNs} argument; its output is a
 * {@link PacketSender}; {@link #nextDeadlineNs()} tells its driver when it must next run. It is
 * not thread-safe: the driver serialises every call.
 */
public abstract class ProtocolEngine
{
    /** Returned by {@link #nextDeadlineNs()} when no timer is armed. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;

    protected final EngineConfig config;
    protected final PacketSender sender;
    protected final MessageHandler handler;
    protected final BufferReleaser releaser;
    protected final ConnectionCounters counters = new ConnectionCounters();
    protected final RttEstimator rtt;
    protected final RetransmitQueue outbound;
    protected final HeaderFlyweight rxHeader = new HeaderFlyweight();

    private final ByteBuffer headerBuffer = ByteBuffer.allocateDirect(HeaderFlyweight.HEADER_LENGTH).order(ByteOrder.BIG_ENDIAN);
    private final HeaderFlyweight txHeader = new HeaderFlyweight().wrap(headerBuffer, 0);
    private final int maxPayloadBytes;

    /** Packet number of the next new packet of the message being sent. */
    protected int sendSeq;

    protected boolean timerArmed;
    protected long timerDeadlineNs;
    /** Start of the peer's current silence, meaningful while {@link #awaitingPeer()}. */
    protected long silentSinceNs;

    protected boolean reclaimOutstanding;
    protected boolean reclaimRetransmitted;
    protected long reclaimCall;
    protected long reclaimSentNs;

    private long lastNackCall = -1;
    private int lastNackSeq = -1;
    private long lastNackNs;

    protected String zombieReason;
    private CloseCause zombieCause;

    protected ProtocolEngine(
        final EngineConfig config,
        final PacketSender sender,
        final MessageHandler handler,
        final BufferReleaser releaser)
    {
        this.config = config;
        this.sender = sender;
        this.handler = handler;
        this.releaser = releaser;
        this.rtt = new RttEstimator(config.retransmitMinNs(), config.retransmitMaxNs(), config.retransmitInitialNs());
        this.outbound = new RetransmitQueue(config.bufferPoolPackets());
        this.maxPayloadBytes = config.maxPayloadBytes();
        counters.rtoNs = rtt.rtoNs();
    }

    /**
     * Input: one received packet, from the buffer's position to its limit (header first). A
     * malformed or unexpected packet is dropped and counted; this method never throws for
     * anything the network sent. The buffer's position and limit are changed.
     */
    public abstract void onPacket(ByteBuffer packet, long nowNs);

    /** Input: the time has reached (or passed) {@link #nextDeadlineNs()}. Early calls do nothing harmful. */
    public abstract void onTimer(long nowNs);

    /**
     * The paper's reclaim (section 4.3): asks the peer to acknowledge the held packets at once,
     * so that their buffers return to the pool.
     *
     * @return true when a RECLAIM is outstanding after this call; false when nothing is held.
     */
    public abstract boolean reclaim(long nowNs);

    /** Input: the link reported a hard network error (the paper's BAD): move to ZOMBIE. */
    public void onHardError(final String reason)
    {
        becomeZombie(CloseCause.HARD_ERROR, "hard network error: " + reason);
    }

    /**
     * Input: the driver gives the connection up for a reason of its own (a request too large, a
     * memory budget exhausted, a failed request handler, the peer's REJECT): move to ZOMBIE.
     */
    public void fail(final CloseCause cause, final String reason)
    {
        becomeZombie(cause, reason);
    }

    /** Adds a round-trip sample measured outside the engine (the UDP set-up exchange). */
    public void onRttSample(final long rttNs)
    {
        onRttSample(rttNs, false);
    }

    /**
     * @param unambiguous true for a sample whose answer only this exchange could have caused (a
     *     probe's, matched by its marker): see {@link RttEstimator#onSample(long, boolean)}.
     */
    protected final void onRttSample(final long rttNs, final boolean unambiguous)
    {
        rtt.onSample(rttNs, unambiguous);
        counters.srttNs = rtt.srttNs();
        counters.rtoNs = rtt.rtoNs();
    }

    /** @return when the engine next needs {@link #onTimer}, or {@link #NO_DEADLINE}. */
    public long nextDeadlineNs()
    {
        long deadline = NO_DEADLINE;
        if (timerArmed)
        {
            deadline = timerDeadlineNs;
        }
        if (awaitingPeer())
        {
            deadline = earlier(deadline, silentSinceNs + config.peerTimeoutNs());
        }
        return deadline;
    }

    /** @return true when the engine expects a packet from its peer (so that silence is a failure). */
    protected abstract boolean awaitingPeer();

    public ConnectionCounters counters()
    {
        return counters;
    }

    public EngineConfig config()
    {
        return config;
    }

    /** @return true once the connection has become a zombie. */
    public abstract boolean isZombie();

    /** @return why the connection became a zombie, or null. */
    public String zombieReason()
    {
        return zombieReason;
    }

    /** @return the cause of the zombie state, or null while the connection lives. */
    public CloseCause zombieCause()
    {
        return zombieCause;
    }

    /** @return packets the buffer pool can still take before a reclaim is needed. */
    public int freePackets()
    {
        return outbound.free();
    }

    /** @return packets held for retransmission, not yet acknowledged. */
    public int heldPackets()
    {
        return outbound.size();
    }

    /** @return true while a RECLAIM waits for its RECLAIM_ACK. */
    public boolean reclaimOutstanding()
    {
        return reclaimOutstanding;
    }

    /** @return the number of packets a payload of {@code bytes} is cut into. */
    public int packetsFor(final int bytes)
    {
        return bytes == 0 ? 1 : (bytes + maxPayloadBytes - 1) / maxPayloadBytes;
    }

    /** @return the largest payload of one packet. */
    public int maxPayloadBytes()
    {
        return maxPayloadBytes;
    }

    protected static long earlier(final long a, final long b)
    {
        if (a == NO_DEADLINE)
        {
            return b;
        }
        if (b == NO_DEADLINE)
        {
            return a;
        }
        return a - b <= 0 ? a : b;
    }

    protected static boolean reached(final long deadlineNs, final long nowNs)
    {
        return deadlineNs - nowNs <= 0;
    }

    protected final void armTimer(final long deadlineNs)
    {
        timerArmed = true;
        timerDeadlineNs = deadlineNs;
    }

    protected final void disarmTimer()
    {
        timerArmed = false;
    }

    protected final boolean timerDue(final long nowNs)
    {
        return timerArmed && reached(timerDeadlineNs, nowNs);
    }

    /**
     * Checks a received packet's header against its length and wraps {@link #rxHeader} around it.
     *
     * @return false when the packet is malformed: it has been counted and must be dropped.
     */
    protected final boolean accept(final ByteBuffer packet)
    {
        counters.packetsReceived++;
        final int length = packet.remaining();
        rxHeader.wrap(packet, packet.position());
        final HeaderFlyweight.Invalid invalid = rxHeader.validate(length);
        if (invalid == null)
        {
            return true;
        }
        counters.invalidPackets++;
        switch (invalid)
        {
            case TRUNCATED:
                counters.truncated++;
                break;
            case UNKNOWN_TYPE:
                counters.unknownType++;
                break;
            case SIZE_MISMATCH:
                counters.sizeMismatch++;
                break;
            case BAD_BOOLEAN:
                counters.badBoolean++;
                break;
            case BAD_NUMBER:
                counters.badNumber++;
                break;
            default:
                break;
        }
        return false;
    }

    /** Hands the payload of the accepted packet in {@link #rxHeader} to the handler. */
    protected final void deliver(final ByteBuffer packet, final boolean endOfMessage, final boolean exactlyOnce)
    {
        final int start = rxHeader.offset();
        final int end = start + rxHeader.messageSize();
        packet.limit(end).position(start + HeaderFlyweight.HEADER_LENGTH);
        counters.bytesReceived += end - start - HeaderFlyweight.HEADER_LENGTH;
        handler.onMessageData(packet, endOfMessage, exactlyOnce);
    }

    /**
     * Cuts {@code payload} into packets of at most the maximum payload and sends them: the
     * packet handler's fragmentation. The payload is never copied; each packet's header goes in
     * its own small buffer (the gather-write form of the paper's Figure 9).
     *
     * @param retain true to hold the packets for retransmission (exactly-once).
     */
    protected final void sendMessage(
        final ByteBuffer payload,
        final boolean complete,
        final long call,
        final boolean exactlyOnce,
        final boolean retain)
    {
        final int start = payload.position();
        final int total = payload.remaining();
        final int packets = packetsFor(total);
        if ((long)sendSeq + packets > HeaderFlyweight.MAX_PACKET_NUMBER)
        {
            throw new IllegalStateException("a message of more than " + HeaderFlyweight.MAX_PACKET_NUMBER +
                " packets cannot be numbered; send it as several calls");
        }
        for (int i = 0; i < packets; i++)
        {
            final int offset = start + i * maxPayloadBytes;
            final int length = Math.min(maxPayloadBytes, total - i * maxPayloadBytes);
            final boolean last = i == packets - 1;
            final boolean isComplete = complete && last;
            if (retain)
            {
                outbound.add(payload, offset, length, isComplete, !last);
            }
            payload.limit(offset + length).position(offset);
            sendData(payload, isComplete, call, sendSeq, exactlyOnce, !last);
            sendSeq++;
        }
    }

    private void sendData(
        final ByteBuffer payload,
        final boolean complete,
        final long call,
        final int packetSeq,
        final boolean exactlyOnce,
        final boolean fragmented)
    {
        final int length = payload.remaining();
        txHeader.set(complete ? MessageType.COMPLETE : MessageType.PARTIAL, exactlyOnce, HeaderFlyweight.HEADER_LENGTH + length, call, packetSeq, fragmented);
        headerBuffer.clear();
        counters.packetsSent++;
        counters.bytesSent += length;
        sender.sendPacket(headerBuffer, payload);
    }

    /** Sends again every held packet from {@code seq} on (client case ii, server cases i and iii). */
    protected final void retransmitFrom(final int seq, final long call)
    {
        if (!outbound.contains(seq))
        {
            return;
        }
        final int size = outbound.size();
        for (int i = outbound.indexOf(seq); i < size; i++)
        {
            final ByteBuffer payload = outbound.payload(i);
            counters.retransmissions++;
            sendData(payload, outbound.isComplete(i), call, outbound.seqAt(i), true, outbound.isFragmented(i));
        }
    }

    protected final void sendControl(final MessageType type, final long call, final int packetSeq)
    {
        txHeader.set(type, true, HeaderFlyweight.HEADER_LENGTH, call, packetSeq, false);
        headerBuffer.clear();
        counters.packetsSent++;
        switch (type)
        {
            case NACK:
                counters.nacksSent++;
                break;
            case CALL_ACK:
                counters.callAcksSent++;
                break;
            case RECLAIM:
                counters.reclaimsSent++;
                break;
            case RECLAIM_ACK:
                counters.reclaimAcksSent++;
                break;
            default:
                break;
        }
        sender.sendPacket(headerBuffer, null);
    }

    /**
     * Sends a NACK unless the same one went out less than a retransmission timeout ago, so that a
     * burst of out-of-sequence packets draws one NACK, not one each.
     */
    protected final void sendNack(final long call, final int packetSeq, final long nowNs, final boolean force)
    {
        if (!force && call == lastNackCall && packetSeq == lastNackSeq && nowNs - lastNackNs < rtt.rtoNs())
        {
            return;
        }
        lastNackCall = call;
        lastNackSeq = packetSeq;
        lastNackNs = nowNs;
        sendControl(MessageType.NACK, call, packetSeq);
    }

    /** Sends RECLAIM for the held packets of {@code call}: reclaim, and a round-trip probe. */
    protected final void sendReclaim(final long call, final long nowNs)
    {
        reclaimOutstanding = true;
        reclaimRetransmitted = false;
        reclaimCall = call;
        reclaimSentNs = nowNs;
        sendControl(MessageType.RECLAIM, call, sendSeq);
    }

    protected final void resendReclaim(final long nowNs)
    {
        reclaimRetransmitted = true;
        reclaimSentNs = nowNs;
        sendControl(MessageType.RECLAIM, reclaimCall, sendSeq);
    }

    /** A RECLAIM_ACK answered our RECLAIM: take the round-trip sample unless it was retransmitted (Karn). */
    protected final void onReclaimAnswered(final long nowNs)
    {
        if (!reclaimRetransmitted)
        {
            onRttSample(nowNs - reclaimSentNs);
        }
        rtt.resetBackoff();
        counters.rtoNs = rtt.rtoNs();
        reclaimOutstanding = false;
    }

    protected final void backOff()
    {
        counters.timeouts++;
        rtt.backOff();
        counters.rtoNs = rtt.rtoNs();
    }

    protected final void peerAnswered()
    {
        rtt.resetBackoff();
        counters.rtoNs = rtt.rtoNs();
    }

    /** Moves to ZOMBIE, returns every held buffer and disarms the timers; the subclass sets its state. */
    protected void becomeZombie(final CloseCause cause, final String reason)
    {
        if (zombieReason != null)
        {
            return;
        }
        zombieReason = reason;
        zombieCause = cause;
        outbound.acknowledgeAll(releaser);
        reclaimOutstanding = false;
        disarmTimer();
    }

    protected final void checkNotZombie()
    {
        if (zombieReason != null)
        {
            throw new ZombieConnectionException(zombieReason);
        }
    }

    protected static String millis(final long ns)
    {
        return (ns / 1_000_000L) + " ms";
    }
}
