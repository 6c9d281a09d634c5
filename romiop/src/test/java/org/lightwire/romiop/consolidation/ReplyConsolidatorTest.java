package org.lightwire.romiop.consolidation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Every mode, consistency and outcome of reply consolidation, with exact decisions. */
class ReplyConsolidatorTest
{
    private static final long MS = 1_000_000L;
    private static final int[] GROUP = {1, 2, 3};
    private static final byte[] A = bytes("42");
    private static final byte[] B = bytes("41");
    private static final byte[] C = bytes("40");

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static ReplyConsolidator consolidator(final String spec)
    {
        return new ReplyConsolidator(ConsolidationPolicy.parse(spec), GROUP, 0);
    }

    @Test
    void firstReplyDecidesAtOnceAndLaterRepliesAreIgnored()
    {
        final ReplyConsolidator c = consolidator("mode=first");
        final Decision d = c.onReply(2, B);
        assertEquals(Outcome.SUCCESS, d.outcome());
        assertArrayEquals(B, d.reply());
        assertEquals(2, d.replyFrom());
        assertNull(c.onReply(1, A));
        assertEquals(1, c.ignored());
    }

    @Test
    void repliedCountsEachMembersReplyOnceAndForgetsAMemberThatLeft()
    {
        final ReplyConsolidator c = consolidator("mode=last");
        assertEquals(0, c.replied());
        assertNull(c.onReply(1, A));
        assertNull(c.onReply(1, A));
        assertNull(c.onReply(9, A));
        assertEquals(1, c.replied());
        assertNull(c.onReply(3, B));
        assertEquals(2, c.replied());
        assertNull(c.onMembersChanged(new int[] {1, 2}));
        assertEquals(1, c.replied());
    }

    @Test
    void lastReplyWaitsForEveryMemberAndReturnsTheLastToArrive()
    {
        final ReplyConsolidator c = consolidator("mode=last");
        assertNull(c.onReply(1, A));
        assertNull(c.onReply(3, B));
        final Decision d = c.onReply(2, C);
        assertEquals(Outcome.SUCCESS, d.outcome());
        assertArrayEquals(C, d.reply());
        assertEquals(2, d.replyFrom());
        assertArrayEquals(new int[] {1, 3, 2}, d.replied());
    }

    @Test
    void atomicSucceedsWhenAllAgreeAndIsAnInconsistentVoteWhenAFaultyReplicaDiffers()
    {
        final ReplyConsolidator ok = consolidator("mode=atomic");
        assertNull(ok.onReply(1, A));
        assertNull(ok.onReply(2, A));
        final Decision d = ok.onReply(3, A);
        assertEquals(Outcome.SUCCESS, d.outcome());
        assertArrayEquals(A, d.reply());

        final ReplyConsolidator faulty = consolidator("mode=atomic");
        faulty.onReply(1, A);
        faulty.onReply(3, A);
        final Decision bad = faulty.onReply(2, B);
        assertEquals(Outcome.INCONSISTENT_VOTE, bad.outcome());
        assertNull(bad.reply());
        assertTrue(bad.message().contains("2 x reply#1 from [1, 3]; 1 x reply#2 from [2]"), bad.message());
        assertEquals("IDL:omg.org/CORBA/INTERNAL:1.0", bad.outcome().exceptionId());
    }

    @Test
    void aQuorumIsThatManyIdenticalRepliesSoAFaultyReplicaCannotWinATie()
    {
        final ReplyConsolidator two = consolidator("quorum=2,consistency=all_same");
        assertNull(two.onReply(3, A));
        final Decision d = two.onReply(1, A);
        assertEquals(Outcome.SUCCESS, d.outcome());
        assertArrayEquals(new int[] {3, 1}, d.replied());
        assertTrue(d.message().startsWith("2 of 3 members gave the same reply (quorum 2)"), d.message());

        // 51% of 3 members, rounded up: 2 identical replies. The faulty reply (B) came first.
        final ReplyConsolidator percent = consolidator("quorum=51%,consistency=majority");
        assertNull(percent.onReply(2, B));
        assertNull(percent.onReply(1, A), "1 vote each: member 3 can still make a quorum");
        final Decision won = percent.onReply(3, A);
        assertEquals(Outcome.SUCCESS, won.outcome());
        assertArrayEquals(A, won.reply());
        assertEquals(1, won.replyFrom());

        // Consistency none: the quorum alone decides; no value can reach 2 of 3 after three differ.
        final ReplyConsolidator none = consolidator("quorum=2");
        none.onReply(1, A);
        assertNull(none.onReply(2, B));
        final Decision split = none.onReply(3, C);
        assertEquals(Outcome.INCONSISTENT_VOTE, split.outcome());
        assertTrue(split.message().startsWith("no reply can reach a quorum of 2 identical replies: 1 x reply#1 from [1]; " +
            "1 x reply#2 from [2]; 1 x reply#3 from [3]"), split.message());

        // All_same fails at the first dissent; all_different counts replies, not agreement.
        final ReplyConsolidator same = consolidator("quorum=2,consistency=all_same");
        same.onReply(1, A);
        assertEquals(Outcome.INCONSISTENT_VOTE, same.onReply(2, B).outcome());
        final ReplyConsolidator different = consolidator("quorum=2,consistency=all_different");
        different.onReply(1, A);
        final Decision distinct = different.onReply(2, B);
        assertEquals(Outcome.SUCCESS, distinct.outcome());
        assertArrayEquals(A, distinct.reply());

        // 100%: every member, all the same.
        final ReplyConsolidator all = consolidator("quorum=100%");
        all.onReply(1, A);
        all.onReply(2, A);
        assertEquals(Outcome.INCONSISTENT_VOTE, all.onReply(3, B).outcome());
    }

    @Test
    void aQuorumShortOfAgreementAtTheDeadlineIsInconsistentAndShortOfRepliesIsNoQuorum()
    {
        final ReplyConsolidator disagree = consolidator("quorum=2,timeout=100");
        disagree.onReply(1, A);
        assertNull(disagree.onReply(2, B), "member 3 could still agree with either");
        final Decision d = disagree.onTimer(100 * MS);
        assertEquals(Outcome.INCONSISTENT_VOTE, d.outcome());
        assertTrue(d.message().startsWith("2 of 3 members replied within 100 ms but fewer than 2 agree"), d.message());

        final ReplyConsolidator alone = consolidator("quorum=2,timeout=100");
        alone.onReply(1, A);
        assertEquals(Outcome.NO_QUORUM, alone.onTimer(100 * MS).outcome());
    }

    @Test
    void firstConsistentMajorityDecidesAsSoonAsOneReplyHasMoreThanHalfOfTheGroup()
    {
        final ReplyConsolidator c = consolidator("mode=first_consistent,consistency=majority");
        assertNull(c.onReply(1, A));
        assertNull(c.onReply(2, B), "1 vote each: the third can still make a majority");
        final Decision d = c.onReply(3, B);
        assertEquals(Outcome.SUCCESS, d.outcome());
        assertArrayEquals(B, d.reply());
        assertEquals(2, d.replyFrom());

        final ReplyConsolidator none = consolidator("mode=first_consistent,consistency=majority");
        none.onReply(1, A);
        none.onReply(2, B);
        final Decision bad = none.onReply(3, C);
        assertEquals(Outcome.INCONSISTENT_VOTE, bad.outcome());
    }

    @Test
    void firstConsistentAllSameFailsAtTheFirstDifferenceAndAllDifferentAtTheFirstRepeat()
    {
        final ReplyConsolidator same = consolidator("mode=first_consistent,consistency=all_same");
        assertNull(same.onReply(1, A));
        assertEquals(Outcome.INCONSISTENT_VOTE, same.onReply(2, B).outcome(), "decided before member 3 replies");

        final ReplyConsolidator different = consolidator("mode=first_consistent,consistency=all_different");
        assertNull(different.onReply(1, A));
        assertNull(different.onReply(2, B));
        final Decision d = different.onReply(3, C);
        assertEquals(Outcome.SUCCESS, d.outcome());
        assertArrayEquals(A, d.reply());

        final ReplyConsolidator repeat = consolidator("mode=first_consistent,consistency=all_different");
        repeat.onReply(1, A);
        assertEquals(Outcome.INCONSISTENT_VOTE, repeat.onReply(3, A).outcome());
    }

    @Test
    void aDuplicateReplyFromOneMemberIsOneVote()
    {
        final ReplyConsolidator c = consolidator("mode=first_consistent,consistency=majority");
        assertNull(c.onReply(1, A));
        assertNull(c.onReply(1, A), "the same member again is not a second vote");
        assertEquals(1, c.duplicates());
        assertNull(c.onReply(7, A), "7 is not a member");
        assertEquals(1, c.ignored());
        assertEquals(Outcome.SUCCESS, c.onReply(2, A).outcome());
    }

    @Test
    void theTimeoutForcesADecisionWithWhatHasArrived()
    {
        final ReplyConsolidator nobody = consolidator("mode=atomic,timeout=500ms");
        assertNull(nobody.onTimer(499 * MS));
        final Decision t = nobody.onTimer(500 * MS);
        assertEquals(Outcome.TIMEOUT, t.outcome());
        assertTrue(t.message().startsWith("no member replied within 500 ms"), t.message());
        assertEquals("IDL:omg.org/CORBA/TIMEOUT:1.0", t.outcome().exceptionId());

        // A replica that answers too late: the quorum is not reached in time.
        final ReplyConsolidator late = consolidator("mode=atomic,timeout=500ms");
        late.onReply(1, A);
        late.onReply(2, A);
        final Decision q = late.onTimer(600 * MS);
        assertEquals(Outcome.NO_QUORUM, q.outcome());
        assertEquals("2 of 3 members replied within 500 ms; quorum 3 (atomic) not reached; missing: [3] " +
            "[policy mode=atomic,consistency=all_same,timeout=500ms]", q.message());
        assertNull(late.onReply(3, A), "the late reply changes nothing");
        assertEquals(1, late.ignored());

        final ReplyConsolidator lastOfTwo = consolidator("mode=last,consistency=all_same,timeout=1s");
        lastOfTwo.onReply(3, A);
        lastOfTwo.onReply(1, A);
        final Decision l = lastOfTwo.onTimer(1000 * MS);
        assertEquals(Outcome.SUCCESS, l.outcome(), "last reply consolidates what arrived");
        assertEquals(1, l.replyFrom());
        assertTrue(l.message().startsWith("2 of 3 members replied within 1000 ms; consolidated with those"), l.message());
    }

    @Test
    void keyMembersMustReplyAndAKeyMemberLeavingDecidesAtOnce()
    {
        final ReplyConsolidator wait = consolidator("mode=first,key_members=3");
        assertNull(wait.onReply(1, A), "the first reply does not decide before key member 3 replied");
        final Decision d = wait.onReply(3, B);
        assertEquals(Outcome.SUCCESS, d.outcome());
        assertArrayEquals(A, d.reply(), "first reply still means the first to arrive");

        final ReplyConsolidator gone = consolidator("mode=quorum,quorum=2,key_members=2");
        gone.onReply(1, A);
        final Decision missing = gone.onMembersChanged(new int[] {1, 3});
        assertEquals(Outcome.KEY_MEMBER_MISSING, missing.outcome());
        assertTrue(missing.message().startsWith("key member 2 is not in the group [1, 3]"), missing.message());

        final ReplyConsolidator silent = consolidator("mode=quorum,quorum=2,key_members=2,timeout=100");
        silent.onReply(1, A);
        silent.onReply(3, A);
        assertEquals(Outcome.KEY_MEMBER_MISSING, silent.onTimer(100 * MS).outcome());
    }

    @Test
    void aMemberThatLeavesIsNoLongerAwaitedAndTakesItsVoteWithIt()
    {
        final ReplyConsolidator atomic = consolidator("mode=atomic");
        atomic.onReply(1, A);
        atomic.onReply(2, A);
        final Decision d = atomic.onMembersChanged(new int[] {1, 2});
        assertEquals(Outcome.SUCCESS, d.outcome(), "member 3 crashed: the two survivors agree");
        assertArrayEquals(new int[] {1, 2}, d.members());

        final ReplyConsolidator vote = consolidator("mode=atomic");
        vote.onReply(3, B);
        vote.onReply(1, A);
        assertNull(vote.onMembersChanged(new int[] {1, 2}), "3's differing reply no longer counts; 2 is awaited");
        assertEquals(Outcome.SUCCESS, vote.onReply(2, A).outcome());

        final ReplyConsolidator shrink = consolidator("quorum=3");
        shrink.onReply(1, A);
        final Decision q = shrink.onMembersChanged(new int[] {1, 2});
        assertEquals(Outcome.NO_QUORUM, q.outcome());
        assertTrue(q.message().startsWith("quorum of 3 members, but the group has 2 [1, 2]"), q.message());
    }

    @Test
    void aMemberThatJoinsDuringTheCallIsNotAwaitedNorCounted()
    {
        // The call started with [1, 2, 3]; member 3 left and member 4 joined: 4 may have joined after
        // the request was ordered, so it would never deliver it.
        final ReplyConsolidator atomic = consolidator("mode=atomic");
        atomic.onReply(1, A);
        assertNull(atomic.onMembersChanged(new int[] {1, 2, 4}), "2 is still awaited, 4 is not");
        assertNull(atomic.onReply(4, A), "a joiner's reply does not count");
        final Decision d = atomic.onReply(2, A);
        assertEquals(Outcome.SUCCESS, d.outcome());
        assertArrayEquals(new int[] {1, 2}, d.members());
    }

    @Test
    void repliesComeFromBuffersAndAreComparedByteForByte()
    {
        final ReplyConsolidator c = consolidator("mode=atomic");
        final ByteBuffer buffer = ByteBuffer.wrap(bytes("xx42yy"));
        assertNull(c.onReply(1, buffer, 2, 2));
        buffer.put(2, (byte)'9');
        assertNull(c.onReply(2, ByteBuffer.wrap(bytes("42")), 0, 2));
        final Decision d = c.onReply(3, A);
        assertEquals(Outcome.SUCCESS, d.outcome(), "member 1's reply was copied before the buffer changed");
    }

    @Test
    void policiesComeFromPropertiesWithGroupOverridesAndFromTheCompactForm()
    {
        final Map<String, String> props = new HashMap<>();
        props.put("jacorb.lightwire.romiop.consolidation.mode", "quorum");
        props.put("jacorb.lightwire.romiop.consolidation.quorum", "2");
        props.put("jacorb.lightwire.romiop.consolidation.timeout_ms", "750");
        props.put("jacorb.lightwire.romiop.group.bank.consolidation.quorum", "51%");
        props.put("jacorb.lightwire.romiop.group.bank.consolidation.consistency", "majority");
        assertEquals("mode=quorum_count,quorum=2,consistency=none,timeout=750ms", ConsolidationPolicy.fromProperties(props::get, "other").toString());
        assertEquals("mode=quorum_percent,quorum=51%,consistency=majority,timeout=750ms", ConsolidationPolicy.fromProperties(props::get, "bank").toString());
        assertEquals("mode=atomic,consistency=all_same,timeout=10000ms", ConsolidationPolicy.fromProperties(k -> null, "any").toString());
        assertEquals("mode=first_reply,consistency=none,timeout=2000ms,key_members=1;4",
            ConsolidationPolicy.parse("mode=first, timeout=2s, key_members=4;1").toString());
    }

    @Test
    void badSettingsNameTheSettingAndWhatIsAllowed()
    {
        final Map<String, String> props = Map.of("jacorb.lightwire.romiop.group.g.consolidation.mode", "vote");
        assertEquals("jacorb.lightwire.romiop.group.g.consolidation.mode = vote is not one of first_reply, last_reply, first_consistent, quorum, atomic",
            assertThrows(IllegalArgumentException.class, () -> ConsolidationPolicy.fromProperties(props::get, "g")).getMessage());
        assertEquals("consolidation spec 'quorum=101%': quorum 101% must be 1..100 percent",
            assertThrows(IllegalArgumentException.class, () -> ConsolidationPolicy.parse("quorum=101%")).getMessage());
        assertEquals("consolidation spec 'mode=atomic,timeout=soon': timeout = soon is not a time in ms (e.g. 500, 500ms or 2s)",
            assertThrows(IllegalArgumentException.class, () -> ConsolidationPolicy.parse("mode=atomic,timeout=soon")).getMessage());
        assertEquals("consolidation spec 'voters=3': voters: unknown setting; the settings are mode, quorum, consistency, timeout and key_members",
            assertThrows(IllegalArgumentException.class, () -> ConsolidationPolicy.parse("voters=3")).getMessage());
        assertEquals("consolidation spec 'mode=quorum': quorum 0 must be at least 1 member",
            assertThrows(IllegalArgumentException.class, () -> ConsolidationPolicy.parse("mode=quorum")).getMessage());
        assertEquals("consolidation spec 'atomic': 'atomic' is not key=value",
            assertThrows(IllegalArgumentException.class, () -> ConsolidationPolicy.parse("atomic")).getMessage());
    }

    @Test
    void everyFailureOutcomeMapsToASystemExceptionWithAVendorMinorCode()
    {
        assertNull(Outcome.SUCCESS.exceptionId());
        assertEquals("IDL:omg.org/CORBA/TRANSIENT:1.0", Outcome.NO_QUORUM.exceptionId());
        assertEquals("IDL:omg.org/CORBA/TRANSIENT:1.0", Outcome.KEY_MEMBER_MISSING.exceptionId());
        assertEquals(0x4C570020, Outcome.TIMEOUT.minor());
        assertEquals(0x4C570023, Outcome.KEY_MEMBER_MISSING.minor());
        assertEquals("COMPLETED_YES", Outcome.INCONSISTENT_VOTE.completion());
    }

    // Edge cases, after the alternative consolidation branch (rcons) had them.

    @Test
    void aQuorumLargerThanTheGroupOrAnEmptyGroupIsNoQuorumAtOnce()
    {
        final Decision tooMany = new ReplyConsolidator(ConsolidationPolicy.parse("quorum=4"), GROUP, 0).onMembersChanged(GROUP);
        assertEquals(Outcome.NO_QUORUM, tooMany.outcome());
        final Decision empty = new ReplyConsolidator(ConsolidationPolicy.parse("mode=atomic"), GROUP, 0).onMembersChanged(new int[0]);
        assertEquals(Outcome.NO_QUORUM, empty.outcome());
    }

    @Test
    void aPercentQuorumRoundsUpAndNeverFallsBelowOneMember()
    {
        // 51% of 3 is 1.53: two identical replies.
        final ReplyConsolidator c = consolidator("quorum=51%");
        assertNull(c.onReply(1, A));
        assertEquals(Outcome.SUCCESS, c.onReply(2, A).outcome());
        // 1% of 3 is 0.03: still one reply.
        assertEquals(Outcome.SUCCESS, consolidator("quorum=1%").onReply(3, B).outcome());
    }

    @Test
    void noReplyAtAllByTheDeadlineIsATimeoutEvenWithKeyMembers()
    {
        final ReplyConsolidator c = new ReplyConsolidator(ConsolidationPolicy.parse("quorum=2,key_members=2,timeout=5ms"), GROUP, 0);
        assertNull(c.onTimer(4 * MS));
        final Decision d = c.onTimer(5 * MS);
        assertEquals(Outcome.TIMEOUT, d.outcome());
    }

    @Test
    void emptyRepliesAreVotesLikeAnyOther()
    {
        final ReplyConsolidator c = consolidator("mode=atomic");
        assertNull(c.onReply(1, new byte[0]));
        assertNull(c.onReply(2, new byte[0]));
        final Decision d = c.onReply(3, new byte[0]);
        assertEquals(Outcome.SUCCESS, d.outcome());
        assertEquals(0, d.reply().length);
    }

    @Test
    void theDeadlineIsComparedWrapSafely()
    {
        final long start = Long.MAX_VALUE - 2 * MS;
        final ReplyConsolidator c = new ReplyConsolidator(ConsolidationPolicy.parse("mode=atomic,timeout=5ms"), GROUP, start);
        assertNull(c.onTimer(start + 4 * MS), "4 ms after the start, across the wrap of nanoTime");
        assertEquals(Outcome.TIMEOUT, c.onTimer(start + 5 * MS).outcome());
    }

    @Test
    void anEvenGroupsMajorityNeedsMoreThanHalf()
    {
        final int[] four = {1, 2, 3, 4};
        final ReplyConsolidator c = new ReplyConsolidator(ConsolidationPolicy.parse("mode=first_consistent,consistency=majority"), four, 0);
        assertNull(c.onReply(1, A));
        assertNull(c.onReply(2, A), "2 of 4 is half, not a majority");
        assertEquals(Outcome.SUCCESS, c.onReply(3, A).outcome());
    }
}
