package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.lightwire.romiop.protocol.StateFlyweight;

/**
 * The giving side of state transfer: a member asked for its state by a joiner takes it at its
 * delivered sequence (the cut), keeps it while that joiner fetches it in chunks, and forgets it
 * once the joiner has it all or stops asking. The state a joiner gets is the engine's part (which
 * requests were executed, so a request the state holds is never executed again, whatever order
 * number a later leader gives it) followed by the application's ({@link StateHandler}).
 *
 * <p>Image: the engine part's length (4 bytes), the engine part ({@link DuplicateFilter} image),
 * the application's bytes. At most {@link #MAX_SNAPSHOTS} joiners are served at once; asks beyond
 * are dropped and counted ({@code stateAsksIgnored}) and the joiner asks again.
 */
final class StateDonor
{
    /** Joiners served at once: each holds one image in memory. */
    static final int MAX_SNAPSHOTS = 4;
    /** Chunks sent for one ASK; the joiner asks for the next burst when it has this one. */
    static final int BURST = 8;
    /** The transfer of a state taken for a joiner at its admission, before its first ASK (a joiner's transfers are odd). */
    private static final int UNCLAIMED = 0;

    private final GroupConfig config;
    private final GroupCounters counters;
    private final Outbox outbox;
    private final DuplicateFilter executed;
    private final StateHandler handler;
    private final StateFlyweight packet = new StateFlyweight();
    private final Map<Integer, Snapshot> snapshots = new HashMap<>();
    /** Tags of the states taken: each one's CHUNKs carry it (24 bits, never 0). */
    private int captures;
    /** Per joiner, the transfer it fetched to the end last: a delayed copy of one of its ASKs starts nothing. */
    private final Map<Integer, Integer> finished = new HashMap<>();
    /** Per joiner, the transfer this member refused last, and why: a repeated ASK of it is refused again (the REFUSED may be lost). */
    private final Map<Integer, Refusal> refusals = new HashMap<>();

    private record Refusal(int transfer, long cut, String reason)
    {
    }

    StateDonor(final GroupConfig config, final GroupCounters counters, final Outbox outbox, final DuplicateFilter executed,
        final StateHandler handler)
    {
        this.config = config;
        this.counters = counters;
        this.outbox = outbox;
        this.executed = executed;
        this.handler = handler;
    }

    /** @return state data bytes one CHUNK carries. */
    int chunkBytes()
    {
        return config.maxPacketBytes - StateFlyweight.HEADER_LENGTH;
    }

    /**
     * A joiner's ASK, in its transfer {@code transfer}, for a state taken at or after order
     * {@code minCut}, from byte {@code stateOffset} on.
     *
     * @param deliveredSeq what this member delivered: the cut a new state is taken at.
     * @param canGive      false while this member has no state to give (it awaits one itself, or is no member yet).
     */
    void ask(final int joinerId, final int transfer, final int snapshot, final long minCut, final int stateOffset, final long deliveredSeq,
        final boolean canGive, final long nowNs)
    {
        if (finished.getOrDefault(joinerId, 0) == transfer)
        {
            // A delayed or duplicated ASK of a transfer that is over.
            counters.staleStateAsks++;
            final Refusal r = refusals.get(joinerId);
            if (r != null && r.transfer == transfer)
            {
                // Refused: the joiner asks again because our REFUSED was lost; it hears it again.
                counters.stateRefusalsResent++;
                sendRefusal(joinerId, r.cut, r.reason);
            }
            return;
        }
        Snapshot s = snapshots.get(joinerId);
        if (s != null && s.transfer == UNCLAIMED && s.cut >= minCut)
        {
            // Taken for it when it was admitted, at its start: this transfer's.
            s.transfer = transfer;
        }
        else if (s != null && s.transfer != transfer)
        {
            // The joiner started another transfer (it rejoined, or restarted): the old one is over.
            snapshots.remove(joinerId);
            s = null;
        }
        if (s != null && s.cut >= minCut)
        {
            s.lastAskNs = nowNs;
            if (s.image == null)
            {
                // Its application has not answered yet: the joiner waits for this donor.
                send(joinerId, StateFlyweight.CAPTURING, 0, s.cut, 0, 0);
            }
            else if (snapshot == s.tag)
            {
                sendChunks(joinerId, s, stateOffset);
            }
            else
            {
                // Its offset is into another state (an earlier one of ours, or another donor's): from the start.
                sendChunks(joinerId, s, 0);
            }
            return;
        }
        if (handler == null)
        {
            refuse(joinerId, minCut, "member " + outbox.selfId() + " cannot give its state: its application takes part in no state transfer");
            return;
        }
        if (!canGive || deliveredSeq < minCut)
        {
            counters.stateAsksIgnored++;
            return;
        }
        expire(nowNs);
        if (s == null && snapshots.size() >= MAX_SNAPSHOTS && !evictUnclaimed())
        {
            counters.stateAsksIgnored++;
            return;
        }
        // A state already taken at this cut is sent now if the application gave it; a new one
        // goes out when it answers (captured()), then or later.
        final boolean shared = atCut(deliveredSeq) != null;
        final Snapshot fresh = take(joinerId, transfer, deliveredSeq, nowNs);
        if (shared && fresh.image != null)
        {
            sendChunks(joinerId, fresh, 0);
        }
    }

    /**
     * This member, leading, admits {@code joinerId} with a start at {@code deliveredSeq} (what it
     * delivered: its commit): the state the joiner will ask for is taken now, at that start. Taken
     * at the joiner's ASK instead, the cut would lie past every order this member delivered until
     * the ASK came (a slow joiner, a lost ASK): the joiner would execute none of those calls, while
     * clients, which count it from the LIST that admits it, wait for its replies (an atomic call
     * fails NO_QUORUM). A joiner that needs no state never claims it; it expires.
     */
    void prepare(final int joinerId, final long deliveredSeq, final long nowNs)
    {
        if (handler == null || deliveredSeq <= 0)
        {
            return;
        }
        expire(nowNs);
        final Snapshot earlier = snapshots.get(joinerId);
        if (earlier != null && (earlier.transfer == UNCLAIMED || earlier.cut < deliveredSeq))
        {
            // Unclaimed, or below the start this re-admission gives it (its ASK will ask for this one).
            snapshots.remove(joinerId);
        }
        else if (earlier != null)
        {
            return;
        }
        if (snapshots.size() >= MAX_SNAPSHOTS && !evictUnclaimed())
        {
            return;
        }
        take(joinerId, UNCLAIMED, deliveredSeq, nowNs);
    }

    /**
     * Takes the state at {@code cut} (this member's delivery) for {@code joinerId}'s transfer: one
     * state serves every joiner at the same cut, taken once and shared; else the engine's part is
     * copied now and the application asked for its own.
     *
     * @return the joiner's snapshot; its image is null until the application answers.
     */
    private Snapshot take(final int joinerId, final int transfer, final long cut, final long nowNs)
    {
        final Snapshot sameCut = atCut(cut);
        final Snapshot fresh = new Snapshot(transfer, sameCut != null ? sameCut.tag : nextTag(), cut, nowNs);
        snapshots.put(joinerId, fresh);
        if (sameCut != null)
        {
            fresh.image = sameCut.image;
            fresh.engineImage = sameCut.engineImage;
            return fresh;
        }
        final ByteBuffer engineImage = ByteBuffer.allocate(executed.imageBytes());
        executed.writeImage(engineImage);
        fresh.engineImage = engineImage.array();
        counters.statesCaptured++;
        handler.captureState(cut);
        return fresh;
    }

    /** The application's state after order {@code cut} ({@link StateHandler#captureState}'s answer). */
    void captured(final long cut, final byte[] state, final long nowNs)
    {
        final List<Integer> waiting = waitingAt(cut);
        if (waiting.isEmpty())
        {
            counters.unexpectedPackets++;
            return;
        }
        final byte[] engineImage = snapshots.get(waiting.get(0)).engineImage;
        final long length = 4L + engineImage.length + state.length;
        if (length > config.maxStateBytes)
        {
            unavailable(cut, "member " + outbox.selfId() + "'s state after order " + cut + " is " + length + " bytes, more than maxStateBytes (" +
                config.maxStateBytes + ", jacorb.lightwire.romiop.max_state_bytes)");
            return;
        }
        final byte[] image = ByteBuffer.allocate((int)length).putInt(engineImage.length).put(engineImage).put(state).array();
        for (final int joinerId : waiting)
        {
            final Snapshot s = snapshots.get(joinerId);
            s.image = image;
            if (s.transfer != UNCLAIMED)
            {
                sendChunks(joinerId, s, 0);
            }
        }
    }

    /** The application cannot give its state after order {@code cut}: every joiner waiting on it is refused. */
    void unavailable(final long cut, final String reason)
    {
        for (final int joinerId : waitingAt(cut))
        {
            // Over: a repeated ASK of this transfer is not taken for a new one, but refused again.
            final int transfer = snapshots.remove(joinerId).transfer;
            if (transfer == UNCLAIMED)
            {
                // Taken ahead of an ASK that has not come: forgotten; that ASK takes a state anew.
                continue;
            }
            finished.put(joinerId, transfer);
            refusals.put(joinerId, new Refusal(transfer, cut, reason));
            refuse(joinerId, cut, reason);
        }
    }

    /** Forgets the states of joiners silent for twice the KeepAlive timeout. */
    void expire(final long nowNs)
    {
        snapshots.values().removeIf(s -> nowNs - s.lastAskNs > 2 * config.keepAliveTimeoutNs);
    }

    /** @return joiners this member holds a state for (or takes one for). */
    int serving()
    {
        return snapshots.size();
    }

    private int nextTag()
    {
        captures = (captures + 1) & 0xFF_FFFF;
        if (captures == 0)
        {
            captures = 1;
        }
        return captures;
    }

    /** Makes room by forgetting the oldest state nobody claimed. */
    private boolean evictUnclaimed()
    {
        Integer oldest = null;
        for (final Map.Entry<Integer, Snapshot> e : snapshots.entrySet())
        {
            if (e.getValue().transfer == UNCLAIMED && (oldest == null || e.getValue().lastAskNs < snapshots.get(oldest).lastAskNs))
            {
                oldest = e.getKey();
            }
        }
        if (oldest == null)
        {
            return false;
        }
        snapshots.remove(oldest);
        return true;
    }

    private Snapshot atCut(final long cut)
    {
        for (final Snapshot s : snapshots.values())
        {
            if (s.cut == cut && s.engineImage != null)
            {
                return s;
            }
        }
        return null;
    }

    private List<Integer> waitingAt(final long cut)
    {
        final List<Integer> waiting = new ArrayList<>();
        snapshots.forEach((id, s) ->
        {
            if (s.cut == cut && s.image == null)
            {
                waiting.add(id);
            }
        });
        waiting.sort(null);
        return waiting;
    }

    private void sendChunks(final int joinerId, final Snapshot s, final int fromOffset)
    {
        if (fromOffset >= s.image.length)
        {
            // The joiner has it all: its last ASK names the end.
            snapshots.remove(joinerId);
            finished.put(joinerId, s.transfer);
            counters.statesGiven++;
            return;
        }
        int offset = fromOffset;
        for (int i = 0; i < BURST && offset < s.image.length; i++)
        {
            final int n = Math.min(chunkBytes(), s.image.length - offset);
            final ByteBuffer out = outbox.buffer();
            packet.wrap(out, 0);
            packet.set(Outbox.WIRE_ORDER, outbox.selfId(), outbox.nextPacketId(), StateFlyweight.CHUNK, s.tag, s.cut, offset, s.image.length, n);
            out.put(StateFlyweight.HEADER_LENGTH, s.image, offset, n);
            outbox.send(joinerId, StateFlyweight.HEADER_LENGTH + n);
            counters.stateChunksSent++;
            offset += n;
        }
    }

    private void refuse(final int joinerId, final long cut, final String reason)
    {
        sendRefusal(joinerId, cut, reason);
        counters.statesRefused++;
    }

    private void sendRefusal(final int joinerId, final long cut, final String reason)
    {
        final byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        final int n = Math.min(text.length, config.maxPacketBytes - StateFlyweight.HEADER_LENGTH);
        outbox.buffer().put(StateFlyweight.HEADER_LENGTH, text, 0, n);
        send(joinerId, StateFlyweight.REFUSED, 0, cut, 0, n);
    }

    /** Sends a State of {@code kind} whose {@code dataLength} data bytes are in the send buffer already. */
    private void send(final int joinerId, final int kind, final int tag, final long cut, final int total, final int dataLength)
    {
        packet.wrap(outbox.buffer(), 0);
        packet.set(Outbox.WIRE_ORDER, outbox.selfId(), outbox.nextPacketId(), kind, tag, cut, 0, total, dataLength);
        outbox.send(joinerId, StateFlyweight.HEADER_LENGTH + dataLength);
    }

    /** One joiner's state: its cut, the engine's part taken at the cut, the whole image once the application answered. */
    private static final class Snapshot
    {
        int transfer;
        final int tag;
        final long cut;
        long lastAskNs;
        byte[] engineImage;
        byte[] image;

        Snapshot(final int transfer, final int tag, final long cut, final long nowNs)
        {
            this.transfer = transfer;
            this.tag = tag;
            this.cut = cut;
            this.lastAskNs = nowNs;
        }
    }

    @Override
    public String toString()
    {
        return "StateDonor{serving=" + snapshots.size() + '}';
    }
}
