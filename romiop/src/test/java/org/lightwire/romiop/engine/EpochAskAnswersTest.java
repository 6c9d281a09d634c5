package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;
import org.lightwire.romiop.protocol.PacketType;

class EpochAskAnswersTest
{
    private static final int SELF = 2;
    private static final int LEADER = 1;

    private final SentPackets sent = new SentPackets();
    private final GroupCounters counters = new GroupCounters();
    private final EpochPromise epochs = new EpochPromise(1, LEADER);
    private final MemberConfiguration configs = new MemberConfiguration(SELF, new int[] {1, 2, 3}, counters, c -> { });
    private boolean knows;
    private boolean awaits;
    private boolean forgot;

    private final EpochAskAnswers answers = new EpochAskAnswers(42, counters, new Outbox(new GroupConfig(SELF, LEADER, 1, 2, 3), sent),
        epochs, configs, new KnownIncarnations(), new EpochAskAnswers.Standing()
        {
            @Override
            public boolean knowsOfOrders()
            {
                return knows;
            }

            @Override
            public int leadingEpoch()
            {
                return 0;
            }

            @Override
            public long lastOrderSeq()
            {
                return 17;
            }

            @Override
            public boolean awaitsEpochs()
            {
                return awaits;
            }

            @Override
            public boolean forgotItsEpochs()
            {
                return forgot;
            }
        });

    /** @return the last EPOCH_TOLD sent, to {@code asker}. */
    private MemberChangeFlyweight told(final int asker)
    {
        final SentPackets.Sent last = sent.all.get(sent.all.size() - 1);
        assertEquals(PacketType.MEMBER_CHANGE, last.type());
        assertEquals(asker, last.to());
        final MemberChangeFlyweight f = new MemberChangeFlyweight();
        f.wrap(last.bytes(), 0);
        assertEquals(MemberChangeFlyweight.STATUS_EPOCH_TOLD, f.status());
        return f;
    }

    @Test
    void aMemberThatKnowsNothingPromisesANewFoundingCheckAndAnswersItsRepeatAlike()
    {
        answers.answer(LEADER, 77, 5, new int[] {1, 2, 3});
        MemberChangeFlyweight t = told(LEADER);
        assertEquals(77, t.member(0));
        assertEquals(5, t.member(1));
        assertEquals(0, t.member(2), "knows of no order");
        assertEquals(1, t.member(3), "same configuration");
        assertEquals(1, t.member(4), "promised to this ask");
        assertEquals(17, t.toldLastOrderSeq());
        assertEquals(42, t.toldIncarnation());
        assertEquals(5, epochs.promised());
        assertTrue(epochs.foundingPromised());
        knows = true;
        answers.answer(LEADER, 77, 5, new int[] {1, 2, 3});
        t = told(LEADER);
        assertEquals(1, t.member(4), "the repeat is told the promise again");
        assertEquals(1, t.member(2), "and what it knows now");
        answers.answer(LEADER, 78, 6, new int[] {1, 2, 3});
        t = told(LEADER);
        assertEquals(0, t.member(4), "another incarnation's check is promised nothing");
        assertEquals(5, t.member(1), "and told the epoch promised");
        assertEquals(3, counters.epochAsksAnswered);
    }

    @Test
    void aMemberWithAnotherConfigurationPromisesNothingAndCountsForNothing()
    {
        answers.answer(LEADER, 77, 5, new int[] {1, 2, 4});
        final MemberChangeFlyweight t = told(LEADER);
        assertEquals(0, t.member(3));
        assertEquals(0, t.member(4));
        assertEquals(0, epochs.promised());
        assertFalse(configs.voter());
        assertArrayEquals(new int[] {1, 2, 4}, configs.mismatched());
    }

    @Test
    void aRestartStillLearningPromisesNothingAndOneThatForgotTellsEpochZeroToARecoveryAsk()
    {
        awaits = true;
        answers.answer(LEADER, 77, 5, new int[] {1, 2, 3});
        assertEquals(0, told(LEADER).member(4));
        assertEquals(0, epochs.promised());
        epochs.promise(4, 3);
        answers.answer(3, 9, 0, new int[0]);
        assertEquals(4, told(3).member(1), "a recovery ask is told the newest epoch");
        forgot = true;
        answers.answer(3, 10, 0, new int[0]);
        assertEquals(0, told(3).member(1), "unless this process forgot its own");
    }
}
