package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lightwire.romiop.engine.OneEngine.MS;
import static org.lightwire.romiop.engine.OneEngine.feed;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.KeepAliveFlyweight;

/**
 * A member tells a leader of an older epoch the epoch it is in with a KeepAlive flagged TOLD.
 * Unflagged, the same KeepAlive made a member that followed the teller take the teller for the
 * leader of the newer epoch (hostile seed 23 of seven: 2 followed 4 in epoch 6; 4, a member of 3's
 * epoch 8, answered a replayed KeepAlive of 2's old leadership; 2 entered epoch 8 under 4, could
 * not report to 3's epoch 8, and took over alone for good). Flagged, the follower rejoins instead.
 */
class ToldKeepAliveTest
{
    private final SentPackets sent = new SentPackets();

    /** Member 2 of [1, 2, 3], a first start, following 1 in epoch 2. */
    private MemberEngine followingOneInEpochTwo()
    {
        final MemberEngine m = OneEngine.started(new GroupConfig(2, 1, 1, 2, 3).startCount(1), sent);
        feed(m, WirePackets.keepAlive(1, 10, 2, 0, 0), MS);
        assertEquals(List.of(MemberEngine.State.MEMBER, 2), List.of(m.state(), m.epoch()));
        return m;
    }

    private static ByteBuffer told(final int from, final int packetId, final int epoch)
    {
        final ByteBuffer b = WirePackets.keepAlive(from, packetId, epoch, 0, 0);
        final KeepAliveFlyweight k = new KeepAliveFlyweight();
        k.wrap(b, 0);
        k.header().told(true);
        return b;
    }

    @Test
    void aLeadersWordOfANewerEpochIsFollowed()
    {
        final MemberEngine m = followingOneInEpochTwo();
        feed(m, WirePackets.keepAlive(1, 11, 4, 0, 0), 2 * MS);
        assertEquals(List.of(MemberEngine.State.MEMBER, 4, 1), List.of(m.state(), m.epoch(), m.leaderId()));
    }

    @Test
    void aMembersToldEpochIsNoLeadersWordItsFollowerRejoins()
    {
        final MemberEngine m = followingOneInEpochTwo();
        feed(m, told(1, 11, 4), 2 * MS);
        assertEquals(List.of(MemberEngine.State.JOINING, 2), List.of(m.state(), m.epoch()), "epoch 4 not entered under 1");
        assertEquals(1, m.counters().staleLeadersLeft());
    }

    @Test
    void aMemberTellsAnOlderEpochsLeaderWithTheFlag()
    {
        final MemberEngine m = followingOneInEpochTwo();
        feed(m, WirePackets.keepAlive(3, 12, 1, 0, 0), 2 * MS);
        final List<KeepAliveFlyweight> toldSent = sent.keepAlives().stream().filter(k -> k.header().told()).toList();
        assertEquals(1, toldSent.size());
        assertEquals(2, toldSent.get(0).epoch());
    }
}
