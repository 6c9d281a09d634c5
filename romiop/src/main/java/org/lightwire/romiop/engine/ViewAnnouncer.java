package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Set;
import org.lightwire.romiop.engine.view.Configuration;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/**
 * The leader's announcement of its view (paper, section 4.1 and Figure 4 lines 24-27;
 * docs/romiop.md, "Membership"): a MemberChange LIST naming the leader first, the other members
 * ascending (learners marked), then the members of the configuration outside the view (marked),
 * and the epoch. Each new view is multicast to the members and sent to every client seen, and
 * resent every {@code retransmitTimeoutNs} until every member of the view has ACKed it, and every
 * client too for at most {@code replyGiveUpNs}. It also keeps the clients seen (most recent last,
 * at most {@code maxClients}) and when each was last sent the view: a new client, or one that
 * retransmits, may wait for members that are gone.
 */
final class ViewAnnouncer
{
    /** The view announced. */
    interface View
    {
        /** @return the members of the view, ascending. */
        int[] ids();

        int leaderId();

        int epoch();

        Configuration configuration();
    }

    private final GroupConfig config;
    private final GroupCounters counters;
    private final Outbox outbox;
    private final ByteBuffer out;
    private final View view;
    private final MemberChangeFlyweight list = new MemberChangeFlyweight();
    /** Clients seen, most recent last, to when they were last sent the view. */
    private final LinkedHashMap<Integer, Long> knownClients = new LinkedHashMap<>(16, 0.75f, true);
    /** The LIST being announced (resent until ACKed), or null. */
    private byte[] pending;
    private int pendingId;
    private final Set<Integer> ackedBy = new HashSet<>();
    private long firstSentNs;
    private long deadlineNs;

    ViewAnnouncer(final GroupConfig config, final GroupCounters counters, final Outbox outbox, final View view)
    {
        this.config = config;
        this.counters = counters;
        this.outbox = outbox;
        this.out = outbox.buffer();
        this.view = view;
    }

    /** Multicasts the view as a LIST and sends it to every client seen; resent until ACKed. */
    void announce(final long nowNs)
    {
        pending = listPacket();
        pendingId = list.packetId();
        ackedBy.clear();
        firstSentNs = nowNs;
        deadlineNs = nowNs + config.retransmitTimeoutNs;
        outbox.send(GroupSender.GROUP, pending, pending.length);
        for (final int clientId : knownClients.keySet())
        {
            outbox.send(clientId, pending, pending.length);
        }
    }

    /** Stops announcing (this member no longer leads). */
    void stop()
    {
        pending = null;
    }

    /** {@code from} ACKed our LIST {@code packetId}. */
    void onAck(final int from, final int packetId)
    {
        if (pending != null && packetId == pendingId)
        {
            ackedBy.add(from);
        }
    }

    void onTimer(final long nowNs)
    {
        if (pending == null || deadlineNs - nowNs > 0)
        {
            return;
        }
        boolean membersMissing = false;
        for (final int id : view.ids())
        {
            membersMissing |= id != config.selfId && !ackedBy.contains(id);
        }
        final boolean clientsGiveUp = nowNs - firstSentNs >= config.replyGiveUpNs;
        boolean clientsMissing = false;
        for (final int clientId : knownClients.keySet())
        {
            if (!ackedBy.contains(clientId) && !clientsGiveUp)
            {
                clientsMissing = true;
                outbox.send(clientId, pending, pending.length);
            }
        }
        if (membersMissing)
        {
            outbox.send(GroupSender.GROUP, pending, pending.length);
        }
        if (!membersMissing && !clientsMissing)
        {
            pending = null;
            return;
        }
        deadlineNs = nowNs + config.retransmitTimeoutNs;
    }

    /** @return when {@link #onTimer} resends, or {@link Deadlines#NONE}. */
    long nextDeadlineNs()
    {
        return pending != null ? deadlineNs : Deadlines.NONE;
    }

    /** A joiner just added: the view goes to it by unicast (the one announced, or the current one). */
    void sendToJoiner(final int memberId)
    {
        final byte[] current = pending != null ? pending : listPacket();
        outbox.send(memberId, current, current.length);
    }

    /** Sends the view to {@code destinationId} alone, naming {@code subject}. */
    void send(final int destinationId, final int subject)
    {
        write(subject);
        outbox.send(destinationId, list.packetSize());
    }

    /**
     * A request of {@code clientId} arrived: a new client is sent the view by a leader, and so is
     * one retransmitting ({@code retransmits}) when it was not sent the view within the last
     * {@code retransmitTimeoutNs}.
     */
    void clientSeen(final int clientId, final boolean leading, final boolean retransmits, final long nowNs)
    {
        final Long sentNs = knownClients.get(clientId);
        if (leading && (sentNs == null || (retransmits && nowNs - sentNs >= config.retransmitTimeoutNs)))
        {
            counters.viewsSentToClients++;
            send(clientId, view.leaderId());
            knownClients.put(clientId, nowNs);
        }
        else if (sentNs == null)
        {
            knownClients.put(clientId, Long.MIN_VALUE / 2);
        }
        if (knownClients.size() > config.maxClients)
        {
            final Iterator<Integer> eldest = knownClients.keySet().iterator();
            eldest.next();
            eldest.remove();
        }
    }

    /** @return true when {@code id} was seen as a client. */
    boolean knowsClient(final int id)
    {
        return knownClients.containsKey(id);
    }

    private byte[] listPacket()
    {
        write(config.selfId);
        final byte[] copy = new byte[list.packetSize()];
        out.get(0, copy);
        return copy;
    }

    /** Writes the LIST naming {@code subject} at the start of the send buffer. */
    private void write(final int subject)
    {
        final int[] ids = view.ids();
        final int leaderId = view.leaderId();
        final Configuration configuration = view.configuration();
        final int[] outside = Arrays.stream(configuration.ids()).filter(id -> Arrays.binarySearch(ids, id) < 0)
            .limit(Math.max(0, config.viewLimit() - ids.length)).toArray();
        list.wrap(out, 0);
        list.setList(Outbox.WIRE_ORDER, config.selfId, outbox.nextPacketId(), subject, ids.length + outside.length, view.epoch());
        list.member(0, leaderId);
        int i = 1;
        for (final int id : ids)
        {
            if (id != leaderId)
            {
                list.member(i++, configuration.contains(id) ? id : id | MemberChangeFlyweight.LEARNER);
            }
        }
        for (final int id : outside)
        {
            list.member(i++, id | MemberChangeFlyweight.OUTSIDE_VIEW);
        }
    }
}
