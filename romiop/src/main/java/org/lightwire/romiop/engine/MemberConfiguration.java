package org.lightwire.romiop.engine;

import java.util.Arrays;
import java.util.function.Consumer;

import org.lightwire.romiop.engine.view.Configuration;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

/**
 * What one member knows of its group's configuration (docs/romiop.md, "Members and learners"):
 * the members whose acceptances commit and whose majority elects, fixed for the group's life;
 * whether it learns that configuration from its leader (a joiner configured with none), whether its
 * leader's LIST names it a learner, and the configuration a LIST named when it was not this
 * member's. Neither silence nor a leave nor an admission changes the configuration: members of
 * the view outside it are learners. A configuration that changed by itself would be unsafe: a
 * commit quorum of a grown configuration need not meet a majority of the old one.
 */
final class MemberConfiguration
{
    private final int selfId;
    private final int[] configuredIds;
    private final GroupCounters counters;
    private final Consumer<Configuration> changed;
    private Configuration current;
    /** Configured without itself among the members, and founded no group: it takes its leader's configuration. */
    private boolean learns;
    /** Our leader's LIST named us a learner although our configuration names us: we count for nothing. */
    private boolean toldLearner;
    /** The configuration our leader's last LIST named when it was not ours, or null. */
    private int[] mismatched;

    /**
     * @param configuredIds the members this one was configured with (none for a joiner that
     *     learns its leader's): a joiner counts the group it was configured with (a restarted
     *     replica's), since the views it hears name only who is in them, and a configuration
     *     learned from a minority's view would let it count commits against too few members.
     * @param changed told each new configuration (commit quorums and the lease count against it).
     */
    MemberConfiguration(final int selfId, final int[] configuredIds, final GroupCounters counters, final Consumer<Configuration> changed)
    {
        this.selfId = selfId;
        this.configuredIds = configuredIds.clone();
        this.counters = counters;
        this.changed = changed;
        this.current = of(configuredIds);
        this.learns = Arrays.stream(configuredIds).noneMatch(id -> id == selfId);
    }

    /** @return the members whose acceptances commit and whose majority elects, as this member knows them. */
    Configuration current()
    {
        return current;
    }

    /**
     * @return true when this member counts for commits and majorities, and may take over: it is in
     *     the configuration, which it did not learn as a joiner configured with none, and its
     *     leader does not name it a learner.
     */
    boolean voter()
    {
        return !learns && !toldLearner && current.contains(selfId);
    }

    /** @return the configuration the leader's last LIST named when it differed from ours, or null. */
    int[] mismatched()
    {
        return mismatched == null ? null : mismatched.clone();
    }

    /** @return true while it takes its leader's configuration (configured with none, founded nothing). */
    boolean learns()
    {
        return learns;
    }

    /** It founds a group of its own, of {@code ids}: that is its configuration, and it is no learner. */
    void found(final int[] ids)
    {
        set(of(ids));
        learns = false;
        toldLearner = false;
    }

    /**
     * Configured with none, it found its id in the configuration a LIST names ({@code listed}): it
     * takes that as its own, as a member configured with it would have.
     */
    void adopt(final int[] listed)
    {
        counters.configurationMismatches++;
        learns = false;
        set(Configuration.of(listed, new long[listed.length]));
    }

    /**
     * Our leader's configuration, {@code listed} by its {@code list} (its view's members unmarked,
     * and those outside it; a LIST may leave some of the latter out): a joiner configured with none
     * takes it. A member configured with one keeps its own (the group's, fixed). A LIST that names
     * a member outside it, marks as a learner a member it names, or marks this member a learner
     * shows members configured with different lists (`configurationMismatches`): majorities counted
     * against its own could miss the leader's commit quorums, so it counts for nothing.
     *
     * @param inView this member is in its view (it is named a learner only then).
     */
    void take(final int[] listed, final MemberChangeFlyweight list, final boolean inView)
    {
        if (learns)
        {
            toldLearner = false;
            set(Configuration.of(listed, new long[listed.length]));
            return;
        }
        toldLearner = Arrays.binarySearch(listed, selfId) < 0 && inView;
        boolean mismatch = toldLearner || Arrays.stream(listed).anyMatch(id -> !current.contains(id));
        for (int i = 0; i < list.listViewSize(); i++)
        {
            mismatch |= !list.listVoter(i) && current.contains(list.listMember(i));
        }
        if (mismatch)
        {
            mismatchedWith(listed);
        }
    }

    /** Another member's configuration is {@code listed}, not ours: we count for nothing (`configurationMismatches`). */
    void mismatchedWith(final int[] listed)
    {
        counters.configurationMismatches++;
        mismatched = listed;
        toldLearner = true;
    }

    /** @return the members of the configuration a LIST names (its view's unmarked entries and those outside it), ascending. */
    static int[] listed(final MemberChangeFlyweight list)
    {
        final int[] ids = new int[list.listSize()];
        int n = 0;
        for (int i = 0; i < ids.length; i++)
        {
            if (list.listVoter(i))
            {
                ids[n++] = list.listMember(i);
            }
        }
        final int[] listed = Arrays.copyOf(ids, n);
        Arrays.sort(listed);
        return listed;
    }

    /** @return true when {@code id} is a member of the configuration or a configured one (or this member). */
    boolean configured(final int id)
    {
        return Arrays.binarySearch(configuredGroup(), id) >= 0;
    }

    /** @return the configuration's members and the configured ones, ascending, this member included. */
    int[] configuredGroup()
    {
        final int[] conf = current.ids();
        final int[] all = Arrays.copyOf(conf, conf.length + configuredIds.length + 1);
        System.arraycopy(configuredIds, 0, all, conf.length, configuredIds.length);
        all[all.length - 1] = selfId;
        return Arrays.stream(all).distinct().sorted().toArray();
    }

    private void set(final Configuration c)
    {
        if (!c.equals(current))
        {
            current = c;
            changed.accept(c);
        }
    }

    /** @return a configuration of {@code ids} and this member (incarnations are not told yet). */
    private Configuration of(final int[] ids)
    {
        final int[] with = Arrays.stream(ids).anyMatch(id -> id == selfId) ? ids : MemberEngine.appended(ids, selfId);
        return Configuration.of(with, new long[with.length]);
    }
}
