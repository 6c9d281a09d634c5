package org.lightwire.romiop.engine.view;

import java.util.Arrays;
import java.util.function.IntPredicate;

/**
 * A group's configuration: its members, each an id and the incarnation (a random number a member
 * process draws when it starts) that holds it, ascending by id. Immutable. A majority of it is
 * {@link #quorum()} members. A group's configuration never changes (docs/romiop.md, "Members and
 * learners"): two configurations' majorities need not meet.
 */
public final class Configuration
{
    private final int[] ids;
    private final long[] incarnations;

    private Configuration(final int[] ids, final long[] incarnations)
    {
        this.ids = ids;
        this.incarnations = incarnations;
    }

    /**
     * @param ids member ids, in any order, no repeats.
     * @param incarnations each member's incarnation, in the same order as {@code ids}.
     */
    public static Configuration of(final int[] ids, final long[] incarnations)
    {
        if (ids.length != incarnations.length || ids.length == 0)
        {
            throw new IllegalArgumentException("a configuration needs one incarnation per member and at least one member: "
                + Arrays.toString(ids) + " " + Arrays.toString(incarnations));
        }
        final Integer[] order = new Integer[ids.length];
        for (int i = 0; i < order.length; i++)
        {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Integer.compare(ids[a], ids[b]));
        final int[] sortedIds = new int[ids.length];
        final long[] sortedIncarnations = new long[ids.length];
        for (int i = 0; i < order.length; i++)
        {
            sortedIds[i] = ids[order[i]];
            sortedIncarnations[i] = incarnations[order[i]];
            if (i > 0 && sortedIds[i] == sortedIds[i - 1])
            {
                throw new IllegalArgumentException("member " + sortedIds[i] + " is listed twice: " + Arrays.toString(ids));
            }
        }
        return new Configuration(sortedIds, sortedIncarnations);
    }

    public int size()
    {
        return ids.length;
    }

    /** @return the members a majority needs: more than half. */
    public int quorum()
    {
        return ids.length / 2 + 1;
    }

    /**
     * @return how many members, the leader included, must hold an order for it to be committed:
     *     {@code size - quorum + 1}, the fewest that every majority meets (Flexible Paxos). Every
     *     view change hears a majority, so it learns every committed order. One member in groups
     *     of one and two, two in groups of three and four, three in five and six.
     */
    public int commitQuorum()
    {
        return size() - quorum() + 1;
    }

    public boolean contains(final int id)
    {
        return Arrays.binarySearch(ids, id) >= 0;
    }

    /** @return true when {@code id} is a member held by exactly this incarnation. */
    public boolean contains(final int id, final long incarnation)
    {
        final int at = Arrays.binarySearch(ids, id);
        return at >= 0 && incarnations[at] == incarnation;
    }

    /** @throws IllegalArgumentException when {@code id} is not a member. */
    public long incarnation(final int id)
    {
        final int at = Arrays.binarySearch(ids, id);
        if (at < 0)
        {
            throw new IllegalArgumentException(id + " is not a member of " + this);
        }
        return incarnations[at];
    }

    /** @return the id of the member at {@code index}, ascending by id. */
    public int id(final int index)
    {
        return ids[index];
    }

    /** @return the incarnation of the member at {@code index}. */
    public long incarnationAt(final int index)
    {
        return incarnations[index];
    }

    /** @return the member ids, ascending (a copy). */
    public int[] ids()
    {
        return ids.clone();
    }

    /** @return the members for which {@code test} holds. */
    public int count(final IntPredicate test)
    {
        int n = 0;
        for (final int id : ids)
        {
            n += test.test(id) ? 1 : 0;
        }
        return n;
    }

    /** @return true when the members for which {@code test} holds are a majority. */
    public boolean isQuorum(final IntPredicate test)
    {
        return count(test) >= quorum();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Configuration c && Arrays.equals(ids, c.ids) && Arrays.equals(incarnations, c.incarnations);
    }

    @Override
    public int hashCode()
    {
        return 31 * Arrays.hashCode(ids) + Arrays.hashCode(incarnations);
    }

    /** @return e.g. {@code [1/3f2a, 2/9c01, 3/77]}: id and incarnation (hexadecimal) of each member. */
    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < ids.length; i++)
        {
            sb.append(i == 0 ? "" : ", ").append(ids[i]).append('/').append(Long.toHexString(incarnations[i]));
        }
        return sb.append(']').toString();
    }
}
