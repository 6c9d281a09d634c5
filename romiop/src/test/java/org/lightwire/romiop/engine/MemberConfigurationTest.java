package org.lightwire.romiop.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.lightwire.romiop.engine.view.Configuration;
import org.lightwire.romiop.protocol.MemberChangeFlyweight;

class MemberConfigurationTest
{
    private final GroupCounters counters = new GroupCounters();
    private final List<Configuration> changes = new ArrayList<>();

    /** A LIST from leader {@code entries[0]}: raw entries, flags included. */
    private static MemberChangeFlyweight list(final int... entries)
    {
        final MemberChangeFlyweight f = new MemberChangeFlyweight();
        f.wrap(ByteBuffer.allocate(MemberChangeFlyweight.listLength(entries.length)), 0);
        f.setList(ByteOrder.BIG_ENDIAN, entries[0], 1, entries[0], entries.length, 1);
        for (int i = 0; i < entries.length; i++)
        {
            f.member(i, entries[i]);
        }
        return f;
    }

    @Test
    void aConfiguredMemberVotesAndKeepsItsConfigurationAgainstAMatchingList()
    {
        final MemberConfiguration c = new MemberConfiguration(2, new int[] {3, 1, 2}, counters, changes::add);
        assertTrue(c.voter());
        assertFalse(c.learns());
        final MemberChangeFlyweight l = list(1, 2, 3);
        c.take(MemberConfiguration.listed(l), l, true);
        assertTrue(c.voter());
        assertEquals(0, counters.configurationMismatches);
        assertNull(c.mismatched());
        assertTrue(changes.isEmpty());
    }

    @Test
    void aListNamingAMemberOutsideOurConfigurationMakesUsCountForNothing()
    {
        final MemberConfiguration c = new MemberConfiguration(2, new int[] {1, 2, 3}, counters, changes::add);
        final MemberChangeFlyweight l = list(1, 2, 3, 4 | MemberChangeFlyweight.OUTSIDE_VIEW);
        c.take(MemberConfiguration.listed(l), l, true);
        assertFalse(c.voter());
        assertEquals(1, counters.configurationMismatches);
        assertArrayEquals(new int[] {1, 2, 3, 4}, c.mismatched());
        assertArrayEquals(new int[] {1, 2, 3}, c.current().ids(), "its own configuration is kept");
    }

    @Test
    void aListMarkingUsOrAMemberOfOursALearnerIsAMismatch()
    {
        final MemberConfiguration c = new MemberConfiguration(2, new int[] {1, 2, 3}, counters, changes::add);
        final MemberChangeFlyweight l = list(1, 2 | MemberChangeFlyweight.LEARNER, 3);
        final int[] listed = MemberConfiguration.listed(l);
        assertArrayEquals(new int[] {1, 3}, listed);
        c.take(listed, l, true);
        assertFalse(c.voter());
        assertEquals(1, counters.configurationMismatches);
        final MemberConfiguration other = new MemberConfiguration(2, new int[] {1, 2, 3}, counters, changes::add);
        final MemberChangeFlyweight m = list(1, 2, 3 | MemberChangeFlyweight.LEARNER);
        other.take(MemberConfiguration.listed(m), m, true);
        assertFalse(other.voter());
        assertEquals(2, counters.configurationMismatches);
    }

    @Test
    void aJoinerConfiguredWithNoneLearnsItsLeadersConfigurationAsALearner()
    {
        final MemberConfiguration c = new MemberConfiguration(9, new int[0], counters, changes::add);
        assertTrue(c.learns());
        assertFalse(c.voter());
        assertArrayEquals(new int[] {9}, c.current().ids());
        final MemberChangeFlyweight l = list(1, 2, 9 | MemberChangeFlyweight.LEARNER);
        c.take(MemberConfiguration.listed(l), l, true);
        assertArrayEquals(new int[] {1, 2}, c.current().ids());
        assertEquals(1, changes.size());
        assertFalse(c.voter());
        assertEquals(0, counters.configurationMismatches);
    }

    @Test
    void aJoinerFindingItsIdInTheConfigurationAdoptsIt()
    {
        final MemberConfiguration c = new MemberConfiguration(2, new int[0], counters, changes::add);
        c.adopt(new int[] {1, 2, 3});
        assertFalse(c.learns());
        assertTrue(c.voter());
        assertEquals(1, counters.configurationMismatches);
        assertArrayEquals(new int[] {1, 2, 3}, changes.get(0).ids());
    }

    @Test
    void foundingAGroupMakesItsViewTheConfigurationAndClearsALearnersMark()
    {
        final MemberConfiguration c = new MemberConfiguration(5, new int[0], counters, changes::add);
        c.mismatchedWith(new int[] {1});
        c.found(new int[] {5});
        assertTrue(c.voter());
        assertArrayEquals(new int[] {5}, c.current().ids());
        assertTrue(changes.isEmpty(), "the same configuration it had: no change told");
        c.found(new int[] {4});
        assertArrayEquals(new int[] {4, 5}, c.current().ids(), "itself always included");
        assertEquals(1, changes.size());
    }

    @Test
    void theConfiguredGroupJoinsTheConfigurationTheConfiguredIdsAndItself()
    {
        final MemberConfiguration c = new MemberConfiguration(7, new int[] {1, 2}, counters, changes::add);
        assertArrayEquals(new int[] {1, 2, 7}, c.configuredGroup());
        assertTrue(c.configured(7));
        assertTrue(c.configured(1));
        assertFalse(c.configured(3));
    }
}
