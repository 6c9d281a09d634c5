package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import org.lightwire.romiop.protocol.StateFlyweight;

/**
 * The taking side of state transfer: a member that joined past orders it did not execute holds
 * its deliveries back (it still accepts orders, so it counts toward commits) and fetches a state
 * taken at or after its start, {@code minCut}, in chunks: it ASKs its donor for the next bytes each
 * {@code retransmitTimeoutNs} and as soon as a burst is in. A donor that sends nothing new for
 * {@code keepAliveTimeoutNs} is replaced by the next member of the view (a new donor's state is
 * another cut: assembly starts over).
 */
final class StateReceiver
{
    private final GroupConfig config;
    private final GroupCounters counters;
    private final Outbox outbox;
    private final StateFlyweight packet = new StateFlyweight();
    private boolean awaiting;
    private long minCut;
    private int donorId = -1;
    /** This transfer's nonce, named in each ASK; a new one for each state awaited. */
    private int transfer;
    private int transfers;
    /** The members that refused this transfer a state. */
    private final java.util.Set<Integer> refusedBy = new java.util.HashSet<>();
    private long askDeadlineNs;
    private long progressNs;
    /** The state being assembled: its cut, its bytes, how many arrived in a row from the start. */
    private long cut = -1;
    /** The donor's tag of the state being assembled (0: none). */
    private int snapshot;
    private byte[] image;
    private int received;
    private int askedFrom;

    StateReceiver(final GroupConfig config, final GroupCounters counters, final Outbox outbox)
    {
        this.config = config;
        this.counters = counters;
        this.outbox = outbox;
    }

    /** @return true while this member holds its deliveries back for a state. */
    boolean awaiting()
    {
        return awaiting;
    }

    long minCut()
    {
        return minCut;
    }

    int donorId()
    {
        return donorId;
    }

    /**
     * Needs a state taken after order {@code atLeast} or later (raised, if it awaits one already),
     * and asks {@code donor} for it at once.
     */
    void await(final long atLeast, final int donor, final long nowNs)
    {
        if (!awaiting)
        {
            counters.stateTransfers++;
            refusedBy.clear();
            final long mixed = (nowNs ^ ((long)outbox.selfId() << 40) ^ ((long)++transfers << 20)) * 0x9E3779B97F4A7C15L;
            transfer = (int)(mixed >>> 32) | 1;
            cut = -1;
            image = null;
            received = 0;
        }
        awaiting = true;
        minCut = Math.max(minCut, atLeast);
        if (cut >= 0 && cut < minCut)
        {
            image = null;
            cut = -1;
            received = 0;
        }
        if (donor != donorId)
        {
            // Another donor's state is another state: its bytes never join these.
            forgetAssembly();
        }
        donorId = donor;
        progressNs = nowNs;
        ask(nowNs);
    }

    /** Asks again when due; a donor silent for {@code keepAliveTimeoutNs} gives way to the next member of {@code view}. */
    void onTimer(final boolean mayAsk, final int[] view, final long nowNs)
    {
        if (!awaiting || askDeadlineNs - nowNs > 0)
        {
            return;
        }
        if (!mayAsk)
        {
            // Not a member now (it rejoins): it asks again once it is one; looks again a retransmission later.
            askDeadlineNs = nowNs + config.retransmitTimeoutNs;
            progressNs = nowNs;
            return;
        }
        if (nowNs - progressNs >= config.keepAliveTimeoutNs)
        {
            final int next = nextDonor(view);
            if (next != donorId)
            {
                counters.stateDonorsChanged++;
                donorId = next;
                forgetAssembly();
            }
            progressNs = nowNs;
        }
        ask(nowNs);
    }

    long nextDeadlineNs()
    {
        return awaiting ? askDeadlineNs : Long.MAX_VALUE;
    }

    /**
     * A CHUNK from {@code from} (wrapped in {@code chunk}).
     *
     * @return the whole image once its last byte is in (this member then awaits no more), else null.
     * @throws IllegalStateException with the reason when the state is larger than {@code maxStateBytes}.
     */
    byte[] onChunk(final int from, final StateFlyweight chunk, final long nowNs)
    {
        if (!awaiting || from != donorId || chunk.cut() < minCut)
        {
            counters.staleStateChunks++;
            return null;
        }
        if (chunk.snapshot() != snapshot || chunk.cut() != cut || image == null || chunk.total() != image.length)
        {
            if (chunk.stateOffset() != 0)
            {
                // A piece of a state other than the one assembled: the next ASK names ours.
                counters.staleStateChunks++;
                return null;
            }
            if (chunk.total() > config.maxStateBytes)
            {
                throw new IllegalStateException("member " + from + "'s state after order " + chunk.cut() + " is " + chunk.total() +
                    " bytes, more than maxStateBytes (" + config.maxStateBytes + ", jacorb.lightwire.romiop.max_state_bytes)");
            }
            snapshot = chunk.snapshot();
            cut = chunk.cut();
            image = new byte[chunk.total()];
            received = 0;
            askedFrom = 0;
        }
        if (chunk.stateOffset() != received)
        {
            // Out of sequence (a lost chunk before it, or a repeat): the next ASK names where to go on.
            counters.staleStateChunks++;
            return null;
        }
        counters.stateChunksReceived++;
        chunk.buffer().get(chunk.dataOffset(), image, received, chunk.dataLength());
        received += chunk.dataLength();
        progressNs = nowNs;
        if (received == image.length)
        {
            // Tells the donor it may forget the state.
            askedFrom = received;
            send(StateFlyweight.ASK, received);
            awaiting = false;
            counters.statesInstalled++;
            final byte[] whole = image;
            image = null;
            return whole;
        }
        if (received - askedFrom >= StateDonor.BURST * (config.maxPacketBytes - StateFlyweight.HEADER_LENGTH))
        {
            ask(nowNs);
        }
        return null;
    }

    /** The cut of the image {@link #onChunk} returned last. */
    long cut()
    {
        return cut;
    }

    /** The donor's application is still taking its state: that counts as progress (no other donor is tried). */
    void onCapturing(final int from, final long nowNs)
    {
        if (awaiting && from == donorId)
        {
            progressNs = nowNs;
        }
        else
        {
            counters.staleStateChunks++;
        }
    }

    /**
     * A REFUSED from {@code from}: when it is the donor, the next member of {@code view} that has
     * not refused this transfer is asked instead.
     *
     * @return true when every other member of the view refused: this member has no state to take.
     */
    boolean onRefused(final int from, final int[] view, final long nowNs)
    {
        if (!awaiting || from != donorId)
        {
            counters.staleStateChunks++;
            return false;
        }
        counters.stateRefusalsReceived++;
        refusedBy.add(from);
        // Another member may give what this one cannot (its get_state failed, say): each is asked in turn.
        for (final int id : view)
        {
            if (id != outbox.selfId() && !refusedBy.contains(id))
            {
                donorId = id;
                forgetAssembly();
                progressNs = nowNs;
                ask(nowNs);
                return false;
            }
        }
        awaiting = false;
        return true;
    }

    /** Gives up the state (this member left the group). */
    void cancel()
    {
        awaiting = false;
        forgetAssembly();
    }

    private void forgetAssembly()
    {
        image = null;
        cut = -1;
        snapshot = 0;
        received = 0;
    }

    private void ask(final long nowNs)
    {
        askedFrom = received;
        send(StateFlyweight.ASK, received);
        askDeadlineNs = nowNs + config.retransmitTimeoutNs;
    }

    private void send(final int kind, final int stateOffset)
    {
        final ByteBuffer out = outbox.buffer();
        packet.wrap(out, 0);
        packet.set(Outbox.WIRE_ORDER, outbox.selfId(), outbox.nextPacketId(), kind, snapshot, minCut, stateOffset, transfer, 0);
        outbox.send(donorId, StateFlyweight.HEADER_LENGTH);
    }

    /** @return the member of {@code view} after the current donor (cyclic, never this member); the donor itself if none. */
    private int nextDonor(final int[] view)
    {
        int first = -1;
        int after = -1;
        for (final int id : view)
        {
            if (id == outbox.selfId())
            {
                continue;
            }
            if (first < 0)
            {
                first = id;
            }
            if (after < 0 && id > donorId)
            {
                after = id;
            }
        }
        return after >= 0 ? after : first >= 0 ? first : donorId;
    }

    @Override
    public String toString()
    {
        return "StateReceiver{awaiting=" + awaiting + ", minCut=" + minCut + ", donor=" + donorId + ", cut=" + cut + ", received=" + received +
            (image != null ? "/" + image.length : "") + '}';
    }
}
