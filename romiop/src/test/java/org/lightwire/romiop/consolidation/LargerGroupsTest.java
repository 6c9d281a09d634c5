package org.lightwire.romiop.consolidation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every mode and consistency over groups of 4 and 5: each row feeds replies in order (member i+1
 * gives the i-th letter) and names the reply after which the call is decided, its outcome, the
 * chosen reply (or '-'), and a phrase its message must contain. A decision earlier or later than
 * the row says fails the test; replies after the decision are ignored.
 */
class LargerGroupsTest
{
    private static final long MS = 1_000_000L;

    @ParameterizedTest(name = "{0} over {1} members: {2}")
    @CsvSource(delimiter = '|', textBlock = """
        mode=atomic                                   | 4 | AAAA  | 4 | SUCCESS           | A | 4 of 4 members replied
        mode=atomic                                   | 4 | AAAB  | 4 | INCONSISTENT_VOTE | - | replies differ (all_same)
        mode=atomic,consistency=majority              | 5 | AABAB | 5 | SUCCESS           | A | 3 of 5 agree
        mode=atomic,consistency=majority              | 4 | AABB  | 4 | INCONSISTENT_VOTE | - | no reply has a majority of the 4 counted
        quorum=2,consistency=majority                 | 4 | ABCA  | 3 | INCONSISTENT_VOTE | - | majority consistency needs more than half
        quorum=2,consistency=majority                 | 4 | AA    | 2 | SUCCESS           | A | 2 of 4 members gave the same reply (quorum 2)
        quorum=2,consistency=majority                 | 4 | ABA   | 3 | SUCCESS           | A | 2 of 4 members gave the same reply
        quorum=2,consistency=majority                 | 5 | ABCDA | 4 | INCONSISTENT_VOTE | - | 1 agree (quorum 2 not met)
        quorum=3,consistency=majority                 | 5 | ABACA | 5 | SUCCESS           | A | 3 of 5 members gave the same reply (quorum 3)
        quorum=3                                      | 4 | ABAA  | 4 | SUCCESS           | A | 3 of 4 members gave the same reply
        quorum=3                                      | 4 | ABC   | 3 | INCONSISTENT_VOTE | - | no reply can reach a quorum of 3
        quorum=60%                                    | 5 | AABBC | 5 | INCONSISTENT_VOTE | - | no reply can reach a quorum of 3
        quorum=50%                                    | 4 | ABA   | 3 | SUCCESS           | A | quorum 2
        quorum=2,consistency=all_same                 | 4 | AB    | 2 | INCONSISTENT_VOTE | - | replies differ (all_same)
        quorum=2,consistency=all_different            | 5 | AB    | 2 | SUCCESS           | A | 2 of 5 members replied (quorum 2)
        mode=first_consistent,consistency=majority    | 4 | AAA   | 3 | SUCCESS           | A | 3 of 4 members gave the same reply, a majority of the group
        mode=first_consistent,consistency=majority    | 4 | ABAB  | 4 | INCONSISTENT_VOTE | - | no reply can reach a majority of 4 members
        mode=first_consistent,consistency=majority    | 4 | ABC   | 3 | INCONSISTENT_VOTE | - | no reply can reach a majority of 4 members
        mode=first_consistent,consistency=majority    | 5 | ABAA  | 4 | SUCCESS           | A | 3 of 5 members gave the same reply
        mode=first_consistent,consistency=all_same    | 4 | AAB   | 3 | INCONSISTENT_VOTE | - | replies differ (all_same)
        mode=first_consistent,consistency=all_same    | 5 | AAAAA | 5 | SUCCESS           | A | all 5 members gave the same reply
        mode=first_consistent,consistency=all_different | 4 | ABCD | 4 | SUCCESS          | A | all 4 members gave different replies
        mode=first_consistent,consistency=all_different | 5 | ABCB | 4 | INCONSISTENT_VOTE | - | two members gave the same reply
        mode=last                                     | 4 | ABCD  | 4 | SUCCESS           | D | all 4 members replied
        mode=last,consistency=majority                | 5 | AABAA | 5 | SUCCESS           | A | 4 of 5 agree
        mode=first                                    | 5 | B     | 1 | SUCCESS           | B | first reply, from member 1
        """)
    void decidesAtTheRightReplyWithTheRightOutcome(final String spec, final int size, final String replies, final int decidedAt,
        final String outcome, final String chosen, final String phrase)
    {
        final int[] members = new int[size];
        for (int i = 0; i < size; i++)
        {
            members[i] = i + 1;
        }
        final ReplyConsolidator c = new ReplyConsolidator(ConsolidationPolicy.parse(spec), members, 0);
        Decision d = null;
        for (int i = 0; i < replies.length(); i++)
        {
            final Decision now = c.onReply(i + 1, bytes(replies.charAt(i)));
            if (i + 1 == decidedAt)
            {
                d = now;
            }
            else
            {
                assertNull(now, "decided after reply " + (i + 1) + ": " + now);
            }
        }
        assertEquals(replies.length() - decidedAt, c.ignored(), "replies after the decision are ignored");
        assertEquals(Outcome.valueOf(outcome), d.outcome(), d.message());
        if (chosen.equals("-"))
        {
            assertNull(d.reply());
        }
        else
        {
            assertArrayEquals(bytes(chosen.charAt(0)), d.reply(), d.message());
        }
        assertEquals(true, d.message().contains(phrase), d.message());
    }

    @ParameterizedTest(name = "{0} over {1} members: {2} at the deadline")
    @CsvSource(delimiter = '|', textBlock = """
        quorum=2,consistency=majority | 5 | ABCA | INCONSISTENT_VOTE | 4 of 5 members replied within 10000 ms; 2 agree (quorum 2 met), but majority consistency needs more than half of the replies
        quorum=3                      | 5 | ABAC | INCONSISTENT_VOTE | 4 of 5 members replied within 10000 ms but fewer than 3 agree
        quorum=3                      | 5 | AB   | NO_QUORUM         | 2 of 5 members replied within 10000 ms; quorum 3 (quorum_count) not reached; missing: [3, 4, 5]
        mode=atomic                   | 4 | AAA  | NO_QUORUM         | 3 of 4 members replied within 10000 ms; quorum 4 (atomic) not reached; missing: [4]
        """)
    void theDeadlineDecidesWithWhatArrived(final String spec, final int size, final String replies, final String outcome,
        final String phrase)
    {
        final int[] members = new int[size];
        for (int i = 0; i < size; i++)
        {
            members[i] = i + 1;
        }
        final ReplyConsolidator c = new ReplyConsolidator(ConsolidationPolicy.parse(spec + ",timeout_ms=10000"), members, 0);
        for (int i = 0; i < replies.length(); i++)
        {
            assertNull(c.onReply(i + 1, bytes(replies.charAt(i))));
        }
        assertNull(c.onTimer(10_000 * MS - 1));
        final Decision d = c.onTimer(10_000 * MS);
        assertEquals(Outcome.valueOf(outcome), d.outcome(), d.message());
        assertEquals(true, d.message().contains(phrase), d.message());
    }

    private static byte[] bytes(final char c)
    {
        return String.valueOf(c).getBytes(StandardCharsets.US_ASCII);
    }
}
