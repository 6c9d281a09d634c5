package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.lightwire.romiop.protocol.StateFlyweight;

/**
 * The STATE packets of a member (docs/romiop.md, "State transfer"): asks go to its
 * {@link StateDonor}, chunks, capture notices and refusals to its {@link StateReceiver}; a whole
 * state is installed at its cut (the requests the donor executed are finished here too, the
 * application takes its part, and delivery goes on after the cut); a state that cannot be had
 * stops the member, which keeps its place in the configuration (a failed member, until it is
 * restarted with a state it can take).
 */
final class StateTransfer
{
    /** The member that gives and takes states. */
    interface Member
    {
        /** @return true when {@code id} is in the view or the configuration: its STATE packets are taken. */
        boolean inGroup(int id);

        /** A packet from {@code id} arrived now. */
        void heard(int id, long nowNs);

        /** @return true when this member may give its state to {@code askerId} now. */
        boolean givesState(int askerId);

        /** @return the view, ascending. */
        int[] view();

        void deliverInOrder(long nowNs);

        /** No state for this member: it serves nothing more. */
        void stop(long nowNs);
    }

    private final int selfId;
    private final GroupCounters counters;
    private final Outbox outbox;
    private final OrderedDelivery delivery;
    private final StateDonor donor;
    private final StateReceiver receiver;
    private final StateHandler stateHandler;
    /** The requests this member executed, and those it will not execute (see {@link MemberEngine}). */
    private final DuplicateFilter executed;
    private final DuplicateFilter finished;
    private final Member member;
    private final StateFlyweight statePacket = new StateFlyweight();

    StateTransfer(final int selfId, final GroupCounters counters, final Outbox outbox, final OrderedDelivery delivery, final StateDonor donor,
        final StateReceiver receiver, final StateHandler stateHandler, final DuplicateFilter executed, final DuplicateFilter finished,
        final Member member)
    {
        this.selfId = selfId;
        this.counters = counters;
        this.outbox = outbox;
        this.delivery = delivery;
        this.donor = donor;
        this.receiver = receiver;
        this.stateHandler = stateHandler;
        this.executed = executed;
        this.finished = finished;
        this.member = member;
    }

    void onPacket(final ByteBuffer buffer, final int offset, final int length, final long nowNs)
    {
        if (!Packets.wrapValid(statePacket, buffer, offset, length, counters))
        {
            return;
        }
        outbox.observe(statePacket.packetId());
        final int from = statePacket.senderId();
        if (from == selfId || !member.inGroup(from))
        {
            counters.unexpectedPackets++;
            return;
        }
        member.heard(from, nowNs);
        switch (statePacket.kind())
        {
            case StateFlyweight.ASK -> donor.ask(from, statePacket.transfer(), statePacket.snapshot(), statePacket.cut(), statePacket.stateOffset(),
                delivery.deliveredSeq(), member.givesState(from), nowNs);
            case StateFlyweight.CHUNK ->
            {
                final byte[] image;
                try
                {
                    image = receiver.onChunk(from, statePacket, nowNs);
                }
                catch (final IllegalStateException tooLarge)
                {
                    receiver.cancel();
                    refused(tooLarge.getMessage(), nowNs);
                    return;
                }
                if (image != null)
                {
                    install(receiver.cut(), image, nowNs);
                }
            }
            case StateFlyweight.CAPTURING -> receiver.onCapturing(from, nowNs);
            default ->
            {
                if (receiver.onRefused(from, member.view(), nowNs))
                {
                    final ByteBuffer text = buffer.duplicate().position(statePacket.dataOffset()).limit(statePacket.dataOffset() + statePacket.dataLength());
                    refused(StandardCharsets.UTF_8.decode(text).toString(), nowNs);
                }
            }
        }
    }

    /**
     * Installs the state taken after order {@code cut} at the donor: the requests it executed are
     * finished here too, the application takes its part, and delivery goes on after the cut.
     */
    private void install(final long cut, final byte[] image, final long nowNs)
    {
        final ByteBuffer b = ByteBuffer.wrap(image);
        final int engineBytes = image.length >= 4 ? b.getInt() : -1;
        try
        {
            if (engineBytes < 0 || engineBytes > b.remaining())
            {
                throw new IllegalArgumentException("its engine part claims " + engineBytes + " of " + image.length + " bytes");
            }
            executed.mergeImage(b.slice(4, engineBytes));
            finished.mergeImage(b.slice(4, engineBytes));
        }
        catch (final IllegalArgumentException e)
        {
            refused("member " + receiver.donorId() + "'s state after order " + cut + " is malformed: " + e.getMessage(), nowNs);
            return;
        }
        delivery.installedAt(cut);
        stateHandler.installState(cut, Arrays.copyOfRange(image, 4 + engineBytes, image.length));
        member.deliverInOrder(nowNs);
    }

    /** No state for this member ({@code reason}): it serves nothing, and stops. */
    private void refused(final String reason, final long nowNs)
    {
        stateHandler.stateRefused(reason);
        // It stops, but does not leave its configuration (no REMOVED): the group counts it as
        // failed, as it would a crashed member, until it is restarted with a state it can take.
        receiver.cancel();
        member.stop(nowNs);
    }
}
