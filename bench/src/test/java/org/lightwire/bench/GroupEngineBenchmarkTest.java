package org.lightwire.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The group engine benchmark measures what it says: each operation is one two-way call that every
 * member delivers and answers, with no retransmission, NAK or duplicate paying for the figure.
 */
class GroupEngineBenchmarkTest
{
    @Test
    void eachOperationIsOneCallDeliveredAndAnsweredByEveryMember()
    {
        final GroupEngineBenchmark b = new GroupEngineBenchmark();
        b.setUp();
        int replies = 0;
        for (int i = 0; i < 2_000; i++)
        {
            replies = b.twoWayCallToThree();
        }
        assertEquals(6_000, replies);
        assertEquals(2_000, b.client().counters().requestsSent());
        assertEquals(0, b.client().counters().requestRetransmits());
        assertEquals(6_000, b.client().counters().repliesDelivered());
        assertEquals(0, b.client().counters().duplicateReplies());
        assertEquals(2_000, b.member(1).counters().ordersSent(), "the leader orders each call at once");
        for (int id = 1; id <= 3; id++)
        {
            assertEquals(2_000, b.member(id).counters().delivered(), "member " + id);
            assertEquals(2_000, b.member(id).counters().repliesSent(), "member " + id);
            assertEquals(0, b.member(id).counters().replyRetransmits(), "member " + id);
            assertEquals(0, b.member(id).counters().orderRetransmits(), "member " + id);
            assertEquals(0, b.member(id).counters().orderNaksSent() + b.member(id).counters().requestNaksSent(), "member " + id);
        }
        // The delayed ACKs flow as the clock moves (200 ms in 2,000 calls): the members' replies
        // are released by the client's calls-done ACKs, all but the last few calls'.
        assertTrue(b.member(2).counters().repliesAckedByCallsDone() > 1_900, b.member(2).counters().toString());
    }
}
