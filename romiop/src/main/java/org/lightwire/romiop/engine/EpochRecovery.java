package org.lightwire.romiop.engine;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Viewstamped Replication's recovery, for a process that may have been restarted and so forgot
 * the epochs its earlier incarnation promised: it asks the members' epochs (EPOCH_ASK, with a
 * nonce of this ask) and asks to join only once n - m + 1 members of its configured group other
 * than itself answered (n members, m a majority). A majority that took a promise of the earlier
 * incarnation holds m - 1 others, so it meets any n - m + 1 of the n - 1 others: one of them told
 * that epoch, and the newest epoch told is taken as promised.
 */
final class EpochRecovery
{
    /** Each member whose answer counts toward learning, with the incarnation it answered from. */
    private final Map<Integer, Long> answered = new HashMap<>();
    /**
     * Each answerer to this ask that answered while leading and ordering in an epoch: that epoch
     * (the newest it told) and the highest last order it told for it.
     */
    private final Map<Integer, long[]> toldLeading = new HashMap<>();
    private int nonce;
    private int newestTold;
    private boolean learned;

    /** Starts a new ask at {@code nowNs}: a new nonce (an answer to an earlier ask is not this one's), nothing learned. */
    void restart(final long nowNs, final int selfId)
    {
        learned = false;
        answered.clear();
        toldLeading.clear();
        newestTold = 0;
        nonce = nonceFor(nowNs, selfId);
    }

    /** @return a nonzero nonce for an ask that {@code selfId} starts at {@code nowNs}. */
    static int nonceFor(final long nowNs, final int selfId)
    {
        final long mixed = (nowNs ^ (nowNs >>> 29) ^ ((long)selfId << 17)) * 0x9E3779B97F4A7C15L;
        return (int)(mixed >>> 32) | 1;
    }

    int nonce()
    {
        return nonce;
    }

    boolean learned()
    {
        return learned;
    }

    /** @return the newest epoch the answers told (unsigned; 0 before any). */
    int newestTold()
    {
        return newestTold;
    }

    /**
     * @return true when {@code id} answered this ask (before or after it learned, whatever epoch it
     *     told) while leading and ordering in {@code epoch} (any epoch for -1).
     */
    boolean answeredLeading(final int id, final long epoch)
    {
        final long[] told = toldLeading.get(id);
        return told != null && (epoch < 0 || told[0] == (epoch & 0xFFFF_FFFFL));
    }

    /** @return the last order {@code id} told this ask while leading {@code epoch} (0 for none). */
    long lastOrderSeqTold(final int id, final int epoch)
    {
        return answeredLeading(id, epoch & 0xFFFF_FFFFL) ? toldLeading.get(id)[1] : 0;
    }

    /**
     * Takes {@code from}'s answer ({@code toldNonce}, {@code toldEpoch}, the highest order number it
     * knows exists, {@code toldLastOrderSeq}, the incarnation it answered from, and the epoch it
     * leads and orders in, {@code toldLeadingEpoch}, 0 for none); answers to
     * another ask, from outside {@code group} (ascending, this process included), telling epoch 0
     * (a restarted process that forgot its own) or repeated count once or not at all. Answers
     * after it learned are still kept for what they told of the orders. Learning needs n - m + 1
     * answers from incarnations none newer than which is {@code known} (the answers merged into it
     * first): an answerer that restarted since may have forgotten that it answered (a takeover
     * would not hear of this ask from it).
     *
     * @return true when this answer completed what it needed to learn.
     */
    boolean answer(final int from, final int toldNonce, final int toldEpoch, final long toldLastOrderSeq, final long toldIncarnation,
        final int toldLeadingEpoch, final KnownIncarnations known, final int[] group)
    {
        if (toldNonce != nonce || Arrays.binarySearch(group, from) < 0)
        {
            return false;
        }
        // What a leader told of its orders stands whatever epoch it told: one that restarted and
        // has not learned its own epochs (a founding leader checking) tells epoch 0, and still
        // answered this ask with its last order.
        if (toldLeadingEpoch != 0)
        {
            final long leading = toldLeadingEpoch & 0xFFFF_FFFFL;
            final long[] told = toldLeading.get(from);
            if (told == null || leading > told[0])
            {
                toldLeading.put(from, new long[] {leading, toldLastOrderSeq});
            }
            else if (leading == told[0])
            {
                told[1] = Math.max(told[1], toldLastOrderSeq);
            }
        }
        if (learned || toldEpoch == 0)
        {
            // Epoch 0: a process that knows it restarted and forgot its own epochs; it cannot
            // stand for a member of the majority that took an earlier incarnation's promise.
            return false;
        }
        answered.merge(from, toldIncarnation, Math::max);
        if (Integer.compareUnsigned(toldEpoch, newestTold) > 0)
        {
            newestTold = toldEpoch;
        }
        final int majority = group.length / 2 + 1;
        final long current = answered.entrySet().stream().filter(e -> !known.older(e.getKey(), e.getValue())).count();
        learned = current >= group.length - majority + 1;
        return learned;
    }
}
