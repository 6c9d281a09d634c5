package org.lightwire.romiop.engine;

import java.util.Arrays;

/**
 * A leader's notice (ViewChange UNAVAILABLE) that the majority of its view is not present, so it
 * orders nothing: the leader's lease (docs/notes/romiop-views.md, section 5).
 *
 * @param leaderId   the member that sent it.
 * @param epoch      the view it leads.
 * @param memberIds  the members of that view's configuration, ascending.
 * @param presentIds those of them the leader heard within the KeepAlive timeout (itself included), ascending.
 * @param quorum     how many present members a majority needs.
 */
public record Unavailability(int leaderId, int epoch, int[] memberIds, int[] presentIds, int quorum)
{
    /** @return e.g. "epoch 1, members present [1] of [1, 2, 3], a majority needs 2". */
    public String describe()
    {
        return "epoch " + Integer.toUnsignedString(epoch) + ", members present " + Arrays.toString(presentIds) + " of " +
            Arrays.toString(memberIds) + ", a majority needs " + quorum;
    }

    @Override
    public String toString()
    {
        return "Unavailability{leader=" + leaderId + ", " + describe() + '}';
    }
}
