package org.lightwire.romiop.engine;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.lightwire.romiop.protocol.AckFlyweight;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.MsgOrderFlyweight;
import org.lightwire.romiop.protocol.NakFlyweight;
import org.lightwire.romiop.protocol.PacketFlyweight;
import org.lightwire.romiop.protocol.PacketHeader_1_0;
import org.lightwire.romiop.protocol.PacketType;
import org.lightwire.romiop.protocol.RequestFlyweight;

/** A recording {@link GroupSender} for the unit tests of an engine's parts: every packet copied, with its destination. */
final class SentPackets implements GroupSender
{
    record Sent(int to, PacketType type, ByteBuffer bytes)
    {
    }

    final List<Sent> all = new ArrayList<>();

    @Override
    public void send(final int destinationId, final ByteBuffer packet, final int length)
    {
        final ByteBuffer copy = ByteBuffer.allocate(length);
        copy.put(0, packet, 0, length);
        all.add(new Sent(destinationId, new PacketHeader_1_0().wrap(copy, 0).type(), copy));
    }

    List<Sent> ofType(final PacketType type)
    {
        return all.stream().filter(s -> s.type == type).toList();
    }

    int size()
    {
        return all.size();
    }

    void clear()
    {
        all.clear();
    }

    private <T extends PacketFlyweight> List<T> wrapped(final PacketType type, final java.util.function.Supplier<T> flyweight)
    {
        final List<T> list = new ArrayList<>();
        for (final Sent s : ofType(type))
        {
            final T f = flyweight.get();
            f.wrap(s.bytes, 0);
            list.add(f);
        }
        return list;
    }

    List<AckFlyweight> acks()
    {
        return wrapped(PacketType.ACK, AckFlyweight::new);
    }

    List<org.lightwire.romiop.protocol.OrderAckFlyweight> orderAcks()
    {
        return wrapped(PacketType.ORDER_ACK, org.lightwire.romiop.protocol.OrderAckFlyweight::new);
    }

    List<NakFlyweight> naks()
    {
        return wrapped(PacketType.NAK, NakFlyweight::new);
    }

    List<MsgOrderFlyweight> orders()
    {
        return wrapped(PacketType.MSG_ORDER, MsgOrderFlyweight::new);
    }

    List<KeepAliveFlyweight> keepAlives()
    {
        return wrapped(PacketType.KEEP_ALIVE, KeepAliveFlyweight::new);
    }

    /** @return the nonce of the last EPOCH_ASK sent (a possibly-restarted process asking the members' epochs). */
    int lastEpochAskNonce()
    {
        final List<MemberChangeFlyweight> asks = memberChanges().stream()
            .filter(m -> m.status() == MemberChangeFlyweight.STATUS_EPOCH_ASK).toList();
        if (asks.isEmpty())
        {
            throw new AssertionError("no EPOCH_ASK sent");
        }
        return asks.get(asks.size() - 1).member(0);
    }

    List<MemberChangeFlyweight> memberChanges()
    {
        return wrapped(PacketType.MEMBER_CHANGE, MemberChangeFlyweight::new);
    }

    List<RequestFlyweight> requests()
    {
        return wrapped(PacketType.REQUEST, RequestFlyweight::new);
    }

    List<org.lightwire.romiop.protocol.ViewChangeFlyweight> viewChanges()
    {
        return wrapped(PacketType.VIEW_CHANGE, org.lightwire.romiop.protocol.ViewChangeFlyweight::new);
    }
}
