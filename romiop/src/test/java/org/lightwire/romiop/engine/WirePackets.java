package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.NakFlyweight;
import org.lightwire.romiop.protocol.OrderAckFlyweight;
import org.lightwire.romiop.protocol.RequestFlyweight;
import org.lightwire.romiop.protocol.StateFlyweight;

/** Single packets as members and clients send them, for the rule tests that feed one engine. */
final class WirePackets
{
    private WirePackets()
    {
    }

    /**
     * A takeover's REMOVED: {@code from} takes over from failed {@code subject}, proposing
     * {@code proposed}; it was in {@code fromEpoch} and delivered {@code fromDelivered}.
     */
    static ByteBuffer takeover(final int from, final int subject, final int proposed, final int fromEpoch, final int fromDelivered)
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(3));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, from, 40 + proposed, subject, MemberChangeFlyweight.STATUS_REMOVED, 3)
            .member(0, proposed).member(1, fromEpoch).member(2, fromDelivered);
        return b;
    }

    /** A joiner's ADDED naming the epoch it reported for (0: none). */
    static ByteBuffer added(final int joiner, final int packetId, final int promisedEpoch)
    {
        final int entries = promisedEpoch == 0 ? 0 : 1;
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(entries));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, joiner, packetId, joiner, MemberChangeFlyweight.STATUS_ADDED, entries);
        if (entries == 1)
        {
            m.member(0, promisedEpoch);
        }
        return b;
    }

    /** A member's ONLINE: it started. */
    static ByteBuffer online(final int member, final int packetId)
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(0));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, member, packetId, member, MemberChangeFlyweight.STATUS_ONLINE, 0);
        return b;
    }

    /** {@code from}'s EPOCH_ASK {@code nonce}, as a possibly restarted process (or a founding leader) sends it. */
    static ByteBuffer epochAsk(final int from, final int packetId, final int nonce)
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(MemberChangeFlyweight.ASK_ENTRIES));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, from, packetId, from, MemberChangeFlyweight.STATUS_EPOCH_ASK, MemberChangeFlyweight.ASK_ENTRIES)
            .ask(nonce, 0, 0);
        return b;
    }

    /**
     * Founding leader {@code from}'s EPOCH_ASK {@code nonce}, proposing the epoch it orders in once
     * its check passed, naming its {@code configuration} (ascending).
     */
    static ByteBuffer foundingAsk(final int from, final int packetId, final int nonce, final int... configuration)
    {
        final int entries = MemberChangeFlyweight.ASK_ENTRIES + configuration.length;
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(entries));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, from, packetId, from, MemberChangeFlyweight.STATUS_EPOCH_ASK, entries).ask(nonce, OneEngine.ORDERING_EPOCH, 0);
        for (int i = 0; i < configuration.length; i++)
        {
            m.member(MemberChangeFlyweight.ASK_ENTRIES + i, configuration[i]);
        }
        return b;
    }

    /** {@code from}'s answer to {@code asker}'s EPOCH_ASK {@code nonce}: the newest epoch it is in or promised. */
    static ByteBuffer epochTold(final int from, final int packetId, final int asker, final int nonce, final int epoch)
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(2));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, from, packetId, asker, MemberChangeFlyweight.STATUS_EPOCH_TOLD, 2).member(0, nonce).member(1, epoch);
        return b;
    }

    /**
     * Leader {@code from}'s answer to {@code asker}'s EPOCH_ASK {@code nonce}, sent while it orders
     * in {@code epoch}, its last order {@code lastOrderSeq}: what a possibly restarted joiner needs
     * before that leader's KeepAlive of that epoch admits it.
     */
    static ByteBuffer leaderTold(final int from, final int packetId, final int asker, final int nonce, final int epoch, final long lastOrderSeq)
    {
        final int entries = MemberChangeFlyweight.TOLD_TAIL_ENTRIES;
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(entries));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, from, packetId, asker, MemberChangeFlyweight.STATUS_EPOCH_TOLD, entries).member(0, nonce).member(1, epoch)
            .member(2, 1).member(3, 1).member(4, 0).toldTail(lastOrderSeq, 0, epoch);
        return b;
    }

    /** As {@link #epochTold(int, int, int, int, int)}, saying whether {@code from} holds orders, its configuration the asker's. */
    static ByteBuffer epochTold(final int from, final int packetId, final int asker, final int nonce, final int epoch,
        final boolean holdsOrders)
    {
        return epochTold(from, packetId, asker, nonce, epoch, holdsOrders, true);
    }

    /**
     * As {@link #epochTold(int, int, int, int, int, boolean)}, saying whether {@code from}'s
     * configuration is the one the ask named; {@code from} promised {@code epoch} to that ask when
     * it says it holds no orders, has the same configuration and {@code epoch} is the epoch after
     * the founding one (the first proposal of a founding leader's check).
     */
    static ByteBuffer epochTold(final int from, final int packetId, final int asker, final int nonce, final int epoch,
        final boolean holdsOrders, final boolean sameConfiguration)
    {
        return epochTold(from, packetId, asker, nonce, epoch, holdsOrders, sameConfiguration,
            !holdsOrders && sameConfiguration && epoch == OneEngine.ORDERING_EPOCH);
    }

    /** The whole answer: as above, and whether {@code from} promised {@code epoch} to that ask. */
    static ByteBuffer epochTold(final int from, final int packetId, final int asker, final int nonce, final int epoch,
        final boolean holdsOrders, final boolean sameConfiguration, final boolean promised)
    {
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.length(5));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.set(ByteOrder.BIG_ENDIAN, from, packetId, asker, MemberChangeFlyweight.STATUS_EPOCH_TOLD, 5)
            .member(0, nonce).member(1, epoch).member(2, holdsOrders ? 1 : 0).member(3, sameConfiguration ? 1 : 0)
            .member(4, promised ? 1 : 0);
        return b;
    }

    /** A leader's view announcement in epoch 1: {@code leader} first, then {@code others}. */
    static ByteBuffer list(final int leader, final int packetId, final int... others)
    {
        return listInEpoch(leader, packetId, 1, others);
    }

    /** A leader's view announcement in {@code epoch}: {@code leader} first, then {@code others}. */
    static ByteBuffer listInEpoch(final int leader, final int packetId, final int epoch, final int... others)
    {
        return listWithConfiguration(leader, packetId, epoch, others);
    }

    /** A leader's view announcement in {@code epoch}: {@code leader}, {@code others}, then {@code outside} the view (marked). */
    static ByteBuffer listWithConfiguration(final int leader, final int packetId, final int epoch, final int[] others, final int... outside)
    {
        final int size = 1 + others.length + outside.length;
        final ByteBuffer b = ByteBuffer.allocate(MemberChangeFlyweight.listLength(size));
        final MemberChangeFlyweight m = new MemberChangeFlyweight();
        m.wrap(b, 0);
        m.setList(ByteOrder.BIG_ENDIAN, leader, packetId, leader, size, epoch).member(0, leader);
        for (int i = 0; i < others.length; i++)
        {
            m.member(1 + i, others[i]);
        }
        for (int i = 0; i < outside.length; i++)
        {
            m.member(1 + others.length + i, outside[i] | MemberChangeFlyweight.OUTSIDE_VIEW);
        }
        return b;
    }

    static ByteBuffer keepAlive(final int from, final int packetId, final int epoch, final long lastOrderSeq, final long commit)
    {
        final ByteBuffer b = ByteBuffer.allocate(KeepAliveFlyweight.LENGTH);
        ((KeepAliveFlyweight)new KeepAliveFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, packetId, epoch, lastOrderSeq, commit);
        return b;
    }

    /** The leader's start KeepAlive to a joiner it admitted: {@code commit} is where the joiner starts. */
    static ByteBuffer start(final int from, final int packetId, final int epoch, final long lastOrderSeq, final long commit)
    {
        final ByteBuffer b = keepAlive(from, packetId, epoch, lastOrderSeq, commit);
        new KeepAliveFlyweight().wrap(b, 0).header().start(true);
        return b;
    }

    /**
     * The last packet of a survivor's report: delivered through {@code delivered}, accepted through
     * {@code accepted}, {@code entries} order entries sent before it.
     */
    static ByteBuffer reportEnd(final int from, final int packetId, final int epoch, final long delivered, final long accepted, final int entries)
    {
        final ByteBuffer b = keepAlive(from, packetId, epoch, accepted, delivered);
        final KeepAliveFlyweight k = new KeepAliveFlyweight();
        k.wrap(b, 0);
        k.reportEntries(entries).header().report(true);
        return b;
    }

    /** A survivor's report's KeepAlive with its tail: it knows the orders committed through {@code fixed} (incarnation 1, no reach, nothing known). */
    static ByteBuffer reportEnd(final int from, final int packetId, final int epoch, final long delivered, final long accepted, final int entries,
        final long fixed)
    {
        final int length = KeepAliveFlyweight.reportLength(0);
        final ByteBuffer b = ByteBuffer.allocate(length);
        final KeepAliveFlyweight k = new KeepAliveFlyweight();
        k.wrap(b, 0);
        k.set(ByteOrder.BIG_ENDIAN, from, packetId, epoch, accepted, delivered).reportEntries(entries);
        k.header().packetSize(length);
        k.reportTail(1, 0, 0, fixed, 0).header().report(true);
        return b;
    }

    /** A survivor's report entry: {@code client}'s request {@code requestPacketId} at {@code seq}, as it knew it in {@code epoch}. */
    static ByteBuffer reportEntry(final int from, final int packetId, final int epoch, final long seq, final int client, final int requestPacketId)
    {
        final ByteBuffer b = order(from, packetId, epoch, seq, client, requestPacketId, 0);
        new MsgOrderFlyweight().wrap(b, 0).header().report(true);
        return b;
    }

    /** A survivor's word to the takeover it reported to: it delivered {@code delivered} and can send orders from {@code firstServed} on. */
    static ByteBuffer servesFrom(final int from, final int packetId, final int promisedEpoch, final long delivered, final long firstServed)
    {
        final ByteBuffer b = keepAlive(from, packetId, promisedEpoch, delivered, firstServed - 1);
        final KeepAliveFlyweight k = new KeepAliveFlyweight();
        k.wrap(b, 0);
        k.header().told(true);
        return b;
    }

    /** A joiner's State ASK, in its transfer {@code transfer}, for a state at or after {@code minCut} from byte {@code offset}. */
    static ByteBuffer stateAsk(final int from, final int packetId, final long minCut, final int offset, final int transfer)
    {
        final ByteBuffer b = ByteBuffer.allocate(StateFlyweight.HEADER_LENGTH);
        ((StateFlyweight)new StateFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, packetId, StateFlyweight.ASK, minCut, offset, transfer, 0);
        return b;
    }

    /** A one-byte two-way Request of {@code client}. */
    static ByteBuffer request(final int client, final int packetId)
    {
        final ByteBuffer b = ByteBuffer.allocate(RequestFlyweight.HEADER_LENGTH + 1);
        ((RequestFlyweight)new RequestFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, client, packetId, packetId, 1, 1);
        return b;
    }

    /** A one-byte request {@code client} sends to the sequencer alone: its MsgOrder carries it to the others. */
    static ByteBuffer requestToSequencer(final int client, final int packetId)
    {
        final ByteBuffer b = request(client, packetId);
        ((RequestFlyweight)new RequestFlyweight().wrap(b, 0)).header().toSequencer(true);
        return b;
    }

    /** The leader's MsgOrder naming {@code client}'s request {@code requestPacketId} at {@code seq}, committed up to {@code commit}. */
    static ByteBuffer order(final int leader, final int packetId, final int epoch, final long seq, final int client, final int requestPacketId,
        final long commit)
    {
        final ByteBuffer b = ByteBuffer.allocate(MsgOrderFlyweight.length(1));
        final MsgOrderFlyweight o = new MsgOrderFlyweight();
        o.wrap(b, 0);
        o.set(ByteOrder.BIG_ENDIAN, leader, packetId, epoch, seq, 1, commit);
        o.entry(0, client, requestPacketId);
        return b;
    }

    /** An order NAK: {@code from} lacks the orders from {@code fromSeq} on. */
    static ByteBuffer orderNak(final int from, final int packetId, final long fromSeq)
    {
        final ByteBuffer b = ByteBuffer.allocate(NakFlyweight.HEADER_LENGTH);
        ((NakFlyweight)new NakFlyweight().wrap(b, 0)).setOrderNak(ByteOrder.BIG_ENDIAN, from, packetId, fromSeq);
        return b;
    }

    /** A request NAK: {@code from} lacks {@code client}'s request {@code requestPacketId}. */
    static ByteBuffer requestNak(final int from, final int packetId, final int client, final int requestPacketId)
    {
        final ByteBuffer b = ByteBuffer.allocate(NakFlyweight.length(1));
        ((NakFlyweight)new NakFlyweight().wrap(b, 0)).setRequestNak(ByteOrder.BIG_ENDIAN, from, packetId, 1).entry(0, client, requestPacketId);
        return b;
    }

    static ByteBuffer orderAck(final int from, final int packetId, final int epoch, final long accepted)
    {
        final ByteBuffer b = ByteBuffer.allocate(OrderAckFlyweight.LENGTH);
        ((OrderAckFlyweight)new OrderAckFlyweight().wrap(b, 0)).set(ByteOrder.BIG_ENDIAN, from, packetId, epoch, accepted, accepted);
        return b;
    }

    /**
     * A donor's State CHUNK: bytes {@code [stateOffset, stateOffset + data.length)} of a state of
     * {@code total} bytes taken after {@code cut}, tagged with the donor's id (one state per donor).
     */
    static ByteBuffer stateChunk(final int from, final int packetId, final long cut, final int stateOffset, final int total, final byte[] data)
    {
        return stateChunk(from, packetId, from, cut, stateOffset, total, data);
    }

    /** A donor's State REFUSED, with its reason. */
    static ByteBuffer stateRefused(final int from, final int packetId, final long cut, final String reason)
    {
        final byte[] text = reason.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        final ByteBuffer b = ByteBuffer.allocate(org.lightwire.romiop.protocol.StateFlyweight.HEADER_LENGTH + text.length);
        ((org.lightwire.romiop.protocol.StateFlyweight)new org.lightwire.romiop.protocol.StateFlyweight().wrap(b, 0))
            .set(ByteOrder.BIG_ENDIAN, from, packetId, org.lightwire.romiop.protocol.StateFlyweight.REFUSED, cut, 0, 0, text.length);
        b.put(org.lightwire.romiop.protocol.StateFlyweight.HEADER_LENGTH, text);
        return b;
    }

    /** As above, of the donor's state tagged {@code snapshot}. */
    static ByteBuffer stateChunk(final int from, final int packetId, final int snapshot, final long cut, final int stateOffset, final int total,
        final byte[] data)
    {
        final ByteBuffer b = ByteBuffer.allocate(org.lightwire.romiop.protocol.StateFlyweight.HEADER_LENGTH + data.length);
        ((org.lightwire.romiop.protocol.StateFlyweight)new org.lightwire.romiop.protocol.StateFlyweight().wrap(b, 0))
            .set(ByteOrder.BIG_ENDIAN, from, packetId, org.lightwire.romiop.protocol.StateFlyweight.CHUNK, snapshot, cut, stateOffset, total,
                data.length);
        b.put(org.lightwire.romiop.protocol.StateFlyweight.HEADER_LENGTH, data);
        return b;
    }
}
