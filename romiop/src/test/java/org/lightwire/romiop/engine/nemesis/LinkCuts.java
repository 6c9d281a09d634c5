package org.lightwire.romiop.engine.nemesis;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.lightwire.romiop.engine.SimulatedGroupNetwork;

/**
 * The network's link filter under a nemesis: named cuts, each a set of blocked directed links
 * (from, to). A copy passes when no cut in force blocks its link. A partition blocks every link
 * between its sides both ways; a one-way failure blocks one direction only. Healing a cut lifts
 * exactly its links, so cuts may overlap.
 */
final class LinkCuts implements SimulatedGroupNetwork.LinkFilter
{
    private final Map<String, Set<Long>> cuts = new TreeMap<>();

    @Override
    public boolean passes(final int from, final int to)
    {
        if (cuts.isEmpty())
        {
            return true;
        }
        final long link = link(from, to);
        for (final Set<Long> cut : cuts.values())
        {
            if (cut.contains(link))
            {
                return false;
            }
        }
        return true;
    }

    /** Blocks {@code from -> to} only; {@code to -> from} still carries packets. */
    void cutOneWay(final String name, final int from, final int to)
    {
        cuts.computeIfAbsent(name, n -> new HashSet<>()).add(link(from, to));
    }

    /** Blocks every link between nodes on different sides, both ways; links inside a side work. */
    void partition(final String name, final List<? extends Collection<Integer>> sides)
    {
        final Set<Long> blocked = cuts.computeIfAbsent(name, n -> new HashSet<>());
        for (int a = 0; a < sides.size(); a++)
        {
            for (int b = 0; b < sides.size(); b++)
            {
                if (a != b)
                {
                    for (final int from : sides.get(a))
                    {
                        for (final int to : sides.get(b))
                        {
                            blocked.add(link(from, to));
                        }
                    }
                }
            }
        }
    }

    /** @return true when the cut was in force. */
    boolean heal(final String name)
    {
        return cuts.remove(name) != null;
    }

    void healAll()
    {
        cuts.clear();
    }

    boolean isCut(final String name)
    {
        return cuts.containsKey(name);
    }

    int cutsInForce()
    {
        return cuts.size();
    }

    private static long link(final int from, final int to)
    {
        return ((long)from << 32) | (to & 0xFFFF_FFFFL);
    }
}
